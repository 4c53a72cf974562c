package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
)

func TestLoadLegacyFile(t *testing.T) {
	for _, c := range []struct {
		name, expires string
		want          int64
	}{
		{"seconds", `1700000000`, 1700000000},
		{"fractional seconds", `1700000000.75`, 1700000000},
		{"milliseconds", `1700000000000`, 1700000000},
		{"RFC 3339", `"2023-11-14T22:13:20Z"`, 1700000000},
		{"none", `null`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "token.json")
			os.WriteFile(path, []byte(`{"client_id": "client-1", "token_endpoint": "https://auth.example.com/token",
				"access_token": "access-1", "refresh_token": "refresh-1", "expires_at": `+c.expires+`, "note": "kept"}`), 0o600)
			got, err := LoadLegacyFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := oauth.Credential{ClientID: "client-1", TokenEndpoint: "https://auth.example.com/token",
				AccessToken: "access-1", RefreshToken: "refresh-1", ExpiresAt: c.want}
			if *got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestLegacyErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadLegacyFile(filepath.Join(dir, "absent.json"), nil)
	checkErr(t, err, errs.NotFound, "absent.json, the token file MCP_OAUTH_TOKEN_FILE names, does not exist; create it or unset MCP_OAUTH_TOKEN_FILE")

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"access_token": "s3cret"`), 0o600)
	_, err = LoadLegacyFile(bad, nil)
	checkErr(t, err, errs.Invalid, bad+" is not a valid token record (MCP_OAUTH_TOKEN_FILE): not JSON", "unset MCP_OAUTH_TOKEN_FILE", "luagent mcp login URL")

	os.WriteFile(bad, []byte(`{"access_token": "s3cret", "expires_at": "soon"}`), 0o600)
	_, err = LoadLegacyFile(bad, nil)
	checkErr(t, err, errs.Invalid, "expires_at is not a number or an RFC 3339 time")

	loose := filepath.Join(dir, "loose.json")
	os.WriteFile(loose, []byte(`{"access_token": "access-1"}`), 0o644)
	var warn bytes.Buffer
	if c, err := LoadLegacyFile(loose, &warn); err != nil || c.AccessToken != "access-1" {
		t.Fatalf("LoadLegacyFile = %+v, %v", c, err)
	}
	if m := perm(t, loose); m != 0o600 || !strings.Contains(warn.String(), loose+" was open to other users (mode 0644); luagent changed it to 0600") {
		t.Errorf("mode %04o, warning %q", m, warn.String())
	}
}

// The legacy record refreshes under the same rule: through a symbolic
// link (kept), members it does not know kept, expires_at in its form,
// private, no lock left.
func TestLegacyRefreshOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	real := filepath.Join(dir, "secrets", "token.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte(`{"client_id": "client-1", "token_endpoint": "https://auth.example.com/token",
		"access_token": "access-1", "refresh_token": "refresh-1", "expires_at": "2023-11-14T22:13:20Z", "note": "kept"}`), 0o640)
	link := filepath.Join(dir, "token.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	e := Legacy(link, testURL, &warn)
	stale, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := refresher{delay: 10 * time.Millisecond}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, err := e.RefreshOnce(ctx, stale, r.refresh); err != nil || c.AccessToken != "access-2" {
				t.Errorf("RefreshOnce = %+v, %v", c, err)
			}
		}()
	}
	wg.Wait()
	if n := r.calls.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced")
	}
	if m := perm(t, real); m != 0o600 {
		t.Errorf("mode %04o, want 0600", m)
	}
	if !strings.Contains(warn.String(), "mode 0640") {
		t.Errorf("no warning about mode 0640: %q", warn.String())
	}
	data, _ := os.ReadFile(real)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not JSON: %s", data)
	}
	if m["access_token"] != "access-2" || m["refresh_token"] != "refresh-2" || m["note"] != "kept" ||
		m["expires_at"] != "2027-01-15T08:00:00Z" || m["client_id"] != "client-1" {
		t.Errorf("record after refresh: %s", data)
	}
	if n := names(t, filepath.Dir(real)); len(n) != 1 {
		t.Errorf("%s holds %v: a lock or temporary file was left", filepath.Dir(real), n)
	}

	// A failed refresh names the file and both ways out.
	bad := refresher{err: errors.New("invalid_grant")}
	_, err = e.RefreshOnce(ctx, &oauth.Credential{AccessToken: "access-2"}, bad.refresh)
	checkErr(t, err, errs.Auth, "refreshing the access token for "+link+" (MCP_OAUTH_TOKEN_FILE) failed (invalid_grant)",
		"put new tokens in that file, or unset MCP_OAUTH_TOKEN_FILE and run `luagent mcp login "+testURL+"`")
}
