package skills

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// fakeServer answers skills/list from pages and resources/read from files,
// and counts the reads.
type fakeServer struct {
	mu    sync.Mutex
	pages []string          // skills/list results; a page's nextCursor is its index+1 unless it sets its own
	files map[string]string // uri -> text
	blobs map[string][]byte // uri -> blob
	reads []string
	calls []string
}

func (f *fakeServer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, method+" "+string(params))
	switch method {
	case "skills/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		json.Unmarshal(params, &p)
		i := 0
		fmt.Sscan(p.Cursor, &i)
		if i >= len(f.pages) {
			return nil, errs.New(errs.Invalid, method, "bad cursor")
		}
		return json.RawMessage(f.pages[i]), nil
	case "skills/get":
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(params, &p)
		for _, pg := range f.pages {
			var res struct {
				Skills []json.RawMessage `json:"skills"`
			}
			json.Unmarshal([]byte(pg), &res)
			for _, s := range res.Skills {
				if strings.Contains(string(s), `"uri":"`+p.URI+`"`) {
					return json.RawMessage(`{"skill":` + string(s) + `}`), nil
				}
			}
		}
		return nil, errs.New(errs.Invalid, method, "unknown uri")
	}
	return nil, errs.New(errs.NotFound, method, "no method")
}

func (f *fakeServer) ReadResource(_ context.Context, uri string) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, uri)
	if b, ok := f.blobs[uri]; ok {
		return json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "blob": base64.StdEncoding.EncodeToString(b)}}})
	}
	text, ok := f.files[uri]
	if !ok {
		return nil, errs.New(errs.NotFound, "resources/read", "no resource "+uri)
	}
	return json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}})
}

func (f *fakeServer) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reads)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

const (
	pdfURI   = "skill://pdf-processing/SKILL.md"
	formsURI = "skill://pdf-processing/references/FORMS.md"
	pdfMD    = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
	formsMD  = "Supporting content.\n"
)

// entryJSON is pdf-processing's entry publishing the given files' digests
// and sizes (uri -> content).
func entryJSON(frontmatter string, files map[string]string) string {
	var res []string
	for _, uri := range slices.Sorted(maps.Keys(files)) {
		res = append(res, fmt.Sprintf(`{"uri":%q,"digest":%q,"size":%d}`, uri, digest(files[uri]), len(files[uri])))
	}
	return `{"uri":"` + pdfURI + `","frontmatter":` + frontmatter + `,"resources":[` + strings.Join(res, ",") + `]}`
}

