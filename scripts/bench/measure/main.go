//go:build linux

// Command measure times processes for scripts/bench-ask.sh.
//
//	measure run [-sample 10ms] [-timeout 60s] -o FILE -- COMMAND [ARGS...]
//
// runs COMMAND (stdout and stderr inherited) in its own process group and
// appends one tab-separated line to FILE:
//
//	wall_ns start_unix_ns main_hwm_kib tree_peak_kib tree_hwm_kib tree_procs leftover exit rusage_maxrss_kib
//
// wall_ns is start to exit on the monotonic clock, start_unix_ns the start
// on the wall clock (to line up with fakeopenai's log). With -sample > 0
// the process tree (COMMAND and its descendants, found by parent in
// /proc/N/stat) is read from /proc/N/status at every interval while
// COMMAND runs: main_hwm_kib is COMMAND's own VmHWM (its peak RSS; the
// high-water mark only grows, so the last sample is at most one interval
// late), tree_peak_kib the largest sum of VmRSS at one sample (pages
// shared between processes count once per process), tree_hwm_kib the sum
// of every process's VmHWM (a bound on the tree's peak: the processes may
// peak at different times), tree_procs the most processes at one sample;
// they are 0 without sampling. leftover is how many of its descendants
// were still running when COMMAND exited (measure is a child subreaper, so
// they are reparented to it; they are killed). rusage_maxrss_kib is what
// wait4 reports, which /usr/bin/time -v prints as "Maximum resident set
// size": the largest of COMMAND and the children it waited for, so for an
// agent it is usually its server's. A run that fails or outlives -timeout
// is killed, and measure exits non-zero.
//
//	measure mcp [-n 1] [-call TOOL -args JSON] [-timeout 60s] -o FILE -- COMMAND [ARGS...]
//
// is a minimal MCP client of the stdio server COMMAND: it starts n copies
// at once, sends each initialize, notifications/initialized and
// tools/list, then (with -call) calls TOOL of the first copy, then closes
// every stdin and waits until every copy has exited, and appends
//
//	start_ns call_ns exit_ns tools
//
// start_ns is from the first start until every copy has answered
// tools/list (the servers' own start, in parallel when n > 1), call_ns the
// call, exit_ns from closing stdin until the last exit, and tools how many
// tools the first copy listed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = run(os.Args[2:])
	case "mcp":
		err = mcpSession(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: measure run|mcp [flags] -o FILE -- COMMAND [ARGS...]")
	os.Exit(2)
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	sample := fs.Duration("sample", 0, "sample the process tree's RSS this often (0: not at all)")
	timeout := fs.Duration("timeout", 60*time.Second, "kill the command after this long")
	out := fs.String("o", "", "append the result line to this file")
	fs.Parse(args)
	cmdline := fs.Args()
	if *out == "" || len(cmdline) == 0 {
		usage()
	}
	// Orphans of the command become our children, so a server it leaves
	// behind is seen (and killed) whatever process group it is in.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	var tr tree
	var sampler sync.WaitGroup
	if *sample > 0 {
		tr.hwm = map[int]int{}
		sampler.Add(1)
		go func() {
			defer sampler.Done()
			tick := time.NewTicker(*sample)
			defer tick.Stop()
			for {
				tr.sample(pid)
				select {
				case <-exited:
					return
				case <-tick.C:
				}
			}
		}()
	}
	timer := time.AfterFunc(*timeout, func() { syscall.Kill(-pid, syscall.SIGKILL) })
	werr := cmd.Wait()
	wall := time.Since(start)
	timer.Stop()
	close(exited)
	sampler.Wait()
	left := orphans()
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range left {
		syscall.Kill(p, syscall.SIGKILL)
	}
	maxrss := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrss = ru.Maxrss
	}
	hwmSum := 0
	for _, k := range tr.hwm {
		hwmSum += k
	}
	code := cmd.ProcessState.ExitCode()
	line := fmt.Sprintf("%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d", wall.Nanoseconds(), start.UnixNano(),
		tr.hwm[pid], tr.peak, hwmSum, tr.procs, len(left), code, maxrss)
	if err := appendLine(*out, line); err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("%s: %v", strings.Join(cmdline, " "), werr)
	}
	return nil
}

// tree is what the samples saw of a process tree.
type tree struct {
	peak  int         // the largest sum of VmRSS at one sample, KiB
	procs int         // the most processes at one sample
	hwm   map[int]int // each process's last VmHWM, KiB
}

