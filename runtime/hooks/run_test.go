package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunnerStdinEnvAndExit(t *testing.T) {
	dir := t.TempDir()
	r := Runner{Dir: dir}
	e := r.Run(context.Background(), Command{Type: "command", Command: `cat; echo; echo "$CLAUDE_PROJECT_DIR|$LUAGENT_PROJECT_DIR|$PWD" >&2; exit 3`}, []byte(`{"a":1}`))
	if e.Exit != 3 || e.Err != nil || strings.TrimSpace(string(e.Stdout)) != `{"a":1}` {
		t.Fatalf("%+v", e)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(string(e.Stderr)); got != dir+"|"+dir+"|"+real && got != dir+"|"+dir+"|"+dir {
		t.Errorf("env and folder: %q", got)
	}
}

// A hook that hangs is killed with what it started when its time is up.
func TestRunnerTimeoutKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	e := Runner{}.Run(context.Background(), Command{Type: "command", Command: `sleep 30 & echo $! > ` + pidFile + `; wait`, Timeout: 300 * time.Millisecond}, nil)
	if !e.TimedOut || e.Exit != -1 || time.Since(start) > 10*time.Second {
		t.Fatalf("%+v after %v", e, time.Since(start))
	}
	if r := ParseOutput(PreToolUse, e); r.Block || !strings.Contains(r.Error, "timed out after 300ms") {
		t.Errorf("a timeout is a non-blocking error: %+v", r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			break
		}
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		if strings.Contains(string(st), ") Z ") {
			break // a zombie: killed, not yet reaped by init
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %s survived its kill", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling the process table, not synchronizing
	}
}

func TestRunnerWithholds(t *testing.T) {
	t.Setenv("SOME_KEY", "s3cret")
	t.Setenv("OTHER", "kept")
	e := Runner{Withhold: []string{"SOME_KEY"}}.Run(context.Background(), Command{Type: "command", Command: `echo "[$SOME_KEY][$OTHER]"`}, nil)
	if got := strings.TrimSpace(string(e.Stdout)); got != "[][kept]" {
		t.Errorf("%q", got)
	}
}

func TestRunnerBoundsOutput(t *testing.T) {
	e := Runner{MaxOutput: 1000}.Run(context.Background(), Command{Type: "command", Command: `head -c 5000000 /dev/zero; head -c 5000000 /dev/zero >&2`}, nil)
	if e.Exit != 0 || len(e.Stdout) != 1000 || len(e.Stderr) != 1000 || !e.Truncated {
		t.Fatalf("exit %d, %d and %d bytes kept, truncated %v", e.Exit, len(e.Stdout), len(e.Stderr), e.Truncated)
	}
}

func TestRunnerMissingFolder(t *testing.T) {
	e := Runner{Dir: "/no/such/folder"}.Run(context.Background(), Command{Type: "command", Command: "true"}, nil)
	if e.Err == nil || ParseOutput(Stop, e).Error == "" {
		t.Errorf("%+v", e)
	}
}
