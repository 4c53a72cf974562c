package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Permission rules end to end: the binary, a catalog with a server whose
// write tool is not read-only (so the default policy asks, and ask
// without --yes denies it), rules in the user's config.json, in a
// project's .luagent/config.json (trusted and not), and on the command
// line.

// permHome is askHome with permissions in its config.json.
func permHome(t *testing.T, perms map[string]any) (home, notes string) {
	t.Helper()
	home, notes = askHome(t)
	var cfg map[string]any
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	json.Unmarshal(b, &cfg)
	if perms != nil {
		cfg["permissions"] = perms
	}
	b, _ = json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home, notes
}

// permRepo is a repository folder with a project file.
func permRepo(t *testing.T, project string) string {
	t.Helper()
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	if project != "" {
		writeFile(t, repo, ".luagent/config.json", project)
	}
	return repo
}

func wrote(notes string) bool {
	b, _ := os.ReadFile(notes)
	return strings.Contains(string(b), "hi")
}

// ask without --yes runs a tool an allow rule names (it was denied:
// nobody could be asked); --deny wins over every allow, --yes too.
func TestAskFollowsTheRules(t *testing.T) {
	const prompt = "write text=hi"
	for _, tt := range []struct {
		name  string
		perms map[string]any
		args  []string
		runs  bool
		says  string
	}{
		{"no rule: denied", nil, nil, false, "deny: needs approval; nobody to ask"},
		{"user allow", map[string]any{"allow": []string{"srv__write"}}, nil, true, ""},
		{"user allow in Claude Code's spelling", map[string]any{"allow": []string{"mcp__srv"}}, nil, true, ""},
		{"user allow with a matcher that holds", map[string]any{"allow": []string{"srv__write(text:h*)"}}, nil, true, ""},
		{"user allow with a matcher that does not", map[string]any{"allow": []string{"srv__write(text:x*)"}}, nil, false, "nobody to ask"},
		{"--allow", nil, []string{"--allow", "srv__*"}, true, ""},
		{"--deny over the user's allow", map[string]any{"allow": []string{"*"}}, []string{"--deny", "srv__write"}, false, "deny: denied by the rule srv__write (--deny)"},
		{"user deny over --yes", map[string]any{"deny": []string{"srv__write"}}, []string{"--yes"}, false, "denied by the rule srv__write ("},
		{"user ask, --yes", map[string]any{"ask": []string{"srv__write"}}, []string{"--yes"}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, notes := permHome(t, tt.perms)
			args := append(append([]string{"ask"}, tt.args...), prompt)
			r := luagentIn(t, t.TempDir(), "", []string{"LUAGENT_HOME=" + home}, args...)
			if r.code != 0 || wrote(notes) != tt.runs || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("exit %d, wrote %v (want %v)\nstdout: %s\nstderr: %s", r.code, wrote(notes), tt.runs, r.stdout, r.stderr)
			}
		})
	}
}

// A project's deny and ask rules always apply; its allow rules only once
// its folder is trusted (luagent trust), and until then one stderr line
// says they were ignored and how to trust.
func TestAskProjectRulesAndTrust(t *testing.T) {
	home, notes := permHome(t, nil)
	repo := permRepo(t, `{"permissions": {"allow": ["srv__write"]}}`)
	sub := filepath.Join(repo, "src", "deep")
	os.MkdirAll(sub, 0o755)
	env := []string{"LUAGENT_HOME=" + home}
	r := luagentIn(t, sub, "", env, "ask", "write text=hi")
	want := "luagent: ignored the allow rules of " + filepath.Join(repo, ".luagent", "config.json") + ": the folder is not trusted (luagent trust " + repo + " trusts it)"
	if r.code != 0 || wrote(notes) || !strings.Contains(r.stderr, want) {
		t.Fatalf("untrusted: exit %d, wrote %v\nstderr: %s", r.code, wrote(notes), r.stderr)
	}
	// luagent trust from inside the project trusts the project's folder.
	if r := luagentIn(t, sub, "", env, "trust"); r.code != 0 || !strings.Contains(r.stdout, "trusted: "+repo) {
		t.Fatalf("trust: %+v", r)
	}
	if r := luagentIn(t, sub, "", env, "trust", "--list"); r.stdout != repo+"\n" {
		t.Fatalf("trust --list: %+v", r)
	}
	fi, err := os.Stat(filepath.Join(home, "trusted_folders.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the trust file: %v %v", fi, err)
	}
	r = luagentIn(t, sub, "", env, "ask", "write text=hi")
	if r.code != 0 || !wrote(notes) || strings.Contains(r.stderr, "ignored") {
		t.Fatalf("trusted: exit %d, wrote %v\nstderr: %s", r.code, wrote(notes), r.stderr)
	}
	// A project's deny applies untrusted, over the user's allow.
	os.Remove(notes)
	if r := luagentIn(t, sub, "", env, "trust", "--remove", repo); r.code != 0 {
		t.Fatalf("trust --remove: %+v", r)
	}
	writeFile(t, repo, ".luagent/config.json", `{"permissions": {"deny": ["srv__write(text:h*)"]}}`)
	home2, notes2 := permHome(t, map[string]any{"allow": []string{"srv__*"}})
	r = luagentIn(t, sub, "", []string{"LUAGENT_HOME=" + home2}, "ask", "write text=hi")
	if r.code != 0 || wrote(notes2) || !strings.Contains(r.stderr, "denied by the rule srv__write(text:h*) ("+filepath.Join(repo, ".luagent", "config.json")+")") || strings.Contains(r.stderr, "ignored") {
		t.Fatalf("project deny: exit %d, wrote %v\nstderr: %s", r.code, wrote(notes2), r.stderr)
	}
}

// A bad pattern is an error before anything starts, one line naming it:
// in a file, by its path in the file; on the command line, a usage error.
func TestBadPatterns(t *testing.T) {
	home, _ := permHome(t, map[string]any{"allow": []string{"srv__echo", "Bash(npm run test:*)"}})
	r := luagentIn(t, t.TempDir(), "", []string{"LUAGENT_HOME=" + home}, "ask", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, `permissions.allow[1]: "Bash(npm run test:*)": the argument matcher is ARG:GLOB`) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("user file: %+v", r)
	}
	home, _ = permHome(t, nil)
	r = luagentIn(t, t.TempDir(), "", []string{"LUAGENT_HOME=" + home}, "ask", "--deny", "fs x", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `--deny "fs x": a tool name has`) {
		t.Errorf("--deny: %+v", r)
	}
	repo := permRepo(t, `{"permissions": {"ask": [7]}}`)
	r = luagentIn(t, repo, "", []string{"LUAGENT_HOME=" + home}, "chat")
	if r.code != 1 || !strings.Contains(r.stderr, filepath.Join(repo, ".luagent", "config.json")+": permissions.ask: must be an array of strings") {
		t.Errorf("project file: %+v", r)
	}
	noGoStack(t, r.stderr)
}
