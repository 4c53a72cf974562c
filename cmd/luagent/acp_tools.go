package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/acp"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

// The editor's file system and terminal as the agent's tools (when the
// client offers them at initialize): read_text_file runs unasked (it is
// read-only), write_text_file and run_command go through the approval
// like any tool that is not.

// acpOutputLimit bounds a command's output the editor keeps for us.
const acpOutputLimit = 64 << 10

func (s *acpSession) clientTools() []ragent.LocalTool {
	caps := s.a.srv.ClientCapabilities()
	yes, no := true, false
	var out []ragent.LocalTool
	if caps.FS.ReadTextFile {
		out = append(out, ragent.LocalTool{Name: "read_text_file",
			Description: "Read a text file as the editor has it (unsaved changes included). path is absolute or relative to the session's folder; line (1-based) and limit (lines) read a part.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1}},"required":["path"]}`),
			Annotations: &ragent.Annotations{Title: "Read file", ReadOnlyHint: &yes},
			Call:        s.readTextFile})
	}
	if caps.FS.WriteTextFile {
		out = append(out, ragent.LocalTool{Name: "write_text_file",
			Description: "Write a text file through the editor (made if missing, replaced if not). path is absolute or relative to the session's folder.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
			Annotations: &ragent.Annotations{Title: "Write file", ReadOnlyHint: &no, DestructiveHint: &yes},
			Call:        s.writeTextFile})
	}
	if caps.Terminal {
		out = append(out, ragent.LocalTool{Name: "run_command",
			Description: "Run a command in the editor's terminal and return its output and exit status. command is the program, args its arguments (no shell unless you run one: command \"sh\", args [\"-c\", \"...\"]); cwd defaults to the session's folder.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"args":{"type":"array","items":{"type":"string"}},"cwd":{"type":"string"}},"required":["command"]}`),
			Annotations: &ragent.Annotations{Title: "Run command", ReadOnlyHint: &no, DestructiveHint: &yes, OpenWorldHint: &yes},
			Call:        s.runCommand})
	}
	return out
}

func toolArgs(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return errs.Errorf(errs.Invalid, "", "bad arguments: %v", err)
	}
	return nil
}

func (s *acpSession) readTextFile(ctx context.Context, raw json.RawMessage) (ragent.Result, error) {
	var a struct {
		Path  string `json:"path"`
		Line  *int   `json:"line"`
		Limit *int   `json:"limit"`
	}
	if err := toolArgs(raw, &a); err != nil {
		return ragent.Result{}, err
	}
	var resp acp.ReadTextFileResponse
	err := s.a.srv.Call(ctx, acp.MethodReadTextFile, acp.ReadTextFileRequest{SessionID: s.id, Path: s.abs(a.Path), Line: a.Line, Limit: a.Limit}, &resp)
	if err != nil {
		return ragent.Result{}, err
	}
	return ragent.TextResult(resp.Content, false), nil
}

func (s *acpSession) writeTextFile(ctx context.Context, raw json.RawMessage) (ragent.Result, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := toolArgs(raw, &a); err != nil {
		return ragent.Result{}, err
	}
	p := s.abs(a.Path)
	if err := s.a.srv.Call(ctx, acp.MethodWriteTextFile, acp.WriteTextFileRequest{SessionID: s.id, Path: p, Content: a.Content}, nil); err != nil {
		return ragent.Result{}, err
	}
	return ragent.TextResult(fmt.Sprintf("wrote %d bytes to %s", len(a.Content), p), false), nil
}

// runCommand runs a command in a terminal of the editor's: create, wait
// for the exit (a cancelled turn kills it), read the output, release.
func (s *acpSession) runCommand(ctx context.Context, raw json.RawMessage) (ragent.Result, error) {
	var a struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Cwd     string   `json:"cwd"`
	}
	if err := toolArgs(raw, &a); err != nil {
		return ragent.Result{}, err
	}
	if a.Command == "" {
		return ragent.Result{}, errs.New(errs.Invalid, "", "command is empty")
	}
	cwd := s.cwd
	if a.Cwd != "" {
		cwd = s.abs(a.Cwd)
	}
	// The create is waited for even when the turn is cancelled meanwhile:
	// the editor may have started the command, and only its terminal id
	// lets it be killed and released.
	var created acp.CreateTerminalResponse
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	err := s.a.srv.Call(cctx, acp.MethodTerminalCreate, acp.CreateTerminalRequest{SessionID: s.id, Command: a.Command, Args: a.Args,
		Cwd: cwd, OutputByteLimit: acpOutputLimit}, &created)
	ccancel()
	if err != nil {
		if ctx.Err() != nil {
			return ragent.Result{}, context.Cause(ctx)
		}
		return ragent.Result{}, err
	}
	term := acp.TerminalRequest{SessionID: s.id, TerminalID: created.TerminalID}
	// Released whatever happens; killed and released on a context of
	// their own, as the turn's may be cancelled.
	call := func(method string) {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.a.srv.Call(cctx, method, term, nil)
	}
	defer call(acp.MethodTerminalRelease)
	if ctx.Err() != nil { // cancelled while the editor created it
		call(acp.MethodTerminalKill)
		return ragent.Result{}, context.Cause(ctx)
	}
	if id := ragent.CallID(ctx); id != "" {
		// The editor shows the terminal in the tool call as it runs, and
		// still when it ended (an update's content replaces the last's).
		id = s.ids.Of(id)
		shown := acp.ToolCallContent{Type: "terminal", TerminalID: created.TerminalID}
		s.a.srv.Update(s.id, acp.Update{SessionUpdate: acp.UpdateToolCallUpd, ToolCall: &acp.ToolCall{ToolCallID: id,
			Content: []acp.ToolCallContent{shown}}})
		s.ids.Keep(id, shown)
	}
	var exit acp.TerminalExitStatus
	if err := s.a.srv.Call(ctx, acp.MethodTerminalWait, term, &exit); err != nil {
		if ctx.Err() != nil {
			call(acp.MethodTerminalKill)
		}
		return ragent.Result{}, err
	}
	var out acp.TerminalOutputResponse
	if err := s.a.srv.Call(ctx, acp.MethodTerminalOutput, term, &out); err != nil {
		return ragent.Result{}, err
	}
	var b strings.Builder
	b.WriteString(out.Output)
	if out.Truncated {
		b.WriteString("\n(output cut at its beginning)")
	}
	failed := false
	switch {
	case exit.ExitCode != nil:
		fmt.Fprintf(&b, "\nexit status %d", *exit.ExitCode)
		failed = *exit.ExitCode != 0
	case exit.Signal != nil:
		fmt.Fprintf(&b, "\nkilled by signal %s", *exit.Signal)
		failed = true
	}
	return ragent.TextResult(b.String(), failed), nil
}
