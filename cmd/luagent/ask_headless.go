package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/sessionid"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/headless"
	"github.com/luagent/luagent/runtime/render"
	"github.com/luagent/luagent/runtime/secret"
)

// ask --output-format json|stream-json and --input-format stream-json:
// Claude Code's headless formats (runtime/headless), so that wrappers of
// `claude -p` run luagent unchanged. stdout holds the JSON and nothing
// else: Lua's print goes to stderr (runScript), tool activity and notes
// too. Nobody is asked anything: a call the policy would ask about is
// allowed with --yes and denied without (ask builds no asker).

func askFormatFlags(d flagDecl, a *askOptions) {
	d.fn("output-format", "FORMAT", `text (the answer, as without it), json (one result object) or stream-json (JSON lines as the run goes), in Claude Code's headless shapes (README "Automation")`,
		"--output-format needs a value: luagent ask --output-format stream-json PROMPT", func(v string) error {
			if err := headless.CheckOutput(v); err != nil {
				return err
			}
			a.outputFormat = v
			return nil
		})
	d.fn("input-format", "FORMAT", "text (the prompt, as without it) or stream-json (user messages as JSON lines on stdin, one turn each, until EOF; with --output-format stream-json)",
		"--input-format needs a value: luagent ask --output-format stream-json --input-format stream-json", func(v string) error {
			if err := headless.CheckInput(v); err != nil {
				return err
			}
			a.inputFormat = v
			return nil
		})
}

// checkFormats is the formats' usage check.
func (a *askOptions) checkFormats() error {
	streamIn := a.inputFormat == headless.StreamJSON
	switch {
	case streamIn && a.outputFormat != headless.StreamJSON:
		return usagef("--input-format stream-json needs --output-format stream-json: luagent ask --output-format stream-json --input-format stream-json")
	case streamIn && len(a.prompt) > 0:
		return usagef("--input-format stream-json reads its prompts from stdin, one user message a line: give none on the command line")
	case a.json && a.headless():
		return usagef("--json is the transcript, --output-format %s a result: choose one", a.outputFormat)
	}
	return nil
}

// headless says whether stdout is JSON (--output-format json or
// stream-json).
func (a *askOptions) headless() bool {
	return a.outputFormat == headless.JSON || a.outputFormat == headless.StreamJSON
}

// askHeadless is one headless ask's output.
type askHeadless struct {
	s        *headless.Stream
	streamIn bool
	stderr   *lastLine // ask's stderr, remembering its last line
	model    string    // the model asked for, for an init line before the agent is made
	yes      bool
	start    time.Time
	result   bool // a result was written
}

// newAskHeadless returns the output of a headless ask (nil: text). sid is
// the session's id.
func newAskHeadless(a *askOptions, stdout, stderr io.Writer, sid string) *askHeadless {
	if !a.headless() {
		return nil
	}
	mask := secret.NewMasker(secrets())
	return &askHeadless{
		s: headless.New(headless.Options{Out: stdout, Format: a.outputFormat, SessionID: sid, Mask: mask.String,
			NewID: sessionid.New}),
		streamIn: a.inputFormat == headless.StreamJSON,
		stderr:   &lastLine{w: stderr},
		model:    a.model,
		yes:      a.yes,
		start:    time.Now(),
	}
}

// setSessionID gives the run's session id, once its session is open.
func (hl *askHeadless) setSessionID(id string) {
	if hl != nil {
		hl.s.SetSessionID(id)
	}
}

func (hl *askHeadless) streamInput() bool { return hl != nil && hl.streamIn }

// permissionMode is the init line's: default is -p's (what would be
// asked is denied), bypassPermissions --yes (it is allowed).
func (hl *askHeadless) permissionMode() string {
	if hl.yes {
		return "bypassPermissions"
	}
	return "default"
}

