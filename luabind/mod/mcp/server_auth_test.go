package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	lua "github.com/yuin/gopher-lua"
)

// Bearer-token auth on `luagent serve --http`, end to end: the real binary,
// raw HTTP, luagent's own client and the Go SDK v1.8.0 client, both eras.

// serveAuth runs `bin argv...` (a serve --http 127.0.0.1:0/mcp command) with
// env added and returns the endpoint's URL, everything it printed on stderr
// so far, and stop: SIGTERM, then wait until the process has exited and its
// stderr is read to the end (the process is killed with the test anyway).
func serveAuth(t *testing.T, bin string, env []string, argv ...string) (url string, out *testkit.Buffer, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, argv...)
	cmd.Env = append(os.Environ(), env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{}) // stderr is read to the end
	var waited sync.Once
	wait := func() { waited.Do(func() { <-ended; cmd.Wait() }) }
	t.Cleanup(func() { cmd.Process.Kill(); wait() })
	stop = func() {
		t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not exit on SIGTERM", argv)
			cmd.Process.Kill()
		}
		wait()
	}
	out = &testkit.Buffer{}
	urls := make(chan string, 1)
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if _, url, ok := strings.Cut(sc.Text(), " at http://"); ok {
				urls <- "http://" + url
			}
		}
		close(urls)
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			t.Fatalf("the HTTP server exited before listening:\n%s", out)
		}
		return url, out, stop
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP server did not start")
	}
	return "", nil, nil
}

type rawReply struct {
	status    int
	challenge string
	body      string
}

// rawInit POSTs a 2025-11-25 initialize with Authorization: auth (none when
// "").
func rawInit(t *testing.T, url, auth string) rawReply {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawReply{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}
}

// metadataOf fetches the endpoint's protected resource metadata, without a
// token.
func metadataOf(t *testing.T, url string) map[string]any {
	t.Helper()
	base, path, _ := strings.Cut(strings.TrimPrefix(url, "http://"), "/")
	resp, err := http.Get("http://" + base + "/.well-known/oauth-protected-resource/" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&doc) != nil {
		t.Fatalf("metadata: HTTP %d", resp.StatusCode)
	}
	return doc
}

func metadataURL(url string) string {
	base, path, _ := strings.Cut(strings.TrimPrefix(url, "http://"), "/")
	return "http://" + base + "/.well-known/oauth-protected-resource/" + path
}

// bearerTransport adds a token to every request of the Go SDK client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// goSDKConnect connects the Go SDK client in era with token ("" = none).
func goSDKConnect(ctx context.Context, url, era, token string) (*sdk.ClientSession, error) {
	tr := &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearerTransport{token}}
	}
	var opts *sdk.ClientSessionOptions
	if era == "legacy" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "gosdk-auth-test", Version: "1"}, nil)
	return client.Connect(ctx, tr, opts)
}

// goSDKEcho connects with token, checks the era and calls echo.
func goSDKEcho(t *testing.T, url, era, token string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := goSDKConnect(ctx, url, era, token)
	if err != nil {
		t.Fatalf("%s with a good token: %v", era, err)
	}
	defer cs.Close()
	want := map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
	if v := cs.InitializeResult().ProtocolVersion; v != want {
		t.Errorf("negotiated %s, want %s", v, want)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "gosdk " + era}})
	if err != nil || len(r.Content) == 0 || r.Content[0].(*sdk.TextContent).Text != "gosdk "+era {
		t.Errorf("echo: %v %v", r, err)
	}
}

// goSDKRefused checks the Go SDK client cannot connect with token.
func goSDKRefused(t *testing.T, url, era, token string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := goSDKConnect(ctx, url, era, token)
	if err == nil {
		cs.Close()
		t.Fatalf("%s: connected with token %q", era, token)
	}
	if !strings.Contains(strings.ToLower(err.Error()), "unauthorized") && !strings.Contains(err.Error(), "401") {
		t.Errorf("%s with token %q: %v (want a 401)", era, token, err)
	}
}

func runAuthClientLua(t *testing.T, bin, url, token, luaURL string) {
	t.Helper()
	luatest.RunFile(t, "testdata/auth_client.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("URL", lua.LString(url))
		h.L.SetGlobal("TOKEN", lua.LString(token))
		h.L.SetGlobal("LUA_URL", lua.LString(luaURL))
	}})
}

const testToken = "tok-Secret.42~Zq"

