//go:build linux

package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// Kill does not wait out the grace a server that ignores stdin EOF and
// SIGTERM would otherwise get twice.
func TestKillSkipsGrace(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "ignore-stdin-eof"), Options{})
	mustRead(t, p)
	t0 := time.Now()
	p.Kill()
	if d := time.Since(t0); d >= testGrace || signalOf(p) != syscall.SIGKILL {
		t.Fatalf("killed after %v by %v", d, signalOf(p))
	}
}

// Kill cuts short a Close already waiting for the server, and both return.
func TestKillCutsCloseShort(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "ignore-stdin-eof"), Options{})
	mustRead(t, p)
	t0 := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	p.Kill()
	select {
	case err := <-closed:
		if !errs.Is(err, errs.Process) {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(2 * testGrace):
		t.Fatal("Close still waiting after Kill")
	}
	if d := time.Since(t0); d >= testGrace {
		t.Fatalf("took %v", d)
	}
}

// Kill of a server whose child holds stderr open returns without waiting
// for that child.
func TestKillDoesNotWaitForStderr(t *testing.T) {
	checkGoroutines(t)
	p := start(t, serverCmd(t, "child"), Options{})
	var m struct{ Grandchild int }
	if err := json.Unmarshal(mustRead(t, p), &m); err != nil || m.Grandchild == 0 {
		t.Fatalf("%v %+v", err, m)
	}
	t0 := time.Now()
	p.Kill()
	if d := time.Since(t0); d >= testGrace {
		t.Fatalf("Kill took %v", d)
	}
	waitDead(t, m.Grandchild)
}

// EndAll kills a server that never became ready at once and closes a ready
// one gracefully (it exits on stdin EOF: status 0, no signal); Start
// refuses afterwards.
func TestEndAll(t *testing.T) {
	checkGoroutines(t)
	t.Cleanup(func() { live.Lock(); live.ending = false; live.Unlock() })
	unready := start(t, serverCmd(t, "ignore-stdin-eof"), Options{})
	mustRead(t, unready)
	ready := start(t, serverCmd(t, "echo"), Options{})
	ready.MarkReady()
	t0 := time.Now()
	EndAll()
	if d := time.Since(t0); d >= testGrace {
		t.Errorf("EndAll took %v: it waited for the unready server", d)
	}
	if signalOf(unready) != syscall.SIGKILL {
		t.Errorf("unready server ended by %v, want SIGKILL", signalOf(unready))
	}
	if code, _ := ready.ExitCode(); code != 0 || signalOf(ready) != 0 {
		t.Errorf("ready server: exit %d, signal %v; want a graceful exit", code, signalOf(ready))
	}
	if _, err := Start(serverCmd(t, "echo"), Options{}); !errs.Is(err, errs.Closed) {
		t.Errorf("Start after EndAll: %v", err)
	}
}

// startParent runs the test binary as a luagent stand-in (mode "parent" or
// "parent-guard") and returns it with the pids it reports.
func startParent(t *testing.T, mode string) (*exec.Cmd, int, int) {
	t.Helper()
	exe, _ := os.Executable()
	c := exec.Command(exe, "-test.run=^$")
	c.Env = append(os.Environ(), serverModeEnv+"="+mode)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, out)
	}()
	var m struct {
		Server int
		Said   struct{ Grandchild int }
	}
	select {
	case l := <-line:
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Server == 0 {
			t.Fatalf("parent said %q: %v", l, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the parent never reported its server")
	}
	t.Cleanup(func() {
		syscall.Kill(-m.Server, syscall.SIGKILL)
	})
	return c, m.Server, m.Said.Grandchild
}

// When luagent is SIGKILLed, its server gets the parent-death signal,
// even one that ignores stdin EOF and SIGTERM.
func TestServerDiesWithParent(t *testing.T) {
	parent, server, _ := startParent(t, "parent")
	if dead(server) {
		t.Fatal("server not running")
	}
	parent.Process.Kill()
	parent.Wait()
	waitDead(t, server)
}

// When luagent is SIGKILLed, the guard kills what its servers started.
func TestGuardKillsGroupOfKilledParent(t *testing.T) {
	parent, server, grandchild := startParent(t, "parent-guard")
	if grandchild == 0 || dead(grandchild) {
		t.Fatal("grandchild not running")
	}
	parent.Process.Kill()
	parent.Wait()
	waitDead(t, server)
	waitDead(t, grandchild)
}

// The guard kills the groups still listed when its input ends, and only
// those.
func TestGuardProtocol(t *testing.T) {
	sleeper := func() *exec.Cmd {
		exe, _ := os.Executable()
		c := exec.Command(exe, "-test.run=^$")
		c.Env = append(os.Environ(), serverModeEnv+"=sleep")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	a, b := sleeper(), sleeper()
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { runGuard(r); close(done) }()
	fmt.Fprintf(w, "+%d\n+%d\njunk\n-%d\n+1\n", a.Process.Pid, b.Process.Pid, b.Process.Pid)
	w.Close()
	<-done
	ws, _ := a.Process.Wait()
	if st := ws.Sys().(syscall.WaitStatus); !st.Signaled() || st.Signal() != syscall.SIGKILL {
		t.Errorf("listed group: %v", ws)
	}
	if reaped(b.Process.Pid) || dead(b.Process.Pid) {
		t.Errorf("a group removed from the list was killed")
	}
}

// A server started from a goroutine whose thread then exits (a goroutine
// that locked its thread and returned) keeps running: the parent-death
// signal follows the thread that forked the child, and every server is
// forked from the spawner's thread, which lives as long as luagent.
func TestServerOutlivesStartingThread(t *testing.T) {
	checkGoroutines(t)
	type started struct {
		p       *Process
		control *exec.Cmd
		tid     int
	}
	var s started
	// Go never ends the main thread (it wedges it instead): try until the
	// goroutine runs on another one.
	for range 10 {
		ch := make(chan started, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			if syscall.Gettid() == os.Getpid() {
				ch <- started{}
				return
			}
			p, err := Start(serverCmd(t, "echo"), Options{Name: "fs", ShutdownGrace: testGrace})
			if err != nil {
				t.Error(err)
			}
			// The control child is forked from this thread with the same
			// signal: its death shows the thread's exit has signalled.
			exe, _ := os.Executable()
			c := exec.Command(exe, "-test.run=^$")
			c.Env = append(os.Environ(), serverModeEnv+"=sleep")
			c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			if err := c.Start(); err != nil {
				t.Error(err)
			}
			ch <- started{p, c, syscall.Gettid()}
		}()
		if s = <-ch; s.tid != 0 {
			break
		}
	}
	if s.p == nil || s.control == nil || s.control.Process == nil {
		t.Fatal("could not start from a thread of its own")
	}
	defer s.p.Close()
	waited := make(chan *os.ProcessState, 1)
	go func() { ws, _ := s.control.Process.Wait(); waited <- ws }()
	select {
	case ws := <-waited: // the thread's exit killed it
		if st := ws.Sys().(syscall.WaitStatus); !st.Signaled() {
			t.Fatalf("control child: %v", ws)
		}
	case <-time.After(10 * time.Second):
		s.control.Process.Kill()
		t.Fatal("the starting thread did not end")
	}
	if dead(s.p.Pid()) {
		t.Fatal("the server died with the thread that started it")
	}
	if err := s.p.Write([]byte(`{"still":"here"}`)); err != nil {
		t.Fatal(err)
	}
	mustRead(t, s.p)
}
