package catalog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse: whatever Parse accepts, Marshal writes as valid JSON that
// parses again to the same bytes (a fixed point), never panicking.
func FuzzParse(f *testing.F) {
	f.Add(readFixture(f, "roundtrip.json"))
	for _, s := range []string{`{}`, `{"version": 1, "mcpServers": {"a": {"command": "x", "env": {"A": {"param": "p"}}}}}`,
		`{"mcpServers": {"a": {"url": "https://x/mcp", "oauth": {"scopes": ["a"], "x": [1]}}}, "z": {"\u0000": 1}}`,
		`{"mcpServers": null, "mcpInitStrategy": null}`, `{"model": "m", "models": {"m": {"provider": "openai", "model": "x", "y": [1]}}}`, `{"mcpServers": {"a": {"enabled": null, "cwd": null, "env": {}}}}`,
		`{"mcpServers": {"a": {"command": "x", "inheritEnv": "minimal"}, "b": {"command": "y", "inheritEnv": ["PATH", "A"]}, "c": {"command": "z", "inheritEnv": "all"}, "d": {"command": "w", "inheritEnv": []}, "e": {"url": "https://x/mcp", "inheritEnv": null}}}`,
		`{"permissions": {"allow": ["fs__*", "w(path:/tmp/*)"], "defaultMode": "x", "deny": null}}`, `{"permissions": null}`, `{"permissions": {"ask": "*"}}`,
		`{"models": {"m": {"provider": "mock", "price": {"input": 3, "output": 1.5e1, "cachedInput": 0}}, "n": {"provider": "mock", "price": null}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		c.Validate()
		out, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("Marshal wrote invalid JSON:\n%s", out)
		}
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse of Marshal's output: %v\n%s", err, out)
		}
		out2, _ := c2.Marshal()
		if !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point:\n%s\n%s", out, out2)
		}
	})
}
