package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// DefaultMaxOutput bounds what is kept of a hook's stdout and of its
// stderr (each); the rest is read and dropped.
const DefaultMaxOutput = 1 << 20

// Runner runs command hooks: `sh -c COMMAND` (as Claude Code runs them) in
// Dir, the event's JSON on stdin, with CLAUDE_PROJECT_DIR and
// LUAGENT_PROJECT_DIR set to ProjectDir (Dir when empty), bounded by the
// command's timeout (its process group killed) and MaxOutput.
type Runner struct {
	Dir        string
	ProjectDir string
	// Env is added to the process environment (nil: nothing more);
	// Withhold names variables of it the command does not get (luagent's
	// own credentials: transport.WithheldEnv).
	Env       []string
	Withhold  []string
	MaxOutput int // 0: DefaultMaxOutput
}

// Exec is how a command ended.
type Exec struct {
	Exit     int // -1 when it did not exit by itself (killed, not started)
	Stdout   []byte
	Stderr   []byte
	TimedOut bool
	// Truncated: the command printed more than MaxOutput; what is kept is
	// the beginning.
	Truncated bool
	// Err is why it did not run or did not end by itself (nil when it
	// exited, whatever its code).
	Err error
}

// Run runs c with input on stdin. It returns when the command has exited
// (or was killed); it never panics.
func (r Runner) Run(ctx context.Context, c Command, input []byte) Exec {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	max := r.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Command)
	inGroup(cmd)
	// A grandchild that keeps the pipes open does not keep the hook
	// running past its kill.
	cmd.WaitDelay = time.Second
	cmd.Dir = r.Dir
	pd := r.ProjectDir
	if pd == "" {
		pd = r.Dir
	}
	if pd == "" {
		pd, _ = os.Getwd()
	}
	cmd.Env = append(append(r.environ(), r.Env...), "CLAUDE_PROJECT_DIR="+pd, "LUAGENT_PROJECT_DIR="+pd)
	cmd.Stdin = bytes.NewReader(input)
	out, errOut := &capped{max: max}, &capped{max: max}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	e := Exec{Exit: -1, Stdout: out.b.Bytes(), Stderr: errOut.b.Bytes(), Truncated: out.over || errOut.over}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.TimedOut = true
		e.Err = errors.New("timed out after " + timeout.String())
		return e
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		e.Exit = 0
	case errors.As(err, &ee) && ee.Exited():
		e.Exit = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Exited():
		e.Exit = cmd.ProcessState.ExitCode()
	default:
		e.Err = err
	}
	return e
}

// capped keeps the first max bytes written to it and drops the rest,
// always reporting the whole write as done (the command is never blocked
// on a full pipe).
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		if len(p) > room {
			c.b.Write(p[:room])
			c.over = true
		} else {
			c.b.Write(p)
		}
	} else if len(p) > 0 {
		c.over = true
	}
	return len(p), nil
}

// environ is the process environment without the withheld variables.
func (r Runner) environ() []string {
	env := os.Environ()
	if len(r.Withhold) == 0 {
		return env
	}
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(r.Withhold, name) {
			out = append(out, kv)
		}
	}
	return out
}
