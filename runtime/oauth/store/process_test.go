package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/luagent/luagent/runtime/oauth"
)

// The environment of a child process of TestRefreshOnceTwoProcesses.
const (
	childEnv     = "LUAGENT_STORE_TEST_CHILD" // the store folder
	childURLEnv  = "LUAGENT_STORE_TEST_URL"
	childReady   = "LUAGENT_STORE_TEST_READY"   // the file the child makes when it is ready
	childBarrier = "LUAGENT_STORE_TEST_BARRIER" // the file it waits for before refreshing
)

// The test: two luagent processes share one credential file and
// both hit 401 at once. Exactly one refresh reaches the token endpoint
// (which rotates refresh tokens and refuses a used one), both end with the
// new access token, and the file is valid JSON with mode 0600 afterwards.
func TestRefreshOnceTwoProcesses(t *testing.T) {
	var (
		mu        sync.Mutex
		refreshes int
		current   = "refresh-1"
		reused    int
	)
	token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Method != http.MethodPost || r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("client_id") != "client-1" {
			http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		if r.PostForm.Get("refresh_token") != current {
			reused++
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		refreshes++
		n := refreshes + 1
		current = fmt.Sprintf("refresh-%d", n)
		mu.Unlock()
		time.Sleep(150 * time.Millisecond) // a slow token endpoint widens the race
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("access-%d", n),
			"refresh_token": fmt.Sprintf("refresh-%d", n), "token_type": "Bearer", "expires_in": 3600})
	}))
	defer token.Close()

	dir := t.TempDir()
	s := New(filepath.Join(dir, "credentials", "mcp"))
	serverURL := "https://mcp.example.com/mcp?tenant=a&x=1"
	first := cred("access-1", "refresh-1")
	first.TokenEndpoint = token.URL
	if err := s.Save(context.Background(), serverURL, first); err != nil {
		t.Fatal(err)
	}

	barrier := filepath.Join(dir, "go")
	type child struct {
		cmd    *exec.Cmd
		out    bytes.Buffer
		ready  string
		result string
	}
	children := make([]*child, 2)
	for i := range children {
		c := &child{ready: filepath.Join(dir, fmt.Sprintf("ready-%d", i))}
		c.cmd = exec.Command(os.Args[0], "-test.run=^TestRefreshOnceChild$", "-test.count=1", "-test.v")
		c.cmd.Env = append(os.Environ(), childEnv+"="+s.Dir(), childURLEnv+"="+serverURL,
			childReady+"="+c.ready, childBarrier+"="+barrier)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	defer func() {
		for _, c := range children {
			if c.cmd.ProcessState == nil {
				c.cmd.Process.Kill()
				c.cmd.Wait()
			}
		}
	}()
	// Both have read the stale credential and are waiting: let them go at once.
	deadline := time.Now().Add(60 * time.Second)
	for _, c := range children {
		for {
			if _, err := os.Stat(c.ready); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a child did not get ready:\n%s", c.out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := os.WriteFile(barrier, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, c := range children {
		err := c.cmd.Wait()
		sc := bufio.NewScanner(bytes.NewReader(c.out.Bytes()))
		for sc.Scan() {
			if r, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
				c.result = r
			}
		}
		if err != nil || c.result != "access-2" {
			t.Errorf("child %d: %v, result %q; output:\n%s", i, err, c.result, c.out.String())
		}
	}
	mu.Lock()
	if refreshes != 1 || reused != 0 {
		t.Errorf("%d refreshes and %d reused refresh tokens reached the token endpoint, want 1 and 0", refreshes, reused)
	}
	mu.Unlock()

	path := s.Path(serverURL)
	data, err := os.ReadFile(path)
	if err != nil || !json.Valid(data) {
		t.Fatalf("the file is not valid JSON (%v):\n%s", err, data)
	}
	if m := perm(t, path); m != 0o600 {
		t.Errorf("file mode %04o, want 0600", m)
	}
	got, err := s.Load(serverURL)
	if err != nil || got.AccessToken != "access-2" || got.RefreshToken != "refresh-2" || got.ClientID != "client-1" {
		t.Errorf("stored %+v, %v; want access-2 and refresh-2", got, err)
	}
	if n := names(t, s.Dir()); len(n) != 1 {
		t.Errorf("folder holds %v: want the credential file only", n)
	}
}

// TestRefreshOnceChild is one of the two processes of
// TestRefreshOnceTwoProcesses (it does nothing when run on its own).
func TestRefreshOnceChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("a child of TestRefreshOnceTwoProcesses")
	}
	s := New(dir)
	serverURL := os.Getenv(childURLEnv)
	stale, err := s.Load(serverURL) // what this process sent, and got a 401 for
	if err != nil || stale == nil {
		t.Fatalf("Load = %v, %v", stale, err)
	}
	if err := os.WriteFile(os.Getenv(childReady), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(os.Getenv(childBarrier)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no barrier")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := s.RefreshOnce(ctx, serverURL, stale, httpRefresh)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("RESULT %s\n", got.AccessToken)
}

// httpRefresh is a minimal refresh_token grant (RFC 6749 §6).
func httpRefresh(ctx context.Context, cur *oauth.Credential) (*oauth.Credential, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.RefreshToken}, "client_id": {cur.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cur.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int64  `json:"expires_in"`
		Error        string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token endpoint: %s (%s)", resp.Status, body.Error)
	}
	next := *cur
	next.AccessToken, next.RefreshToken = body.AccessToken, body.RefreshToken
	next.ExpiresAt = time.Now().Unix() + body.ExpiresIn
	return &next, nil
}
