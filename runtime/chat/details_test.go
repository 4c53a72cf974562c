package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

func TestSchemaFields(t *testing.T) {
	got := SchemaFields(json.RawMessage(`{"type": "object", "required": ["path"], "properties": {
		"path": {"type": "string", "format": "uri", "description": "the file"},
		"n": {"type": ["integer", "null"], "default": 3},
		"mode": {"type": "string", "enum": ["r", "w"]},
		"opts": {"type": "object", "required": ["deep"], "properties": {
			"deep": {"type": "object", "properties": {"deeper": {"type": "object", "properties": {"deepest": {"type": "string"}}}}}}},
		"tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
		"x": {}}}`))
	want := []SchemaField{
		{Name: "path", Type: "string", Required: true, Description: "the file", Format: "uri"},
		{Name: "n", Type: "integer|null", Default: "3"},
		{Name: "mode", Type: "string", Enum: []string{`"r"`, `"w"`}},
		{Name: "opts", Type: "object"},
		{Name: "deep", Depth: 1, Type: "object", Required: true},
		{Name: "deeper", Depth: 2, Type: "object"}, // deeper's own properties are past the view's depth
		{Name: "tags", Type: "array of object"},
		{Name: "k", Depth: 1, Type: "string"},
		{Name: "x", Type: "any"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SchemaFields:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{`[`, `{"type":"object"}`, `null`, `{"properties": 3}`} {
		if f := SchemaFields(json.RawMessage(bad)); f != nil {
			t.Errorf("SchemaFields(%s) = %+v, want none", bad, f)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -y  pkg ", []string{"-y", "pkg"}},
		{`'my dir' "a b" c\ d`, []string{"my dir", "a b", "c d"}},
		{`--x="quoted \"inner\""`, []string{`--x=quoted "inner"`}},
		{`'it''s'`, []string{"its"}},
		{`'a\b'`, []string{`a\b`}},
		{`"" ''`, []string{"", ""}},
	} {
		got, err := SplitArgs(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`"open`, `'open`, `trailing\`} {
		if _, err := SplitArgs(bad); errs.KindOf(err) != errs.Invalid {
			t.Errorf("SplitArgs(%q): %v, want an invalid error", bad, err)
		}
	}
}

func TestNewEntry(t *testing.T) {
	for _, tc := range []struct {
		name, target, args string
		url, command       string
		argv               []string
		err                string // "" valid
	}{
		{name: "remote", target: " https://example.com/mcp ", url: "https://example.com/mcp"},
		{name: "files", target: "npx", args: "-y @modelcontextprotocol/server-filesystem 'my dir'", command: "npx",
			argv: []string{"-y", "@modelcontextprotocol/server-filesystem", "my dir"}},
		{name: "", target: "npx", err: "needs a name"},
		{name: "x", target: " ", err: "give a URL"},
		{name: "bad name", target: "npx", err: "the name must be 1 to 64"},
		{name: "r", target: "https://example.com/mcp", args: "x", err: "takes no arguments"},
		{name: "r", target: "http://", err: "must be an http or https URL with a host"},
		{name: "r", target: "npx", args: `"open`, err: "inside a quote"},
	} {
		e, err := NewEntry(tc.name, tc.target, tc.args)
		if tc.err != "" {
			if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NewEntry(%q, %q, %q): %v, want an invalid error with %q", tc.name, tc.target, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || e.URL != tc.url || e.Command != tc.command || !reflect.DeepEqual(e.Args, tc.argv) || !e.Enabled {
			t.Errorf("NewEntry(%q, %q, %q) = %+v, %v", tc.name, tc.target, tc.args, e, err)
		}
	}
}

// hubSession is a session over a catalog file of disabled entries (no
// process starts) and a hub over it.
func hubSession(t *testing.T) (*Session, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"version": 1, "mcpServers": {
  "a": {"command": "prog", "args": ["--flag", "two words"], "env": {"TOKEN": "tok-SECRET", "HOME_DIR": {"fromEnv": "HOME"}}, "enabled": false},
  "b": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer tok-SECRET"}, "enabled": false}}}`), 0o600)
	cfg, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h := hub.New(cfg.Servers, hub.Options{})
	t.Cleanup(func() { h.Close() })
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}, Hub: h, Catalog: cfg.Servers})
	return s, path
}

func statusNames(states []hub.State) []string {
	var out []string
	for _, st := range states {
		out = append(out, st.Name+"="+string(st.Status))
	}
	return out
}

func TestDetailsShowKeysNotValues(t *testing.T) {
	s, _ := hubSession(t)
	d, err := s.Details(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if d.Transport != "stdio" || d.Target != `prog --flag "two words"` || !reflect.DeepEqual(d.EnvKeys, []string{"HOME_DIR", "TOKEN"}) ||
		d.State.Status != hub.Disabled || d.Tools != nil {
		t.Errorf("Details(a) = %+v", d)
	}
	d, _ = s.Details(context.Background(), "b")
	if d.Transport != "http" || d.Target != "https://example.com/mcp" || !reflect.DeepEqual(d.HeaderKeys, []string{"Authorization"}) {
		t.Errorf("Details(b) = %+v", d)
	}
	if b, _ := json.Marshal(d); strings.Contains(string(b), "SECRET") {
		t.Errorf("Details hold a secret: %s", b)
	}
	if _, err := s.Details(context.Background(), "nope"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("Details(nope): %v", err)
	}
}

// What Preview shows is what Add writes, byte for byte (but env values).
func TestPreviewIsWhatAddSaves(t *testing.T) {
	s, path := hubSession(t)
	e, err := NewEntry("files", "npx", "-y @modelcontextprotocol/server-filesystem 'my dir'")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Preview(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `"files": {
  "command": "npx",
  "args": ["-y", "@modelcontextprotocol/server-filesystem", "my dir"],
  "enabled": true
}`
	if p != want {
		t.Errorf("Preview:\n%s\nwant\n%s", p, want)
	}
	ctx := context.Background()
	if err := s.Add(ctx, path, e); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), strings.ReplaceAll(p, "\n", "\n    ")) {
		t.Errorf("the file does not hold the preview:\n%s", b)
	}
	if got := statusNames(s.Hub().Status()); !reflect.DeepEqual(got, []string{"a=disabled", "b=disabled", "files=stopped"}) {
		t.Errorf("the hub after Add: %v", got)
	}
	if err := s.Add(ctx, path, e); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "already in the catalog") {
		t.Errorf("Add again: %v", err)
	}

	// Env values never show in a preview, nor header values or a client
	// secret; the keys do, and references (names, not secrets) as written.
	e.Env = map[string]catalog.EnvValue{"TOKEN": {Value: "tok-SECRET"}, "REF": {FromEnv: "HOME"}}
	if p, _ := Preview(e); strings.Contains(p, "SECRET") || !strings.Contains(p, `"TOKEN": "<hidden>"`) || !strings.Contains(p, `"fromEnv": "HOME"`) {
		t.Errorf("Preview with env:\n%s", p)
	}
	web := &catalog.Server{Name: "web", Enabled: true, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer hdr-SECRET"},
		OAuth: &catalog.OAuth{ClientID: "id", ClientSecret: "cs-SECRET"}}
	if p, _ := Preview(web); strings.Contains(p, "SECRET") || !strings.Contains(p, `"Authorization": "<hidden>"`) || !strings.Contains(p, `"clientSecret": "<hidden>"`) {
		t.Errorf("Preview with headers and a client secret:\n%s", p)
	}
}

func TestRemove(t *testing.T) {
	s, path := hubSession(t)
	ctx := context.Background()
	if err := s.Remove(ctx, path, "a"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := catalog.Load(path)
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "b" {
		t.Errorf("the catalog after Remove: %+v", cfg.Servers)
	}
	if got := statusNames(s.Hub().Status()); !reflect.DeepEqual(got, []string{"b=disabled"}) {
		t.Errorf("the hub after Remove: %v", got)
	}
	if len(s.Catalog()) != 1 {
		t.Errorf("the session's catalog after Remove: %d entries", len(s.Catalog()))
	}
	if err := s.Remove(ctx, path, "a"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("Remove again: %v", err)
	}
	if err := s.SetEnabled(ctx, path, "a", true); errs.KindOf(err) != errs.NotFound {
		t.Errorf("SetEnabled of a removed entry: %v", err)
	}
}

// An edit made outside the session (another editor, mcp add in another
// shell) reaches the hub on Reload: the added entry is there, the removed
// one gone, the changed one restarted; a file broken since changes
// nothing and says what is wrong in one line.
func TestReloadPicksUpAnOutsideEdit(t *testing.T) {
	s, path := hubSession(t)
	if err := os.WriteFile(path, []byte(`{"version": 1, "mcpServers": {
  "a": {"command": "prog", "args": ["--other"], "enabled": false},
  "c": {"command": "new-prog", "enabled": false}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reload(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Reloaded{Added: []string{"c"}, Removed: []string{"b"}, Changed: []string{"a"}}); !reflect.DeepEqual(r, want) {
		t.Errorf("Reload = %+v, want %+v", r, want)
	}
	if got, want := r.String(), "config.json re-read: added c; removed b (stopped); changed a (restarting)"; got != want {
		t.Errorf("Reload says %q, want %q", got, want)
	}
	if got := statusNames(s.Hub().Status()); !reflect.DeepEqual(got, []string{"a=disabled", "c=disabled"}) {
		t.Errorf("the hub has %v after the reload", got)
	}
	if got := s.Catalog(); len(got) != 2 || got[1].Name != "c" || got[1].Command != "new-prog" {
		t.Errorf("Catalog after the reload: %+v", got)
	}
	// Again: nothing changed.
	if r, err := s.Reload(path); err != nil || r.String() != "config.json re-read: no change" {
		t.Errorf("a second Reload = %q, %v", r, err)
	}

	// Broken: the servers and the entries stay as they were.
	os.WriteFile(path, []byte(`{"version": 1, "mcpServers": {"a": {"command": }}}`), 0o600)
	_, err = s.Reload(path)
	if errs.KindOf(err) != errs.Invalid || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), path) {
		t.Errorf("Reload of a broken file: %v, want one invalid line naming the file", err)
	}
	if got := statusNames(s.Hub().Status()); !reflect.DeepEqual(got, []string{"a=disabled", "c=disabled"}) {
		t.Errorf("the hub has %v after a failed reload", got)
	}
	if got := s.Catalog(); len(got) != 2 {
		t.Errorf("Catalog after a failed reload: %+v", got)
	}
}
