package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// Client is what Remote needs of an MCP client; *mcp.Client has both.
type Client interface {
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	ReadResource(ctx context.Context, uri string) (json.RawMessage, error)
}

// Entry is one skill a server lists (skills/list, skills/get).
type Entry struct {
	// URI is its SKILL.md's (scheme://.../NAME/SKILL.md).
	URI         string
	Name        string
	Description string
	// Frontmatter is the listing's copy of SKILL.md's front matter, the
	// numbers as json.Number.
	Frontmatter map[string]any
	// Resources are its files with their digests and sizes, SKILL.md
	// included; nil when Dynamic (the server publishes no list).
	Resources []Resource
	Dynamic   bool
	// Raw is the entry as the server sent it.
	Raw json.RawMessage
}

// Dir is the skill's folder URI, ending in "/".
func (e *Entry) Dir() string { return strings.TrimSuffix(e.URI, "SKILL.md") }

func (e *Entry) resource(uri string) *Resource {
	for i := range e.Resources {
		if e.Resources[i].URI == uri {
			return &e.Resources[i]
		}
	}
	return nil
}

// Resource is one file of a skill as its entry publishes it.
type Resource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // sha256:<64 lowercase hex>
	Size   int64  `json:"size"`   // bytes
}

// Digest is a file's digest as a skill's entry publishes it:
// sha256:<64 lowercase hex>.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Remote is one server's skills. It remembers the last listing and which
// skills have loaded: a skill's other files are read only after it has.
// It is safe for concurrent use.
type Remote struct {
	server string
	c      Client

	mu      sync.Mutex
	entries []Entry
	listed  bool
	loaded  map[string]bool // SKILL.md URIs that passed verification
}

// NewRemote returns the skills of server (its name, for messages) over c.
func NewRemote(server string, c Client) *Remote {
	return &Remote{server: server, c: c, loaded: map[string]bool{}}
}

// List lists the server's skills (skills/list, every page) and keeps the
// listing. It reads no skill file. Entries that break the extension's
// rules are left out, each with a Problem; a server that repeats a cursor
// or pages past MaxPages ends the listing there, with a Problem too.
func (r *Remote) List(ctx context.Context) ([]Entry, []Problem, error) {
	var entries []Entry
	var problems []Problem
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == MaxPages {
			problems = append(problems, Problem{"skills/list", fmt.Sprintf("the server kept paginating past %d pages; the rest is left out", MaxPages)})
			break
		}
		var params json.RawMessage
		if page > 0 {
			params = json.RawMessage(`{"cursor":` + jsonscan.Quote(cursor) + `}`)
		}
		raw, err := r.c.Request(ctx, "skills/list", params)
		if err != nil {
			return nil, nil, err
		}
		var res struct {
			Skills     []json.RawMessage `json:"skills"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, nil, errs.Errorf(errs.Protocol, "skills/list", "server %q sent a malformed skills/list result: %v", r.server, err)
		}
		for i, item := range res.Skills {
			if len(entries) == MaxSkills {
				problems = append(problems, Problem{"skills/list", fmt.Sprintf("more than %d skills; the rest are left out", MaxSkills)})
				break
			}
			e, why := parseEntry(item)
			if why != "" {
				where := e.URI
				if where == "" {
					where = fmt.Sprintf("skills/list page %d entry %d", page+1, i+1)
				}
				problems = append(problems, Problem{where, why + "; the skill is left out"})
				continue
			}
			entries = append(entries, e)
		}
		if res.NextCursor == nil || *res.NextCursor == "" || len(entries) == MaxSkills {
			break
		}
		cursor = *res.NextCursor
		if seen[cursor] {
			problems = append(problems, Problem{"skills/list", fmt.Sprintf("the server repeated the cursor %q; the listing stops there", cursor)})
			break
		}
		seen[cursor] = true
	}
	r.mu.Lock()
	r.entries, r.listed = entries, true
	r.mu.Unlock()
	return slices.Clone(entries), problems, nil
}

// Entries returns the last listing (nil before List).
func (r *Remote) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.entries)
}

// Get asks the server for one skill's entry by its URI (skills/get).
func (r *Remote) Get(ctx context.Context, uri string) (Entry, error) {
	raw, err := r.c.Request(ctx, "skills/get", json.RawMessage(`{"uri":`+jsonscan.Quote(uri)+`}`))
	if err != nil {
		return Entry{}, err
	}
	var res struct {
		Skill json.RawMessage `json:"skill"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Skill) == 0 {
		return Entry{}, errs.Errorf(errs.Protocol, "skills/get", "server %q answered skills/get for %s without a skill", r.server, uri)
	}
	e, why := parseEntry(res.Skill)
	if why == "" && e.URI != uri {
		why = "it is the entry of " + e.URI
	}
	if why != "" {
		return Entry{}, errs.Errorf(errs.Protocol, "skills/get", "server %q's skill %s: %s", r.server, uri, why)
	}
	return e, nil
}

