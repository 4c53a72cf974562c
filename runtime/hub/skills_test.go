package hub

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/skills"
	"github.com/luagent/luagent/runtime/testkit"
)

// skillsServer is an entry serving the skilltest fixture, logging what it
// receives.
func skillsServer(t testing.TB, name, protocol string) (*catalog.Server, string) {
	cmd, args, log := testkit.SkillServer(t)
	return &catalog.Server{Name: name, Enabled: true, Protocol: protocol, Command: cmd, Args: args, StartupTimeout: 30 * time.Second}, log
}

// received lists the methods a server's log has (each params too).
func received(t testing.TB, log string) (methods, params []string) {
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal([]byte(line), &m)
		methods, params = append(methods, m.Method), append(params, string(m.Params))
	}
	return methods, params
}

// A server's skills are listed when it connects (declaring the extension
// ourselves), with no skill file read; a skill loads verified, its files
// after it; a tampered one is refused with an integrity error.
func TestSkills(t *testing.T) {
	for _, protocol := range []string{"legacy", "modern"} {
		t.Run(protocol, func(t *testing.T) {
			srv, log := skillsServer(t, "docs", protocol)
			h := New([]*catalog.Server{srv}, Options{})
			t.Cleanup(func() { h.Close() })
			h.Start()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := h.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sk := range h.Skills() {
				got = append(got, sk.Name+" "+sk.Server+" "+sk.Skill+": "+sk.Description)
			}
			want := []string{"docs__evil docs evil: Looks helpful", "docs__pdf-processing docs pdf-processing: Extract, fill, and assemble PDF documents"}
			if !slices.Equal(got, want) {
				t.Fatalf("skills %q", got)
			}
			methods, params := received(t, log)
			if slices.Contains(methods, "resources/read") || !slices.Contains(methods, "skills/list") {
				t.Errorf("on connecting: %v", methods)
			}
			if i := slices.Index(methods, "skills/list"); !strings.Contains(strings.Join(params[:i+1], " "), `"extensions":{"io.modelcontextprotocol/skills":{}}`) {
				t.Errorf("the extension is not declared: %v", params[:i+1])
			}
			if _, err := h.ReadSkillFile(ctx, "docs__pdf-processing", "references/FORMS.md"); !errs.Is(err, errs.Invalid) {
				t.Errorf("a file before loading: %v", err)
			}
			l, err := h.LoadSkill(ctx, "docs__pdf-processing")
			if err != nil || l.Name != "docs__pdf-processing" || !strings.Contains(l.Body, "Fill forms") || !slices.Equal(l.Files, []string{"references/FORMS.md"}) {
				t.Fatalf("load: %+v %v", l, err)
			}
			f, err := h.ReadSkillFile(ctx, "docs__pdf-processing", "references/FORMS.md")
			if err != nil || f.Text != "The form fields are name and date.\n" {
				t.Errorf("file: %+v %v", f, err)
			}
			if l, err := h.LoadSkill(ctx, "docs__evil"); !errs.Is(err, errs.Integrity) || l != nil {
				t.Errorf("tampered: %+v %v", l, err)
			}
			if _, err := h.LoadSkill(ctx, "docs__nope"); !errs.Is(err, errs.NotFound) {
				t.Errorf("unknown: %v", err)
			}
			if got := h.SkillSource().List(); len(got) != 2 || got[1].Name != "docs__pdf-processing" || got[1].Server != "docs" {
				t.Errorf("source: %+v", got)
			}
		})
	}
}

// A restart lists the skills again and forgets what was loaded; so does a
// reconnect after the server died, announced by an EventSkills.
func TestSkillsRelisted(t *testing.T) {
	srv, log := skillsServer(t, "docs", "")
	h := New([]*catalog.Server{srv}, Options{})
	t.Cleanup(func() { h.Close() })
	ch, stop := events(h)
	defer stop()
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h.Wait(ctx)
	if _, err := h.LoadSkill(ctx, "docs__pdf-processing"); err != nil {
		t.Fatal(err)
	}
	if err := h.Restart("docs"); err != nil {
		t.Fatal(err)
	}
	h.Wait(ctx)
	if len(h.Skills()) != 2 {
		t.Fatalf("after the restart: %v", h.Skills())
	}
	if _, err := h.ReadSkillFile(ctx, "docs__pdf-processing", "references/FORMS.md"); !errs.Is(err, errs.Invalid) {
		t.Errorf("loaded across a restart: %v", err)
	}

	c, _ := h.Client("docs")
	c.ReadResource(ctx, "skill://die/now") // the server exits
	until(t, ch, "docs failed", func(e Event) bool { return e.Kind == EventStatus && e.State.Status == Failed })
	c.Tools(ctx) // the client starts it again
	until(t, ch, "docs relisted", func(e Event) bool { return e.Kind == EventSkills })
	if n := len(h.Skills()); n != 2 {
		t.Errorf("%d skills after the reconnect", n)
	}
	methods, _ := received(t, log)
	if n := strings.Count(strings.Join(methods, " "), "skills/list"); n != 3 {
		t.Errorf("skills/list %d times: %v", n, methods)
	}
}

func TestSkillNames(t *testing.T) {
	long := strings.Repeat("a", 60)
	tests := []struct {
		server, name, uri string
		shared            bool
		want              string
	}{
		{"docs", "pdf", "skill://pdf/SKILL.md", false, "docs__pdf"},
		{"docs", "pdf", "skill://a/pdf/SKILL.md", true, "docs__pdf_"},
		{"my.server", "pdf", "skill://pdf/SKILL.md", false, "my_server__pdf_"},
		{"docs", long, "skill://" + long + "/SKILL.md", false, "docs__aaaa"},
	}
	for _, tt := range tests {
		got := skillName(tt.server, skills.Entry{Name: tt.name, URI: tt.uri}, tt.shared)
		if !strings.HasPrefix(got, tt.want) || !ValidName(got) {
			t.Errorf("%s %s: %q", tt.server, tt.name, got)
		}
	}
	a := skillName("docs", skills.Entry{Name: "pdf", URI: "skill://a/pdf/SKILL.md"}, true)
	b := skillName("docs", skills.Entry{Name: "pdf", URI: "skill://b/pdf/SKILL.md"}, true)
	if a == b {
		t.Errorf("two skills of one name share %q", a)
	}
}
