//go:build linux

package hub

import (
	"bytes"
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
