package errs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestKindRoundTrip(t *testing.T) {
	for k := errs.Unknown; k <= errs.UnknownOutcome; k++ {
		if got := errs.ParseKind(k.String()); got != k {
			t.Errorf("ParseKind(%q) = %v, want %v", k.String(), got, k)
		}
	}
	if errs.ParseKind("no-such-kind") != errs.Unknown {
		t.Error("unknown name should parse as Unknown")
	}
}

func TestKindThroughWrapping(t *testing.T) {
	base := errs.New(errs.Timeout, "task.sleep", "timed out after 1s")
	wrapped := fmt.Errorf("running script: %w", base)
	if !errs.Is(wrapped, errs.Timeout) {
		t.Fatalf("kind lost through %%w: %v", errs.KindOf(wrapped))
	}
	if errs.Is(wrapped, errs.Cancelled) {
		t.Fatal("wrong kind matched")
	}
	if !errors.Is(wrapped, &errs.Error{Kind: errs.Timeout}) {
		t.Fatal("errors.Is with a bare kind sentinel should match")
	}
	if errs.KindOf(errors.New("plain")) != errs.Unknown {
		t.Fatal("plain error should be Unknown")
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *errs.Error
		want string
	}{
		{errs.New(errs.NotFound, "require", "module 'x' not found"), "require: module 'x' not found"},
		{errs.New(errs.Cancelled, "", "cancelled"), "cancelled"},
		{&errs.Error{Kind: errs.Timeout, Op: "call"}, "call: timeout"},
		{errs.Errorf(errs.Invalid, "json.decode", "bad byte at %d", 3), "json.decode: bad byte at 3"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestWrapKeepsCause(t *testing.T) {
	cause := errors.New("exit status 2")
	e := errs.Wrap(errs.Process, "spawn", cause)
	if !errors.Is(e, cause) {
		t.Fatal("cause not reachable")
	}
	if errs.Wrap(errs.Process, "spawn", nil) != nil {
		t.Fatal("Wrap(nil) must be nil")
	}
}

func TestProviderKindNames(t *testing.T) {
	for k, want := range map[errs.Kind]string{errs.RateLimit: "rate_limit", errs.BadRequest: "bad_request", errs.Server: "server"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), want)
		}
	}
}

// Message is an error's text without its op, wrapped or not.
func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errs.New(errs.Invalid, "commands", "no such file"), "no such file"},
		{fmt.Errorf("loading: %w", errs.New(errs.Auth, "llm", "no key")), "no key"},
		{errs.New(errs.Timeout, "hub", ""), "hub: timeout"},
		{errors.New("plain"), "plain"},
	} {
		if got := errs.Message(tc.err); got != tc.want {
			t.Errorf("Message(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
