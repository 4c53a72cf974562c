package catalog

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// "roots": true (the working folder), false, or a list of folders; each
// reads back as written, an unchanged one keeps its bytes, an edited one is
// written in the catalog's form.
func TestRootsField(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		roots bool
		dirs  []string // nil: the working folder
		bad   string   // a parse or validate problem
	}{
		{raw: `true`, roots: true},
		{raw: `false`},
		{raw: `null`},
		{raw: `["."]`, roots: true, dirs: []string{"."}},
		{raw: `[ "~/src" ,"/abs", "docs" ]`, roots: true, dirs: []string{"~/src", "/abs", "docs"}},
		{raw: `[]`, roots: true, dirs: []string{}},
		{raw: `"yes"`, bad: "must be true, false or a list of folders"},
		{raw: `[1]`, bad: "must be true, false or a list of folders"},
		{raw: `{"dirs": ["."]}`, bad: "must be true, false or a list of folders"},
		{raw: `[""]`, bad: "roots[0]: must be a folder"},
		{raw: `["a\u0000b"]`, bad: "roots[0]: must be a folder"},
		{raw: `[".", "."]`, bad: "roots[1]: . appears twice"},
	} {
		file := []byte(`{"version": 1, "mcpServers": {"a": {"command": "x", "roots": ` + tc.raw + `}}}`)
		c, err := Parse(file)
		if err == nil {
			err = c.Validate()
		}
		if tc.bad != "" {
			var ps Problems
			if err == nil || !errors.As(err, &ps) || !strings.Contains(err.Error(), "mcpServers.a.") || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%s: %v, want a problem %q", tc.raw, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		s := c.Server("a")
		if s.Roots != tc.roots || !slices.Equal(s.RootDirs, tc.dirs) || (s.RootDirs == nil) != (tc.dirs == nil) {
			t.Errorf("%s: Roots %v RootDirs %#v, want %v %#v", tc.raw, s.Roots, s.RootDirs, tc.roots, tc.dirs)
		}
		out := mustMarshal(t, c)
		if got := entryMembers(t, out, "a")["roots"]; got != tc.raw {
			t.Errorf("%s: written back as %q\n%s", tc.raw, got, out)
		}
		if again := mustMarshal(t, mustParse(t, out)); string(again) != string(out) {
			t.Errorf("%s: second round trip differs:\n%s", tc.raw, again)
		}
	}
}

// Edited roots are written in the catalog's form; turned off, the member
// goes; an entry made in Go writes true or its list.
func TestRootsEdit(t *testing.T) {
	c := mustParse(t, []byte(`{"version": 1, "mcpServers": {"a": {"command": "x", "roots": true}, "b": {"command": "y", "roots": ["."]}, "c": {"command": "z", "roots": [ "." ]}}}`))
	c.Server("a").RootDirs = []string{"~/src", "docs"}
	c.Server("b").Roots = false
	c.Server("c").RootDirs = nil
	if err := c.Add(&Server{Name: "d", Enabled: true, Command: "w", Roots: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(&Server{Name: "e", Enabled: true, Command: "w", Roots: true, RootDirs: []string{"/srv"}}, false); err != nil {
		t.Fatal(err)
	}
	out := mustMarshal(t, c)
	for name, want := range map[string]string{"a": `["~/src", "docs"]`, "b": ``, "c": `true`, "d": `true`, "e": `["/srv"]`} {
		if got := entryMembers(t, out, name)["roots"]; got != want {
			t.Errorf("%s: roots %q, want %q\n%s", name, got, want, out)
		}
	}
	again := mustParse(t, out)
	if s := again.Server("a"); !s.Roots || !slices.Equal(s.RootDirs, []string{"~/src", "docs"}) {
		t.Errorf("a read back as %v %v", s.Roots, s.RootDirs)
	}
	if s := again.Server("b"); s.Roots || s.RootDirs != nil {
		t.Errorf("b read back as %v %v", s.Roots, s.RootDirs)
	}
}

// RootFolders: true is the working folder; a list's relative folders are
// the working folder's, ~ is the home folder.
func TestRootFolders(t *testing.T) {
	for _, tc := range []struct {
		s    Server
		want []string
	}{
		{Server{}, nil},
		{Server{RootDirs: []string{"."}}, nil}, // roots off: none
		{Server{Roots: true}, []string{"/work/p"}},
		{Server{Roots: true, RootDirs: []string{}}, []string{}},
		{Server{Roots: true, RootDirs: []string{".", "docs", "../other", "/abs/x/", "~", "~/src", "~user/x"}},
			[]string{"/work/p", "/work/p/docs", "/work/other", "/abs/x", "/home/u", "/home/u/src", "/work/p/~user/x"}},
	} {
		got := tc.s.RootFolders("/work/p", "/home/u")
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%v %v: %#v, want %#v", tc.s.Roots, tc.s.RootDirs, got, tc.want)
		}
	}
}
