package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A headless ask that ends before any result writes one saying why: what
// ask said last on stderr, with its kind; an interrupt as such.
func TestAskHeadlessEnd(t *testing.T) {
	for _, tc := range []struct {
		format, said string
		code         int
		kind, result string
		lines        int
	}{
		{"json", "luagent: ask needs a prompt: luagent ask PROMPT\n", 2, "invalid", "ask needs a prompt: luagent ask PROMPT", 1},
		{"stream-json", "note: a warning\nluagent: auth: the key was refused\n", 1, "auth", "the key was refused", 2},
		{"json", "luagent: cannot read x: no such file", 1, "runtime", "cannot read x: no such file", 1},
		{"json", "luagent: a note\n", 130, "cancelled", "interrupted before the agent ran", 1},
		{"json", "", 1, "runtime", "ask failed", 1},
		{"json", "luagent: all is well\n", 0, "", "", 0},
	} {
		var out, errb bytes.Buffer
		hl := newAskHeadless(&askOptions{outputFormat: tc.format}, &out, &errb, "sid")
		fmt.Fprint(hl.stderr, tc.said)
		if code := hl.end(tc.code); code != tc.code || errb.String() != tc.said {
			t.Errorf("%q: exit %d, stderr %q", tc.said, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if tc.lines == 0 {
			if out.Len() != 0 {
				t.Errorf("%q: wrote %s", tc.said, out.String())
			}
			continue
		}
		var r struct {
			Type, Subtype, Result string
			ErrorKind             string `json:"error_kind"`
			IsError               bool   `json:"is_error"`
			SessionID             string `json:"session_id"`
		}
		if len(lines) != tc.lines || json.Unmarshal([]byte(lines[len(lines)-1]), &r) != nil {
			t.Fatalf("%q: %s", tc.said, out.String())
		}
		if r.Type != "result" || !r.IsError || r.Result != tc.result || r.ErrorKind != tc.kind || r.SessionID != "sid" {
			t.Errorf("%q: %+v", tc.said, r)
		}
	}
}
