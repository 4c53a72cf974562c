package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// The /mcp manager under a pseudo-terminal: the real binary, the mock
// model and real servers (chatHome's srv and the gated slow server, run
// by luagent serve). The manager draws a full screen with cursor moves
// and partial redraws, so the test keeps a small terminal emulator (vt)
// fed with the output and reads the screen it shows.

// mgrTTY is a tty whose output also drives a screen.
type mgrTTY struct {
	*tty
	vt  *vt
	fed int
}

// screen is the terminal's screen now: its lines, right-trimmed.
func (m *mgrTTY) screen() string {
	out := m.output()
	m.vt.feed([]byte(out[m.fed:]))
	m.fed = len(out)
	return m.vt.text()
}

// waitScreen waits until the screen shows every string of want at once;
// each is matched against the screen's lines with their runs of blanks
// folded to one (the manager's columns), or as is when it spans lines.
func (m *mgrTTY) waitScreen(want ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := m.screen()
		folded := foldBlanks(s)
		missing := ""
		for _, w := range want {
			if !strings.Contains(folded, foldBlanks(w)) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("timed out waiting for %q on the screen:\n%s", missing, s)
		}
		time.Sleep(10 * time.Millisecond) // polls the output; the deadline bounds it
	}
}

// waitGone waits until no line of the screen contains s.
func (m *mgrTTY) waitGone(s string) {
	m.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Contains(foldBlanks(m.screen()), foldBlanks(s)) {
		if time.Now().After(deadline) {
			m.t.Fatalf("%q stayed on the screen:\n%s", s, m.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func foldBlanks(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// catalogServers reads the catalog file's mcpServers as JSON values.
func catalogServers(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Servers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("the catalog does not parse: %v\n%s", err, b)
	}
	return cfg.Servers
}

func TestTTYChatMCPManager(t *testing.T) {
	home, gate, _ := chatHome(t)
	os.WriteFile(gate, nil, 0o600)
	tt := &mgrTTY{tty: startTTY(t, home, "chat"), vt: newVT(120, 40)}
	m := tt.wait(0, "[2/2 servers ready]")

	// The list: both servers, ready, with transport and tool count.
	tt.send("/mcp\r")
	s := tt.waitScreen("MCP servers — 2/2 servers ready", "NAME STATUS TRANSPORT TOOLS",
		"› slow ● ready stdio 1", "srv ● ready stdio 4", "enter inspect · a add · r reload")
	if os.Getenv("CHAT_DUMP") != "" { // the text captures of stdlib/doc/chat.md
		t.Logf("list:\n%s", s)
	}

	// Inspect srv: its tools (the hub's order), the selected one's schema,
	// env keys only.
	tt.send("j\r")
	tt.waitScreen("MCP server srv", "● ready stdio · modern era · server srv 1.0.0",
		"env SRV_TOKEN (values hidden)", "Tools (4)", "› count [read-only]", "Count to three with progress",
		"input: no arguments", "echo [read-only]", "write", "Prompts (2)", "greet(who*, tone)")
	tt.send("j")
	s = tt.waitScreen("› echo [read-only]", "Echo a message", "input schema:", "message string required")
	if os.Getenv("CHAT_DUMP") != "" {
		t.Logf("inspect:\n%s", s)
	}
	tt.send("jj")
	tt.waitScreen("› write", "Write a note", "text string")
	if strings.Contains(tt.screen(), "Echo a message") {
		t.Errorf("echo's schema stays open with write selected:\n%s", tt.screen())
	}
	tt.send("\x1b")
	tt.waitScreen("MCP servers — 2/2 servers ready", "› srv ● ready stdio 4")

	// Restart slow with its gate closed: it shows connecting until the
	// gate opens, then ready again.
	os.Remove(gate)
	tt.send("k")
	tt.waitScreen("› slow ● ready")
	tt.send("r")
	tt.waitScreen("› slow ● connecting stdio -", "slow: restarting (the conversation goes on)")
	os.WriteFile(gate, nil, 0o600)
	// The note follows: restarting, then where the restart got.
	tt.waitScreen("› slow ● ready stdio 1", "MCP servers — 2/2 servers ready", "slow: restarted, ready (1 tool)")

	// Disable: saved in the catalog file, the list says so.
	tt.send("d")
	tt.waitScreen("› slow ● disabled stdio -", "slow: disabled (saved), stopped", "1/1 server ready")
	if e := catalogServers(t, home)["slow"]; e == nil || e["enabled"] != false {
		t.Errorf("the catalog's slow after d: %v", e)
	}

	// Remove, confirmed: gone from the list and the file.
	tt.send("x")
	tt.waitScreen("remove slow from the catalog? y = remove, n = keep")
	tt.send("n")
	tt.waitScreen("nothing removed")
	tt.send("x")
	tt.waitScreen("remove slow from the catalog?")
	tt.send("y")
	tt.waitScreen("slow: removed from the catalog (saved), stopped", "› srv ● ready stdio 4")
	tt.waitGone("slow ●")
	if servers := catalogServers(t, home); servers["slow"] != nil || servers["srv"] == nil {
		t.Errorf("the catalog after x y: %v", servers)
	}

	// q: back at the prompt, what was done said there; the conversation
	// and srv's connection go on.
	// The status lines printed while the manager was open (slow
	// connecting, ready, stopped) are summed up by the last one.
	mq := len(tt.output())
	tt.send("q")
	out, m := tt.between(mq, "> ")
	for _, want := range []string{"  slow: restarted, ready (1 tool)\r\n  slow: disabled (saved), stopped\r\n  slow: removed from the catalog (saved), stopped\r\n[1/1 server ready]\r\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("back at the prompt, the output lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "connecting]") {
		t.Errorf("the status lines held while the manager was open were printed:\n%q", out)
	}
	tt.send("please echo hi\r")
	m = tt.wait(m, "srv › echo", "pong:example", "> ")
	tt.send("\x04")
	tt.wait(m, "saved the conversation to ")
	tt.exited()
	if strings.Contains(tt.output(), "SECRET") {
		t.Error("a secret was printed")
	}
}

// The add form: its preview is the entry the file then holds, the
// server starts, and a wrong entry is refused before anything is saved.
func TestTTYChatMCPManagerAdd(t *testing.T) {
	home, gate, _ := chatHome(t)
	os.WriteFile(gate, nil, 0o600)
	srv := filepath.Join(home, "srv.lua")
	tt := &mgrTTY{tty: startTTY(t, home, "chat"), vt: newVT(120, 40)}
	m := tt.wait(0, "[2/2 servers ready]")
	tt.send("/mcp\r")
	tt.waitScreen("MCP servers — 2/2 servers ready")
	tt.send("a")
	tt.waitScreen("Add an MCP server", "› Name")
	tt.send("bad name\r" + bin + "\r\r")
	tt.waitScreen("the name must be 1 to 64 letters")
	tt.send("\t\x15copy\r\r" + "serve '" + srv + "'\r")
	s := tt.waitScreen(`This entry will be saved in `+filepath.Join(home, "config.json")+" (mcpServers):",
		`"copy": {`, `"command": `+strconv.Quote(bin)+`,`, `"enabled": true`, "enter/y save · e edit · esc cancel")
	if os.Getenv("CHAT_DUMP") != "" {
		t.Logf("add preview:\n%s", s)
	}
	if catalogServers(t, home)["copy"] != nil {
		t.Fatal("saved before the confirmation")
	}
	tt.send("y")
	// "connecting" may already be "ready" when the screen is read (a
	// loaded machine): the note's settled form is checked below.
	tt.waitScreen("copy: added (saved), ")
	tt.waitScreen("› copy ● ready stdio 4", "3/3 servers ready", "copy: added (saved), ready (4 tools)")
	e := catalogServers(t, home)["copy"]
	if e == nil || e["command"] != bin || len(e["args"].([]any)) != 2 || e["args"].([]any)[1] != srv {
		t.Errorf("the catalog's copy: %v", e)
	}
	tt.send("q")
	m = tt.wait(m, "  copy: added (saved), ready (4 tools)", "> ")
	tt.send("\x04")
	tt.exited()
}

// authorizingServer is a Streamable HTTP MCP server behind bearer tokens
// with an authorization server on the same origin that approves at once
// (no person): what a remote server that needs OAuth looks like.
func authorizingServer(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	tokens := map[string]bool{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	guard, err := httpserver.NewAuth(httpserver.AuthConfig{Path: "/mcp", AuthorizationServers: []string{base},
		Validate: func(_ context.Context, tok string, _ *http.Request) error {
			mu.Lock()
			defer mu.Unlock()
			if !tokens[tok] {
				return httpserver.Refuse("unknown token")
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	h := httpserver.NewHandler(mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "authorizing", Version: "1"}, Handler: whoami{}}), httpserver.Options{})
	t.Cleanup(h.Close)
	mux.Handle("/mcp", guard.Wrap(h))
	mux.HandleFunc(guard.MetadataPath(), guard.ServeMetadata)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, `{"client_id":"c1","token_endpoint_auth_method":"none"}`)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&iss="+url.QueryEscape(base)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tok := "tok" + strconv.Itoa(len(tokens))
		tokens[tok] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	return base + "/mcp"
}

// whoami serves one tool.
type whoami struct{}

func (whoami) Capabilities() mcp.HandlerCapabilities { return mcp.HandlerCapabilities{Tools: true} }
func (whoami) Handle(r *mcp.Request) {
	switch r.Method {
	case "tools/list":
		r.Reply(json.RawMessage(`{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}`))
	default:
		r.Fail(errs.New(errs.NotFound, "", "no such method"))
	}
}

// Adding a remote server that answers 401: the login starts by itself
// (the manager hands the terminal to it, the URL shows), the test plays
// the browser, and the server comes up ready; i runs it again. The same
// in chat and in the plain REPL.
func TestTTYChatMCPManagerOAuth(t *testing.T) {
	for _, args := range [][]string{{"chat"}, {}} {
		t.Run(strings.Join(append([]string{"luagent"}, args...), " "), func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}}`)
			remote := authorizingServer(t)
			tt := &mgrTTY{tty: startTTY(t, home, args...), vt: newVT(120, 40)}
			tt.wait(0, "> ")
			tt.send("/mcp\r")
			tt.waitScreen("no MCP servers in the catalog: a adds one")
			tt.send("a")
			tt.waitScreen("› Name")
			tt.send("remote\r" + remote + "\r\r")
			tt.waitScreen(`"remote": {`, `"url": "`+remote+`",`)
			m := len(tt.output())
			tt.send("y")
			// The OAuth flow prints the URL on the terminal the manager lent it.
			m = tt.wait(m, "authorizing remote (Ctrl-C gives up)", "open this URL in a browser:")
			browse(t, tt.authURL(m))
			tt.waitScreen("remote: authorized, ready (1 tool)", "› remote ● ready http 1")
			// i: the same login again, from the list.
			m = len(tt.output())
			tt.send("i")
			m = tt.wait(m, "open this URL in a browser:")
			browse(t, tt.authURL(m))
			tt.waitScreen("remote: authorized, ready (1 tool)", "› remote ● ready http 1")
			// Ctrl-C while the login waits gives up on it; the manager comes back
			// and the server keeps its connection.
			m = len(tt.output())
			tt.send("i")
			m = tt.wait(m, "open this URL in a browser:")
			tt.authURL(m)
			tt.send("\x03")
			tt.waitScreen("› remote ● ready http 1", "cancelled: oauth: the authorization was cancelled while waiting for the browser")
			tt.send("q")
			tt.wait(m, "  remote: added (saved), needs authorization", "  remote: authorized, ready (1 tool)", "> ")
			tt.send("\x04")
			tt.exited()
		})
	}
}

var authURLLine = regexp.MustCompile(`\s(http://\S+/authorize\?\S+)\r?\n`)

// authURL is the authorization URL printed after mark (its whole line).
func (m *mgrTTY) authURL(mark int) string {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if u := authURLLine.FindStringSubmatch(m.output()[mark:]); u != nil {
			return u[1]
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("no authorization URL on the terminal:\n%q", m.output()[mark:])
		}
		time.Sleep(10 * time.Millisecond) // the URL's line may still be on its way
	}
}

// browse is the person at the browser: the authorization URL approves at
// once and redirects to luagent's loopback listener, which is followed.
func browse(t *testing.T, authURL string) {
	t.Helper()
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatalf("the browser step: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the browser step ended with %s", resp.Status)
	}
}

// vt is as much of a terminal as the manager's renderer needs: cursor
// moves, erasing, insert and delete of cells and lines, scroll regions,
// repeat, the alternate screen. Styles are ignored.
type vt struct {
	w, h        int
	main, alt   [][]rune
	useAlt      bool
	x, y        int
	sx, sy      int
	top, bot    int
	wrapPending bool
	noWrap      bool
	insert      bool
	last        rune

	state   int
	seq     []byte
	partial []byte // an incomplete UTF-8 sequence
}

const (
	vtGround = iota
	vtEsc
	vtEscSkip // ESC ( B and kin: one more byte
	vtCSI
	vtString // OSC, DCS, APC, PM, SOS: until BEL or ESC \
)

func newVT(w, h int) *vt {
	v := &vt{w: w, h: h, bot: h - 1}
	v.main, v.alt = v.blank(), v.blank()
	return v
}

func (v *vt) blank() [][]rune {
	g := make([][]rune, v.h)
	for i := range g {
		g[i] = v.blankLine()
	}
	return g
}

func (v *vt) blankLine() []rune {
	l := make([]rune, v.w)
	for i := range l {
		l[i] = ' '
	}
	return l
}

func (v *vt) grid() [][]rune {
	if v.useAlt {
		return v.alt
	}
	return v.main
}

func (v *vt) text() string {
	var lines []string
	for _, l := range v.grid() {
		var b strings.Builder
		for _, r := range l {
			if r != 0 {
				b.WriteRune(r)
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

func (v *vt) feed(b []byte) {
	for _, c := range b {
		switch v.state {
		case vtEsc:
			v.esc(c)
		case vtEscSkip:
			v.state = vtGround
		case vtCSI:
			if c >= 0x40 && c <= 0x7e {
				v.csi(c)
				v.state = vtGround
			} else {
				v.seq = append(v.seq, c)
			}
		case vtString:
			if c == 0x07 || (len(v.seq) > 0 && v.seq[len(v.seq)-1] == 0x1b && c == '\\') {
				v.state = vtGround
			}
			v.seq = append(v.seq, c)
		default:
			v.ground(c)
		}
	}
}

func (v *vt) ground(c byte) {
	if len(v.partial) > 0 || c >= 0x80 {
		v.partial = append(v.partial, c)
		if utf8.FullRune(v.partial) {
			r, _ := utf8.DecodeRune(v.partial)
			v.partial = v.partial[:0]
			v.put(r)
		}
		return
	}
	switch c {
	case 0x1b:
		v.state, v.seq = vtEsc, v.seq[:0]
	case '\r':
		v.x, v.wrapPending = 0, false
	case '\n', 0x0b, 0x0c:
		v.lineFeed()
	case '\b':
		v.x, v.wrapPending = max(0, v.x-1), false
	case '\t':
		v.x = min(v.w-1, (v.x/8+1)*8)
	default:
		if c >= 0x20 && c != 0x7f {
			v.put(rune(c))
		}
	}
}

func (v *vt) put(r rune) {
	n := runewidth.RuneWidth(r)
	if n == 0 {
		return
	}
	if v.wrapPending && !v.noWrap {
		v.x = 0
		v.lineFeed()
	}
	v.wrapPending = false
	g := v.grid()
	if v.insert {
		l := g[v.y]
		copy(l[v.x+n:], l[v.x:])
	}
	g[v.y][v.x] = r
	if n == 2 && v.x+1 < v.w {
		g[v.y][v.x+1] = 0
	}
	v.last = r
	if v.x+n >= v.w {
		v.x, v.wrapPending = v.w-1, true
		return
	}
	v.x += n
}

func (v *vt) lineFeed() {
	v.wrapPending = false
	if v.y == v.bot {
		v.scroll(1)
	} else if v.y < v.h-1 {
		v.y++
	}
}

// scroll moves the scroll region's lines up n (down for n < 0).
func (v *vt) scroll(n int) {
	g := v.grid()
	region := g[v.top : v.bot+1]
	for ; n > 0; n-- {
		copy(region, region[1:])
		region[len(region)-1] = v.blankLine()
	}
	for ; n < 0; n++ {
		copy(region[1:], region)
		region[0] = v.blankLine()
	}
}

func (v *vt) esc(c byte) {
	v.state = vtGround
	switch c {
	case '[':
		v.state = vtCSI
	case ']', 'P', '_', '^', 'X':
		v.state = vtString
	case '(', ')', '*', '+', '#', '%', ' ':
		v.state = vtEscSkip
	case '7':
		v.sx, v.sy = v.x, v.y
	case '8':
		v.x, v.y = v.sx, v.sy
	case 'M':
		if v.y == v.top {
			v.scroll(-1)
		} else {
			v.y = max(0, v.y-1)
		}
	case 'D':
		v.lineFeed()
	case 'E':
		v.x = 0
		v.lineFeed()
	case 'c':
		*v = *newVT(v.w, v.h)
	}
}

func (v *vt) csi(final byte) {
	seq := string(v.seq)
	private := ""
	if seq != "" && strings.ContainsRune("?<=>", rune(seq[0])) {
		private, seq = seq[:1], seq[1:]
	}
	if strings.ContainsAny(seq, " !\"#$%&'()*+,-./") {
		return // an intermediate byte: DECRQM, cursor style and kin
	}
	var ps []int
	for _, p := range strings.Split(seq, ";") {
		p, _, _ = strings.Cut(p, ":")
		n, _ := strconv.Atoi(p)
		ps = append(ps, n)
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] > 0 {
			return ps[i]
		}
		return def
	}
	n := arg(0, 1)
	g := v.grid()
	line := g[v.y]
	erase := func(l []rune, from, to int) {
		for i := max(0, from); i < min(len(l), to); i++ {
			l[i] = ' '
		}
	}
	if private == "?" {
		on := final == 'h'
		for _, p := range ps {
			switch {
			case (p == 1049 || p == 1047 || p == 47) && (final == 'h' || final == 'l'):
				if on && !v.useAlt {
					v.sx, v.sy = v.x, v.y
					v.alt, v.useAlt = v.blank(), true
				} else if !on && v.useAlt {
					v.useAlt = false
					v.x, v.y = v.sx, v.sy
				}
			case p == 7 && (final == 'h' || final == 'l'):
				v.noWrap = !on
			}
		}
		return
	}
	if private != "" {
		return
	}
	if final != 'b' {
		v.wrapPending = false
	}
	switch final {
	case '@':
		n = min(n, v.w-v.x)
		copy(line[v.x+n:], line[v.x:])
		erase(line, v.x, v.x+n)
	case 'A':
		v.y = max(0, v.y-n)
	case 'B', 'e':
		v.y = min(v.h-1, v.y+n)
	case 'C', 'a':
		v.x = min(v.w-1, v.x+n)
	case 'D':
		v.x = max(0, v.x-n)
	case 'E':
		v.x, v.y = 0, min(v.h-1, v.y+n)
	case 'F':
		v.x, v.y = 0, max(0, v.y-n)
	case 'G', '`':
		v.x = min(v.w-1, n-1)
	case 'H', 'f':
		v.y, v.x = min(v.h-1, arg(0, 1)-1), min(v.w-1, arg(1, 1)-1)
	case 'd':
		v.y = min(v.h-1, n-1)
	case 'I':
		for ; n > 0; n-- {
			v.x = min(v.w-1, (v.x/8+1)*8)
		}
	case 'Z':
		for ; n > 0; n-- {
			v.x = max(0, (v.x-1)/8*8)
		}
	case 'J':
		switch arg(0, 0) {
		case 0:
			erase(line, v.x, v.w)
			for _, l := range g[v.y+1:] {
				erase(l, 0, v.w)
			}
		case 1:
			erase(line, 0, v.x+1)
			for _, l := range g[:v.y] {
				erase(l, 0, v.w)
			}
		default:
			for _, l := range g {
				erase(l, 0, v.w)
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			erase(line, v.x, v.w)
		case 1:
			erase(line, 0, v.x+1)
		default:
			erase(line, 0, v.w)
		}
	case 'L', 'M':
		if v.y < v.top || v.y > v.bot {
			return
		}
		top := v.top
		v.top = v.y
		if final == 'L' {
			v.scroll(-min(n, v.bot-v.y+1))
		} else {
			v.scroll(min(n, v.bot-v.y+1))
		}
		v.top, v.x = top, 0
	case 'P':
		n = min(n, v.w-v.x)
		copy(line[v.x:], line[v.x+n:])
		erase(line, v.w-n, v.w)
	case 'S':
		v.scroll(n)
	case 'T':
		v.scroll(-n)
	case 'X':
		erase(line, v.x, v.x+n)
	case 'b':
		for ; n > 0; n-- {
			v.put(v.last)
		}
	case 'r':
		v.top, v.bot = arg(0, 1)-1, min(v.h, arg(1, v.h))-1
		if v.top >= v.bot {
			v.top, v.bot = 0, v.h-1
		}
		v.x, v.y = 0, 0
	case 'h', 'l':
		for _, p := range ps {
			if p == 4 {
				v.insert = final == 'h'
			}
		}
	case 's':
		v.sx, v.sy = v.x, v.y
	case 'u':
		v.x, v.y = v.sx, v.sy
	}
}

// The emulator against sequences whose screens are known.
func TestVT(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"ab\r\ncd", "ab\ncd"},
		{"abc\x1b[2Dx", "axc"},
		{"\x1b[2;3Hx\x1b[1;1Hy", "y\n  x"},
		{"abcdef\x1b[1;3H\x1b[K", "ab"},
		{"abcdef\x1b[1;3H\x1b[2X", "ab  ef"},
		{"abcdef\x1b[1;3H\x1b[2P", "abef"},
		{"abcdef\x1b[1;3H\x1b[2@", "ab  cdef"},
		{"a\x1b[3b", "aaaa"},
		{"1\r\n2\r\n3\x1b[2;1H\x1b[M", "1\n3"},
		{"1\r\n2\x1b[1;1H\x1b[L", "\n1\n2"},
		{"main\x1b[?1049hALT", "    ALT"}, // the cursor stays where it was
		{"main\x1b[?1049hALT\x1b[?1049l", "main"},
		{"\x1b]0;title\x07ok\x1b[31mred\x1b[m", "okred"},
		{"a\tb", "a       b"},
		{"› ●x", "› ●x"},
	} {
		v := newVT(20, 5)
		v.feed([]byte(tc.in))
		if got := v.text(); got != tc.want {
			t.Errorf("%q shows %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The plain REPL's /mcp on a terminal is the same manager, over the hub
// agents in the REPL share (agent.default_hub()): a server disabled there
// is saved in the catalog and stopped in that hub, and the REPL goes on.
func TestTTYREPLManager(t *testing.T) {
	home, gate, _ := chatHome(t)
	os.WriteFile(gate, nil, 0o600)
	tt := &mgrTTY{tty: startTTY(t, home), vt: newVT(120, 40)}
	m := tt.wait(0, "> ")
	tt.send("/mcp\r")
	tt.waitScreen("MCP servers — 2/2 servers ready", "NAME STATUS TRANSPORT TOOLS", "srv ● ready stdio 4", "slow ● ready stdio 1")
	if strings.Contains(tt.screen(), "SECRET") {
		t.Errorf("the manager shows srv's env:\n%s", tt.screen())
	}
	tt.waitScreen("› slow ● ready") // the list is in name order
	tt.send("d")
	tt.waitScreen("› slow ● disabled stdio -", "slow: disabled (saved), stopped", "1/1 server ready")
	if e := catalogServers(t, home)["slow"]; e == nil || e["enabled"] != false {
		t.Errorf("the catalog's slow after d: %v", e)
	}
	m = len(tt.output())
	tt.send("q")
	m = tt.wait(m, "  slow: disabled (saved), stopped\r\n", "> ")
	// The REPL's agents see the change: the shared hub stopped slow.
	tt.send("for _, s in ipairs(agent.default_hub():status()) do print(s.name .. '=' .. s.status) end\r")
	out, _ := tt.between(m, "srv=ready\r\n")
	if !strings.Contains(out, "slow=disabled\r\n") {
		t.Errorf("the REPL's hub after the manager's d:\n%q", out)
	}
	tt.send("\x04")
	tt.exited()
}

// An edit made to config.json outside the running chat (another editor,
// mcp add in another shell) applies when the manager's r reads the file
// again: the server added there starts and is listed ready, next to the
// ones already running; a file broken since is the manager's one-line
// error, and the running servers go on.
func TestTTYChatMCPManagerReloadsOutsideEdit(t *testing.T) {
	home, gate, marker := chatHome(t)
	os.WriteFile(gate, nil, 0o600)
	tt := &mgrTTY{tty: startTTY(t, home, "chat"), vt: newVT(120, 40)}
	tt.wait(0, "[2/2 servers ready]")

	// Outside the chat: a third server, as mcp add would write it.
	cfgPath := filepath.Join(home, "config.json")
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv":  map[string]any{"command": bin, "args": []string{"serve", filepath.Join(home, "srv.lua"), marker}, "env": map[string]string{"SRV_TOKEN": "tok-SECRET-1234"}},
		"slow": map[string]any{"command": bin, "args": []string{"serve", filepath.Join(home, "slow.lua"), gate}},
		"more": map[string]any{"command": bin, "args": []string{"serve", filepath.Join(home, "srv.lua"), marker + "-more"}}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}

	tt.send("/mcp\r")
	tt.waitScreen("MCP servers — 2/2 servers ready", "› slow ● ready stdio 1", "srv ● ready stdio 4")
	if strings.Contains(tt.screen(), "more") {
		t.Errorf("the manager lists the new server before r:\n%s", tt.screen())
	}
	tt.send("r")
	tt.waitScreen("more ● ready stdio 4", "MCP servers — 3/3 servers ready", "config.json re-read: added more ·")

	// Broken since: the error, one line; the three keep running.
	os.WriteFile(cfgPath, []byte(`{"version": 1, "mcpServers": {"srv": {"command": }}}`), 0o600)
	tt.send("r")
	tt.waitScreen("invalid: catalog: "+cfgPath+": ", "MCP servers — 3/3 servers ready", "more ● ready stdio 4", "srv ● ready stdio 4")

	mq := len(tt.output())
	tt.send("q")
	out, _ := tt.between(mq, "> ")
	if !strings.Contains(out, "  config.json re-read: added more\r\n") {
		t.Errorf("back at the prompt, the output lacks the reload:\n%q", out)
	}
	tt.send("\x04")
	tt.exited()
	if strings.Contains(tt.output(), "SECRET") {
		t.Error("a secret was printed")
	}
}
