//go:build unix

// Package scaleout runs one Lua MCP server as three `luagent serve --http`
// replicas behind nginx (plain round-robin) and drives them with a
// 2026-07-28 luagent client: stateless requests, SSE answers and
// input_required rounds whose signed requestState is made by one replica and
// checked by another. See README.md beside this file.
package scaleout

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// SkipEnv names the environment variable that turns a missing nginx into a
// skip instead of a failure (as LUAGENT_SKIP_PEERS does for the npm peers).
const SkipEnv = "LUAGENT_SKIP_NGINX"

const (
	calls   = 1000 // tool calls through the proxy: odd ones add, even ones ask2
	workers = 8    // client tasks calling at once
)

func TestScaleOut(t *testing.T) {
	nginx := findNginx(t)
	bin := buildLuagent(t)
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(testdata, "server.lua")
	key := randomKey(t)

	var replicas []*replica
	for _, name := range []string{"r1", "r2", "r3"} {
		replicas = append(replicas, startReplica(t, bin, server, name, key))
	}
	// r4 signs with a key of its own: the control that shows the replicas
	// really check requestState (and that sharing the key is what lets the
	// main run pass).
	foreign := startReplica(t, bin, server, "r4", randomKey(t))

	px := startNginx(t, nginx, map[string][]*replica{
		"shared": replicas,
		"mixed":  {replicas[0], foreign},
	})

	start := time.Now()
	lines := runClient(t, bin, testdata, px.url["shared"], calls, workers)
	t.Logf("%d calls on %d tasks through nginx in %v", calls, workers, time.Since(start).Round(time.Millisecond))

	checkResults(t, lines, replicas)
	checkAccessLog(t, px.accessLog("shared"), replicas)

	t.Run("ForeignKeyRefused", func(t *testing.T) {
		// One task through {r1, r4}: every request goes to the other
		// replica than the one before, so each ask2 retry carries a state
		// signed with the other key.
		lines := runClient(t, bin, testdata, px.url["mixed"], 4, 1)
		for _, l := range lines {
			if l.Summary || l.Era != "" {
				continue
			}
			if l.Error != "" {
				t.Logf("call %d: %s", l.I, l.Error)
			}
			switch {
			case l.I%2 == 1 && (l.Error != "" || l.Result.Sum != 3*l.I):
				t.Errorf("call %d (add): %+v", l.I, l)
			case l.I%2 == 0 && !strings.Contains(l.Error, "requestState is not valid"):
				t.Errorf("call %d (ask2) across two keys: got %+v, want the requestState refused", l.I, l)
			}
		}
	})

	// Replicas stop gracefully; a race-built replica that saw a data race
	// exits non-zero and says so on stderr.
	for _, r := range append(replicas, foreign) {
		if err := r.stop(); err != nil {
			t.Errorf("replica %s: %v\n%s", r.name, err, r.stderr.String())
		} else if strings.Contains(r.stderr.String(), "DATA RACE") {
			t.Errorf("replica %s reported a data race:\n%s", r.name, r.stderr.String())
		}
	}
	px.checkErrorLog(t)
}

// line is one line of the client's output.
type line struct {
	I      int    `json:"i"`
	Tool   string `json:"tool"`
	Error  string `json:"error"`
	Result struct {
		Replica string `json:"replica"`
		Sum     int    `json:"sum"`
		N       int    `json:"n"`
		X       int    `json:"x"`
		Y       int    `json:"y"`
	} `json:"result"`
	AskedFirst  string `json:"asked_first"`
	AskedSecond string `json:"asked_second"`

	Era      string `json:"era"`
	Protocol string `json:"protocol"`

	Summary   bool    `json:"summary"`
	Progress  int     `json:"progress"`
	Elicits   int     `json:"elicits"`
	StreamGap float64 `json:"stream_gap"` // seconds between the stream tool's progress and its result
}

