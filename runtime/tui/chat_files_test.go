package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/permission"
)

func filesTerm(t *testing.T, files map[string]string) *chatTerm {
	t.Helper()
	home := t.TempDir()
	for name, body := range files {
		p := filepath.Join(home, "commands", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	return &chatTerm{files: cmdfile.LoadCommands(cmdfile.Options{Home: home})}
}

// Tab after "/" offers the command files' names, not those a built-in
// has; a line calls a file's command unless a built-in has its name.
func TestFileCommandNames(t *testing.T) {
	tm := filesTerm(t, map[string]string{"review.md": "r $1", "release.md": "x", "help.md": "not /help", "git/commit.md": "c"})
	if got := tm.fileNames("/re"); !reflect.DeepEqual(got, []string{"/release", "/review"}) {
		t.Errorf("/re: %q", got)
	}
	if got := tm.fileNames("/"); !reflect.DeepEqual(got, []string{"/commit", "/release", "/review"}) {
		t.Errorf("/: %q", got)
	}
	if c, args := tm.fileCommand("/review  a b"); c == nil || c.Name != "review" || strings.TrimSpace(args) != "a b" {
		t.Errorf("/review: %+v %q", c, args)
	}
	for _, line := range []string{"/help", "//review", "/nope", "review"} {
		if c, _ := tm.fileCommand(line); c != nil {
			t.Errorf("%q called %s", line, c.Path)
		}
	}
	var b strings.Builder
	tm.fileHelp(&b)
	if !strings.Contains(b.String(), "/review") || !strings.Contains(b.String(), "(user:git)") || strings.Contains(b.String(), "/help") {
		t.Errorf("help:\n%s", b.String())
	}
}

// A command's grants allow over the chat's ask rules, never over its
// deny rules.
func TestGranted(t *testing.T) {
	base, extra := &permission.Rules{}, &permission.Rules{}
	base.Add(approval.Deny, "srv__rm", "config.json")
	base.Add(approval.Ask, "srv__write", "config.json")
	extra.Add(approval.Allow, "mcp__srv", "review.md")
	g := permission.Join(base, extra) // what the chat sets for a command with allowed-tools
	for tool, want := range map[string]approval.Decision{"srv__rm": approval.Deny, "srv__write": approval.Allow, "srv__read": approval.Allow} {
		r, ok := g.Match(approval.Call{Name: tool, Server: "srv"})
		if !ok || r.Verdict != want {
			t.Errorf("%s: %+v %v, want %v", tool, r, ok, want)
		}
	}
	if _, ok := permission.Join(base, nil).Match(approval.Call{Name: "other__x"}); ok {
		t.Error("matched with no rule")
	}
}
