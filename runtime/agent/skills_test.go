package agent

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/skills"
	"github.com/luagent/luagent/runtime/testkit"
)

// skillsServer is the skilltest fixture as the catalog entry "docs".
func skillsServer(t testing.TB) (*catalog.Server, string) {
	cmd, args, log := testkit.SkillServer(t)
	return &catalog.Server{Name: "docs", Enabled: true, Command: cmd, Args: args, StartupTimeout: 30 * time.Second}, log
}

func wireHas(t testing.TB, log, method string) bool {
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), `"method":"`+method+`"`)
}

// The model sees the skills' names and descriptions, nothing is read until
// it loads one, the skill tools run through the hooks and the default
// policy (read-only), and a tampered server skill reaches the model as an
// error result.
func TestSkillsLoadedByTheModel(t *testing.T) {
	srv, log := skillsServer(t)
	h := startHub(t, hub.Options{}, srv)
	src := skills.Join(&skills.Local{Dirs: skills.LocalDirs(testkit.SkillHome(t), "")}, h.SkillSource())

	pdf, notes := tc(ToolLoadSkill, `{"name":"docs__pdf-processing"}`), tc(ToolLoadSkill, `{"name":"notes"}`)
	forms, tmpl := tc(ToolReadSkillFile, `{"name":"docs__pdf-processing","path":"references/FORMS.md"}`), tc(ToolReadSkillFile, `{"name":"notes","path":"templates/meeting.md"}`)
	evil, evilFile, nope := tc(ToolLoadSkill, `{"name":"docs__evil"}`), tc(ToolReadSkillFile, `{"name":"docs__evil","path":"SKILL.md"}`), tc(ToolLoadSkill, `{"name":"nope"}`)
	readsBefore := true
	m := script(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		readsBefore = wireHas(t, log, "resources/read")
		return calls(pdf, notes)(ctx, req)
	}, calls(forms, tmpl, evil, evilFile, nope), answer("done"))

	var mu sync.Mutex
	var before, after []string
	a := New(Config{Model: m, Hub: h, Skills: src, System: "Be brief.",
		BeforeTool: func(_ context.Context, c *Call) error {
			mu.Lock()
			defer mu.Unlock()
			before = append(before, c.Name+"/"+c.Kind)
			return nil
		},
		AfterTool: func(_ context.Context, c Call, r *Result) {
			mu.Lock()
			defer mu.Unlock()
			after = append(after, c.Name)
		}})
	text, tr, err := a.Ask(context.Background(), "fill in the form")
	if err != nil || text != "done" {
		t.Fatalf("%q %v", text, err)
	}
	if readsBefore {
		t.Error("a skill file was read before the model loaded a skill")
	}
	reqs := m.requests()
	sys := reqs[0].System
	for _, want := range []string{"Be brief.\n\n## Skills\n", "\n- notes: Take meeting notes", "\n- docs__pdf-processing: Extract, fill, and assemble PDF documents", "\n- docs__evil: Looks helpful"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if names := toolNames(reqs[0]); !slices.Contains(names, ToolLoadSkill) || !slices.Contains(names, ToolReadSkillFile) {
		t.Errorf("tools %v", names)
	}
	results := map[string]llm.Message{}
	for _, c := range []llm.ToolCall{pdf, notes} {
		results[c.ID] = toolMessage(t, reqs[1], c.ID)
	}
	for _, c := range []llm.ToolCall{forms, tmpl, evil, evilFile, nope} {
		results[c.ID] = toolMessage(t, reqs[2], c.ID)
	}
	for _, tt := range []struct {
		call    llm.ToolCall
		isError bool
		want    string
	}{
		{pdf, false, "Skill docs__pdf-processing is loaded. Its instructions:\n\nFill forms with references/FORMS.md.\n\nIts files (read one with read_skill_file): references/FORMS.md"},
		{notes, false, "Skill notes is loaded. Its instructions:\n\nUse templates/meeting.md.\n\nIts files (read one with read_skill_file): templates/meeting.md"},
		{forms, false, "The form fields are name and date.\n"},
		{tmpl, false, "# Meeting\n"},
		{evil, true, "failed verification"},
		{evilFile, true, "not loaded"},
		{nope, true, `no skill "nope"`},
	} {
		r := results[tt.call.ID]
		if got := partsText(r); r.IsError != tt.isError || tt.isError && !strings.Contains(got, tt.want) || !tt.isError && got != tt.want {
			t.Errorf("%s %s: error %v %q", tt.call.Name, tt.call.Arguments, r.IsError, got)
		}
	}
	for _, rec := range tr.ToolCalls {
		if rec.Decision != Allow || rec.Kind != KindMeta {
			t.Errorf("%s: %s %s (%s)", rec.Name, rec.Decision, rec.Kind, rec.Reason)
		}
		if rec.Arguments != nil && strings.Contains(string(rec.Arguments), "docs__evil\"}") && rec.ErrorKind != errs.Integrity.String() {
			t.Errorf("the tampered skill's error kind: %s", rec.ErrorKind)
		}
	}
	if len(before) != 7 || len(after) != 7 || before[0] != ToolLoadSkill+"/"+KindMeta {
		t.Errorf("hooks saw %v and %v", before, after)
	}
}