// Resolve finds a skill by URI or by name in the listing (listing first
// if nothing was listed yet); a URI that was not listed is asked for with
// skills/get.
func (r *Remote) Resolve(ctx context.Context, nameOrURI string) (Entry, error) {
	r.mu.Lock()
	listed := r.listed
	r.mu.Unlock()
	if !listed {
		if _, _, err := r.List(ctx); err != nil {
			return Entry{}, err
		}
	}
	var byName []Entry
	for _, e := range r.Entries() {
		if e.URI == nameOrURI {
			return e, nil
		}
		if e.Name == nameOrURI {
			byName = append(byName, e)
		}
	}
	switch {
	case len(byName) == 1:
		return byName[0], nil
	case len(byName) > 1:
		uris := make([]string, len(byName))
		for i, e := range byName {
			uris[i] = e.URI
		}
		return Entry{}, errs.Errorf(errs.Invalid, "skills", "server %q lists %d skills named %q: give the URI of one (%s)", r.server, len(byName), nameOrURI, strings.Join(uris, ", "))
	case strings.Contains(nameOrURI, "://"):
		return r.Get(ctx, nameOrURI)
	}
	return Entry{}, errs.Errorf(errs.NotFound, "skills", "server %q lists no skill %q", r.server, nameOrURI)
}

// Load reads the skill's SKILL.md and verifies it against e: its size and
// digest (unless e is Dynamic), then its front matter, field by field. On
// any difference nothing of it is returned and the skill stays unloaded.
func (r *Remote) Load(ctx context.Context, e Entry) (*Loaded, error) {
	if !e.Dynamic && e.resource(e.URI) == nil {
		return nil, r.integrity(e, e.URI, "its entry publishes no digest for SKILL.md")
	}
	b, _, err := r.fetch(ctx, e, e.URI)
	if err != nil {
		return nil, err
	}
	fm, body, err := ParseFrontmatter(b)
	if err != nil {
		return nil, r.integrity(e, e.URI, err.Error())
	}
	if diff := Differences(fm, e.Frontmatter); len(diff) > 0 {
		return nil, r.integrity(e, e.URI, fmt.Sprintf("its front matter differs from the listing's in %s", describeDiff(diff, fm, e.Frontmatter)))
	}
	r.mu.Lock()
	r.loaded[e.URI] = true
	r.mu.Unlock()
	l := &Loaded{Name: e.Name, Body: string(body), Dynamic: e.Dynamic}
	for _, res := range e.Resources {
		if res.URI != e.URI {
			l.Files = append(l.Files, strings.TrimPrefix(res.URI, e.Dir()))
		}
	}
	slices.Sort(l.Files)
	return l, nil
}