// sample reads VmRSS and VmHWM of root and its descendants.
func (t *tree) sample(root int) {
	kids := map[int][]int{}
	for _, p := range procs() {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	sum, n := 0, 0
	stack := []int{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		stack = append(stack, kids[p]...)
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status")
		if err != nil {
			continue
		}
		rss, hwm, ok := 0, 0, false
		for _, l := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(l, "VmRSS:"); found {
				rss, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				ok = true
			} else if v, found := strings.CutPrefix(l, "VmHWM:"); found {
				hwm, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			}
		}
		if !ok { // a zombie: its memory is gone
			continue
		}
		sum += rss
		n++
		t.hwm[p] = max(t.hwm[p], hwm)
	}
	t.peak, t.procs = max(t.peak, sum), max(t.procs, n)
}

type proc struct {
	pid, ppid int
	zombie    bool
}

// procs lists every process with its parent (from /proc/N/stat).
func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	out := make([]proc, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out = append(out, proc{pid, ppid, f[0] == "Z"})
	}
	return out
}

const prSetChildSubreaper = 36

// orphans lists the running processes reparented to us: what the command
// left running when it exited.
func orphans() []int {
	var out []int
	me := os.Getpid()
	for _, p := range procs() {
		if p.ppid == me && !p.zombie {
			out = append(out, p.pid)
		}
	}
	return out
}

func mcpSession(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ExitOnError)
	n := fs.Int("n", 1, "start this many copies at once")
	call := fs.String("call", "", "then call this tool of the first copy")
	callArgs := fs.String("args", "{}", "the call's arguments (JSON)")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long")
	out := fs.String("o", "", "append the result line to this file")
	fs.Parse(args)
	cmdline := fs.Args()
	if *out == "" || len(cmdline) == 0 || *n < 1 {
		usage()
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	type server struct {
		cmd    *exec.Cmd
		in     io.WriteCloser
		c      *client
		tools  int
		err    error
		exited chan struct{}
	}
	servers := make([]*server, *n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *n {
		cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
		cmd.Stderr = io.Discard
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		in, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		outp, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		s := &server{cmd: cmd, in: in, c: &client{w: in, r: bufio.NewReader(outp)}, exited: make(chan struct{})}
		servers[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.tools, s.err = s.c.handshake()
		}()
	}
	wg.Wait()
	listed := time.Since(start)
	var firstErr error
	for _, s := range servers {
		if s.err != nil && firstErr == nil {
			firstErr = s.err
		}
	}
	called := listed
	if firstErr == nil && *call != "" {
		params, _ := json.Marshal(map[string]any{"name": *call, "arguments": json.RawMessage(*callArgs)})
		if _, err := servers[0].c.request("tools/call", string(params)); err != nil {
			firstErr = err
		}
		called = time.Since(start)
	}
	// Close every stdin, then wait for every exit: the stdio shutdown a
	// client does (the context kills what outlives -timeout).
	for _, s := range servers {
		s.in.Close()
		go func() {
			s.cmd.Wait()
			close(s.exited)
		}()
	}
	for _, s := range servers {
		<-s.exited
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	ended := time.Since(start)
	if ctx.Err() != nil {
		return fmt.Errorf("the servers outlived -timeout %v", *timeout)
	}
	if firstErr != nil {
		return firstErr
	}
	return appendLine(*out, fmt.Sprintf("%d\t%d\t%d\t%d", listed.Nanoseconds(), (called-listed).Nanoseconds(),
		(ended-called).Nanoseconds(), servers[0].tools))
}

// client is a minimal MCP client over newline-delimited JSON-RPC.
type client struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func (c *client) send(s string) error {
	_, err := io.WriteString(c.w, s+"\n")
	return err
}

// request sends one request and reads until its response, skipping
// notifications, log lines and the server's own requests.
func (c *client) request(method, params string) (json.RawMessage, error) {
	c.id++
	id := c.id
	if err := c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
		return nil, err
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("the server closed before answering %s: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, nil
	}
}

// handshake is a client's start: initialize, initialized, tools/list. It
// returns how many tools were listed.
func (c *client) handshake() (int, error) {
	if _, err := c.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"measure","version":"0"}}`); err != nil {
		return 0, err
	}
	if err := c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return 0, err
	}
	res, err := c.request("tools/list", `{}`)
	if err != nil {
		return 0, err
	}
	var tl struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(res, &tl); err != nil {
		return 0, errors.New("tools/list: " + err.Error())
	}
	return len(tl.Tools), nil
}
