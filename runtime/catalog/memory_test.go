package catalog

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestMemoryFields(t *testing.T) {
	tests := []struct {
		name, file string
		files      []string
		notify     string
		problem    string // "" for none
	}{
		{"left out", `{}`, nil, "auto", ""},
		{"set", `{"memoryFiles": ["CLAUDE.md", ".cursorrules"], "notifications": "osc9"}`, []string{"CLAUDE.md", ".cursorrules"}, "osc9", ""},
		{"null", `{"memoryFiles": null, "notifications": null}`, nil, "auto", ""},
		{"each mode", `{"notifications": "off"}`, nil, "off", ""},
		{"not a list", `{"memoryFiles": "CLAUDE.md"}`, nil, "", `memoryFiles: must be an array of strings`},
		{"a path", `{"memoryFiles": ["docs/AGENTS.md"]}`, nil, "", `memoryFiles[0]: "docs/AGENTS.md" must be an array of file names`},
		{"dot dot", `{"memoryFiles": [".."]}`, nil, "", `memoryFiles[0]`},
		{"a control character", `{"memoryFiles": ["a\u001b.md"]}`, nil, "", `memoryFiles[0]`},
		{"an unknown mode", `{"notifications": "loud"}`, nil, "", `notifications: must be "auto", "bell", "osc9" or "off", not "loud"`},
		{"not a string", `{"notifications": true}`, nil, "", `notifications: must be a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.file))
			if err == nil {
				err = c.Validate()
			}
			if tc.problem != "" {
				if err == nil || errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("err = %v, want kind invalid with %q", err, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(c.MemoryFiles, "|") != strings.Join(tc.files, "|") || c.NotificationsSetting() != tc.notify {
				t.Errorf("got %q %q, want %q %q", c.MemoryFiles, c.NotificationsSetting(), tc.files, tc.notify)
			}
			// Written back as read, and set from Go as given.
			out, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			c2, err := Parse(out)
			if err != nil || strings.Join(c2.MemoryFiles, "|") != strings.Join(tc.files, "|") || c2.Notifications != c.Notifications {
				t.Errorf("round trip: %v\n%s", err, out)
			}
			c2.MemoryFiles, c2.Notifications = []string{"GEMINI.md"}, "bell"
			out, _ = c2.Marshal()
			if !strings.Contains(string(out), `"memoryFiles": ["GEMINI.md"]`) || !strings.Contains(string(out), `"notifications": "bell"`) {
				t.Errorf("changed fields not written:\n%s", out)
			}
		})
	}
}
