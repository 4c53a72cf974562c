package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unicode"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/privfile"
	"github.com/luagent/luagent/runtime/secret"
)

// Entry is one credential file: a server URL's in a Store, or the legacy
// record MCP_OAUTH_TOKEN_FILE names (Legacy). Both follow the same rules:
// private permissions, atomic writes, one lock per file.
type Entry struct {
	url    string // the server's URL ("" when unknown, legacy only)
	conn   string // the connectionId it is bound to ("": keyed by url)
	path   string // the file (legacy: as given; symbolic links are followed)
	dir    string // the private folder kept at 0700; "" for a legacy file
	legacy bool
	warn   func() io.Writer
}

// UpdateFunc gets the credential stored now (nil when there is none; a copy
// it may change) and returns the one to store. Returning an error writes
// nothing; returning nil removes the file; returning an equal credential
// writes nothing.
type UpdateFunc func(cur *oauth.Credential) (*oauth.Credential, error)

// RefreshFunc exchanges cur's refresh token at its token endpoint and
// returns the whole new credential (cur with the new tokens and expiry). Its
// errors are shown to the user: they must not contain tokens or secrets
// (cur's own are masked as a precaution).
type RefreshFunc func(ctx context.Context, cur *oauth.Credential) (*oauth.Credential, error)

// Path returns the credential file's path.
func (e *Entry) Path() string { return e.path }

// URL returns the server URL the entry is for ("" for a legacy file
// opened without one).
func (e *Entry) URL() string { return e.url }

// Load returns the stored credential. A URL without one gives nil and no
// error; so does a connection-bound entry (Store.Connection) whose file was
// saved for another URL, unless the tokens' resource covers the entry's URL
// now (oauth.ResourceCovers): a token is never sent to another server; a legacy file that does not exist is an error of kind not_found.
// Loose permissions are fixed with a warning; a file that is not the user's
// or not a regular file is refused (kind invalid), and so is one that is not
// a valid record (kind invalid, saying how to start over).
func (e *Entry) Load() (*oauth.Credential, error) {
	if ok, err := e.prepareDir(false); err != nil || !ok {
		return nil, err
	}
	c, err := e.load()
	if err == nil && c == nil && e.legacy {
		return nil, errs.Errorf(errs.NotFound, op, "%s, the token file MCP_OAUTH_TOKEN_FILE names, does not exist; create it or unset MCP_OAUTH_TOKEN_FILE", e.path)
	}
	return c, err
}

// Save stores c, atomically, under the lock, replacing whatever the file
// held (even a corrupt one: this is what a fresh login does).
func (e *Entry) Save(ctx context.Context, c *oauth.Credential) error {
	if c == nil {
		return errs.New(errs.Invalid, op, "Save needs a credential; use Delete to remove one")
	}
	if _, err := e.prepareDir(true); err != nil {
		return err
	}
	unlock, err := e.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return e.write(c)
}

// Delete removes the credential file, under the lock, and reports whether
// there was one. An absent file is not an error. Nothing else is touched:
// no other file, and no authorization server (nothing is revoked).
func (e *Entry) Delete(ctx context.Context) (bool, error) {
	path := e.realPath()
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := e.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	err = os.Remove(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, errs.Errorf(errs.Invalid, op, "cannot remove %s: %v; remove it by hand", path, privfile.PathErr(err))
	}
	privfile.SyncDir(filepath.Dir(path))
	return true, nil
}

// Update takes the file's exclusive lock, reads the credential again (another
// process may have changed it since the caller last looked), calls fn with
// it, saves what fn returns atomically when it differs (removes the file when
// fn returns nil), releases the lock and returns the stored credential.
// Waiting for the lock ends with ctx. fn runs with the lock held: keep it
// short (one token request).
func (e *Entry) Update(ctx context.Context, fn UpdateFunc) (*oauth.Credential, error) {
	if _, err := e.prepareDir(true); err != nil {
		return nil, err
	}
	unlock, err := e.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := e.load()
	if err != nil {
		return nil, err
	}
	next, err := fn(clone(cur))
	if err != nil {
		return nil, err
	}
	switch {
	case next == nil && cur == nil:
		return nil, nil
	case next == nil:
		if err := os.Remove(e.realPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, errs.Errorf(errs.Invalid, op, "cannot remove %s: %v; remove it by hand", e.realPath(), privfile.PathErr(err))
		}
		return nil, nil
	case cur != nil && reflect.DeepEqual(*cur, *next):
		return clone(next), nil
	}
	if err := e.write(next); err != nil {
		return nil, err
	}
	return clone(next), nil
}

