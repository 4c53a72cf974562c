// Package store keeps luagent's OAuth credentials for remote MCP servers on
// disk: one private file per exact server URL string in
// ~/.luagent/credentials/mcp/ (mode 0600 in a 0700 folder), written
// atomically (a temporary file in the same folder, fsync, rename) under a
// file lock, so several luagent processes can share them.
//
// It also reads and refreshes the legacy token record that
// MCP_OAUTH_TOKEN_FILE names (Legacy), under the same rules.
//
// The rule for a 401 with a stored token is RefreshOnce: lock, re-read
// (another process may have refreshed already), refresh once, save, and let
// the caller retry once. A failed refresh is an error of kind auth that says
// to run `luagent mcp login URL`; nothing here loops.
//
// Errors carry a kind from runtime/errs and never contain a token or a
// secret, nor the contents of a credential file.
package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/privfile"
)

// op is the Op of the errors of this package.
const op = "credentials"

// Store is a folder of credential files, one per exact MCP server URL.
// Its methods are safe for concurrent use, also across processes.
type Store struct {
	dir string

	// Warn receives one-line warnings, such as a credential file whose
	// permissions were too loose and were fixed. nil means os.Stderr. Set
	// it before using the Store.
	Warn io.Writer
}

// New returns the store kept in dir. Nothing is created until a
// credential is saved.
func New(dir string) *Store { return &Store{dir: dir} }

// Default returns the store in the luagent home folder: home/credentials/mcp
// (home is LUAGENT_HOME, else ~/.luagent; see luabind/host.Home).
func Default(home string) *Store { return New(DefaultDir(home)) }

// DefaultDir is the folder Default uses.
func DefaultDir(home string) string { return filepath.Join(home, "credentials", "mcp") }

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

// Path returns the file that holds (or would hold) url's credential.
func (s *Store) Path(url string) string { return filepath.Join(s.dir, FileName(url)) }

// Entry returns url's credential file. The store's methods that take a URL
// are shorthands for the same methods of its Entry.
func (s *Store) Entry(url string) *Entry {
	return &Entry{url: url, path: s.Path(url), dir: s.dir, warn: s.warnWriter}
}

// Connection returns the credential file of the catalog entry whose
// connectionId is id and whose URL is now url: credentials bound to an
// immutable connection identity (a managed host's connectionId), kept apart
// from url's own file and from other connections to the same URL. The
// binding outlives a change of the entry's URL only where the tokens were
// issued for a resource that still covers the new URL (see Entry.Load);
// otherwise the entry has no credential until it logs in again.
func (s *Store) Connection(id, url string) *Entry {
	return &Entry{url: url, conn: id, path: filepath.Join(s.dir, ConnectionFileName(id)), dir: s.dir, warn: s.warnWriter}
}

// ConnectionFileName is the name of the file that holds the credential
// bound to connection id: "connection-", the hex SHA-256 of id, ".json"
// (id may be any string: none of it is shown in the name).
func ConnectionFileName(id string) string {
	sum := sha256.Sum256([]byte("connectionId\x00" + id))
	return "connection-" + hex.EncodeToString(sum[:]) + ".json"
}

// Load returns url's stored credential, or nil (and no error) when there is
// none. It takes no lock: files are replaced atomically, so it never sees a
// partial one.
func (s *Store) Load(url string) (*oauth.Credential, error) { return s.Entry(url).Load() }

// Save stores c as url's credential, atomically, under the lock.
func (s *Store) Save(ctx context.Context, url string, c *oauth.Credential) error {
	return s.Entry(url).Save(ctx, c)
}

// Delete removes url's credential file. It reports whether there was one;
// an absent file is not an error. Nothing else is touched.
func (s *Store) Delete(ctx context.Context, url string) (bool, error) {
	return s.Entry(url).Delete(ctx)
}

// Update runs fn on url's credential under the lock; see Entry.Update.
func (s *Store) Update(ctx context.Context, url string, fn UpdateFunc) (*oauth.Credential, error) {
	return s.Entry(url).Update(ctx, fn)
}

// RefreshOnce refreshes url's credential once; see Entry.RefreshOnce.
func (s *Store) RefreshOnce(ctx context.Context, url string, stale *oauth.Credential, refresh RefreshFunc) (*oauth.Credential, error) {
	return s.Entry(url).RefreshOnce(ctx, stale, refresh)
}

// URLs returns the server URLs the store holds credentials for, sorted.
// Files it cannot read are skipped.
func (s *Store) URLs() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, op, "cannot list the credentials folder %s: %v; check its permissions", s.dir, privfile.PathErr(err))
	}
	var urls []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := readLimited(filepath.Join(s.dir, e.Name()))
		if err != nil {
			continue
		}
		var rec struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(data, &rec) == nil && rec.URL != "" && FileName(rec.URL) == e.Name() {
			urls = append(urls, rec.URL)
		}
	}
	sort.Strings(urls)
	return urls, nil
}

func (s *Store) warnWriter() io.Writer {
	if s.Warn != nil {
		return s.Warn
	}
	return os.Stderr
}

// maxPrefix bounds the readable part of a file name.
const maxPrefix = 64

// FileName is the name of the file that holds the credential of the exact
// URL string u: a readable prefix made of u's host and path (never its
// user info, query or fragment, which may hold secrets) with every
// character outside [A-Za-z0-9.-] replaced by "_", then "-", the hex SHA-256
// of u exactly as given (query included: a different query, a trailing
// slash or a different case is a different server), and ".json".
func FileName(u string) string {
	sum := sha256.Sum256([]byte(u))
	return readablePrefix(u) + "-" + hex.EncodeToString(sum[:]) + ".json"
}

func readablePrefix(u string) string {
	var raw string
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		raw = p.Host + p.EscapedPath()
	}
	var b strings.Builder
	under := false
	for _, r := range raw {
		ok := r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-')
		switch {
		case ok:
			b.WriteRune(r)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
		if b.Len() >= maxPrefix {
			break
		}
	}
	s := strings.Trim(b.String(), "_.-")
	if s == "" {
		return "mcp"
	}
	return s
}

// warnMu keeps warnings whole when several goroutines write them.
var warnMu sync.Mutex