// Without skills there are no skill tools and no list; an agent narrowed
// to other servers sees only the local skills.
func TestSkillsOffered(t *testing.T) {
	srv, _ := skillsServer(t)
	h := startHub(t, hub.Options{}, srv)
	local := &skills.Local{Dirs: skills.LocalDirs(testkit.SkillHome(t), "")}
	tests := []struct {
		name  string
		cfg   Config
		tools bool
		lists []string
	}{
		{"none", Config{Hub: h}, false, nil},
		{"an empty source", Config{Hub: h, Skills: &skills.Local{}}, false, nil},
		{"all", Config{Hub: h, Skills: skills.Join(local, h.SkillSource())}, true, []string{"notes", "docs__pdf-processing", "docs__evil"}},
		{"other servers", Config{Hub: h, Servers: []string{"other"}, Skills: skills.Join(local, h.SkillSource())}, true, []string{"notes"}},
		{"only some", Config{Hub: h, Skills: skills.Only(skills.Join(local, h.SkillSource()), []string{"pdf-processing"})}, true, []string{"docs__pdf-processing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := script(answer("ok"))
			tt.cfg.Model = m
			if _, _, err := New(tt.cfg).Ask(context.Background(), "hi"); err != nil {
				t.Fatal(err)
			}
			req := m.requests()[0]
			if got := slices.Contains(toolNames(req), ToolLoadSkill); got != tt.tools {
				t.Errorf("skill tools offered: %v", got)
			}
			var listed []string
			for _, line := range strings.Split(req.System, "\n") {
				if name, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": "); ok && strings.HasPrefix(line, "- ") {
					listed = append(listed, name)
				}
			}
			slices.Sort(listed)
			want := slices.Clone(tt.lists)
			slices.Sort(want)
			if !slices.Equal(listed, want) {
				t.Errorf("listed %v, want %v", listed, want)
			}
			for _, tool := range req.Tools {
				if !isSkillTool(tool.Name) {
					continue
				}
				var s struct {
					Properties struct {
						Name struct {
							Enum []string `json:"enum"`
						} `json:"name"`
					} `json:"properties"`
				}
				json.Unmarshal(tool.Schema, &s)
				enum := slices.Clone(s.Properties.Name.Enum)
				slices.Sort(enum)
				if !slices.Equal(enum, want) {
					t.Errorf("%s: name enum %v, want %v", tool.Name, enum, want)
				}
			}
		})
	}
	// A skill outside the agent's servers cannot be loaded either.
	m := script(calls(tc(ToolLoadSkill, `{"name":"docs__pdf-processing"}`)), answer("ok"))
	_, tr, _ := New(Config{Model: m, Hub: h, Servers: []string{"other"}, Skills: skills.Join(local, h.SkillSource())}).Ask(context.Background(), "hi")
	if rec := tr.ToolCalls[0]; rec.ErrorKind != errs.NotFound.String() {
		t.Errorf("a skill of another server: %+v", rec)
	}
}