// RefreshOnce is the rule for a 401 (or an expired token) with a stored
// credential: under the lock it re-reads the file; if the stored access
// token is no longer stale's (the one the caller used), another process has
// refreshed already and the stored credential is returned without calling
// refresh; otherwise refresh is called exactly once and its credential saved
// and returned (a refresh token it leaves empty keeps the old one). The
// caller then retries its request once with the result, and does not call
// RefreshOnce again for that request.
//
// A refresh that fails, no refresh token, or no stored credential any more
// (a logout) is an error of kind auth that says to run `luagent mcp login
// URL`; a cancelled ctx gives kind cancelled or timeout.
func (e *Entry) RefreshOnce(ctx context.Context, stale *oauth.Credential, refresh RefreshFunc) (*oauth.Credential, error) {
	staleToken := ""
	if stale != nil {
		staleToken = stale.AccessToken
	}
	return e.Update(ctx, func(cur *oauth.Credential) (*oauth.Credential, error) {
		switch {
		case cur == nil:
			return nil, e.authErr(nil, "there are no stored credentials for %s any more", e.what())
		case cur.AccessToken != staleToken:
			return cur, nil // someone else refreshed: use theirs
		case cur.RefreshToken == "":
			return nil, e.authErr(nil, "the access token for %s was refused and there is no refresh token", e.what())
		}
		next, err := refresh(ctx, clone(cur))
		if err == nil && (next == nil || next.AccessToken == "") {
			err = errors.New("the token endpoint returned no access token")
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				k := errs.Cancelled
				if errors.Is(cerr, context.DeadlineExceeded) {
					k = errs.Timeout
				}
				return nil, errs.Errorf(k, "oauth", "refreshing the access token for %s: %v", e.what(), cerr)
			}
			return nil, e.authErr(err, "refreshing the access token for %s failed (%s)", e.what(), mask(err.Error(), cur))
		}
		next = clone(next)
		if next.RefreshToken == "" {
			next.RefreshToken = cur.RefreshToken
		}
		return next, nil
	})
}

// what names the entry in messages.
func (e *Entry) what() string {
	if e.legacy {
		return e.path + " (MCP_OAUTH_TOKEN_FILE)"
	}
	return secret.URL(e.url)
}

// authErr is an error of kind auth that ends with what to do.
func (e *Entry) authErr(cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case e.legacy && e.url != "":
		msg += "; put new tokens in that file, or unset MCP_OAUTH_TOKEN_FILE and run `luagent mcp login " + shellQuote(secret.URL(e.url)) + "`"
	case e.legacy:
		msg += "; put new tokens in that file, or unset MCP_OAUTH_TOKEN_FILE and log in with `luagent mcp login URL`"
	default:
		msg += "; run `luagent mcp login " + shellQuote(secret.URL(e.url)) + "`"
	}
	return &errs.Error{Kind: errs.Auth, Op: "oauth", Msg: msg, Err: cause}
}

// mask removes cur's secrets from s, should a refresh error quote them,
// and keeps it on one line.
func mask(s string, cur *oauth.Credential) string {
	for _, secret := range []string{cur.AccessToken, cur.RefreshToken, cur.ClientSecret} {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

func clone(c *oauth.Credential) *oauth.Credential {
	if c == nil {
		return nil
	}
	d := *c
	return &d
}

// realPath is the file to read and replace: a legacy path's symbolic links
// are resolved, so the link stays and its target is updated.
func (e *Entry) realPath() string {
	if !e.legacy {
		return e.path
	}
	if p, err := filepath.EvalSymlinks(e.path); err == nil {
		return p
	}
	return e.path
}

func (e *Entry) lockPath() string { return e.realPath() + ".lock" }

func (e *Entry) lock(ctx context.Context) (func(), error) {
	path := e.lockPath()
	unlock, err := privfile.Lock(ctx, path)
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() != nil:
		k := errs.Cancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			k = errs.Timeout
		}
		return nil, errs.Errorf(k, op, "gave up waiting for the lock %s (%v): another luagent process is using these credentials; try again", path, ctx.Err())
	}
	return nil, errs.Errorf(errs.Invalid, op, "cannot lock %s: %v; check that luagent may write to %s", path, privfile.PathErr(err), filepath.Dir(path))
}

