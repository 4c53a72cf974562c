package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/privfile"
	"github.com/luagent/luagent/runtime/testkit"
)

const testURL = "https://mcp.example.com/mcp"

func cred(access, refresh string) *oauth.Credential {
	return &oauth.Credential{
		Issuer: "https://auth.example.com", ClientID: "client-1", TokenEndpoint: "https://auth.example.com/token",
		AccessToken: access, RefreshToken: refresh, ExpiresAt: 1700000000, Resource: testURL,
	}
}

// newStore is a store in a fresh folder (two levels down, so Save makes
// the parents) whose warnings go to the returned buffer.
func newStore(t *testing.T) (*Store, *testkit.Buffer) {
	t.Helper()
	var w testkit.Buffer
	s := New(filepath.Join(t.TempDir(), "credentials", "mcp"))
	s.Warn = &w
	return s, &w
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// names lists a folder's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// oneLine checks a user-facing error: kind, one line, no secret.
func checkErr(t *testing.T, err error, kind errs.Kind, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want kind %s", kind)
	}
	msg := err.Error()
	if errs.KindOf(err) != kind {
		t.Errorf("kind %s, want %s: %s", errs.KindOf(err), kind, msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, s := range []string{"s3cret", "access-1", "refresh-1", "client-secret"} {
		if strings.Contains(msg, s) {
			t.Errorf("error shows the secret %q: %s", s, msg)
		}
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}

func TestFileName(t *testing.T) {
	safe := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{64}\.json$`)
	for _, c := range []struct {
		a, b   string
		same   bool
		prefix string
	}{
		{testURL, testURL, true, "mcp.example.com_mcp"},
		{testURL, testURL + "?tenant=1", false, "mcp.example.com_mcp"},
		{testURL + "?tenant=1", testURL + "?tenant=2", false, "mcp.example.com_mcp"},
		{testURL + "?a=1&b=2", testURL + "?b=2&a=1", false, "mcp.example.com_mcp"},
		{testURL, testURL + "/", false, "mcp.example.com_mcp"},
		{testURL, "https://MCP.example.com/mcp", false, "mcp.example.com_mcp"},
		{testURL, testURL + "#frag", false, "mcp.example.com_mcp"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", false, "127.0.0.1_8080_mcp"},
		{"https://user:s3cret@host.example/p?token=s3cret", "https://host.example/p", false, "host.example_p"},
		{"https://bücher.example/ü/mcp", "https://bücher.example/ü/mcp", true, "b_cher.example_C3_BC_mcp"},
		{"", "", true, "mcp"},
		{"not a url", "not a url", true, "mcp"},
		{"../../etc/passwd", "../../etc/passwd", true, "mcp"},
		{"https://x.example/" + strings.Repeat("a/", 200), "https://x.example/" + strings.Repeat("a/", 201), false, "x.example_a_a_a"},
	} {
		na, nb := FileName(c.a), FileName(c.b)
		if (na == nb) != c.same {
			t.Errorf("FileName(%q) = %s, FileName(%q) = %s: same %v, want %v", c.a, na, c.b, nb, na == nb, c.same)
		}
		if FileName(c.a) != na {
			t.Errorf("FileName(%q) is not stable", c.a)
		}
		if !safe.MatchString(na) || len(na) > maxPrefix+70 {
			t.Errorf("FileName(%q) = %q: not a safe file name", c.a, na)
		}
		if !strings.HasPrefix(na, c.prefix) {
			t.Errorf("FileName(%q) = %q, want the prefix %q", c.a, na, c.prefix)
		}
		if strings.Contains(na, "s3cret") || strings.Contains(na, "token") {
			t.Errorf("FileName(%q) = %q shows the user info or query", c.a, na)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	s, warn := newStore(t)
	ctx := context.Background()
	want := cred("access-1", "refresh-1")
	want.ClientSecret, want.Scope, want.TokenAuth = "client-secret", "read write", "client_secret_basic"
	if err := s.Save(ctx, testURL, want); err != nil {
		t.Fatal(err)
	}
	other := testURL + "?tenant=2"
	if err := s.Save(ctx, other, cred("access-2", "")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(testURL)
	if err != nil || *got != *want {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, want)
	}
	if got, _ := s.Load(other); got == nil || got.AccessToken != "access-2" {
		t.Fatalf("Load(%s) = %+v: the query must select its own file", other, got)
	}
	if m := perm(t, s.Dir()); m != 0o700 {
		t.Errorf("folder mode %04o, want 0700", m)
	}
	if m := perm(t, filepath.Dir(s.Dir())); m != 0o700 {
		t.Errorf("parent folder mode %04o, want 0700", m)
	}
	if m := perm(t, s.Path(testURL)); m != 0o600 {
		t.Errorf("file mode %04o, want 0600", m)
	}
	data, _ := os.ReadFile(s.Path(testURL))
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(data, &rec); err != nil || string(rec["url"]) != `"`+testURL+`"` {
		t.Errorf("the file does not keep the URL: %s", data)
	}
	if n := names(t, s.Dir()); len(n) != 2 {
		t.Errorf("folder holds %v, want the two credential files only (no lock, no temporary file)", n)
	}
	urls, err := s.URLs()
	if err != nil || len(urls) != 2 || urls[0] != testURL || urls[1] != other {
		t.Errorf("URLs = %v, %v", urls, err)
	}
	if warn.String() != "" {
		t.Errorf("unexpected warnings: %s", warn)
	}
}

func TestLoadAbsent(t *testing.T) {
	s, _ := newStore(t)
	if c, err := s.Load(testURL); c != nil || err != nil {
		t.Fatalf("Load without a folder = %v, %v; want nil, nil", c, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load created the folder")
	}
	if err := s.Save(context.Background(), "https://other.example/mcp", cred("a", "r")); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Load(testURL); c != nil || err != nil {
		t.Fatalf("Load of an absent file = %v, %v; want nil, nil", c, err)
	}
}

func TestLoosePermissionsFixed(t *testing.T) {
	for _, c := range []struct {
		name       string
		dir, file  fs.FileMode
		warnAbout  string
		wantInWarn string
	}{
		{"file readable by all", 0o700, 0o644, "file", "mode 0644"},
		{"file readable by group", 0o700, 0o640, "file", "mode 0640"},
		{"file executable", 0o700, 0o700, "file", "mode 0700"},
		{"folder open", 0o755, 0o600, "dir", "mode 0755"},
		{"folder group", 0o750, 0o600, "dir", "mode 0750"},
		{"both", 0o777, 0o666, "both", "mode 0666"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, warn := newStore(t)
			if err := s.Save(context.Background(), testURL, cred("access-1", "refresh-1")); err != nil {
				t.Fatal(err)
			}
			path := s.Path(testURL)
			os.Chmod(path, c.file)
			os.Chmod(s.Dir(), c.dir)
			got, err := s.Load(testURL)
			if err != nil || got == nil || got.AccessToken != "access-1" {
				t.Fatalf("Load = %v, %v", got, err)
			}
			if m := perm(t, path); m != 0o600 {
				t.Errorf("file mode %04o after Load, want 0600", m)
			}
			if m := perm(t, s.Dir()); m != 0o700 {
				t.Errorf("folder mode %04o after Load, want 0700", m)
			}
			w := warn.String()
			if !strings.Contains(w, c.wantInWarn) || !strings.HasPrefix(w, "luagent: warning: ") {
				t.Errorf("warning %q does not say %q", w, c.wantInWarn)
			}
			if (c.warnAbout == "file" || c.warnAbout == "both") && !strings.Contains(w, path+" was open to other users") {
				t.Errorf("warning %q does not name the file", w)
			}
			if (c.warnAbout == "dir" || c.warnAbout == "both") && !strings.Contains(w, "the credentials folder "+s.Dir()) {
				t.Errorf("warning %q does not name the folder", w)
			}
			if strings.Contains(w, "access-1") {
				t.Errorf("warning shows the token: %q", w)
			}
			before := w
			if _, err := s.Load(testURL); err != nil {
				t.Fatal(err)
			}
			if warn.String() != before {
				t.Errorf("a second Load warned again: %q", warn.String())
			}
		})
	}
}

// Ownership is compared with currentUID, which the test moves so that the
// user's own files look foreign (TestForeignOwnerRefusedAsRoot does it for
// real when it can).
func TestNotOwnedRefused(t *testing.T) {
	me := os.Geteuid()
	t.Run("folder", func(t *testing.T) {
		s, _ := newStore(t)
		if err := s.Save(context.Background(), testURL, cred("access-1", "refresh-1")); err != nil {
			t.Fatal(err)
		}
		currentUID = func() int { return me + 1 }
		defer func() { currentUID = os.Geteuid }()
		_, err := s.Load(testURL)
		checkErr(t, err, errs.Invalid, "the credentials folder "+s.Dir()+" belongs to another user", "luagent will not use it")
		_, err = s.Update(context.Background(), testURL, func(c *oauth.Credential) (*oauth.Credential, error) { return c, nil })
		checkErr(t, err, errs.Invalid, "belongs to another user")
	})
	t.Run("file", func(t *testing.T) {
		// A legacy record has no folder of its own: only the file is checked.
		path := filepath.Join(t.TempDir(), "token.json")
		os.WriteFile(path, []byte(`{"access_token": "access-1"}`), 0o644)
		currentUID = func() int { return me + 1 }
		defer func() { currentUID = os.Geteuid }()
		var warn bytes.Buffer
		_, err := LoadLegacyFile(path, &warn)
		checkErr(t, err, errs.Invalid, path+" belongs to another user (uid ", "remove it, or make it yours with chown")
		if m := perm(t, path); m != 0o644 || warn.Len() > 0 {
			t.Errorf("a refused file was changed (mode %04o) or warned about: %q", m, warn.String())
		}
	})
}

// Root can give a file away for real: check the refusal on an actual
// foreign owner, and that the file is left as it was.
func TestForeignOwnerRefusedAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown")
	}
	s, _ := newStore(t)
	if err := s.Save(context.Background(), testURL, cred("access-1", "refresh-1")); err != nil {
		t.Fatal(err)
	}
	path := s.Path(testURL)
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Skip("chown:", err)
	}
	os.Chmod(path, 0o644)
	_, err := s.Load(testURL)
	checkErr(t, err, errs.Invalid, path, "belongs to another user (uid 65534)")
	if m := perm(t, path); m != 0o644 {
		t.Errorf("a refused file was changed: mode %04o", m)
	}
}

func TestUnfixablePermissionsRefused(t *testing.T) {
	s, warn := newStore(t)
	if err := s.Save(context.Background(), testURL, cred("access-1", "refresh-1")); err != nil {
		t.Fatal(err)
	}
	path := s.Path(testURL)
	os.Chmod(path, 0o644)
	chmodFile = func(*os.File, fs.FileMode) error { return &fs.PathError{Op: "chmod", Path: path, Err: syscall.EROFS} }
	defer func() { chmodFile = (*os.File).Chmod }()
	c, err := s.Load(testURL)
	if c != nil {
		t.Errorf("Load returned a credential from a file open to others")
	}
	checkErr(t, err, errs.Invalid, path, "mode 0644", "could not make it private", "read-only file system", "chmod 600 "+path)
	if warn.String() != "" {
		t.Errorf("warned %q for a file it refused", warn)
	}
}

// tmpFiles lists temporary files left in dir.
func tmpFiles(t *testing.T, dir string) []string {
	var out []string
	for _, n := range names(t, dir) {
		if strings.Contains(n, ".tmp-") || strings.HasSuffix(n, ".lock") {
			out = append(out, n)
		}
	}
	return out
}

func TestAtomicSave(t *testing.T) {
	ctx := context.Background()
	t.Run("failure before rename", func(t *testing.T) {
		s, _ := newStore(t)
		if err := s.Save(ctx, testURL, cred("access-1", "refresh-1")); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(s.Path(testURL))
		var sawTmp string
		privfile.BeforeRename = func(tmp string) error {
			sawTmp = tmp
			data, _ := os.ReadFile(tmp)
			if !json.Valid(data) || perm(t, tmp) != 0o600 {
				t.Errorf("temporary file: mode %04o, valid JSON %v", perm(t, tmp), json.Valid(data))
			}
			return syscall.ENOSPC
		}
		defer func() { privfile.BeforeRename = func(string) error { return nil } }()
		err := s.Save(ctx, testURL, cred("access-2", "refresh-2"))
		checkErr(t, err, errs.Invalid, "cannot save "+s.Path(testURL), "no space left on device", "the file was left as it was")
		if filepath.Dir(sawTmp) != s.Dir() {
			t.Errorf("temporary file %s is not in the store's folder", sawTmp)
		}
		after, _ := os.ReadFile(s.Path(testURL))
		if !bytes.Equal(before, after) {
			t.Errorf("a failed save changed the file:\n%s\n%s", before, after)
		}
		if left := tmpFiles(t, s.Dir()); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
	t.Run("rename fails", func(t *testing.T) {
		s, _ := newStore(t)
		// A folder appears where the file goes: the rename itself fails, even for root.
		privfile.BeforeRename = func(string) error { return os.MkdirAll(filepath.Join(s.Path(testURL), "x"), 0o700) }
		defer func() { privfile.BeforeRename = func(string) error { return nil } }()
		err := s.Save(ctx, testURL, cred("access-1", "refresh-1"))
		checkErr(t, err, errs.Invalid, "cannot save "+s.Path(testURL), "the file was left as it was")
		if left := tmpFiles(t, s.Dir()); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
	t.Run("folder not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes to any folder (the two cases above cover a failed save as root)")
		}
		s, _ := newStore(t)
		if err := s.Save(ctx, testURL, cred("access-1", "refresh-1")); err != nil {
			t.Fatal(err)
		}
		os.Chmod(s.Dir(), 0o500)
		defer os.Chmod(s.Dir(), 0o700)
		err := s.Save(ctx, testURL, cred("access-2", "refresh-2"))
		checkErr(t, err, errs.Invalid, "permission denied")
		os.Chmod(s.Dir(), 0o700)
		if c, _ := s.Load(testURL); c == nil || c.AccessToken != "access-1" {
			t.Errorf("after a failed save Load = %+v", c)
		}
		if left := tmpFiles(t, s.Dir()); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
	t.Run("stale temporary files are removed", func(t *testing.T) {
		s, _ := newStore(t)
		if err := s.Save(ctx, testURL, cred("access-1", "refresh-1")); err != nil {
			t.Fatal(err)
		}
		dead := filepath.Join(s.Dir(), privfile.TmpPrefix(s.Path(testURL))+"12345")
		os.WriteFile(dead, []byte(`{"partial`), 0o600)
		if err := s.Save(ctx, testURL, cred("access-2", "refresh-2")); err != nil {
			t.Fatal(err)
		}
		if left := tmpFiles(t, s.Dir()); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	if removed, err := s.Delete(ctx, testURL); removed || err != nil {
		t.Fatalf("Delete without a folder = %v, %v", removed, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Delete created the folder")
	}
	other := testURL + "?tenant=2"
	for _, u := range []string{testURL, other} {
		if err := s.Save(ctx, u, cred("access-1", "refresh-1")); err != nil {
			t.Fatal(err)
		}
	}
	if removed, err := s.Delete(ctx, testURL); !removed || err != nil {
		t.Fatalf("Delete = %v, %v; want true, nil", removed, err)
	}
	if c, err := s.Load(testURL); c != nil || err != nil {
		t.Errorf("after Delete, Load = %v, %v", c, err)
	}
	if c, err := s.Load(other); c == nil || err != nil {
		t.Errorf("Delete touched another URL's file: %v, %v", c, err)
	}
	if removed, err := s.Delete(ctx, testURL); removed || err != nil {
		t.Errorf("Delete of an absent file = %v, %v; want false, nil", removed, err)
	}
	if n := names(t, s.Dir()); len(n) != 1 || n[0] != FileName(other) {
		t.Errorf("folder holds %v", n)
	}
}

func TestLoadCorrupt(t *testing.T) {
	u := testURL + "?a=1&b=2" // quoted for the shell in the advice
	for _, c := range []struct{ name, data, why string }{
		{"garbage", "s3cret not json", "not JSON (at byte 1)"},
		{"truncated", `{"url": "` + u + `", "credential": {"access_token": "s3cret`, "not JSON"},
		{"empty", "", "empty"},
		{"array", `["s3cret"]`, "not a JSON object"},
		{"no credential", `{"url": "` + u + `"}`, "it has no credential"},
		{"wrong type", `{"url": "` + u + `", "credential": {"access_token": ["s3cret"]}}`, "credential.access_token is not a string"},
		{"another URL", `{"url": "https://other.example/mcp", "credential": {"access_token": "s3cret"}}`, "holds the credentials of another URL (https://other.example/mcp)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newStore(t)
			os.MkdirAll(s.Dir(), 0o700)
			path := s.Path(u)
			os.WriteFile(path, []byte(c.data), 0o600)
			got, err := s.Load(u)
			if got != nil {
				t.Errorf("Load returned %+v", got)
			}
			checkErr(t, err, errs.Invalid, path, c.why, "run `luagent mcp logout '"+u+"'`, then `luagent mcp login '"+u+"'`")
			// Refreshing does not overwrite it either.
			_, err = s.RefreshOnce(context.Background(), u, cred("x", "y"), func(context.Context, *oauth.Credential) (*oauth.Credential, error) {
				t.Error("refresh called on a corrupt file")
				return nil, nil
			})
			checkErr(t, err, errs.Invalid, path)
			if data, _ := os.ReadFile(path); string(data) != c.data {
				t.Errorf("the corrupt file was changed")
			}
			// A fresh login (Save) replaces it.
			if err := s.Save(context.Background(), u, cred("access-2", "refresh-2")); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Load(u); err != nil || got.AccessToken != "access-2" {
				t.Errorf("after Save, Load = %v, %v", got, err)
			}
		})
	}
	t.Run("not a regular file", func(t *testing.T) {
		s, _ := newStore(t)
		os.MkdirAll(s.Dir(), 0o700)
		target := filepath.Join(t.TempDir(), "elsewhere")
		os.WriteFile(target, []byte(`{}`), 0o600)
		os.Symlink(target, s.Path(testURL))
		_, err := s.Load(testURL)
		checkErr(t, err, errs.Invalid, "is a symbolic link, not a regular file", "luagent mcp logout")
	})
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	got, err := s.Update(ctx, testURL, func(cur *oauth.Credential) (*oauth.Credential, error) {
		if cur != nil {
			t.Errorf("cur = %+v, want nil", cur)
		}
		return cred("access-1", "refresh-1"), nil
	})
	if err != nil || got.AccessToken != "access-1" {
		t.Fatalf("Update = %+v, %v", got, err)
	}
	fi1, _ := os.Stat(s.Path(testURL))
	// An equal credential writes nothing; a changed copy does not leak back.
	if _, err := s.Update(ctx, testURL, func(cur *oauth.Credential) (*oauth.Credential, error) {
		c := *cur
		cur.AccessToken = "scribbled"
		return &c, nil
	}); err != nil {
		t.Fatal(err)
	}
	fi2, _ := os.Stat(s.Path(testURL))
	if !os.SameFile(fi1, fi2) {
		t.Errorf("an unchanged credential was written again")
	}
	// An error writes nothing.
	boom := errors.New("boom")
	if _, err := s.Update(ctx, testURL, func(*oauth.Credential) (*oauth.Credential, error) { return cred("x", "y"), boom }); err != boom {
		t.Errorf("Update error = %v, want boom", err)
	}
	if c, _ := s.Load(testURL); c.AccessToken != "access-1" {
		t.Errorf("after a failed update the file holds %+v", c)
	}
	// nil removes.
	if got, err := s.Update(ctx, testURL, func(*oauth.Credential) (*oauth.Credential, error) { return nil, nil }); got != nil || err != nil {
		t.Errorf("Update to nil = %v, %v", got, err)
	}
	if n := names(t, s.Dir()); len(n) != 0 {
		t.Errorf("folder holds %v after removing", n)
	}
	if err := s.Save(ctx, testURL, nil); !errs.Is(err, errs.Invalid) {
		t.Errorf("Save(nil) = %v", err)
	}
}

// refresher is a RefreshFunc that counts its calls.
type refresher struct {
	calls atomic.Int32
	err   error
	delay time.Duration
	next  func(cur *oauth.Credential) *oauth.Credential
}

func (r *refresher) refresh(ctx context.Context, cur *oauth.Credential) (*oauth.Credential, error) {
	r.calls.Add(1)
	time.Sleep(r.delay)
	if r.err != nil {
		return nil, r.err
	}
	if r.next != nil {
		return r.next(cur), nil
	}
	c := *cur
	c.AccessToken, c.RefreshToken, c.ExpiresAt = "access-2", "refresh-2", 1800000000
	return &c, nil
}

func TestRefreshOnce(t *testing.T) {
	ctx := context.Background()
	stale := cred("access-1", "refresh-1")
	t.Run("refreshes and saves", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, stale)
		var r refresher
		got, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		if err != nil || got.AccessToken != "access-2" || got.RefreshToken != "refresh-2" || r.calls.Load() != 1 {
			t.Fatalf("RefreshOnce = %+v, %v after %d refreshes", got, err, r.calls.Load())
		}
		if c, _ := s.Load(testURL); *c != *got {
			t.Errorf("stored %+v, returned %+v", c, got)
		}
	})
	t.Run("keeps the refresh token when none is returned", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, stale)
		r := refresher{next: func(cur *oauth.Credential) *oauth.Credential {
			c := *cur
			c.AccessToken, c.RefreshToken = "access-2", ""
			return &c
		}}
		got, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		if err != nil || got.RefreshToken != "refresh-1" {
			t.Fatalf("RefreshOnce = %+v, %v", got, err)
		}
		if c, _ := s.Load(testURL); c.RefreshToken != "refresh-1" || c.AccessToken != "access-2" {
			t.Errorf("stored %+v", c)
		}
	})
	t.Run("someone else refreshed", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, cred("access-9", "refresh-9"))
		var r refresher
		got, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		if err != nil || got.AccessToken != "access-9" || r.calls.Load() != 0 {
			t.Fatalf("RefreshOnce = %+v, %v after %d refreshes; want the stored token, no refresh", got, err, r.calls.Load())
		}
	})
	t.Run("refresh fails", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, stale)
		before, _ := os.ReadFile(s.Path(testURL))
		// An error that quotes the refresh token is masked.
		r := refresher{err: errors.New("invalid_grant: refresh token refresh-1\nwas revoked")}
		got, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		if got != nil || r.calls.Load() != 1 {
			t.Errorf("RefreshOnce = %+v after %d refreshes; want nil after 1", got, r.calls.Load())
		}
		checkErr(t, err, errs.Auth, "refreshing the access token for "+testURL+" failed (invalid_grant: refresh token [redacted] was revoked)",
			"run `luagent mcp login "+testURL+"`")
		if !errors.Is(err, r.err) {
			t.Errorf("the cause is not kept")
		}
		if after, _ := os.ReadFile(s.Path(testURL)); !bytes.Equal(before, after) {
			t.Errorf("a failed refresh changed the file")
		}
	})
	t.Run("no access token returned", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, stale)
		r := refresher{next: func(*oauth.Credential) *oauth.Credential { return &oauth.Credential{} }}
		_, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		checkErr(t, err, errs.Auth, "returned no access token", "luagent mcp login")
	})
	t.Run("no refresh token", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, cred("access-1", ""))
		var r refresher
		_, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		checkErr(t, err, errs.Auth, "was refused and there is no refresh token", "run `luagent mcp login "+testURL+"`")
		if r.calls.Load() != 0 {
			t.Errorf("refresh called without a refresh token")
		}
	})
	t.Run("logged out meanwhile", func(t *testing.T) {
		s, _ := newStore(t)
		var r refresher
		_, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
		checkErr(t, err, errs.Auth, "no stored credentials for "+testURL, "luagent mcp login")
		if n := names(t, s.Dir()); len(n) != 0 {
			t.Errorf("a refused refresh left %v", n)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s, _ := newStore(t)
		s.Save(ctx, testURL, stale)
		cctx, cancel := context.WithCancel(ctx)
		r := refresher{next: func(*oauth.Credential) *oauth.Credential { cancel(); return nil }}
		_, err := s.RefreshOnce(cctx, testURL, stale, r.refresh)
		checkErr(t, err, errs.Cancelled, "refreshing the access token for "+testURL)
	})
}