const pdfFrontmatter = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`

func page(entries ...string) string { return `{"skills":[` + strings.Join(entries, ",") + `]}` }

// Loading verifies SKILL.md as the judge's sep-2640-client-verify-*
// scenarios tamper with it; a refused skill is an integrity error, its
// files stay unread, and it stays unloaded.
func TestRemoteLoad(t *testing.T) {
	listed := map[string]string{pdfURI: pdfMD, formsURI: formsMD}
	tests := []struct {
		name  string
		entry string            // the listed entry
		serve map[string]string // what resources/read answers (default: listed)
		blob  bool              // SKILL.md served as a blob
		kind  errs.Kind         // 0: loads
		msg   string
	}{
		{name: "verified", entry: entryJSON(pdfFrontmatter, listed)},
		{name: "verified blob", entry: entryJSON(pdfFrontmatter, listed), blob: true},
		{name: "digest", entry: entryJSON(pdfFrontmatter, listed),
			serve: map[string]string{pdfURI: strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1)}, kind: errs.Integrity, msg: "digest"},
		{name: "size", entry: entryJSON(pdfFrontmatter, listed),
			serve: map[string]string{pdfURI: pdfMD + "extra bytes\n"}, kind: errs.Integrity, msg: "bytes, its entry says"},
		{name: "frontmatter", entry: entryJSON(pdfFrontmatter, map[string]string{pdfURI: strings.Replace(pdfMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)}),
			serve: map[string]string{pdfURI: strings.Replace(pdfMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)}, kind: errs.Integrity, msg: "front matter differs from the listing's in description"},
		{name: "extra field in the file", entry: entryJSON(pdfFrontmatter, map[string]string{pdfURI: strings.Replace(pdfMD, "---\n\n", "license: MIT\n---\n\n", 1)}),
			serve: map[string]string{pdfURI: strings.Replace(pdfMD, "---\n\n", "license: MIT\n---\n\n", 1)}, kind: errs.Integrity, msg: "license"},
		{name: "missing front matter", entry: entryJSON(pdfFrontmatter, map[string]string{pdfURI: "Skill body.\n"}),
			serve: map[string]string{pdfURI: "Skill body.\n"}, kind: errs.Integrity, msg: "does not begin with a front matter block"},
		{name: "no digest for SKILL.md", entry: entryJSON(pdfFrontmatter, map[string]string{formsURI: formsMD}), kind: errs.Integrity, msg: "publishes no digest for SKILL.md"},
		{name: "dynamic", entry: `{"uri":"` + pdfURI + `","frontmatter":` + pdfFrontmatter + `,"resources":"dynamic"}`},
		{name: "dynamic, front matter differs", entry: `{"uri":"` + pdfURI + `","frontmatter":{"name":"pdf-processing","description":"other"},"resources":"dynamic"}`,
			kind: errs.Integrity, msg: "description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{pages: []string{page(tt.entry)}, files: map[string]string{}}
			for k, v := range listed {
				srv.files[k] = v
			}
			for k, v := range tt.serve {
				srv.files[k] = v
			}
			if tt.blob {
				srv.blobs = map[string][]byte{pdfURI: []byte(srv.files[pdfURI])}
			}
			r := NewRemote("docs", srv)
			ctx := context.Background()
			entries, problems, err := r.List(ctx)
			if err != nil || len(entries) != 1 || len(problems) != 0 {
				t.Fatalf("list: %v %v %v", entries, problems, err)
			}
			l, err := r.Load(ctx, entries[0])
			if tt.kind != 0 {
				if !errs.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.msg) || l != nil {
					t.Fatalf("load: %v %v, want %s with %q", l, err, tt.kind, tt.msg)
				}
				if _, err := r.ReadFile(ctx, entries[0], "references/FORMS.md"); !errs.Is(err, errs.Invalid) {
					t.Errorf("read after a refusal: %v", err)
				}
				if slices.Contains(srv.reads, formsURI) {
					t.Errorf("read %s of a refused skill", formsURI)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Body != "\nSkill body.\n" || l.Name != "pdf-processing" {
				t.Errorf("loaded %+v", l)
			}
			if !l.Dynamic && !slices.Equal(l.Files, []string{"references/FORMS.md"}) {
				t.Errorf("files %v", l.Files)
			}
			f, err := r.ReadFile(ctx, entries[0], "references/FORMS.md")
			if err != nil || f.Text != formsMD || f.URI != formsURI {
				t.Errorf("read %+v %v", f, err)
			}
		})
	}
}

// A loaded skill's other files are verified too, are only those listed
// (any in its folder when dynamic), and never outside its folder.
func TestRemoteReadFile(t *testing.T) {
	ctx := context.Background()
	srv := &fakeServer{files: map[string]string{pdfURI: pdfMD, formsURI: "tampered\n", "skill://pdf-processing/unlisted.md": "x",
		"skill://other/SKILL.md": "y", "skill://pdf-processing/a%20b.md": "spaced"}}
	srv.pages = []string{page(entryJSON(pdfFrontmatter, map[string]string{pdfURI: pdfMD, formsURI: formsMD}))}
	r := NewRemote("docs", srv)
	entries, _, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	if _, err := r.ReadFile(ctx, e, "references/FORMS.md"); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "not loaded") {
		t.Errorf("before loading: %v", err)
	}
	if srv.readCount() != 0 {
		t.Fatalf("reads before loading: %v", srv.reads)
	}
	if _, err := r.Load(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		kind errs.Kind
	}{
		{formsURI, errs.Integrity},
		{"references/FORMS.md", errs.Integrity},
		{"unlisted.md", errs.NotFound},
		{"../other/SKILL.md", errs.Invalid},
		{"%2e%2e/other/SKILL.md", errs.Invalid},
		{"skill://other/SKILL.md", errs.Invalid},
	} {
		if _, err := r.ReadFile(ctx, e, tt.path); !errs.Is(err, tt.kind) {
			t.Errorf("%s: %v, want %s", tt.path, err, tt.kind)
		}
	}

	dyn := &fakeServer{files: srv.files, pages: []string{page(`{"uri":"` + pdfURI + `","frontmatter":` + pdfFrontmatter + `,"resources":"dynamic"}`)}}
	r = NewRemote("docs", dyn)
	if e, err = r.Resolve(ctx, "pdf-processing"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Load(ctx, e); err != nil {
		t.Fatal(err)
	}
	if f, err := r.ReadFile(ctx, e, "unlisted.md"); err != nil || f.Text != "x" {
		t.Errorf("dynamic: %+v %v", f, err)
	}
	if f, err := r.ReadFile(ctx, e, "a%20b.md"); err != nil || f.Text != "spaced" {
		t.Errorf("dynamic, escaped: %+v %v", f, err)
	}
	if _, err := r.ReadFile(ctx, e, "../other/SKILL.md"); !errs.Is(err, errs.Invalid) {
		t.Errorf("dynamic, outside: %v", err)
	}
}

// Listing pages through skills/list, leaves bad entries out with a reason
// each, and reads no skill file at all.
func TestRemoteList(t *testing.T) {
	good := func(name string) string {
		uri := "skill://acme/" + name + "/SKILL.md"
		return fmt.Sprintf(`{"uri":%q,"frontmatter":{"name":%q,"description":"d"},"resources":[{"uri":%q,"digest":%q,"size":3}]}`, uri, name, uri, digest("abc"))
	}
	bad := map[string]string{
		"name rules":      `{"uri":"skill://x/Bad--Name/SKILL.md","frontmatter":{"name":"Bad--Name","description":"d"},"resources":"dynamic"}`,
		"folder":          `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"two","description":"d"},"resources":"dynamic"}`,
		"no description":  `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one"},"resources":"dynamic"}`,
		"uri":             `{"uri":"skill://one/README.md","frontmatter":{"name":"one","description":"d"},"resources":"dynamic"}`,
		"no frontmatter":  `{"uri":"skill://x/one/SKILL.md","resources":"dynamic"}`,
		"resources":       `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":"all"}`,
		"no resources":    `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"}}`,
		"digest":          `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":[{"uri":"skill://x/one/SKILL.md","digest":"md5:00","size":1}]}`,
		"outside":         `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":[{"uri":"skill://x/two/a.md","digest":"` + digest("") + `","size":0}]}`,
		"climbs":          `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":[{"uri":"skill://x/one/../two/a.md","digest":"` + digest("") + `","size":0}]}`,
		"too big":         `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":[{"uri":"skill://x/one/SKILL.md","digest":"` + digest("") + `","size":16777217}]}`,
		"not an object":   `[1]`,
		"duplicate files": `{"uri":"skill://x/one/SKILL.md","frontmatter":{"name":"one","description":"d"},"resources":[{"uri":"skill://x/one/SKILL.md","digest":"` + digest("") + `","size":0},{"uri":"skill://x/one/SKILL.md","digest":"` + digest("") + `","size":0}]}`,
	}
	var badList []string
	for _, k := range slices.Sorted(maps.Keys(bad)) {
		badList = append(badList, bad[k])
	}
	srv := &fakeServer{pages: []string{
		`{"skills":[` + good("a") + `,` + strings.Join(badList, ",") + `],"nextCursor":"1"}`,
		`{"skills":[` + good("b") + `],"nextCursor":"2"}`,
		`{"skills":[` + good("c") + `]}`,
	}}
	r := NewRemote("docs", srv)
	entries, problems, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) || len(problems) != len(bad) {
		t.Errorf("names %v, %d problems: %v", names, len(problems), problems)
	}
	for _, p := range problems {
		if !strings.HasSuffix(p.Reason, "; the skill is left out") {
			t.Errorf("problem %v", p)
		}
	}
	if srv.readCount() != 0 {
		t.Errorf("listing read %v", srv.reads)
	}
	if !slices.Equal(srv.calls, []string{"skills/list ", `skills/list {"cursor":"1"}`, `skills/list {"cursor":"2"}`}) {
		t.Errorf("calls %q", srv.calls)
	}

	// A server that repeats its cursor ends the listing there.
	loop := &fakeServer{pages: []string{`{"skills":[` + good("a") + `],"nextCursor":"1"}`, `{"skills":[` + good("b") + `],"nextCursor":"1"}`}}
	entries, problems, err = NewRemote("loop", loop).List(context.Background())
	if err != nil || len(entries) != 2 || len(problems) != 1 || !strings.Contains(problems[0].Reason, "repeated the cursor") {
		t.Errorf("loop: %d entries, %v, %v", len(entries), problems, err)
	}
	// One that never stops is cut at MaxPages.
	endless := &fakeServer{}
	for i := 0; i < MaxPages+5; i++ {
		endless.pages = append(endless.pages, fmt.Sprintf(`{"skills":[],"nextCursor":"%d"}`, i+1))
	}
	_, problems, err = NewRemote("endless", endless).List(context.Background())
	if err != nil || len(problems) != 1 || len(endless.calls) != MaxPages {
		t.Errorf("endless: %v, %v, %d calls", problems, err, len(endless.calls))
	}
	// A malformed result is a protocol error.
	if _, _, err := NewRemote("junk", &fakeServer{pages: []string{`{"skills":{}}`}}).List(context.Background()); !errs.Is(err, errs.Protocol) {
		t.Errorf("junk: %v", err)
	}
}