func TestServeAuth(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	// The token server runs with -v and --trace too: neither may show it.
	url, tokStderr, stopTok := serveAuth(t, bin, []string{"LUAGENT_TEST_MCP_TOKEN=" + testToken},
		"-v", "--trace", trace, "serve", filepath.Join(servers, "everything.lua"), "--http", "127.0.0.1:0/mcp",
		"--auth-token-env", "LUAGENT_TEST_MCP_TOKEN", "--auth-server", "https://auth.example.com")
	luaURL, luaStderr, stopLua := serveAuth(t, bin, nil,
		"serve", filepath.Join(servers, "auth.lua"), "--http", "127.0.0.1:0/mcp", "--auth-server", "https://other.example.com")

	t.Run("token/raw", func(t *testing.T) {
		plain := `Bearer resource_metadata="` + metadataURL(url) + `"`
		for _, c := range []struct {
			auth      string
			status    int
			challenge string
		}{
			{"", 401, plain},
			{"Bearer wrong", 401, plain + `, error="invalid_token", error_description="the token is not valid"`},
			{"Basic " + testToken, 401, plain},
			{"Bearer ", 400, plain + `, error="invalid_request", error_description="the Bearer token is empty"`},
			{"Bearer " + testToken, 200, ""},
		} {
			r := rawInit(t, url, c.auth)
			if r.status != c.status || r.challenge != c.challenge {
				t.Errorf("Authorization %q: %d %q, want %d %q (%s)", c.auth, r.status, r.challenge, c.status, c.challenge, r.body)
			}
		}
		doc := metadataOf(t, url)
		want := `{"authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"resource":"` + url + `","resource_name":"everything-lua"}`
		if got, _ := json.Marshal(doc); string(got) != want {
			t.Errorf("metadata\n got %s\nwant %s", got, want)
		}
	})
	t.Run("validator/raw", func(t *testing.T) {
		plain := `Bearer resource_metadata="` + metadataURL(luaURL) + `", scope="mcp:tools"`
		for _, c := range []struct {
			token     string
			status    int
			challenge string
		}{
			{"", 401, plain},
			{"lua-claims", 200, ""},
			{"lua-true", 200, ""},
			{"lua-refused", 401, plain + `, error="invalid_token", error_description="expired 'yesterday'"`},
			{"nobody", 401, plain + `, error="invalid_token", error_description="the token was refused"`},
			{"lua-error", 500, ""},
			{"lua-string", 500, ""},
			{"lua-true", 200, ""}, // still serving
		} {
			auth := ""
			if c.token != "" {
				auth = "Bearer " + c.token
			}
			r := rawInit(t, luaURL, auth)
			if r.status != c.status || r.challenge != c.challenge {
				t.Errorf("token %q: %d %q, want %d %q (%s)", c.token, r.status, r.challenge, c.status, c.challenge, r.body)
			}
		}
		doc := metadataOf(t, luaURL)
		want := `{"authorization_servers":["https://auth.example.com","https://other.example.com"],"bearer_methods_supported":["header"],"resource":"` + luaURL + `","resource_name":"auth-lua","scopes_supported":["mcp:tools"]}`
		if got, _ := json.Marshal(doc); string(got) != want {
			t.Errorf("metadata\n got %s\nwant %s", got, want)
		}
	})
	t.Run("luagent client", func(t *testing.T) { runAuthClientLua(t, bin, url, testToken, luaURL) })
	for _, era := range []string{"modern", "legacy"} {
		t.Run("gosdk/"+era, func(t *testing.T) {
			goSDKEcho(t, url, era, testToken)
			goSDKRefused(t, url, era, "")
			goSDKRefused(t, url, era, "wrong")
			goSDKEcho(t, luaURL, era, "lua-claims")
			goSDKRefused(t, luaURL, era, "lua-refused")
			goSDKRefused(t, luaURL, era, "")
		})
	}
	t.Run("no secrets printed", func(t *testing.T) {
		// Both servers stop first: their stderr is then read to the end and
		// the trace file written out, so no late line escapes the checks.
		stopTok()
		stopLua()
		tr, _ := os.ReadFile(trace)
		if len(tr) == 0 {
			t.Error("the trace file is empty: -v/--trace did not trace the server")
		}
		for name, out := range map[string]string{"stderr": tokStderr.String(), "trace": string(tr)} {
			if strings.Contains(out, testToken) {
				t.Errorf("the token appears in %s:\n%s", name, out)
			}
		}
		if !strings.Contains(tokStderr.String(), "requests need a bearer token (metadata: "+metadataURL(url)+")") {
			t.Errorf("stderr does not say the server needs a token:\n%s", tokStderr)
		}
		// The validator's failure is logged, the token in it replaced.
		out := luaStderr.String()
		if !strings.Contains(out, "the token check failed: validator error: ") || !strings.Contains(out, "validator broke on [token]") ||
			!strings.Contains(out, "the validator returned a string") {
			t.Errorf("the validator's failures are not logged:\n%s", out)
		}
		for _, tok := range []string{"lua-error", "lua-claims", "lua-refused"} {
			if strings.Contains(out, tok) {
				t.Errorf("token %s appears in stderr:\n%s", tok, out)
			}
		}
	})
}
