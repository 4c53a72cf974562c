package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The project file is the nearest .luagent/config.json up to the
// repository root; outside a repository only the working folder's.
func TestFind(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(sub, 0o755)
	if got := Find(sub); got != "" {
		t.Errorf("no file: %q", got)
	}
	if got := Root(sub); got != repo {
		t.Errorf("Root without a file: %q, want the repository %q", got, repo)
	}
	// Above the repository root is not the project's.
	write(t, filepath.Join(root, ".luagent", "config.json"), `{}`)
	if got := Find(sub); got != "" {
		t.Errorf("a file above the repository was found: %q", got)
	}
	write(t, PathIn(repo), `{}`)
	if got := Find(sub); got != PathIn(repo) {
		t.Errorf("Find = %q, want %q", got, PathIn(repo))
	}
	write(t, PathIn(filepath.Join(repo, "a")), `{}`)
	if got := Find(sub); got != PathIn(filepath.Join(repo, "a")) {
		t.Errorf("the nearest: %q", got)
	}
	if got := Root(sub); got != filepath.Join(repo, "a") {
		t.Errorf("Root: %q", got)
	}
	outside := filepath.Join(root, "plain", "x")
	os.MkdirAll(outside, 0o755)
	if Find(outside) != "" || Root(outside) != "" {
		t.Errorf("outside a repository: %q %q", Find(outside), Root(outside))
	}
	write(t, PathIn(outside), `{}`)
	if Find(outside) != PathIn(outside) {
		t.Errorf("the working folder's own file outside a repository was not found")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := PathIn(dir)
	write(t, p, `{"permissions": {"allow": ["x__y"], "deny": ["z__*"]}, "hooks": {"PreToolUse": []}}`)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != dir || f.Permissions.Allow[0] != "x__y" || string(f.Hooks) != `{"PreToolUse": []}` || !f.Trustable() {
		t.Errorf("%+v", f)
	}
	write(t, p, `{"permissions": {"deny": ["ok", "not ok"]}}`)
	_, err = Load(p)
	if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), p+": permissions.deny[1]: ") {
		t.Errorf("a bad pattern: %v", err)
	}
	write(t, p, `{"permissions": {"deny": ["z"]}}`)
	if f, _ := Load(p); f.Trustable() {
		t.Error("deny rules alone need no trust")
	}
}

func TestTrust(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	inner := filepath.Join(dir, "inner")
	os.Mkdir(inner, 0o755)
	if Trusted(home, dir) {
		t.Fatal("trusted before")
	}
	if _, err := Trust(home, dir); err != nil {
		t.Fatal(err)
	}
	if !Trusted(home, dir) || !Trusted(home, inner) || Trusted(home, dir+"x") {
		t.Error("trust covers the folder and what is inside it, nothing else")
	}
	fi, err := os.Stat(filepath.Join(home, TrustFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the trust file: %v %v", fi, err)
	}
	l, _ := List(home)
	if len(l) != 1 {
		t.Errorf("List %q", l)
	}
	if was, err := Remove(home, dir); !was || err != nil || Trusted(home, dir) {
		t.Errorf("Remove: %v %v", was, err)
	}
	Decline(home, dir)
	if !Declined(home, dir) || Trusted(home, dir) {
		t.Error("declined")
	}
	Trust(home, dir)
	if Declined(home, dir) {
		t.Error("trusting forgets the no")
	}
	os.WriteFile(filepath.Join(home, TrustFile), []byte("garbage"), 0o600)
	if Trusted(home, dir) {
		t.Error("a broken trust file trusts")
	}
	if _, err := Trust(home, dir); errs.KindOf(err) != errs.Invalid {
		t.Errorf("a broken trust file: %v", err)
	}
}

// A project's deny and ask rules always apply; its allow rules only in a
// trusted folder; the user's and the flags' always.
func TestSetupRules(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write(t, PathIn(repo), `{"permissions": {"allow": ["p__ok"], "ask": ["p__ask"], "deny": ["p__no"]}}`)
	user := &catalog.Config{Permissions: &catalog.Permissions{Allow: []string{"u__ok"}}}
	call := func(name string) approval.Call {
		return approval.Call{Name: name, Qualified: name, Kind: approval.KindMCP, Arguments: json.RawMessage(`{}`)}
	}
	verdict := func(s *Setup, name string) string {
		r, err := s.Rules()
		if err != nil {
			t.Fatal(err)
		}
		m, ok := r.Match(call(name))
		if !ok {
			return "none"
		}
		return string(m.Verdict)
	}
	s, err := NewSetup(home, repo, user, []string{"f__ok"}, []string{"u__ok"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.NeedsTrust() || !strings.Contains(s.Ignored(), "ignored the allow rules of "+PathIn(repo)+": the folder is not trusted (luagent trust "+repo+" trusts it)") {
		t.Errorf("untrusted: %v %q", s.NeedsTrust(), s.Ignored())
	}
	for name, want := range map[string]string{"p__ok": "none", "p__ask": "ask", "p__no": "deny", "u__ok": "deny", "f__ok": "allow"} {
		if got := verdict(s, name); got != want {
			t.Errorf("untrusted %s: %s, want %s", name, got, want)
		}
	}
	if err := s.TrustProject(); err != nil {
		t.Fatal(err)
	}
	if verdict(s, "p__ok") != "allow" || s.Ignored() != "" {
		t.Error("trusted: the project's allow rule does not apply")
	}
	s2, _ := NewSetup(home, repo, user, nil, nil)
	if !s2.Trusted {
		t.Error("the trust was not kept")
	}
	if _, err := NewSetup(home, repo, user, []string{"bad name"}, nil); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), `--allow "bad name"`) {
		t.Errorf("a bad --allow: %v", err)
	}
}

// "Always" saves to the project's file (made in the repository root if
// needed, trusting its folder) or the user's.
func TestSaveAllow(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	s, err := NewSetup(home, repo, &catalog.Config{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.SaveTo(SaveProject) != PathIn(repo) || s.SaveTo(SaveUser) != filepath.Join(home, "config.json") {
		t.Errorf("targets %q %q", s.SaveTo(SaveProject), s.SaveTo(SaveUser))
	}
	file, note, err := s.SaveAllow(context.Background(), SaveProject, "srv__echo")
	if err != nil || file != PathIn(repo) || !strings.Contains(note, "trusted") {
		t.Fatalf("%q %q %v", file, note, err)
	}
	f, err := Load(file)
	if err != nil || f.Permissions.Allow[0] != "srv__echo" || !Trusted(home, repo) {
		t.Errorf("%+v %v", f, err)
	}
	file, _, err = s.SaveAllow(context.Background(), SaveUser, "srv__other")
	c, _ := catalog.Load(file)
	if err != nil || c.Permissions.Allow[0] != "srv__other" {
		t.Errorf("user: %v %+v", err, c)
	}
}
