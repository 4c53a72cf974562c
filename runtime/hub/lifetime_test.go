//go:build linux

package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/testkit"
)

// readPidFile is testkit.PidFile, and kills the server's group when the
// test ends (a failing test must not leave it behind).
func readPidFile(t *testing.T, file string) int {
	t.Helper()
	pid := testkit.PidFile(t, file)
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	return pid
}

// Close cuts short a start in progress: the server, which never answered,
// and its child are killed at once, before Close returns (not in the
// background after the shutdown grace).
func TestCloseEndsStartInProgress(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	h := New([]*catalog.Server{shServer("hang", fmt.Sprintf("echo $$ > %s; sleep 1000 & sleep 1000", pidFile), time.Hour)}, Options{})
	h.Start()
	pg := readPidFile(t, pidFile)
	if !testkit.Poll(10*time.Second, func() bool { return len(testkit.GroupMembers(pg)) >= 2 }) {
		t.Fatalf("the server's child never started: %v", testkit.GroupMembers(pg))
	}
	t0 := time.Now()
	h.Close()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Close took %v: it waited out the grace of a server that never answered", d)
	}
	// SIGKILL was sent before Close returned; the kernel ends the sleeps
	// moments later (longer on a loaded machine). Well within the grace
	// (2 s before even SIGTERM) a waited-for close would take.
	var left []string
	if !testkit.Poll(time.Second, func() bool { left = testkit.GroupMembers(pg); return len(left) == 0 }) {
		t.Errorf("the server's group still runs after Close: %v", left)
	}
	if st := h.Status()[0]; st.Status != Stopped {
		t.Errorf("status %s", st.Status)
	}
}

// Start with names starts only those: the other server is never spawned
// (its command would leave a marker), until a later Start names it.
func TestStartOnlyNamed(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "spawned")
	h := New([]*catalog.Server{luaServer(t, "alpha"),
		shServer("never", fmt.Sprintf("touch %s; exec sleep 1000", marker), time.Hour)}, Options{})
	defer h.Close()
	h.Start("alpha", "not-in-the-catalog")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st := byName(h.Status())
	if st["alpha"].Status != Ready || st["never"].Status != Stopped {
		t.Fatalf("statuses: %+v", st)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server not named was spawned")
	}
	tools, _ := h.Tools()
	for _, tl := range tools {
		if tl.Server != "alpha" {
			t.Errorf("tool of %s listed", tl.Server)
		}
	}
	// Start() (all) afterwards starts the rest; alpha keeps its connection.
	c, _ := h.Client("alpha")
	h.Start()
	if !testkit.Poll(20*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
		t.Fatal("Start() did not start the remaining server")
	}
	if c2, _ := h.Client("alpha"); c2 != c {
		t.Error("Start() restarted a server already started")
	}
}
