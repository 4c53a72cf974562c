package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// loginAS is a protected MCP server (/mcp, the tool whoami of chat_manager_tty_test.go) and its authorization server on
// one loopback origin, approving every authorization without a person. It
// records what reaches it: registrations and authorization requests.
type loginAS struct {
	srv *httptest.Server

	challengeScope string   // scope in the 401 challenge ("" none)
	prmScopes      []string // the resource metadata's scopes_supported
	tenant         string   // X-Tenant every /mcp request must carry ("" none): HTTP 400 without it

	mu            sync.Mutex
	registrations int
	auths         []url.Values // the authorization requests' queries
	tokens        map[string]bool
}

func newLoginAS(t *testing.T, challengeScope string, prmScopes []string) *loginAS {
	a := &loginAS{challengeScope: challengeScope, prmScopes: prmScopes, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	h := httpserver.NewHandler(mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "protected", Version: "1"}, Handler: whoami{}}), httpserver.Options{})
	t.Cleanup(h.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if a.tenant != "" && r.Header.Get("X-Tenant") != a.tenant {
			http.Error(w, "which tenant? (X-Tenant)", http.StatusBadRequest)
			return
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.tokens[tok]
		a.mu.Unlock()
		if ok {
			h.ServeHTTP(w, r)
			return
		}
		ch := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
		if a.challengeScope != "" {
			ch += `, scope="` + a.challengeScope + `"`
		}
		w.Header().Set("WWW-Authenticate", ch)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		m := map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}}
		if a.prmScopes != nil {
			m["scopes_supported"] = a.prmScopes
		}
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.registrations++
		a.mu.Unlock()
		w.WriteHeader(201)
		io.WriteString(w, `{"client_id":"dynamic-client","token_endpoint_auth_method":"none"}`)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		a.auths = append(a.auths, q)
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&iss="+url.QueryEscape(base)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		tok := "tok-" + string(rune('a'+len(a.tokens)))
		a.tokens[tok] = true
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	return a
}

// last is the last authorization request's query (nil: none came).
func (a *loginAS) last() url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.auths) == 0 {
		return nil
	}
	return a.auths[len(a.auths)-1]
}

func (a *loginAS) counts() (registrations, auths int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations, len(a.auths)
}

