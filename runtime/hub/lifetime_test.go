//go:build linux

package hub

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
)

// groupAlive lists the live (not zombie) processes of process group pg.
func groupAlive(pg int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pg) {
			out = append(out, e.Name())
		}
	}
	return out
}

// poll checks cond every few milliseconds until it holds or d passes.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

func readPidFile(t *testing.T, file string) int {
	t.Helper()
	pid := 0
	if !poll(20*time.Second, func() bool {
		b, _ := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	}) {
		t.Fatalf("the server never wrote %s", file)
	}
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
	if !poll(10*time.Second, func() bool { return len(groupAlive(pg)) >= 2 }) {
		t.Fatalf("the server's child never started: %v", groupAlive(pg))
	}
	t0 := time.Now()
	h.Close()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Close took %v: it waited out the grace of a server that never answered", d)
	}
	if left := groupAlive(pg); len(left) > 0 {
		t.Errorf("Close returned with the server's group still running: %v", left)
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
	if !poll(20*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
		t.Fatal("Start() did not start the remaining server")
	}
	if c2, _ := h.Client("alpha"); c2 != c {
		t.Error("Start() restarted a server already started")
	}
}
