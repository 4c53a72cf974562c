package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// permissions is read, checked pattern by pattern (each bad one named by
// its path, in one line), and kept as written with its unknown members.
func TestPermissionsParseAndValidate(t *testing.T) {
	c := mustParse(t, []byte(`{"version": 1, "permissions": {"allow": ["fs__read_*", "mcp__gh"], "ask": ["*"], "deny": ["fs__write_file(path:/etc/*)"], "defaultMode": "default"}}`))
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ps := c.Permissions
	if strings.Join(ps.Allow, " ") != "fs__read_* mcp__gh" || strings.Join(ps.Ask, " ") != "*" || len(ps.Deny) != 1 {
		t.Fatalf("read %+v", ps)
	}
	if _, err := ps.Rules("user"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, says string }{
		{`{"permissions": {"allow": ["ok", "fs x"]}}`, `permissions.allow[1]: "fs x": a tool name has`},
		{`{"permissions": {"deny": ["Bash(npm run test:*)"]}}`, `permissions.deny[0]: "Bash(npm run test:*)": the argument matcher is ARG:GLOB`},
		{`{"permissions": {"ask": [""]}}`, `permissions.ask[0]: "" has no tool name`},
	} {
		c := mustParse(t, []byte(tt.in))
		err := c.Validate()
		if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tt.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", tt.in, err, tt.says)
		}
		var ps Problems
		if !errors.As(err, &ps) {
			t.Errorf("%s: no Problems in %v", tt.in, err)
		}
	}
	for _, tt := range []struct{ in, says string }{
		{`{"permissions": ["x"]}`, "permissions: must be an object of rule lists"},
		{`{"permissions": {"allow": "x"}}`, "permissions.allow: must be an array of strings"},
	} {
		if _, err := Parse([]byte(tt.in)); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.says)
		}
	}
}

// AddAllow through Update keeps the file as it was around the change:
// unknown members, their order, the other lists' bytes; a file of rules
// alone gets no mcpServers; the same rule twice is added once.
func TestAddAllowKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	in := `{
  "version": 1,
  "mcpServers": {},
  "permissions": {
    "deny":   ["a__b"],
    "defaultMode": {"x": [1, 2]}
  },
  "zeta": {"keep": true}
}
`
	os.WriteFile(path, []byte(in), 0o600)
	add := func(path, pattern string) {
		t.Helper()
		if err := Update(context.Background(), path, func(c *Config) error {
			_, err := c.AddAllow(pattern)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	add(path, "fs__write_file")
	add(path, "fs__write_file")
	got, _ := os.ReadFile(path)
	want := `{
  "version": 1,
  "mcpServers": {},
  "permissions": {
    "allow": ["fs__write_file"],
    "deny": ["a__b"],
    "defaultMode": {"x": [1, 2]}
  },
  "zeta": {"keep": true}
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	fresh := filepath.Join(dir, "p", ".luagent", "config.json")
	add(fresh, "srv__echo")
	got, _ = os.ReadFile(fresh)
	if string(got) != "{\n  \"version\": 1,\n  \"mcpInitStrategy\": \"auto\",\n  \"permissions\": {\n    \"allow\": [\"srv__echo\"]\n  }\n}\n" {
		t.Errorf("a new file of rules:\n%s", got)
	}
	c, err := Load(fresh)
	if err != nil || c.Permissions.Allow[0] != "srv__echo" || c.Member("permissions") == nil || c.Member("hooks") != nil {
		t.Errorf("Load: %v %+v", err, c)
	}
	if err := Update(context.Background(), fresh, func(c *Config) error { _, err := c.AddAllow("bad name"); return err }); err == nil {
		t.Error("a bad pattern was saved")
	}
}
