package tui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// The login the manager hands the terminal to promises no URL: the OAuth
// flow announces one when it has it, and a login that fails before (no
// authorization server found, say) leaves no "open the URL below" behind.
func TestAuthExecPromisesNoURL(t *testing.T) {
	var out bytes.Buffer
	a := &authExec{ctx: context.Background(), name: "remote", login: func(context.Context, string) error {
		return errors.New("no authorization server")
	}}
	a.SetStdout(&out)
	if err := a.Run(); err == nil {
		t.Fatal("the login's error was lost")
	}
	if s := out.String(); !strings.Contains(s, "authorizing remote") || strings.Contains(s, "URL") {
		t.Errorf("the login printed %q", s)
	}
}