// ReadFile reads a file of a loaded skill, by its URI or its path relative
// to the skill's folder: one its entry lists, verified as Load verifies
// SKILL.md; or, when the entry is Dynamic, any file in its folder (there
// is no digest to check).
func (r *Remote) ReadFile(ctx context.Context, e Entry, uriOrPath string) (*File, error) {
	r.mu.Lock()
	loaded := r.loaded[e.URI]
	r.mu.Unlock()
	if !loaded {
		return nil, errs.Errorf(errs.Invalid, "skills", "skill %q of server %q is not loaded: load it before reading its files", e.Name, r.server)
	}
	uri, rel, err := fileURI(e, uriOrPath)
	if err != nil {
		return nil, err
	}
	if !e.Dynamic && e.resource(uri) == nil {
		return nil, errs.Errorf(errs.NotFound, "skills", "skill %q has no file %q: its files are %s", e.Name, rel, strings.Join(e.files(), ", "))
	}
	b, mimeType, err := r.fetch(ctx, e, uri)
	if err != nil {
		return nil, err
	}
	return fileOf(rel, uri, mimeType, b), nil
}

func (e *Entry) files() []string {
	var out []string
	for _, res := range e.Resources {
		out = append(out, strings.TrimPrefix(res.URI, e.Dir()))
	}
	return out
}

// fileURI turns a URI or a relative path into a URI in the skill's folder
// and its path relative to it. A path must not climb out (.., also
// percent-encoded).
func fileURI(e Entry, uriOrPath string) (uri, rel string, err error) {
	dir := e.Dir()
	rel = uriOrPath
	if strings.Contains(uriOrPath, "://") {
		if !strings.HasPrefix(uriOrPath, dir) {
			return "", "", errs.Errorf(errs.Invalid, "skills", "%s is not in the skill %q's folder %s", uriOrPath, e.Name, dir)
		}
		rel = strings.TrimPrefix(uriOrPath, dir)
	}
	rel = strings.TrimPrefix(rel, "./")
	for _, seg := range strings.Split(rel, "/") {
		dec, uerr := url.PathUnescape(seg)
		if seg == "" || uerr != nil || dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\?#") {
			return "", "", errs.Errorf(errs.Invalid, "skills", "%q is not a path inside the skill %q: give one of its files, relative to its folder", uriOrPath, e.Name)
		}
	}
	return dir + rel, rel, nil
}

