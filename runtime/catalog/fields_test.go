package catalog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Fields is the entry's known members as the file holds them, and its
// connectionId; never the unknown or other managed members, at any level.
func TestFieldsAreTheKnownMembers(t *testing.T) {
	c, err := Parse([]byte(`{"version": 1, "mcpServers": {
  "a": {"command": "prog", "args": ["--token", "tok-SECRET"], "env": {"TOKEN": "tok-SECRET", "H": {"fromEnv": "HOME", "note": "n"}},
        "roots": true, "maxConcurrentCalls": 3, "connectionId": "conn-1", "connectionCredentials": {"k": "cred-SECRET"}, "weird": 1},
  "b": {"url": "https://example.com/mcp", "oauth": {"clientId": "c", "clientSecret": "cs-SECRET", "other": 2}, "enabled": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want map[string]any
	}{
		{"a", map[string]any{"command": "prog", "args": []any{"--token", Hidden}, "env": map[string]any{"TOKEN": Hidden, "H": map[string]any{"fromEnv": "HOME"}},
			"roots": true, "maxConcurrentCalls": 3.0, "connectionId": "conn-1"}},
		{"b", map[string]any{"url": "https://example.com/mcp", "oauth": map[string]any{"clientId": "c", "clientSecret": Hidden}, "enabled": false}},
	} {
		raw := c.Server(tc.name).Masked().Fields()
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, raw)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Fields of %s = %v, want %v", tc.name, got, tc.want)
		}
		if strings.Contains(string(raw), "SECRET") {
			t.Errorf("Fields of the masked %s hold a secret: %s", tc.name, raw)
		}
	}
	// The entry itself keeps every member (Fields takes nothing away).
	out, _ := c.Marshal()
	for _, m := range []string{`"connectionCredentials"`, `"weird"`, `"other"`, `"note"`} {
		if !strings.Contains(string(out), m) {
			t.Errorf("Marshal lost %s", m)
		}
	}
}
