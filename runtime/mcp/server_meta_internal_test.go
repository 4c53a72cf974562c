package mcp

import (
	"encoding/json"
	"testing"
)

// The per-request shortcuts read what the general paths read.
func TestRequestShortcuts(t *testing.T) {
	for _, raw := range []string{`"2026-07-28"`, `"2026-07-2\u0038"`, `"2025-11-25"`, `null`, `7`, `""`, `"x"`} {
		var want string
		ok := json.Unmarshal([]byte(raw), &want) == nil && want == ModernVersions[0]
		if len(ModernVersions) != 1 {
			t.Fatalf("ModernVersions %v: update this test", ModernVersions)
		}
		if got, gotOK := modernVersion([]byte(raw)); gotOK != ok || (ok && got != want) {
			t.Errorf("modernVersion(%s) = %q, %v; want %q, %v", raw, got, gotOK, want, ok)
		}
	}
	for raw, empty := range map[string]bool{`{}`: true, ` { } `: true, `{"a":1}`: false, `{`: false, `[]`: false, ``: false, `{}x`: false} {
		if got := emptyObject([]byte(raw)); got != empty {
			t.Errorf("emptyObject(%q) = %v", raw, got)
		}
	}
	for _, raw := range []string{`{}`, `{"sampling":{},"roots":{"listChanged":true},"elicitation":{"url":{}}}`, ` {} `} {
		var want clientCapabilities
		json.Unmarshal([]byte(raw), &want)
		got := parseClientCaps(json.RawMessage(raw))
		for _, c := range []string{"sampling", "roots", "elicitation", "elicitation.url"} {
			if got.has(c) != want.has(c) {
				t.Errorf("parseClientCaps(%s).has(%s) = %v", raw, c, got.has(c))
			}
		}
		if string(got.Raw) != raw {
			t.Errorf("Raw = %s", got.Raw)
		}
	}
}