// prepareDir checks the store's folder (a legacy file has none): it must
// be a folder owned by the user, and loose permissions are fixed with a
// warning. With create it is made (0700) when missing. It reports whether
// the folder exists.
func (e *Entry) prepareDir(create bool) (bool, error) {
	if e.dir == "" {
		return true, nil
	}
	fi, err := os.Stat(e.dir)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return false, nil
		}
		if err := os.MkdirAll(e.dir, 0o700); err != nil {
			return false, errs.Errorf(errs.Invalid, op, "cannot create the credentials folder %s: %v; check that luagent may write there (or set LUAGENT_HOME)", e.dir, privfile.PathErr(err))
		}
		fi, err = os.Stat(e.dir)
	}
	if err != nil {
		return false, errs.Errorf(errs.Invalid, op, "cannot open the credentials folder %s: %v; check its permissions", e.dir, privfile.PathErr(err))
	}
	if !fi.IsDir() {
		return false, errs.Errorf(errs.Invalid, op, "%s is not a folder; move it away so luagent can keep credentials there", e.dir)
	}
	return true, e.makePrivate(e.dir, "the credentials folder ", fi, 0o700, func(m fs.FileMode) error { return chmodPath(e.dir, m) })
}

// Hooks for tests.
var (
	currentUID = os.Geteuid
	chmodPath  = os.Chmod
	chmodFile  = (*os.File).Chmod
)

// makePrivate refuses what is not the user's and removes permission bits
// beyond want, with a warning.
func (e *Entry) makePrivate(path, what string, fi fs.FileInfo, want fs.FileMode, chmod func(fs.FileMode) error) error {
	if uid, ok := privfile.Owner(fi); ok && uid != currentUID() {
		return errs.Errorf(errs.Invalid, op, "%s%s belongs to another user (uid %d), so luagent will not use it; remove it, or make it yours with chown", what, path, uid)
	}
	mode := fi.Mode().Perm()
	if mode&^want == 0 {
		return nil
	}
	if err := chmod(want); err != nil {
		return errs.Errorf(errs.Invalid, op, "%s%s is open to other users (mode %04o) and luagent could not make it private (%v); run chmod %o %s", what, path, uint32(mode), privfile.PathErr(err), uint32(want), shellQuote(path))
	}
	warnMu.Lock()
	fmt.Fprintf(e.warn(), "luagent: warning: %s%s was open to other users (mode %04o); luagent changed it to %04o\n", what, path, uint32(mode), uint32(want))
	warnMu.Unlock()
	return nil
}

// maxFile bounds what is read: credential files are small.
const maxFile = 1 << 20

func readLimited(path string) ([]byte, error) { return privfile.ReadLimited(path, maxFile) }

// readPrivate reads the file after checking it is a regular file owned by
// the user and fixing loose permissions. Absent: nil, nil.
func (e *Entry) readPrivate(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check its permissions", path, privfile.PathErr(err))
	}
	if !fi.Mode().IsRegular() {
		what := "a special file"
		switch {
		case fi.IsDir():
			what = "a folder"
		case fi.Mode()&fs.ModeSymlink != 0:
			what = "a symbolic link"
		}
		return nil, errs.Errorf(errs.Invalid, op, "%s is %s, not a regular file, so luagent will not use it; %s", path, what, e.startOver())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|privfile.OpenNoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check its permissions", path, privfile.PathErr(err))
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check its permissions", path, privfile.PathErr(err))
	}
	if err := e.makePrivate(path, "", fi, 0o600, func(m fs.FileMode) error { return chmodFile(f, m) }); err != nil {
		return nil, err
	}
	data, err := privfile.ReadAllLimited(f, maxFile)
	if errors.Is(err, privfile.ErrTooLarge) {
		return nil, e.corrupt(path, "larger than 1 MiB")
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check the disk", path, privfile.PathErr(err))
	}
	return data, nil
}

