package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/mcp"
)

// rootsAnswer calls the fake server's roots tool (it asks the client for
// roots/list) and returns the roots it got, or why it got none: the
// client's error as the tool saw it (legacy), or the call's (modern).
func rootsAnswer(t *testing.T, h *Hub, server string) ([]mcp.Root, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, server+"__roots", nil, CallOptions{})
	if err != nil {
		return nil, err.Error()
	}
	text := r.Text()
	var got struct {
		Roots []mcp.Root `json:"roots"`
	}
	if after, ok := strings.CutPrefix(text, "answer: "); ok && json.Unmarshal([]byte(after), &got) == nil {
		return got.Roots, ""
	}
	return nil, text
}

// An entry's "roots" is what its server gets from roots/list, for that
// server only: true the working folder (or Options.Roots when set), a
// list its folders; left out, the capability is not advertised and
// roots/list is refused. Both eras.
func TestCatalogRoots(t *testing.T) {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	abs := t.TempDir()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			entry := func(name string, roots bool, dirs []string) *catalog.Server {
				s := fakeServer(t, name, "-era", era)
				s.Roots, s.RootDirs = roots, dirs
				return s
			}
			h := New([]*catalog.Server{
				entry("cwd", true, nil),
				entry("listed", true, []string{abs, "testdata", "~/x y"}),
				entry("none", false, nil),
				entry("empty", true, []string{}),
			}, Options{})
			defer h.Close()
			h.Start()

			for _, tc := range []struct {
				server string
				want   []mcp.Root
			}{
				{"cwd", []mcp.Root{{URI: "file://" + filepath.ToSlash(wd), Name: filepath.Base(wd)}}},
				{"listed", []mcp.Root{
					{URI: "file://" + filepath.ToSlash(abs), Name: filepath.Base(abs)},
					{URI: "file://" + filepath.ToSlash(filepath.Join(wd, "testdata")), Name: "testdata"},
					{URI: "file://" + strings.ReplaceAll(filepath.ToSlash(filepath.Join(home, "x y")), " ", "%20"), Name: "x y"}}},
				{"empty", []mcp.Root{}},
			} {
				got, refused := rootsAnswer(t, h, tc.server)
				if refused != "" || len(got) != len(tc.want) {
					t.Errorf("%s: %v %q, want %v", tc.server, got, refused, tc.want)
					continue
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("%s: root %d = %+v, want %+v", tc.server, i, got[i], tc.want[i])
					}
				}
			}
			if got, refused := rootsAnswer(t, h, "none"); got != nil || !strings.Contains(refused, "roots") || strings.Contains(refused, "file://") {
				t.Errorf("none: roots %v (%q), want roots/list refused", got, refused)
			}
		})
	}
}

// With Options.Roots, "roots": true answers with it; a list still
// answers with its folders.
func TestCatalogRootsOptions(t *testing.T) {
	abs := t.TempDir()
	a, b := fakeServer(t, "a", "-era", "legacy"), fakeServer(t, "b", "-era", "legacy")
	a.Roots = true
	b.Roots, b.RootDirs = true, []string{abs}
	var asked []string
	h := New([]*catalog.Server{a, b}, Options{Roots: func(_ context.Context, server string) ([]mcp.Root, error) {
		asked = append(asked, server)
		return []mcp.Root{{URI: "file:///from/the/host", Name: "host"}}, nil
	}})
	defer h.Close()
	h.Start()
	if got, _ := rootsAnswer(t, h, "a"); len(got) != 1 || got[0].URI != "file:///from/the/host" {
		t.Errorf("a: %v", got)
	}
	if got, _ := rootsAnswer(t, h, "b"); len(got) != 1 || got[0].URI != "file://"+filepath.ToSlash(abs) {
		t.Errorf("b: %v", got)
	}
	if len(asked) != 1 || asked[0] != "a" {
		t.Errorf("Options.Roots asked for %v", asked)
	}
}