// fetch reads one file of e with resources/read and checks its size and
// digest against e's listing of it (when e lists it).
func (r *Remote) fetch(ctx context.Context, e Entry, uri string) ([]byte, string, error) {
	raw, err := r.c.ReadResource(ctx, uri)
	if err != nil {
		return nil, "", err
	}
	var res struct {
		Contents []content `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, "", errs.Errorf(errs.Protocol, "resources/read", "server %q sent a malformed resources/read result for %s: %v", r.server, uri, err)
	}
	i := slices.IndexFunc(res.Contents, func(c content) bool { return c.URI == uri })
	if i < 0 && len(res.Contents) == 1 {
		i = 0
	}
	if i < 0 {
		return nil, "", errs.Errorf(errs.Protocol, "resources/read", "server %q answered resources/read of %s without its content", r.server, uri)
	}
	c := res.Contents[i]
	var b []byte
	switch {
	case c.Text != nil:
		b = []byte(*c.Text)
	case c.Blob != nil:
		if b, err = base64.StdEncoding.DecodeString(*c.Blob); err != nil {
			return nil, "", r.integrity(e, uri, "its blob is not valid base64")
		}
	default:
		return nil, "", errs.Errorf(errs.Protocol, "resources/read", "server %q answered resources/read of %s with neither text nor blob", r.server, uri)
	}
	if len(b) > MaxSkillBytes {
		return nil, "", errs.Errorf(errs.Limit, "skills", "%s is larger than %d bytes, a skill's limit", uri, MaxSkillBytes)
	}
	if want := e.resource(uri); want != nil {
		if int64(len(b)) != want.Size {
			return nil, "", r.integrity(e, uri, fmt.Sprintf("it is %d bytes, its entry says %d", len(b), want.Size))
		}
		if got := Digest(b); got != want.Digest {
			return nil, "", r.integrity(e, uri, fmt.Sprintf("its digest is %s, its entry says %s", short(got), short(want.Digest)))
		}
	}
	return b, c.MIMEType, nil
}

// content is one item of a resources/read result.
type content struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
}

func (r *Remote) integrity(e Entry, uri, what string) error {
	return errs.Errorf(errs.Integrity, "skills", "server %q's skill %q failed verification: %s: %s; nothing of it was used (the server's copy changed since it was listed, or was tampered with: list the skills again, or tell the server's operator)", r.server, e.Name, uri, what)
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19] + "…"
	}
	return digest
}

// describeDiff names the differing fields with both values, briefly.
func describeDiff(fields []string, file, entry map[string]any) string {
	parts := make([]string, 0, len(fields))
	for _, k := range fields {
		parts = append(parts, fmt.Sprintf("%s (the file has %s, the listing %s)", k, brief(file[k]), brief(entry[k])))
	}
	return strings.Join(parts, ", ")
}

func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

// validDigest is ^sha256:[0-9a-f]{64}$, checked by hand: a regexp of a
// bounded repeat is compiled at every start into 64 copies.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseEntry reads one listed entry, or says what is wrong with it.
func parseEntry(raw json.RawMessage) (Entry, string) {
	var w struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Entry{}, "it is not a skill entry object"
	}
	e := Entry{URI: w.URI, Raw: raw}
	folder, ok := skillFolder(w.URI)
	if !ok {
		return e, "its uri is not SCHEME://.../NAME/SKILL.md"
	}
	fm, err := decodeJSON(w.Frontmatter)
	m, isObj := fm.(map[string]any)
	if err != nil || !isObj {
		return e, "it has no frontmatter object"
	}
	if why := checkNames(m, folder); why != "" {
		return e, why
	}
	e.Frontmatter, e.Name, e.Description = m, m["name"].(string), m["description"].(string)
	if bytes.Equal(bytes.TrimSpace(w.Resources), []byte(`"dynamic"`)) {
		e.Dynamic = true
		return e, ""
	}
	if err := json.Unmarshal(w.Resources, &e.Resources); err != nil || e.Resources == nil {
		return e, `its resources are neither a list of {uri, digest, size} nor "dynamic"`
	}
	if len(e.Resources) > MaxFiles {
		return e, fmt.Sprintf("it lists %d files, more than %d", len(e.Resources), MaxFiles)
	}
	var total int64
	seen := map[string]bool{}
	for _, res := range e.Resources {
		switch {
		case seen[res.URI]:
			return e, "it lists " + res.URI + " twice"
		case res.URI != e.URI && !strings.HasPrefix(res.URI, e.Dir()):
			return e, "it lists " + res.URI + ", which is outside its folder"
		case !validDigest(res.Digest):
			return e, "the digest of " + res.URI + " is not sha256:<64 lowercase hex>"
		case res.Size < 0:
			return e, "the size of " + res.URI + " is negative"
		}
		if _, _, err := fileURI(e, res.URI); res.URI != e.URI && err != nil {
			return e, "it lists " + res.URI + ", which is not a plain path in its folder"
		}
		seen[res.URI] = true
		total += res.Size
	}
	if total > MaxSkillBytes {
		return e, fmt.Sprintf("its files hold %d bytes, more than %d", total, MaxSkillBytes)
	}
	return e, ""
}

// skillFolder is the NAME of SCHEME://PATH.../NAME/SKILL.md.
func skillFolder(uri string) (string, bool) {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || scheme == "" {
		return "", false
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 2 || segs[len(segs)-1] != "SKILL.md" || slices.Contains(segs, "") {
		return "", false
	}
	name := segs[len(segs)-2]
	if path.Clean(name) != name {
		return "", false
	}
	return name, true
}
