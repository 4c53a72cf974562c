//go:build linux

package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the fake MCP server: Start runs it again with
// TRANSPORT_TEST_SERVER naming the behaviour wanted.
const (
	serverModeEnv = "TRANSPORT_TEST_SERVER"
	bigSizeEnv    = "TRANSPORT_TEST_BIG"
	testVarEnv    = "TRANSPORT_TEST_VAR"
)

func TestMain(m *testing.M) {
	RunGuardIfAsked() // the guard of the "parent" modes below
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	// A race-enabled binary sleeps 1s at exit by default, which would make
	// every fake server look like it ignores stdin EOF.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

func fakeServer(mode string) int {
	out := os.Stdout
	println := func(s string) { out.WriteString(s + "\n") }
	drainStdin := func() { io.Copy(io.Discard, os.Stdin) }
	switch mode {
	case "echo":
		br := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				out.Write(line)
			}
			if err != nil {
				return 0
			}
		}
	case "junk":
		out.WriteString("hello from the server\n\n   \n\t[1,2]\nnot json {\n\x1b[31mred\x1b[0m\n" + `{"ok":1}` + "\n")
		drainStdin()
		return 0
	case "big":
		size := 20 << 20
		if s := os.Getenv(bigSizeEnv); s != "" {
			size, _ = strconv.Atoi(s)
		}
		w := bufio.NewWriterSize(out, 64<<10)
		w.WriteString(`{"id":7,"data":"`)
		chunk := []byte(strings.Repeat("x", 64<<10))
		for n := 0; n < size; n += len(chunk) {
			w.Write(chunk[:min(len(chunk), size-n)])
		}
		w.WriteString("\"}\n{\"id\":8}\n")
		w.Flush()
		drainStdin()
		return 0
	case "stderr":
		for i := range 200 {
			fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
			if i == 195 {
				fmt.Fprintf(os.Stderr, "%s\n", strings.Repeat("y", 5000))
			}
		}
		os.Stderr.WriteString("fatal: boom")
		return 3
	case "ignore-stdin-eof":
		signal.Ignore(syscall.SIGTERM)
		println(`{"ready":true}`)
		drainStdin()
		time.Sleep(time.Hour)
		return 0
	case "ignore-eof-obey-term":
		println(`{"ready":true}`)
		drainStdin()
		time.Sleep(time.Hour)
		return 0
	case "no-read":
		println(`{"ready":true}`)
		time.Sleep(time.Hour)
		return 0
	case "child", "child-exit":
		exe, _ := os.Executable()
		c := exec.Command(exe)
		c.Env = append(os.Environ(), serverModeEnv+"=sleep")
		// Shares stdout and stderr, as node does under npx.
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		println(fmt.Sprintf(`{"grandchild":%d}`, c.Process.Pid))
		if mode == "child-exit" {
			return 5
		}
		drainStdin()
		return 0
	case "sleep":
		time.Sleep(time.Hour)
		return 0
	case "exit-now":
		return 0
	case "env":
		b, _ := json.Marshal(map[string]string{"value": os.Getenv(testVarEnv)})
		println(string(b))
		drainStdin()
		return 0
	case "leak":
		// A server that prints its secret: to stdout (junk) and stderr,
		// then dies.
		v := os.Getenv(testVarEnv)
		println("token=" + v)
		os.Stderr.WriteString("starting with token " + v + "\nfatal: " + v + " rejected\n")
		return 4
	case "parent", "parent-guard":
		// A luagent stand-in: starts a server and waits to be killed. The
		// server ignores stdin EOF and SIGTERM ("parent"), or leaves a
		// grandchild in its group ("parent-guard", watched by a guard).
		exe, _ := os.Executable()
		server := "ignore-stdin-eof"
		if mode == "parent-guard" {
			EnableGuard(exe)
			server = "child"
		}
		p, err := Start(Command{Path: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{serverModeEnv: server}}, Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		first, err := p.Read()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		println(fmt.Sprintf(`{"server":%d,"said":%s}`, p.Pid(), first))
		time.Sleep(time.Hour)
		return 0
	case "environ":
		b, _ := json.Marshal(map[string][]string{"env": os.Environ()})
		println(string(b))
		drainStdin()
		return 0
	case "close-stdout":
		os.Stdout.Close()
		drainStdin()
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown mode %q\n", mode)
	return 2
}
