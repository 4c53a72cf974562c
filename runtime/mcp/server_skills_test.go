package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/skills"
)

const pdfSkill = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n---\n# PDF\n\nRead references/FORMS.md first.\n"

// The published skills as luagent's own client reads them (runtime/skills,
// which checks every size and digest against the entry), in both eras:
// listing in pages, loading, reading a file, the folder's listing.
func TestServerSkills(t *testing.T) {
	srv, url := registryServer(t, mcp.ServerOptions{})
	must(t, srv.AddSkill(mcp.Skill{Files: map[string][]byte{
		"SKILL.md":            []byte(pdfSkill),
		"references/FORMS.md": []byte("# Forms\n"),
		"scripts/fill.py":     []byte("print('fill')\n"),
	}}))
	// Enough skills for a second page of skills/list.
	for i := range 60 {
		name := "extra-" + strconv.Itoa(i)
		must(t, srv.AddSkill(mcp.Skill{Files: map[string][]byte{"SKILL.md": []byte("---\nname: " + name + "\ndescription: Skill " + strconv.Itoa(i) + "\n---\nBody.\n")}}))
	}
	eras(t, func(t *testing.T, era string) {
		c := dial(t, url, era, mcp.Options{})
		if c.Info().Capabilities.Extensions[mcp.SkillsExtension] == nil {
			t.Fatalf("the skills extension is not declared: %+v", c.Info().Capabilities)
		}
		ctx := context.Background()
		r := skills.NewRemote("s", c)
		entries, problems, err := r.List(ctx)
		if err != nil || len(problems) > 0 || len(entries) != 61 {
			t.Fatalf("List: %d entries, problems %v, %v", len(entries), problems, err)
		}
		e := entries[0]
		if e.URI != "skill://pdf-processing/SKILL.md" || e.Name != "pdf-processing" || len(e.Resources) != 3 || e.Resources[0].URI != e.URI {
			t.Fatalf("entry: %+v", e)
		}
		loaded, err := r.Load(ctx, e)
		if err != nil || !strings.Contains(loaded.Body, "Read references/FORMS.md") || strings.Join(loaded.Files, " ") != "references/FORMS.md scripts/fill.py" {
			t.Fatalf("Load: %+v %v", loaded, err)
		}
		f, err := r.ReadFile(ctx, e, "references/FORMS.md")
		if err != nil || f.Text != "# Forms\n" || f.MIMEType != "text/markdown" {
			t.Fatalf("ReadFile: %+v %v", f, err)
		}
		got, err := r.Get(ctx, e.URI)
		if err != nil || got.URI != e.URI {
			t.Errorf("Get: %+v %v", got, err)
		}
		for _, tc := range []struct {
			name, method, params string
			code                 int
			want                 string
		}{
			{"unknown skill", "skills/get", `{"uri":"skill://nope/SKILL.md"}`, jsonrpc.CodeInvalidParams, ""},
			{"not a skill's SKILL.md", "skills/get", `{"uri":"skill://pdf-processing/references/FORMS.md"}`, jsonrpc.CodeInvalidParams, ""},
			{"bad cursor", "skills/list", `{"cursor":"x"}`, jsonrpc.CodeInvalidParams, ""},
			{"folder", "resources/directory/read", `{"uri":"skill://pdf-processing"}`, 0,
				`"resources":[{"uri":"skill://pdf-processing/SKILL.md","name":"SKILL.md","mimeType":"text/markdown"},{"uri":"skill://pdf-processing/references","name":"references","mimeType":"inode/directory"},{"uri":"skill://pdf-processing/scripts","name":"scripts","mimeType":"inode/directory"}]`},
			{"subfolder", "resources/directory/read", `{"uri":"skill://pdf-processing/scripts"}`, 0, `"uri":"skill://pdf-processing/scripts/fill.py"`},
			{"a file is no folder", "resources/directory/read", `{"uri":"skill://pdf-processing/SKILL.md"}`, jsonrpc.CodeInvalidParams, ""},
			{"SKILL.md listed", "resources/list", `{}`, 0, `{"uri":"skill://pdf-processing/SKILL.md","name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","mimeType":"text/markdown"}`},
		} {
			res, err := c.Request(ctx, tc.method, json.RawMessage(tc.params))
			var je *jsonrpc.Error
			switch {
			case tc.code != 0 && !(errors.As(err, &je) && je.Code == tc.code):
				t.Errorf("%s: %s %v, want code %d", tc.name, res, err, tc.code)
			case tc.code == 0 && (err != nil || !strings.Contains(string(res), tc.want)):
				t.Errorf("%s: %s %v, want %s", tc.name, res, err, tc.want)
			}
		}
	})
}

func TestAddSkillMistakes(t *testing.T) {
	srv := mcp.NewServer(mcp.ServerOptions{})
	defer srv.Close()
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		want  string
		named string // Skill.Name
	}{
		{"no SKILL.md", map[string][]byte{"README.md": nil}, "needs a SKILL.md", ""},
		{"no front matter", map[string][]byte{"SKILL.md": []byte("# x\n")}, "SKILL.md", ""},
		{"no description", map[string][]byte{"SKILL.md": []byte("---\nname: x\n---\n")}, "a name and a description", ""},
		{"bad name", map[string][]byte{"SKILL.md": []byte("---\nname: Bad_Name\ndescription: d\n---\n")}, "lowercase", ""},
		{"escaping path", map[string][]byte{"SKILL.md": []byte(pdfSkill), "../x": nil}, "within the skill's folder", ""},
		{"too big", map[string][]byte{"SKILL.md": []byte(pdfSkill), "big": make([]byte, mcp.MaxSkillBytes)}, "more than", ""},
		{"another name", map[string][]byte{"SKILL.md": []byte(pdfSkill)}, `name "pdf" is not the name in SKILL.md's front matter (pdf-processing)`, "pdf"},
	} {
		err := srv.AddSkill(mcp.Skill{Files: tc.files, Name: tc.named})
		if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an Invalid error saying %q", tc.name, err, tc.want)
		}
	}
	if srv.Offered().Resources != 0 {
		t.Errorf("a refused skill left resources behind: %+v", srv.Offered())
	}
}
