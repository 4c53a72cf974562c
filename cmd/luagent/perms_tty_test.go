package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Chat's "always" answer saves a rule in the project's file (made in the
// repository's root, the folder then trusted, since the person chose to
// write the rule there): the next chat runs the tool without asking. A
// project file with allow rules in a folder not trusted is asked about
// once; a no is kept, and the rules stay ignored with a line saying so.
func TestTTYChatAlwaysSavesARule(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "srv.lua", chatServer)
	b, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv": map[string]any{"command": bin, "args": []string{"serve", srv, filepath.Join(home, "marker")}}}})
	writeFile(t, home, "config.json", string(b))
	repo := permRepo(t, "")
	projectFile := filepath.Join(repo, ".luagent", "config.json")

	tt := startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat")
	m := tt.wait(0, "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please write a note\r")
	m = tt.wait(m, "? allow run srv › write {\"text\":\"example\"}",
		"y = once, a = always (a rule in .luagent/config.json), u = always (in "+filepath.Join(home, "config.json")+"), s = this session only, n [REASON] = deny",
		"allow? [y/a/n] ")
	tt.send("a\r")
	m = tt.wait(m, "saved: allow srv__write in "+projectFile, "trusted "+repo, "wrote example", "> ")
	tt.send("\x04")
	tt.exited()
	got, _ := os.ReadFile(projectFile)
	if !strings.Contains(string(got), `"allow": ["srv__write"]`) {
		t.Fatalf("the project file:\n%s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.json")); strings.Contains(string(b), "permissions") {
		t.Errorf("the user's file got the rule too:\n%s", b)
	}

	// The next chat: no question, the tool runs.
	tt = startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat")
	m = tt.wait(0, "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please write a note\r")
	out, m := tt.between(m, "wrote example")
	if strings.Contains(out, "allow?") {
		t.Errorf("asked again:\n%s", out)
	}
	tt.wait(m, "> ")
	tt.send("\x04")
	tt.exited()

	// Untrusted, the chat asks once; n keeps the project's allow rules
	// ignored (the tool is asked about), and is remembered.
	if r := luagentIn(t, repo, "", []string{"LUAGENT_HOME=" + home}, "trust", "--remove", repo); r.code != 0 {
		t.Fatalf("trust --remove: %+v", r)
	}
	tt = startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat")
	m = tt.wait(0, "This folder's .luagent/config.json holds allow rules written by whoever wrote the repository.",
		"trust "+repo+"? (its allow rules and hooks apply from now on) [y/n] ")
	tt.send("n\r")
	m = tt.wait(m, "ignored the allow rules of "+projectFile, "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please write a note\r")
	m = tt.wait(m, "allow? [y/a/n] ")
	tt.send("y\r")
	m = tt.wait(m, "wrote example", "> ")
	tt.send("\x04")
	tt.exited()
	tt = startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat")
	out, _ = tt.between(0, "luagent chat — model mock")
	if strings.Contains(out, "[y/n]") || !strings.Contains(out, "ignored the allow rules of "+projectFile) {
		t.Errorf("asked twice, or said nothing:\n%s", out)
	}
	tt.send("\x04")
	tt.exited()

	// y trusts: the rule applies.
	os.Remove(filepath.Join(home, "trusted_folders.json"))
	tt = startTTYIn(t, repo, []string{"LUAGENT_HOME=" + home}, "chat")
	m = tt.wait(0, "[y/n] ")
	tt.send("y\r")
	m = tt.wait(m, "trusted (luagent trust --remove "+repo+" undoes it)", "luagent chat — model mock", "[1/1 server ready]")
	tt.send("please write a note\r")
	out, m = tt.between(m, "wrote example")
	if strings.Contains(out, "allow?") {
		t.Errorf("asked after trusting:\n%s", out)
	}
	tt.wait(m, "> ")
	tt.send("\x04")
	tt.exited()
}