// startOver says how to replace a bad file.
func (e *Entry) startOver() string {
	if e.legacy {
		return "fix it, or unset MCP_OAUTH_TOKEN_FILE and log in with `luagent mcp login URL`"
	}
	u := shellQuote(secret.URL(e.url))
	if e.conn != "" {
		return "run `luagent mcp login " + u + "` (it replaces the file), or remove the file"
	}
	return "run `luagent mcp logout " + u + "`, then `luagent mcp login " + u + "`"
}

func (e *Entry) corrupt(path, why string) error {
	what := "credential file"
	if e.legacy {
		what = "token record (MCP_OAUTH_TOKEN_FILE)"
	}
	return errs.Errorf(errs.Invalid, op, "%s is not a valid %s: %s; %s", path, what, why, e.startOver())
}

// describe says what is wrong with a record without quoting it.
func describe(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var bad badRecord
	switch {
	case errors.As(err, &bad):
		return string(bad)
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON (at byte %d)", syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s is not a %s", typ.Field, typ.Type)
	case errors.As(err, &typ):
		return "not a JSON object"
	}
	return "not a JSON object"
}

// badRecord says what is wrong with a record (never quoting it).
type badRecord string

func (b badRecord) Error() string { return string(b) }

// record is a credential file in a Store.
type record struct {
	URL          string            `json:"url"`
	ConnectionID string            `json:"connectionId,omitempty"`
	Credential   *oauth.Credential `json:"credential"`
}

// load reads and decodes the file. Absent: nil, nil.
func (e *Entry) load() (*oauth.Credential, error) {
	path := e.realPath()
	data, err := e.readPrivate(path)
	if err != nil || data == nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, e.corrupt(path, "empty")
	}
	if e.legacy {
		c, _, _, err := decodeLegacy(data)
		if err != nil {
			return nil, e.corrupt(path, describe(err))
		}
		return c, nil
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, e.corrupt(path, describe(err))
	}
	if rec.Credential == nil {
		return nil, e.corrupt(path, "it has no credential")
	}
	if e.conn != "" {
		switch {
		case rec.ConnectionID != e.conn:
			return nil, errs.Errorf(errs.Invalid, op, "%s holds the credentials of another connection, not this entry's connectionId; %s", path, e.startOver())
		case rec.URL != e.url && !oauth.ResourceCovers(rec.Credential.Resource, e.url):
			return nil, nil // bound to this connection, but issued for another server
		}
		return rec.Credential, nil
	}
	if rec.URL != e.url {
		return nil, errs.Errorf(errs.Invalid, op, "%s holds the credentials of another URL (%s), not %s; %s", path, secret.URL(rec.URL), secret.URL(e.url), e.startOver())
	}
	return rec.Credential, nil
}

// write saves c atomically: a private temporary file in the same folder,
// fsync, rename over the file, fsync the folder. The caller holds the lock.
func (e *Entry) write(c *oauth.Credential) error {
	path := e.realPath()
	var data []byte
	var err error
	if e.legacy {
		data, err = encodeLegacy(path, c)
	} else {
		data, err = json.MarshalIndent(record{URL: e.url, ConnectionID: e.conn, Credential: c}, "", "  ")
	}
	if err != nil {
		return errs.Errorf(errs.Internal, op, "encoding the credential for %s: %v", e.what(), err)
	}
	data = append(data, '\n')
	if err := privfile.WriteAtomic(path, data); err != nil {
		return errs.Errorf(errs.Invalid, op, "cannot save %s: %v; check that luagent may write to %s (the file was left as it was)", path, privfile.PathErr(err), filepath.Dir(path))
	}
	return nil
}

// shellQuote quotes s for a shell command line when it needs it (URLs with
// a query have & and ?).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~:/@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