// checkResults asserts that every call came back once and right, and that
// the rounds of the elicitation calls landed on different replicas.
func checkResults(t *testing.T, lines []line, replicas []*replica) {
	t.Helper()
	names := map[string]bool{}
	for _, r := range replicas {
		names[r.name] = true
	}
	seen := map[int]bool{}
	finals := map[string]int{}   // replica -> calls it answered
	pairs := map[[2]string]int{} // (signed by, checked by) -> ask2 calls
	chains := 0                  // ask2 calls whose three rounds met three replicas
	var summary *line
	for i := range lines {
		l := &lines[i]
		switch {
		case l.Summary:
			summary = l
			continue
		case l.Era != "":
			if l.Era != "modern" || l.Protocol != "2026-07-28" {
				t.Errorf("the client negotiated %s %s, want modern 2026-07-28", l.Era, l.Protocol)
			}
			continue
		}
		if l.I < 1 || l.I > calls || seen[l.I] {
			t.Errorf("unexpected or repeated call %d", l.I)
			continue
		}
		seen[l.I] = true
		if l.Error != "" {
			t.Errorf("call %d failed: %s", l.I, l.Error)
			continue
		}
		r := l.Result
		if !names[r.Replica] {
			t.Errorf("call %d answered by unknown replica %q", l.I, r.Replica)
		}
		finals[r.Replica]++
		if l.I%2 == 1 {
			if l.Tool != "add" || r.Sum != 3*l.I {
				t.Errorf("call %d: add(%d, %d) gave %+v", l.I, l.I, 2*l.I, l)
			}
			continue
		}
		// x reached the last round only inside the requestState signed by
		// the replica that asked the second question.
		if l.Tool != "ask2" || r.N != l.I || r.X != 7*l.I || r.Y != 11*l.I || r.Sum != 18*l.I {
			t.Errorf("call %d: ask2 gave %+v", l.I, l)
			continue
		}
		if !names[l.AskedFirst] || !names[l.AskedSecond] {
			t.Errorf("call %d: questions asked by %q and %q", l.I, l.AskedFirst, l.AskedSecond)
			continue
		}
		pairs[[2]string{l.AskedSecond, r.Replica}]++
		if l.AskedFirst != l.AskedSecond && l.AskedSecond != r.Replica && l.AskedFirst != r.Replica {
			chains++
		}
	}
	if len(seen) != calls {
		t.Errorf("%d of %d calls came back", len(seen), calls)
	}
	if summary == nil {
		t.Fatal("the client printed no summary")
	}
	// Every add answered over SSE with its progress first; every ask2 asked
	// two questions.
	if summary.Progress != calls/2 || summary.Elicits != calls {
		t.Errorf("progress notifications %d (want %d), elicitations %d (want %d)", summary.Progress, calls/2, summary.Elicits, calls)
	}
	// The stream tool's progress is sent 1 s before its result: an SSE
	// stream held back on the way (unflushed by the replica, buffered by
	// the proxy) would deliver both at once.
	t.Logf("SSE through nginx: progress %.3f s before the result (the server waits 1 s)", summary.StreamGap)
	if summary.StreamGap < 0.5 {
		t.Errorf("the stream tool's progress came %.3f s before its result, want about 1 s: the SSE stream was held back on its way", summary.StreamGap)
	}

	cross := 0
	var ps []string
	for p, n := range pairs {
		if p[0] != p[1] {
			cross += n
		}
		ps = append(ps, fmt.Sprintf("%s->%s:%d", p[0], p[1], n))
	}
	sort.Strings(ps)
	t.Logf("calls answered per replica: %v", finals)
	t.Logf("ask2 calls by (replica that signed the last requestState -> replica that checked it): %s", strings.Join(ps, " "))
	t.Logf("ask2 calls whose state was checked by another replica: %d of %d; rounds on three different replicas: %d", cross, calls/2, chains)
	for n := range names {
		if finals[n] == 0 {
			t.Errorf("replica %s answered no call", n)
		}
		for m := range names {
			if n != m && pairs[[2]string{n, m}] == 0 {
				t.Errorf("no requestState signed by %s was checked by %s", n, m)
			}
		}
	}
	// Round-robin under 8 tasks sends about 2/3 of the retries elsewhere;
	// 1/5 is far below anything chance makes.
	if cross < calls/2/5 {
		t.Errorf("only %d of %d ask2 calls had their state checked by another replica", cross, calls/2)
	}
}

// checkAccessLog counts what nginx sent to each replica: every tools/call
// round (one per add, three per ask2) answered 200, spread evenly.
func checkAccessLog(t *testing.T, path string, replicas []*replica) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	byAddr := map[string]string{} // upstream address -> replica name
	for _, r := range replicas {
		byAddr[r.addr] = r.name
	}
	per := map[string]map[string]int{} // replica -> method -> requests
	rounds := 0                        // tools/call requests
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l) // $upstream_addr $status $http_mcp_method $http_mcp_name
		if len(f) != 4 {
			t.Errorf("access log line %q", l)
			continue
		}
		name, ok := byAddr[f[0]]
		if !ok {
			t.Errorf("nginx did not pass a request to a replica: %s", l)
			continue
		}
		if f[1] != "200" {
			t.Errorf("nginx answered %s: %s", f[1], l)
		}
		if per[name] == nil {
			per[name] = map[string]int{}
		}
		per[name][f[2]]++
		if f[2] == "tools/call" {
			rounds++
		}
	}
	if want := calls/2 + 3*calls/2 + 1; rounds != want { // every add once, every ask2 three times, stream once
		t.Errorf("nginx passed on %d tools/call requests, want %d", rounds, want)
	}
	for _, r := range replicas {
		t.Logf("nginx -> %s (%s): %v", r.name, r.addr, per[r.name])
		if n := per[r.name]["tools/call"]; n < rounds/3-rounds/20 {
			t.Errorf("replica %s got %d of %d tools/call requests", r.name, n, rounds)
		}
	}
}

