// Builds the repository's helper programs (scripted servers)
// for tests, once per test process.

package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

type built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

var cache sync.Map // package dir -> *built

// Root is the repository root (the folder holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Build compiles the main package at rel (relative to the repository root,
// e.g. "runtime/testkit/servers/fake") and returns the binary's path.
func Build(t testing.TB, rel string) string {
	t.Helper()
	v, _ := cache.LoadOrStore(rel, &built{})
	b := v.(*built)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "luagent-testbin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, filepath.Base(rel))
		cmd := exec.Command("go", "build", "-o", b.path, "./"+rel)
		cmd.Dir = Root()
		// Static, as `make build` makes luagent (no ld.so and libc to load:
		// 0.7 ms of every start here), and so every program compared in a
		// benchmark is built alike.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", rel, b.err, b.out)
	}
	return b.path
}

// QuickRaceExit shortens the pause a -race binary makes before it exits
// (GORACE atexit_sleep_ms, 1 s by default) for the programs a test starts
// from now on: tests that run the race-built luagent hundreds of times spent
// most of their time in it. A GORACE that sets the pause itself wins.
func QuickRaceExit() {
	g := os.Getenv("GORACE")
	if strings.Contains(g, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=20"))
}