// Goroutines of one process exclude each other too (each opens the lock).
func TestRefreshOnceGoroutines(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	stale := cred("access-1", "refresh-1")
	s.Save(ctx, testURL, stale)
	r := refresher{delay: 20 * time.Millisecond}
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := s.RefreshOnce(ctx, testURL, stale, r.refresh)
			if err != nil {
				results[i] = err.Error()
				return
			}
			results[i] = c.AccessToken
		}()
	}
	wg.Wait()
	if n := r.calls.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	for i, got := range results {
		if got != "access-2" {
			t.Errorf("goroutine %d got %q", i, got)
		}
	}
	if n := names(t, s.Dir()); len(n) != 1 {
		t.Errorf("folder holds %v", n)
	}
}

func TestLockWaitEnds(t *testing.T) {
	s, _ := newStore(t)
	stale := cred("access-1", "refresh-1")
	s.Save(context.Background(), testURL, stale)
	unlock, err := privfile.Lock(context.Background(), s.Path(testURL)+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var r refresher
	_, err = s.RefreshOnce(ctx, testURL, stale, r.refresh)
	checkErr(t, err, errs.Timeout, "gave up waiting for the lock", "another luagent process is using these credentials; try again")
	if r.calls.Load() != 0 {
		t.Errorf("refreshed without the lock")
	}
}