// --- luagent

// buildLuagent builds cmd/luagent, with -race when this test is (so the
// replicas are checked for data races under load).
func buildLuagent(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return testkit.Build(t, "cmd/luagent")
	}
	testkit.QuickRaceExit()
	out := filepath.Join(t.TempDir(), "luagent")
	cmd := exec.Command("go", "build", "-race", "-o", out, "./cmd/luagent")
	cmd.Dir = testkit.Root()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building luagent -race: %v\n%s", err, msg)
	}
	return out
}

func randomKey(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// luagentEnv is the environment of a luagent process: this one's without
// LUAGENT_* and LUA_PATH, a fresh LUAGENT_HOME, and extra. A race-built
// luagent exits without the race runtime's default 1 s pause.
func luagentEnv(t *testing.T, extra ...string) []string {
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	env := []string{"LUAGENT_HOME=" + t.TempDir(), "LUA_PATH=", "GORACE=" + gorace}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LUAGENT_") && !strings.HasPrefix(kv, "LUA_PATH=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

type replica struct {
	name, addr string // addr is host:port
	cmd        *exec.Cmd
	stderr     *testkit.Buffer
	exited     chan struct{}
	drained    chan struct{} // closed when all of stderr is in the buffer
	once       sync.Once
	err        error
}

var listening = regexp.MustCompile(` at http://([0-9.]+:[0-9]+)/mcp`)

// startReplica runs `luagent serve server --http 127.0.0.1:0/mcp` with
// REPLICA=name and LUAGENT_STATE_KEY=key and waits until it listens.
func startReplica(t *testing.T, bin, server, name, key string) *replica {
	t.Helper()
	r := &replica{name: name, stderr: &testkit.Buffer{}, exited: make(chan struct{}), drained: make(chan struct{})}
	r.cmd = exec.Command(bin, "serve", server, "--http", "127.0.0.1:0/mcp")
	r.cmd.Env = luagentEnv(t, "REPLICA="+name, "LUAGENT_STATE_KEY="+key)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = pw
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() { r.err = r.cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() { r.stop() })

	addrs := make(chan string, 1)
	go func() {
		defer close(r.drained)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			r.stderr.WriteString(sc.Text() + "\n")
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
	}()
	select {
	case r.addr = <-addrs:
		return r
	case <-r.exited:
		t.Fatalf("replica %s exited before listening: %v\n%s", name, r.err, r.stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("replica %s did not start listening:\n%s", name, r.stderr.String())
	}
	return nil
}

// stop sends SIGTERM (requests in flight finish), then SIGKILL after 10 s,
// and returns how the replica exited once its stderr is all read.
func (r *replica) stop() error {
	r.once.Do(func() {
		r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
		case <-time.After(10 * time.Second):
			r.cmd.Process.Kill()
			<-r.exited
			r.err = fmt.Errorf("did not stop within 10 s of SIGTERM (killed): %v", r.err)
		}
		select {
		case <-r.drained:
		case <-time.After(5 * time.Second):
		}
	})
	return r.err
}

// runClient runs testdata/client.lua against url and decodes its lines.
func runClient(t *testing.T, bin, testdata, url string, total, tasks int) []line {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", filepath.Join(testdata, "client.lua"), url, strconv.Itoa(total), strconv.Itoa(tasks))
	cmd.Env = luagentEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nstdout (tail):\n%s", err, stderr.String(), tail(stdout.String(), 20))
	}
	var lines []line
	for _, s := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("client printed %q: %v", s, err)
		}
		lines = append(lines, l)
	}
	if strings.TrimSpace(stderr.String()) != "" {
		t.Logf("client stderr:\n%s", stderr.String())
	}
	return lines
}

