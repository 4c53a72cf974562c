// Package errs defines the error kinds shared by every luagent package. It
// is a leaf: it imports nothing of the project, so any package may use it.
// The JSON-RPC wire codes live in runtime/jsonrpc (the MCP ones in
// runtime/mcp); a server picks the code where it answers.
//
// An error carries a Kind so that Lua code, the CLI and tests can branch on
// what failed without parsing text:
//
//	err := errs.New(errs.Timeout, "tools/call", "no answer after 30s; raise timeout= or check the server")
//	if errs.Is(err, errs.Timeout) { ... }
package errs

import (
	"errors"
	"fmt"
)

// Kind says what class of failure an error is.
type Kind uint8

// The kinds. Their String forms are the names Lua code sees in err.kind.
const (
	Unknown        Kind = iota
	Invalid             // bad input: a wrong argument, a malformed value
	Syntax              // a Lua chunk that does not compile
	Runtime             // a Lua error raised while a script ran
	NotFound            // a named thing (file, module, tool, method) does not exist
	Timeout             // a deadline passed
	Cancelled           // the caller or the user stopped the operation
	Process             // a child process failed to start or died
	Protocol            // a peer broke the protocol
	Tool                // a tool reported a failure (isError)
	Auth                // authentication or authorization failed
	Internal            // a bug in luagent: please report it
	Closed              // the connection or transport is closed
	Limit               // a configured limit was reached (an agent's max turns or token budget)
	RateLimit           // a model provider refused for too many requests (HTTP 429), after retries
	BadRequest          // a model provider rejected the request itself (HTTP 400, 404, 422)
	Server              // a model provider failed on its side (HTTP 5xx), after retries
	Integrity           // content failed its published check (a skill's digest, size or front matter)
	UnknownOutcome      // a tool call was sent and its answer lost: it may have run, and was not sent again
	Incomplete          // a model's stream broke after its answer began: not sent again, what came is kept
	ContextLength       // the request is longer than the model's context window
)

var kindNames = [...]string{
	Unknown:        "unknown",
	Invalid:        "invalid",
	Syntax:         "syntax",
	Runtime:        "runtime",
	NotFound:       "not_found",
	Timeout:        "timeout",
	Cancelled:      "cancelled",
	Process:        "process",
	Protocol:       "protocol",
	Tool:           "tool",
	Auth:           "auth",
	Internal:       "internal",
	Closed:         "closed",
	Limit:          "limit",
	RateLimit:      "rate_limit",
	BadRequest:     "bad_request",
	Server:         "server",
	Integrity:      "integrity",
	UnknownOutcome: "unknown_outcome",
	Incomplete:     "incomplete",
	ContextLength:  "context_length",
}

// String returns the kind's name as Lua code sees it ("timeout", "not_found").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ParseKind returns the Kind named s, or Unknown.
func ParseKind(s string) Kind {
	for k, n := range kindNames {
		if n == s {
			return Kind(k)
		}
	}
	return Unknown
}

// Error is an error with a kind. Op names what was being done ("require",
// "task.sleep", "tools/call"); Msg is one line that says what failed and what
// to do; Err is the cause, if any.
type Error struct {
	Kind Kind
	Op   string
	Msg  string
	Err  error
}

// New returns an *Error of kind k.
func New(k Kind, op, msg string) *Error { return &Error{Kind: k, Op: op, Msg: msg} }

// Errorf returns an *Error of kind k with a formatted message. A %w verb
// records the cause.
func Errorf(k Kind, op, format string, args ...any) *Error {
	e := fmt.Errorf(format, args...)
	return &Error{Kind: k, Op: op, Msg: e.Error(), Err: errors.Unwrap(e)}
}

// Wrap returns an *Error of kind k around cause. The message is the cause's.
func Wrap(k Kind, op string, cause error) *Error {
	if cause == nil {
		return nil
	}
	return &Error{Kind: k, Op: op, Msg: cause.Error(), Err: cause}
}

// Error returns "op: msg".
func (e *Error) Error() string {
	switch {
	case e.Op == "":
		return e.Msg
	case e.Msg == "":
		return e.Op + ": " + e.Kind.String()
	}
	return e.Op + ": " + e.Msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error of the same kind with no Op and Msg,
// so errors.Is(err, errs.Timeout.Err()) style sentinels match by kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// Message is err's text without its op: the message of the first *Error
// in its chain (when it has one), else err.Error().
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Msg != "" {
		return e.Msg
	}
	return err.Error()
}

// KindOf returns the kind of the first *Error in err's chain, or Unknown.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Unknown
}

// Is reports whether err has kind k.
func Is(err error, k Kind) bool { return err != nil && KindOf(err) == k }
