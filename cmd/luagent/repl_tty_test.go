package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// tty drives the REPL through a pseudo-terminal, as a person at a keyboard.
type tty struct {
	t    *testing.T
	f    *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startTTY(t *testing.T, home string, args ...string) *tty {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home, "TERM=xterm")
	return runTTY(t, cmd, 120)
}

// runTTY starts cmd on a pty of cols columns and 40 rows and collects its
// output; the test's end kills it.
func runTTY(t *testing.T, cmd *exec.Cmd, cols uint16) *tty {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	tt := &tty{t: t, f: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(tt.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tt.mu.Lock()
			tt.out.Write(buf[:n])
			tt.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return tt
}

func (tt *tty) output() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.out.String()
}

// waitFor waits until the output since mark contains s, and returns the
// new mark (the output length after the match).
func (tt *tty) waitFor(mark int, s string) int {
	tt.t.Helper()
	return tt.waitWithin(mark, s, 10*time.Second)
}

func (tt *tty) waitWithin(mark int, s string, d time.Duration) int {
	tt.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		out := tt.output()
		if mark <= len(out) {
			if i := strings.Index(out[mark:], s); i >= 0 {
				return mark + i + len(s)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	tt.t.Fatalf("timed out waiting for %q; output since mark:\n%q", s, tt.output()[min(mark, len(tt.output())):])
	return 0
}

func (tt *tty) send(s string) {
	tt.t.Helper()
	if _, err := io.WriteString(tt.f, s); err != nil {
		tt.t.Fatal(err)
	}
}

func TestTTYREPL(t *testing.T) {
	home := t.TempDir()
	tt := startTTY(t, home)
	m := tt.waitFor(0, "> ")

	// An expression prints its value.
	tt.send("1+1\r")
	m = tt.waitFor(m, "2\r\n")
	m = tt.waitFor(m, "> ")

	// An incomplete chunk continues with the continuation prompt.
	tt.send("function sq(x)\r")
	m = tt.waitFor(m, ">> ")
	tt.send("return x*x end\r")
	m = tt.waitFor(m, "> ")
	tt.send("sq(7)\r")
	m = tt.waitFor(m, "49")
	m = tt.waitFor(m, "> ")

	// Tab completes table fields.
	tt.send("string.upp\t")
	m = tt.waitFor(m, "string.upper")
	tt.send("('x')\r")
	m = tt.waitFor(m, "X")
	m = tt.waitFor(m, "> ")

	// Tab completes a module that loads on first use, before its first use.
	tt.send("mcp.conn\t")
	m = tt.waitFor(m, "mcp.connect")
	tt.send("\x03")
	m = tt.waitFor(m, "> ")

	// help: the overview.
	tt.send("help\r")
	m = tt.waitFor(m, "modules (globals, no require needed)")
	m = tt.waitFor(m, "> ")
	tt.send("/help\r")
	m = tt.waitFor(m, "commands: /help")
	m = tt.waitFor(m, "> ")

	// Tab completes methods through a metatable's __index (conn:t<Tab>).
	tt.send("h = task.spawn(function() end)\r")
	m = tt.waitFor(m, "> ")
	tt.send("h:sta\t")
	m = tt.waitFor(m, "h:status")
	tt.send("()\r")
	m = tt.waitFor(m, "done")
	m = tt.waitFor(m, "> ")

	// Ctrl-C while a line runs cancels it and returns to the prompt. The
	// line announces itself before it spins ('spin'..'ning' so the echo of
	// the typed line does not match), so the Ctrl-C reaches a running line.
	tt.send("io.write('spin'..'ning\\n') io.stdout:flush() while true do end\r")
	m = tt.waitFor(m, "spinning")
	tt.send("\x03")
	m = tt.waitFor(m, "interrupted")
	m = tt.waitFor(m, "> ")
	tt.send("'still alive'\r")
	m = tt.waitFor(m, "still alive\r\n")
	m = tt.waitFor(m, "> ")

	// Ctrl-C at the prompt clears the line.
	tt.send("this is not run")
	m = tt.waitFor(m, "this is not run")
	tt.send("\x03")
	m = tt.waitFor(m, "^C")
	m = tt.waitFor(m, "> ") // the fresh prompt: the next line is typed into it
	tt.send("'after clear'\r")
	m = tt.waitFor(m, "after clear\r\n")
	m = tt.waitFor(m, "> ")

	// Output from a background task while the prompt waits appears above
	// the prompt, and the half-typed line is drawn again after it.
	tt.send("task.spawn(function() task.sleep(0.3) print('from the background') end)\r")
	m = tt.waitFor(m, "> ")
	tt.send("12")
	m = tt.waitFor(m, "from the background")
	m = tt.waitFor(m, "> 12")
	tt.send("3\r")
	m = tt.waitFor(m, "123\r\n")
	m = tt.waitFor(m, "> ")

	// Ctrl-D exits and the history is saved.
	tt.send("\x04")
	select {
	case <-tt.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not exit")
	}
	tt.cmd.Wait()
	hist, err := os.ReadFile(filepath.Join(home, "history"))
	if err != nil {
		t.Fatalf("no history file: %v", err)
	}
	if !strings.Contains(string(hist), "sq(7)") || !strings.Contains(string(hist), "function sq(x)\nreturn x*x end") {
		t.Errorf("history lacks entries:\n%s", hist)
	}
	if st, _ := os.Stat(filepath.Join(home, "history")); st.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", st.Mode().Perm())
	}
}

func TestTTYHistoryIsLoaded(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "history"), []byte("answer = 41 + 1\n"), 0o600)
	tt := startTTY(t, home)
	m := tt.waitFor(0, "> ")
	tt.send("\x1b[A") // up arrow recalls the saved line
	m = tt.waitFor(m, "answer = 41 + 1")
	tt.send("\r")
	m = tt.waitFor(m, "> ")
	tt.send("answer\r")
	tt.waitFor(m, "42")
}