func tail(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// --- nginx

// findNginx returns the nginx binary, failing (or skipping with
// LUAGENT_SKIP_NGINX=1) when it is not installed.
func findNginx(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("nginx")
	if err != nil {
		// Debian installs it in /usr/sbin, off a normal user's PATH.
		if _, serr := os.Stat("/usr/sbin/nginx"); serr == nil {
			return "/usr/sbin/nginx"
		}
		if os.Getenv(SkipEnv) == "1" {
			t.Skipf("nginx is not installed (%s=1)", SkipEnv)
		}
		t.Fatalf("nginx is not installed: run make nginx (make test does), or set %s=1 to skip", SkipEnv)
	}
	return path
}

type proxy struct {
	dir string
	url map[string]string // upstream name -> endpoint URL
}

func (p *proxy) accessLog(upstream string) string {
	return filepath.Join(p.dir, "access-"+upstream+".log")
}

// The nginx configuration: for each upstream, a server block on its own port
// that round-robins every request over the upstream's replicas, HTTP/1.1
// with keep-alive to them, unbuffered (SSE streams pass as written). Host
// is passed on: luagent refuses non-loopback Host names (DNS rebinding), and
// the upstream's name is not one.
const confHead = `# written by scripts/scaleout
{{user}}worker_processes 1;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 512; }
http {
  client_body_temp_path {{dir}}/client_body;
  proxy_temp_path {{dir}}/proxy;
  fastcgi_temp_path {{dir}}/fastcgi;
  uwsgi_temp_path {{dir}}/uwsgi;
  scgi_temp_path {{dir}}/scgi;
  log_format upstreams '$upstream_addr $status $http_mcp_method $http_mcp_name';
`

const confUpstream = `
  upstream {{name}} {
{{servers}}    keepalive 16;
  }
  server {
    listen 127.0.0.1:{{port}};
    access_log {{dir}}/access-{{name}}.log upstreams;
    location /mcp {
      proxy_pass http://{{name}};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
    }
  }
`

// startNginx runs nginx in the foreground as the current user, everything
// it writes under a temporary directory, and waits until it listens.
func startNginx(t *testing.T, nginx string, upstreams map[string][]*replica) *proxy {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := tryNginx(t, nginx, upstreams)
		if err == nil {
			return p
		}
		// A free port picked here may be taken before nginx binds it.
		if attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			t.Fatal(err)
		}
	}
}

func tryNginx(t *testing.T, nginx string, upstreams map[string][]*replica) (*proxy, error) {
	p := &proxy{dir: t.TempDir(), url: map[string]string{}}
	user := ""
	if os.Geteuid() == 0 {
		// Workers would otherwise run as nobody, who cannot write the
		// temporary directory.
		user = "user root;\n"
	}
	conf := strings.NewReplacer("{{dir}}", p.dir, "{{user}}", user).Replace(confHead)
	var names []string
	for name := range upstreams {
		names = append(names, name)
	}
	sort.Strings(names)
	var ports []int
	for _, name := range names {
		var servers strings.Builder
		for _, r := range upstreams[name] {
			fmt.Fprintf(&servers, "    server %s;\n", r.addr)
		}
		port := freePort(t)
		ports = append(ports, port)
		p.url[name] = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		conf += strings.NewReplacer("{{dir}}", p.dir, "{{name}}", name, "{{port}}", strconv.Itoa(port),
			"{{servers}}", servers.String()).Replace(confUpstream)
	}
	conf += "}\n"
	confPath := filepath.Join(p.dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(nginx, "-p", p.dir, "-c", confPath, "-e", filepath.Join(p.dir, "error.log"), "-g", "daemon off;")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers go with it
	var out testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}

	deadline := time.Now().Add(10 * time.Second)
	for _, port := range ports {
		for {
			c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				log, _ := os.ReadFile(filepath.Join(p.dir, "error.log"))
				return nil, fmt.Errorf("nginx exited: %s%s\nconfiguration:\n%s", out.String(), log, conf)
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				stop()
				return nil, errors.New("nginx did not listen within 10 s:\n" + out.String())
			}
		}
	}
	t.Cleanup(stop)
	if v, err := exec.Command(nginx, "-v").CombinedOutput(); err == nil {
		t.Logf("%s; configuration in %s:\n%s", strings.TrimSpace(string(v)), confPath, conf)
	}
	return p, nil
}

// checkErrorLog fails on anything nginx logged at level error or worse
// (an upstream closing early, a bad header, a broken stream).
func (p *proxy) checkErrorLog(t *testing.T) {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(p.dir, "error.log"))
	for _, l := range strings.Split(string(data), "\n") {
		for _, level := range []string{"[error]", "[crit]", "[alert]", "[emerg]"} {
			if strings.Contains(l, level) {
				t.Errorf("nginx: %s", l)
			}
		}
		if strings.Contains(l, "[warn]") {
			t.Logf("nginx: %s", l)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