// Resolve finds by name or URI, asks skills/get for an unlisted URI, and
// will not guess between two skills of one name.
func TestRemoteResolve(t *testing.T) {
	ctx := context.Background()
	twin := func(authority string) string {
		uri := "skill://" + authority + "/pdf-processing/SKILL.md"
		return `{"uri":"` + uri + `","frontmatter":` + pdfFrontmatter + `,"resources":"dynamic"}`
	}
	srv := &fakeServer{pages: []string{page(twin("a"), twin("b")), page(entryJSON(pdfFrontmatter, map[string]string{pdfURI: pdfMD}))}}
	r := NewRemote("docs", srv)
	if _, err := r.Resolve(ctx, "pdf-processing"); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "skill://a/pdf-processing/SKILL.md") {
		t.Errorf("ambiguous: %v", err)
	}
	if e, err := r.Resolve(ctx, "skill://b/pdf-processing/SKILL.md"); err != nil || e.URI != "skill://b/pdf-processing/SKILL.md" {
		t.Errorf("by uri: %+v %v", e, err)
	}
	if e, err := r.Resolve(ctx, pdfURI); err != nil || e.URI != pdfURI || len(e.Resources) != 1 {
		t.Errorf("skills/get: %+v %v", e, err)
	}
	if _, err := r.Resolve(ctx, "nope"); !errs.Is(err, errs.NotFound) {
		t.Errorf("unknown: %v", err)
	}
	if srv.readCount() != 0 {
		t.Errorf("resolving read %v", srv.reads)
	}
}

func TestValidDigest(t *testing.T) {
	good := "sha256:" + strings.Repeat("0a", 32)
	for d, want := range map[string]bool{good: true, good[:len(good)-1]: false, good + "0": false, "sha256:" + strings.Repeat("0A", 32): false,
		"sha512:" + strings.Repeat("0a", 32): false, "": false, strings.Repeat("0a", 32): false, "sha256:" + strings.Repeat("0g", 32): false} {
		if validDigest(d) != want {
			t.Errorf("validDigest(%q) = %v, want %v", d, !want, want)
		}
	}
}