// login runs luagent (mcp login ...) and is its browser: the authorization
// URL it prints is fetched, following the redirects to its loopback
// listener, as a browser whose user approves would. No desktop opener runs
// (no display).
func login(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "LUA_PATH=", "DISPLAY=", "WAYLAND_DISPLAY=")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		errb.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "    "); ok && strings.HasPrefix(u, "http") {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("the browser step: %v", err)
				continue
			}
			resp.Body.Close()
		}
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running luagent: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// A saved server's headers go with login's first request too: a server
// that wants one before it says how to authorize is still logged in to.
func TestMCPLoginSendsEntryHeaders(t *testing.T) {
	a := newLoginAS(t, "", nil)
	a.tenant = "acme"
	env := savedHome(t, `"remote":{"url":"`+a.srv.URL+`/mcp","headers":{"X-Tenant":"acme"},"oauth":{"clientId":"pre-registered"}}`)
	if r := login(t, env, "mcp", "login", "remote"); r.code != 0 {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := ok(t, env, "mcp", "tools", "remote"); !strings.Contains(r.stdout, "whoami") {
		t.Errorf("mcp tools after the login: %s", r.stdout)
	}
}

// `mcp login URL` of a saved server uses the entry's pre-registered client
// (no dynamic registration reaches the authorization server) and its
// scopes, finds the entry by another spelling of its URL, and stores the
// credential where the entry looks for it; `mcp login NAME` does the same
// and keeps the scopes granted before.
func TestMCPLoginUsesEntry(t *testing.T) {
	a := newLoginAS(t, "", nil)
	env := savedHome(t, `"remote":{"url":"`+a.srv.URL+`/mcp","oauth":{"clientId":"pre-registered","scopes":["cfg:read","cfg:write"]}}`)
	// The same server: scheme in capitals, "m" percent-encoded.
	spelled := "HTTP://" + strings.TrimPrefix(a.srv.URL, "http://") + "/%6Dcp"
	r := login(t, env, "mcp", "login", spelled, "--scope", "extra")
	if r.code != 0 {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "(saved server remote)") {
		t.Errorf("the login does not name the entry: %q", r.stdout)
	}
	regs, _ := a.counts()
	q := a.last()
	if regs != 0 || q == nil || q.Get("client_id") != "pre-registered" {
		t.Fatalf("registrations %d, authorization request %v: want the entry's client and no registration", regs, q)
	}
	if got := q.Get("scope"); got != "cfg:read cfg:write extra" {
		t.Errorf("scope %q, want the entry's oauth.scopes (the server names none) and --scope: %q", got, "cfg:read cfg:write extra")
	}
	// The hub finds the credential: no browser, no new authorization.
	if r := ok(t, env, "mcp", "tools", "remote"); !strings.Contains(r.stdout, "whoami") {
		t.Errorf("mcp tools after the login: %s", r.stdout)
	}
	// logout by the same spelling removes what the login stored.
	if r := ok(t, env, "mcp", "logout", spelled); !strings.Contains(r.stdout, "removed the stored credentials") {
		t.Errorf("logout %s: %s", spelled, r.stdout)
	}
	failsWith(t, env, 1, "needs authorization", "mcp", "tools", "remote")
	if r := login(t, env, "mcp", "login", spelled, "--scope", "extra"); r.code != 0 {
		t.Fatalf("login again: exit %d\nstderr: %s", r.code, r.stderr)
	}

	// By name: the same client; the scopes granted before are kept.
	r = login(t, env, "mcp", "login", "remote")
	if r.code != 0 {
		t.Fatalf("login NAME: exit %d\nstderr: %s", r.code, r.stderr)
	}
	regs, n := a.counts()
	q = a.last()
	if regs != 0 || n != 3 || q.Get("client_id") != "pre-registered" || q.Get("scope") != "cfg:read cfg:write extra" {
		t.Errorf("login NAME: registrations %d, %d authorizations, client %q, scope %q", regs, n, q.Get("client_id"), q.Get("scope"))
	}
}

// The scope asked for: the first nonempty of the challenge's scope, the
// resource metadata's scopes_supported and the entry's oauth.scopes; then
// --scope.
func TestMCPLoginScopes(t *testing.T) {
	tests := []struct {
		name       string
		challenge  string
		prm        []string
		configured string // the entry's oauth.scopes as JSON ("" none)
		extra      []string
		want       string
	}{
		{"the challenge's", "ch:a", []string{"prm:a"}, `["cfg:a"]`, nil, "ch:a"},
		{"scopes_supported, not the entry's", "", []string{"prm:a", "prm:b"}, `["cfg:a"]`, nil, "prm:a prm:b"},
		{"the entry's when the server names none", "", nil, `["cfg:a"]`, nil, "cfg:a"},
		{"--scope adds", "ch:a", nil, `["cfg:a"]`, []string{"x"}, "ch:a x"},
		{"none: omitted", "", nil, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newLoginAS(t, tt.challenge, tt.prm)
			entry := `"remote":{"url":"` + a.srv.URL + `/mcp"`
			if tt.configured != "" {
				entry += `,"oauth":{"scopes":` + tt.configured + `}`
			}
			env := savedHome(t, entry+"}")
			args := []string{"mcp", "login", a.srv.URL + "/mcp"}
			for _, s := range tt.extra {
				args = append(args, "--scope", s)
			}
			if r := login(t, env, args...); r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			q := a.last()
			if _, has := q["scope"]; q.Get("scope") != tt.want || (tt.want == "" && has) {
				t.Errorf("scope %q (sent: %v), want %q", q.Get("scope"), has, tt.want)
			}
		})
	}
}

