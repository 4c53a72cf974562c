//go:build linux

// Tells tests which processes are alive, from /proc: the
// lifetime tests check that nothing a server started outlives its owner.

package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GroupMembers lists the live processes of process group pg as "PID (comm)"
// (zombies, already dead, are not counted).
func GroupMembers(pg int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		j := bytes.IndexByte(b, '(')
		if i < 0 || j < 0 || j > i {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pg {
			out = append(out, e.Name()+" "+string(b[j:i+1]))
		}
	}
	return out
}

// Poll checks cond every few milliseconds until it holds or d passes, and
// says whether it held. For conditions no event announces (a process
// ending elsewhere); it is not a sleep: it returns as soon as cond holds.
func Poll(d time.Duration, cond func() bool) bool {
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

// PidFile waits up to 20 s for file to hold a pid (a test server writes
// its own there once it runs) and returns it.
func PidFile(t testing.TB, file string) int {
	t.Helper()
	var pid int
	if !Poll(20*time.Second, func() bool {
		b, err := os.ReadFile(file)
		if err != nil {
			return false
		}
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	}) {
		t.Fatalf("the server never started (no pid in %s)", file)
	}
	return pid
}

// GroupGone fails t unless no process of group pg is left within 5 s
// (time for the kernel to deliver the last signals).
func GroupGone(t testing.TB, pg int) {
	t.Helper()
	var left []string
	if !Poll(5*time.Second, func() bool { left = GroupMembers(pg); return len(left) == 0 }) {
		t.Errorf("processes of the server's group %d outlived their owner: %v", pg, left)
	}
}
