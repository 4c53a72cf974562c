package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// An HTTP entry's env.MCP_ACCESS_TOKEN and env.MCP_OAUTH_TOKEN_FILE, driven
// as a user does: config.json (written by mcp add or by hand), then mcp
// tools and mcp call against a local MCP server that wants a bearer token.

// whoamiTool serves one tool, whoami.
type whoamiTool struct{}

func (whoamiTool) Capabilities() mcp.HandlerCapabilities {
	return mcp.HandlerCapabilities{Tools: true}
}
func (whoamiTool) Handle(r *mcp.Request) {
	switch r.Method {
	case "tools/list":
		r.Reply(json.RawMessage(`{"tools":[{"name":"whoami","description":"says who you are","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		r.Reply(json.RawMessage(`{"content":[{"type":"text","text":"authorized"}]}`))
	default:
		r.Fail(errs.New(errs.NotFound, "", "no such method"))
	}
}

// bearerServer is a Streamable HTTP MCP server that accepts the tokens in
// valid, with a token endpoint that exchanges refresh tokens; onRefused,
// if set, runs before a refused token gets its 401.
type bearerServer struct {
	srv       *httptest.Server
	mu        sync.Mutex
	valid     map[string]bool
	refreshes map[string]string // refresh token -> the access token it gives
	refreshed int
	refused   map[string]int
	onRefused func(tok string)
}

func newBearerServer(t *testing.T, valid ...string) *bearerServer {
	b := &bearerServer{valid: map[string]bool{}, refreshes: map[string]string{}, refused: map[string]int{}}
	for _, v := range valid {
		b.valid[v] = true
	}
	mux := http.NewServeMux()
	b.srv = httptest.NewServer(mux)
	t.Cleanup(b.srv.Close)
	guard, err := httpserver.NewAuth(httpserver.AuthConfig{Path: "/mcp", AuthorizationServers: []string{b.srv.URL},
		Validate: func(_ context.Context, tok string, _ *http.Request) error {
			b.mu.Lock()
			ok, hook := b.valid[tok], b.onRefused
			if !ok {
				b.refused[tok]++
			}
			b.mu.Unlock()
			if !ok {
				if hook != nil {
					hook(tok)
				}
				return httpserver.Refuse("unknown token")
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	h := httpserver.NewHandler(mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "bearer", Version: "1"}, Handler: whoamiTool{}}), httpserver.Options{})
	t.Cleanup(h.Close)
	mux.Handle("/mcp", guard.Wrap(h))
	mux.HandleFunc(guard.MetadataPath(), guard.ServeMetadata)
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		b.mu.Lock()
		tok, ok := b.refreshes[r.PostForm.Get("refresh_token")]
		if ok && r.PostForm.Get("grant_type") == "refresh_token" {
			b.refreshed++
			b.valid[tok] = true
		}
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	return b
}

func (b *bearerServer) url() string { return b.srv.URL + "/mcp" }

// noSecret fails when one of secrets shows in one of outs.
func noSecret(t *testing.T, what string, secrets []string, outs ...string) {
	t.Helper()
	for _, s := range outs {
		for _, x := range secrets {
			if strings.Contains(s, x) {
				t.Errorf("%s: the secret %q shows:\n%s", what, x, s)
			}
		}
	}
}

// MCP_ACCESS_TOKEN: mcp add saves it (a reference or a literal), mcp
// tools and mcp call send it as the bearer token, a refused one is an auth
// error that says what to do, and the token shows nowhere.
func TestHTTPEnvAccessToken(t *testing.T) {
	const good, bad, lit = "good-tok-SECRET", "stale-tok-SECRET", "literal-tok-SECRET"
	srv := newBearerServer(t, good, lit)
	home := t.TempDir()
	env := []string{"LUAGENT_HOME=" + home, "LUAGENT_TEST_ACCESS=" + good}
	secrets := []string{good, bad, lit}
	dir := t.TempDir()

	r := luagent(t, "", env, "mcp", "add", "remote", srv.url(), "--env-from", "MCP_ACCESS_TOKEN=LUAGENT_TEST_ACCESS")
	if r.code != 0 || !strings.Contains(r.stdout, "env: MCP_ACCESS_TOKEN (values not shown)") {
		t.Fatalf("mcp add --env-from: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = luagent(t, "", env, "mcp", "add", "lit", srv.url(), "--env", "MCP_ACCESS_TOKEN="+lit)
	if r.code != 0 {
		t.Fatalf("mcp add --env: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noSecret(t, "mcp add", secrets, r.stdout, r.stderr)
	file, err := os.ReadFile(filepath.Join(home, "config.json"))
	var saved struct {
		MCPServers map[string]struct {
			Env map[string]any `json:"env"`
		} `json:"mcpServers"`
	}
	if err == nil {
		err = json.Unmarshal(file, &saved)
	}
	if ref, _ := saved.MCPServers["remote"].Env["MCP_ACCESS_TOKEN"].(map[string]any); err != nil || ref["fromEnv"] != "LUAGENT_TEST_ACCESS" || saved.MCPServers["lit"].Env["MCP_ACCESS_TOKEN"] != lit {
		t.Fatalf("config.json: %v\n%s", err, file)
	}
	r = luagent(t, "", env, "mcp", "add", "other", srv.url(), "--env", "API_KEY=k-SECRET")
	if r.code != 2 || !strings.Contains(r.stderr, "--env API_KEY: an HTTP server takes only MCP_ACCESS_TOKEN (a bearer token) and MCP_OAUTH_TOKEN_FILE (a token file) in env") ||
		strings.Contains(r.stderr, "k-SECRET") {
		t.Errorf("mcp add --env API_KEY on HTTP: exit %d\n%s", r.code, r.stderr)
	}

	tr := filepath.Join(dir, "tools.jsonl")
	r = luagent(t, "", env, "mcp", "tools", "remote", "-v", "--trace", tr)
	if r.code != 0 || !strings.Contains(r.stdout, "whoami") {
		t.Fatalf("mcp tools: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noSecret(t, "mcp tools -v --trace", secrets, r.stdout, r.stderr, traceFile(t, tr))
	r = luagent(t, "", env, "mcp", "call", "lit", "whoami")
	if r.code != 0 || !strings.Contains(r.stdout, "authorized") {
		t.Fatalf("mcp call with a literal token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "get", "lit"}, {"mcp", "get", "lit", "--json"}, {"mcp", "get", "remote"}} {
		r = luagent(t, "", env, args...)
		if r.code != 0 {
			t.Errorf("%s: exit %d\n%s", args, r.code, r.stderr)
		}
		noSecret(t, strings.Join(args, " "), secrets, r.stdout, r.stderr)
	}
	if r := luagent(t, "", env, "mcp", "get", "lit"); !strings.Contains(r.stdout, "MCP_ACCESS_TOKEN (values not shown)") {
		t.Errorf("mcp get does not name the env:\n%s", r.stdout)
	}

	// A token the server refuses: an auth error, in one line, saying
	// which token and what to do; never the token.
	tr = filepath.Join(dir, "refused.jsonl")
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home, "LUAGENT_TEST_ACCESS=" + bad}, "mcp", "call", "remote", "whoami", "-v", "--trace", tr)
	if r.code == 0 || !strings.Contains(r.stderr, "refused the access token MCP_ACCESS_TOKEN supplies") ||
		!strings.Contains(r.stderr, "set MCP_ACCESS_TOKEN to a valid token") || strings.Contains(r.stderr, "answered error") {
		t.Errorf("a refused token: exit %d\n%s", r.code, r.stderr)
	}
	noSecret(t, "a refused token", secrets, r.stdout, r.stderr, traceFile(t, tr))
	srv.mu.Lock()
	n := srv.refused[bad]
	srv.mu.Unlock()
	if n != 1 {
		t.Errorf("the refused token was sent %d times, want once (no OAuth, no retry)", n)
	}

	// Unset, the variable is named with what to do.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home, "LUAGENT_TEST_ACCESS_UNSET_X="}, "mcp", "tools", "remote")
	if r.code == 0 || !strings.Contains(r.stderr, "env MCP_ACCESS_TOKEN comes from the environment variable LUAGENT_TEST_ACCESS, which is not set: export LUAGENT_TEST_ACCESS") {
		t.Errorf("without its variable: exit %d\n%s", r.code, r.stderr)
	}
}

// MCP_OAUTH_TOKEN_FILE: an expired access token is refreshed at the
// record's token endpoint and saved in place (0600, atomic, other members
// kept); a 401 after another process refreshed re-reads the file and
// retries once with its token, without refreshing again.
func TestHTTPEnvTokenFile(t *testing.T) {
	srv := newBearerServer(t)
	srv.mu.Lock()
	srv.refreshes["refresh-1-SECRET"] = "fresh-1-SECRET"
	srv.mu.Unlock()
	home, dir := t.TempDir(), t.TempDir()
	tokFile := filepath.Join(dir, "token.json")
	record := map[string]any{"client_id": "c1", "token_endpoint": srv.srv.URL + "/token", "access_token": "expired-SECRET",
		"refresh_token": "refresh-1-SECRET", "expires_at": time.Now().Add(-time.Hour).Unix(), "note": "kept"}
	writeRecord := func(rec map[string]any) {
		b, _ := json.Marshal(rec)
		tmp := tokFile + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, tokFile); err != nil {
			t.Error(err)
		}
	}
	writeRecord(record)
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {"remote": {"url": "`+srv.url()+`",
	  "env": {"MCP_OAUTH_TOKEN_FILE": {"fromEnv": "LUAGENT_TEST_TOKEN_FILE"}}}}}`)
	env := []string{"LUAGENT_HOME=" + home, "LUAGENT_TEST_TOKEN_FILE=" + tokFile}
	secrets := []string{"expired-SECRET", "refresh-1-SECRET", "fresh-1-SECRET", "fresh-2-SECRET"}

	tr := filepath.Join(dir, "tools.jsonl")
	r := luagent(t, "", env, "mcp", "tools", "remote", "-v", "--trace", tr)
	if r.code != 0 || !strings.Contains(r.stdout, "whoami") {
		t.Fatalf("mcp tools: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noSecret(t, "mcp tools", secrets, r.stdout, r.stderr, traceFile(t, tr))
	srv.mu.Lock()
	n := srv.refreshed
	srv.mu.Unlock()
	if n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	fi, err := os.Stat(tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", err, fi.Mode())
	}
	var saved map[string]any
	b, _ := os.ReadFile(tokFile)
	if err := json.Unmarshal(b, &saved); err != nil || saved["access_token"] != "fresh-1-SECRET" || saved["refresh_token"] != "refresh-1-SECRET" ||
		saved["note"] != "kept" || saved["client_id"] != "c1" {
		t.Errorf("saved record: %v\n%s", err, b)
	}
	if exp, _ := saved["expires_at"].(float64); int64(exp) <= time.Now().Unix() {
		t.Errorf("saved expiry %v is not in the future", saved["expires_at"])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "token.json?*")); len(left) != 0 {
		t.Errorf("left beside the token file: %v", left)
	}

	// Another process refreshes meanwhile: the server refuses the token
	// luagent read (fresh-1) after the file got fresh-2. luagent re-reads
	// the file under its lock, takes fresh-2 without refreshing and
	// retries once.
	srv.mu.Lock()
	delete(srv.valid, "fresh-1-SECRET")
	srv.onRefused = func(tok string) {
		if tok == "fresh-1-SECRET" {
			srv.mu.Lock()
			srv.valid["fresh-2-SECRET"] = true
			srv.mu.Unlock()
			rec := map[string]any{}
			for k, v := range saved {
				rec[k] = v
			}
			rec["access_token"] = "fresh-2-SECRET"
			writeRecord(rec)
		}
	}
	srv.mu.Unlock()
	r = luagent(t, "", env, "mcp", "call", "remote", "whoami")
	if r.code != 0 || !strings.Contains(r.stdout, "authorized") {
		t.Fatalf("mcp call after another refresh: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noSecret(t, "mcp call", secrets, r.stdout, r.stderr)
	srv.mu.Lock()
	refreshed, refused := srv.refreshed, srv.refused["fresh-1-SECRET"]
	srv.onRefused = nil
	srv.mu.Unlock()
	if refreshed != 1 || refused != 1 {
		t.Errorf("%d refreshes (want still 1), fresh-1 refused %d times (want once)", refreshed, refused)
	}

	// A token refused with nothing left to refresh it: one line naming
	// the file and what to do.
	srv.mu.Lock()
	srv.valid = map[string]bool{}
	srv.refreshes = map[string]string{}
	srv.mu.Unlock()
	r = luagent(t, "", env, "mcp", "tools", "remote")
	if r.code == 0 || !strings.Contains(r.stderr, tokFile+" (MCP_OAUTH_TOKEN_FILE)") || !strings.Contains(r.stderr, "put new tokens in that file") ||
		strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("a refresh that fails: exit %d\n%s", r.code, r.stderr)
	}
	noSecret(t, "a refresh that fails", secrets, r.stdout, r.stderr)

	// A token file that does not exist: said at once, with the path.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home, "LUAGENT_TEST_TOKEN_FILE=" + filepath.Join(dir, "none.json")}, "mcp", "tools", "remote")
	if r.code == 0 || !strings.Contains(r.stderr, "none.json, the token file MCP_OAUTH_TOKEN_FILE names, does not exist") {
		t.Errorf("a missing token file: exit %d\n%s", r.code, r.stderr)
	}
}

// mcp.connect's env = {MCP_ACCESS_TOKEN = ...} and {MCP_OAUTH_TOKEN_FILE =
// path} decide as a catalog entry's do (mcp.HTTPAuth): the same token
// sent, the same refusal, the same refresh in place.
func TestHTTPEnvFromLua(t *testing.T) {
	srv := newBearerServer(t, "lua-good-SECRET")
	srv.mu.Lock()
	srv.refreshes["lua-refresh-SECRET"] = "lua-fresh-SECRET"
	srv.mu.Unlock()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token.json")
	b, _ := json.Marshal(map[string]any{"client_id": "c1", "token_endpoint": srv.srv.URL + "/token", "access_token": "lua-expired-SECRET",
		"refresh_token": "lua-refresh-SECRET", "expires_at": time.Now().Add(-time.Hour).Unix()})
	if err := os.WriteFile(tokFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	script := writeFile(t, dir, "connect.lua", `
local url, file = arg[1], arg[2]
local function try(env)
  local ok, c = task.pcall(mcp.connect, { url = url, env = env })
  if not ok then return "error " .. c.kind .. ": " .. c.message end
  local r = c:call("whoami")
  c:close()
  return r.content[1].text
end
print("good", try({ MCP_ACCESS_TOKEN = "lua-good-SECRET" }))
print("bad", try({ MCP_ACCESS_TOKEN = "lua-bad-SECRET" }))
print("file", try({ MCP_OAUTH_TOKEN_FILE = file }))`)
	r := luagent(t, "", nil, "run", script, srv.url(), tokFile)
	for _, want := range []string{"good\tauthorized\n", "bad\terror auth: ", "refused the access token MCP_ACCESS_TOKEN supplies", "file\tauthorized\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lacks %q: exit %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
	noSecret(t, "mcp.connect", []string{"lua-good-SECRET", "lua-bad-SECRET", "lua-expired-SECRET", "lua-refresh-SECRET", "lua-fresh-SECRET"}, r.stdout, r.stderr)
	if b, _ := os.ReadFile(tokFile); !strings.Contains(string(b), `"access_token": "lua-fresh-SECRET"`) {
		t.Errorf("the token file was not refreshed in place:\n%s", b)
	}
}