// Two entries at one URL: `mcp login URL` asks for the name in one line,
// before anything reaches the server. With connectionIds, each entry's
// credential is its own: logging in one leaves the other unauthorized.
// Two entries may not share a connectionId.
func TestMCPLoginConnectionID(t *testing.T) {
	a := newLoginAS(t, "", nil)
	u := a.srv.URL + "/mcp"
	env := savedHome(t, `"work":{"url":"`+u+`","connectionId":"conn-work"},
		"home":{"url":"`+strings.Replace(u, "http://", "HTTP://", 1)+`","connectionId":"conn-home"}`)
	failsWith(t, env, 1, "is the URL of several saved servers (work, home): say which one, luagent mcp login NAME", "mcp", "login", u)
	if regs, n := a.counts(); regs != 0 || n != 0 {
		t.Fatalf("an ambiguous login reached the authorization server")
	}
	if r := login(t, env, "mcp", "login", "work"); r.code != 0 {
		t.Fatalf("login work: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if r := ok(t, env, "mcp", "tools", "work"); !strings.Contains(r.stdout, "whoami") {
		t.Errorf("mcp tools work: %s", r.stdout)
	}
	failsWith(t, env, 1, "server \"home\" needs authorization: run `luagent mcp login home`", "mcp", "tools", "home")

	// logout NAME removes that entry's credential only.
	if r := ok(t, env, "mcp", "logout", "work"); !strings.Contains(r.stdout, "removed the stored credentials") {
		t.Errorf("logout work: %s", r.stdout)
	}
	failsWith(t, env, 1, "luagent mcp login work", "mcp", "tools", "work")

	dup := savedHome(t, `"a":{"url":"`+u+`","connectionId":"same"},"b":{"url":"https://other.example/mcp","connectionId":"same"}`)
	failsWith(t, dup, 1, "mcpServers.b.connectionId: is also the connectionId of a; two entries may not share one", "mcp", "list")
}

// mcp get shows an entry's connectionId (null in --json when unset).
func TestMCPGetConnectionID(t *testing.T) {
	env := savedHome(t, `"bound":{"url":"https://x.example/mcp","connectionId":"conn-7"},"free":{"url":"https://y.example/mcp"}`)
	var g map[string]any
	if err := json.Unmarshal([]byte(ok(t, env, "mcp", "get", "bound", "--json").stdout), &g); err != nil || g["connectionId"] != "conn-7" {
		t.Errorf("get --json: %v %v", g, err)
	}
	if err := json.Unmarshal([]byte(ok(t, env, "mcp", "get", "free", "--json").stdout), &g); err != nil || g["connectionId"] != nil {
		t.Errorf("get --json without one: %v %v", g, err)
	}
	if text := ok(t, env, "mcp", "get", "bound").stdout; !strings.Contains(text, "connection id:") || !strings.Contains(text, "conn-7") {
		t.Errorf("get:\n%s", text)
	}
}

// An entry whose credential lives in env.MCP_OAUTH_TOKEN_FILE logs in into
// that file (private, the legacy record), where the hub then finds it; one
// that supplies env.MCP_ACCESS_TOKEN has nothing to log in to.
func TestMCPLoginIntoTokenFile(t *testing.T) {
	a := newLoginAS(t, "", nil)
	file := filepath.Join(t.TempDir(), "token.json")
	env := savedHome(t, `"remote":{"url":"`+a.srv.URL+`/mcp","oauth":{"clientId":"pre-registered"},"env":{"MCP_OAUTH_TOKEN_FILE":`+quoteJSON(file)+`}},`+
		`"given":{"url":"`+a.srv.URL+`/mcp","env":{"MCP_ACCESS_TOKEN":"t0k3n-SECRET"}}`)
	r := login(t, env, "mcp", "login", "remote")
	if r.code != 0 {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "stored in "+file) {
		t.Errorf("the login does not say where it stored the credential: %q", r.stdout)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"access_token": "tok-a"`) {
		t.Errorf("token file:\n%s", b)
	}
	if r := ok(t, env, "mcp", "tools", "remote"); !strings.Contains(r.stdout, "whoami") {
		t.Errorf("mcp tools after the login: %s", r.stdout)
	}
	r = failsWith(t, env, 1, "nothing to log in to", "mcp", "login", "given")
	if strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Errorf("the token was printed: %s", r.stderr)
	}
}
