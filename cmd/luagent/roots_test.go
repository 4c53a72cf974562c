package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// "roots" in config.json reaches mcp call, ask and a script's mcp.hub():
// true answers roots/list with the working folder, a list with its
// folders (relative ones the working folder's, ~ the home folder), per
// server; an entry without it does not advertise roots at all.
func TestConfigRoots(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	work, home, abs := t.TempDir(), t.TempDir(), t.TempDir()
	logs := t.TempDir()
	entry := func(name, roots string) string {
		e := `"` + name + `":{"command":` + quoteJSON(fake) + `,"args":["-era","legacy","-log",` + quoteJSON(filepath.Join(logs, name)) + `]`
		if roots != "" {
			e += `,"roots":` + roots
		}
		return e + "}"
	}
	env := append(savedHome(t, entry("here", "true")+","+entry("listed", `["sub", "~/proj", `+quoteJSON(abs)+`]`)+","+
		entry("off", "false")+","+entry("plain", "")), "HOME="+home)
	uri := func(dir string) string { return "file://" + filepath.ToSlash(dir) }
	here := `{"uri":"` + uri(work) + `","name":"` + filepath.Base(work) + `"}`
	listed := `[{"uri":"` + uri(filepath.Join(work, "sub")) + `","name":"sub"},{"uri":"` + uri(filepath.Join(home, "proj")) + `","name":"proj"},` +
		`{"uri":"` + uri(abs) + `","name":"` + filepath.Base(abs) + `"}]`
	run := func(args ...string) result {
		t.Helper()
		return luagentIn(t, work, "", env, args...)
	}

	if r := run("mcp", "call", "here", "roots"); r.code != 0 || strings.TrimSpace(r.stdout) != `answer: {"roots":[`+here+`]}` {
		t.Errorf("mcp call here roots: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := run("mcp", "call", "listed", "roots"); r.code != 0 || strings.TrimSpace(r.stdout) != `answer: {"roots":`+listed+`}` {
		t.Errorf("mcp call listed roots: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"plain", "off"} {
		if r := run("mcp", "call", name, "roots"); r.code == 0 || strings.Contains(r.stdout+r.stderr, "file://") {
			t.Errorf("mcp call %s roots: exit %d\nstdout: %s\nstderr: %s", name, r.code, r.stdout, r.stderr)
		}
	}
	// What each server was told in initialize.
	for name, want := range map[string]bool{"here": true, "listed": true, "plain": false, "off": false} {
		b, _ := os.ReadFile(filepath.Join(logs, name))
		init := ""
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, `"method":"initialize"`) {
				init = line
			}
		}
		if init == "" || strings.Contains(init, `"roots"`) != want {
			t.Errorf("%s: roots advertised %v, want %v: %s", name, !want, want, init)
		}
	}

	// ask with the mock model calls listed's roots tool.
	r := run("ask", "--server", "listed", "--yes", "call roots")
	if r.code != 0 || !strings.Contains(r.stderr, "listed › roots") || !strings.Contains(r.stdout, uri(filepath.Join(home, "proj"))) {
		t.Errorf("ask: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	// A script's mcp.hub() reads the same file.
	r = run("-e", `local hub = mcp.hub()
print(hub:call("here__roots").content[1].text)
hub:close()`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != `answer: {"roots":[`+here+`]}` {
		t.Errorf("mcp.hub(): exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	// mcp get shows it.
	for name, want := range map[string]string{"here": `true`, "listed": `["sub","~/proj",` + quoteJSON(abs) + `]`, "plain": `false`, "off": `false`} {
		r := run("mcp", "get", name, "--json")
		var g struct {
			Roots json.RawMessage `json:"roots"`
		}
		var compact bytes.Buffer
		if json.Unmarshal([]byte(r.stdout), &g) != nil || json.Compact(&compact, g.Roots) != nil || compact.String() != want {
			t.Errorf("mcp get %s --json: roots %s, want %s\n%s", name, g.Roots, want, r.stdout)
		}
	}
	if r := run("mcp", "get", "listed"); !strings.Contains(r.stdout, "roots:") || !strings.Contains(r.stdout, "sub, ~/proj, "+abs) {
		t.Errorf("mcp get listed:\n%s", r.stdout)
	}
	if r := run("mcp", "get", "here"); !strings.Contains(r.stdout, "working folder") {
		t.Errorf("mcp get here:\n%s", r.stdout)
	}
}