// run is a headless ask with its agent made: the init line, then a turn
// for prompt, or for each user message on stdin (--input-format
// stream-json), each ending with its result.
func (hl *askHeadless) run(ctx context.Context, ag chat.Agent, prompt string, stdin io.Reader, shown func(string) string) int {
	ra := ag.Agent()
	cwd, _ := os.Getwd()
	tools, skills := ra.Offered()
	hl.s.Init(headless.SystemInit{Cwd: cwd, Model: ra.Model().Name(), Tools: tools, Skills: skills,
		SlashCommands: cmdfile.LoadCommands(fileOptions()).Names(), // commands.go
		MCPServers:    headless.MCPServersOf(ra.Hub(), ra.UsesServer), PermissionMode: hl.permissionMode(), ClaudeCodeVersion: version})
	// The tool activity goes to stderr, as in text mode.
	r := render.New(render.Options{Text: io.Discard, Tools: hl.stderr, Shown: shown, Quiet: true})
	var mu sync.Mutex // events come from the turn's goroutines
	turn := func(prompt string) error {
		start := time.Now()
		text, tr, err := ag.Ask(ctx, prompt, func(e ragent.Event) {
			mu.Lock()
			defer mu.Unlock()
			r.Event(e)
			hl.s.Event(e)
		})
		mu.Lock()
		defer mu.Unlock()
		r.Finish()
		hl.s.Result(headless.ResultOf(tr, text, err, time.Since(start), "", ""))
		hl.result = true
		if err != nil {
			askFailed(ctx, hl.stderr, shown, err, "")
		}
		return err
	}
	if !hl.streamIn {
		if turn(prompt) != nil {
			return host.ExitError
		}
		return host.ExitOK
	}
	// Lines are read on a goroutine of their own: an interrupt while
	// waiting for one ends the run (the read is left to the exit).
	type read struct {
		line []byte
		n    int
		err  error
	}
	lines := make(chan read)
	next := make(chan struct{})
	go func() {
		defer close(lines)
		in := headless.NewLines(stdin, headless.MaxInputLine)
		for range next {
			line, err := in.Next()
			lines <- read{line, in.Line(), err}
			if err != nil && errs.KindOf(err) != errs.Limit {
				return
			}
		}
	}()
	defer close(next)
	code := host.ExitOK
	for hl.s.Err() == nil {
		select {
		case next <- struct{}{}:
		case <-ctx.Done():
			return host.ExitError
		}
		var rd read
		select {
		case rd = <-lines:
		case <-ctx.Done():
			return host.ExitError
		}
		if errors.Is(rd.err, io.EOF) {
			break
		}
		if rd.err != nil && errs.KindOf(rd.err) != errs.Limit {
			hl.fail(errs.Wrap(errs.Invalid, "", fmt.Errorf("cannot read stdin: %v", rd.err)))
			return host.ExitError
		}
		p, err := rd.line, rd.err
		var text string
		if err == nil {
			text, err = headless.UserPrompt(p)
		}
		if err != nil {
			hl.fail(&errs.Error{Kind: errs.KindOf(err), Msg: fmt.Sprintf("stream-json input line %d: %s", rd.n, errs.Message(err))})
			code = host.ExitError
			continue
		}
		if text, err = slashPrompt(ctx, text); err != nil { // a command file's (commands.go)
			hl.fail(&errs.Error{Kind: errs.KindOf(err), Msg: fmt.Sprintf("stream-json input line %d: %s", rd.n, errs.Message(err))})
			code = host.ExitError
			continue
		}
		if turn(text) != nil {
			code = host.ExitError
		}
	}
	return code
}

// fail writes an error result for err and says it on stderr.
func (hl *askHeadless) fail(err error) {
	hl.s.Result(headless.ResultOf(nil, "", err, 0, "", ""))
	hl.result = true
	fmt.Fprintf(hl.stderr, "luagent: %s: %s\n", errs.KindOf(err), render.OneLine(err.Error(), 400))
}

// end ends a headless ask that exits with code: one that failed before
// any result (the agent could not be made, a usage mistake) gets one,
// saying what ask said on stderr, after an init line in stream-json.
func (hl *askHeadless) end(code int) int {
	if hl == nil || hl.result || code == host.ExitOK {
		return code
	}
	kind, msg := hl.stderr.failure()
	switch code {
	case host.ExitUsage:
		kind = errs.Invalid
	case host.ExitInterrupted, host.ExitTerminated:
		kind, msg = errs.Cancelled, "interrupted before the agent ran"
	}
	cwd, _ := os.Getwd()
	hl.s.Init(headless.SystemInit{Cwd: cwd, Model: hl.model, PermissionMode: hl.permissionMode(), ClaudeCodeVersion: version})
	hl.s.Result(headless.FailureOf(kind, msg, time.Since(hl.start), "", ""))
	return code
}

// lastLine passes writes through and keeps the last line written: what
// ask said last on stderr is why it failed.
type lastLine struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte // the line being written
	last string
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	for _, b := range p {
		if b == '\n' {
			if s := strings.TrimSpace(string(l.buf)); s != "" {
				l.last = s
			}
			l.buf = l.buf[:0]
			continue
		}
		if len(l.buf) < 4096 {
			l.buf = append(l.buf, b)
		}
	}
	l.mu.Unlock()
	return l.w.Write(p)
}

// failure is the last line as a failure: "luagent: KIND: msg" (askFailed's
// form) or "luagent: msg".
func (l *lastLine) failure() (errs.Kind, string) {
	l.mu.Lock()
	s := l.last
	if len(bytes.TrimSpace(l.buf)) > 0 {
		s = strings.TrimSpace(string(l.buf))
	}
	l.mu.Unlock()
	s = strings.TrimPrefix(s, "luagent: ")
	if k, rest, ok := strings.Cut(s, ": "); ok && !strings.ContainsAny(k, " \"") {
		if kind := errs.ParseKind(k); kind != errs.Unknown {
			return kind, rest
		}
	}
	if s == "" {
		s = "ask failed"
	}
	return errs.Runtime, s
}
