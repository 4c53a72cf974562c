package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// Each limit of serve --http, enforced: set small by its flag, a client
// that overstays it loses its connection or session, and nobody else does.

func dialRaw(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", hostPort(url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads c until the server closes it (bytes before that are
// skipped) and returns how long that took, failing past limit.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, c)
	d := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %s", limit)
	}
	return d
}

func echoRequest(url string, id int) string {
	return rawPost(url, modernCallBody(id, "echo", `{"message":"hi"}`), modernCallHeaders("echo")...)
}

// readResponse reads one response from br and returns its status code.
func readResponse(t *testing.T, br *bufio.Reader, req *http.Request) int {
	t.Helper()
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPIdleAndHeaderTimeouts(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--idle-timeout", "0.5", "--header-timeout", "0.5")
	t.Run("idle keep-alive connection", func(t *testing.T) {
		c := dialRaw(t, srv.url)
		io.WriteString(c, echoRequest(srv.url, 1))
		br := bufio.NewReader(c)
		if st := readResponse(t, br, nil); st != 200 {
			t.Fatalf("status %d", st)
		}
		if d := closedWithin(t, c, 5*time.Second); d < 300*time.Millisecond {
			t.Errorf("closed after %s, before the idle timeout", d)
		}
	})
	t.Run("a head that never ends", func(t *testing.T) {
		c := dialRaw(t, srv.url)
		io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+hostPort(srv.url)+"\r\n")
		if d := closedWithin(t, c, 5*time.Second); d < 300*time.Millisecond {
			t.Errorf("closed after %s, before the header timeout", d)
		}
	})
}

func TestHTTPSlowBodyIsCut(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--body-timeout", "1")
	c := dialRaw(t, srv.url)
	body := modernCallBody(1, "echo", `{"message":"hi"}`)
	head := rawPost(srv.url, body, modernCallHeaders("echo")...)
	io.WriteString(c, head[:len(head)-len(body)])
	// A byte every 200 ms: the body would take minutes.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; i < len(body); i++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if _, err := c.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	c.SetReadDeadline(start.Add(10 * time.Second))
	status, err := bufio.NewReader(c).ReadString('\n')
	d := time.Since(start)
	if err != nil || !strings.Contains(status, " 408 ") {
		t.Fatalf("a trickled body: %q, %v after %s; want 408 after the body timeout", status, err, d)
	}
	if d < 800*time.Millisecond || d > 5*time.Second {
		t.Errorf("answered after %s; want about the 1s body timeout", d)
	}
}

func TestHTTPConnectionCap(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--max-conns", "3")
	var held []net.Conn
	for range 3 {
		c := dialRaw(t, srv.url)
		io.WriteString(c, echoRequest(srv.url, 1))
		br := bufio.NewReader(c)
		if st := readResponse(t, br, nil); st != 200 { // accepted, now idle
			t.Fatalf("status %d", st)
		}
		held = append(held, c)
	}
	// A fourth waits for a free slot...
	c := dialRaw(t, srv.url)
	io.WriteString(c, echoRequest(srv.url, 2))
	got := make(chan string, 1)
	go func() {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		t.Fatalf("a fourth connection was served past --max-conns 3: %q", line)
	case <-time.After(500 * time.Millisecond):
	}
	// ...and is served as soon as one closes.
	held[0].Close()
	select {
	case line := <-got:
		if !strings.Contains(line, " 200 ") {
			t.Fatalf("the fourth connection: %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the fourth connection was not served after a slot was freed")
	}
}

// A client that does not read loses its connection after --write-timeout:
// with one connection allowed, the next client is served once it is gone.
func TestHTTPWriteTimeoutFreesTheConnection(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--max-conns", "1", "--write-timeout", "1")
	stalled := stall(t, srv.url, "modern", "")
	start := time.Now()
	client := &http.Client{Timeout: 20 * time.Second}
	callOnce(t, client, srv.url, "modern", "", 1)
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("served after %s: the stalled connection was not holding the only slot", d)
	}
	_ = stalled
}

func legacyPing(t *testing.T, url, sid string) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(mcpPost(context.Background(), url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, legacyHeaders(sid)...))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPSessionCapEndsTheLeastRecentlyUsed(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--max-sessions", "3")
	s1, s2, s3 := legacySession(t, srv.url), legacySession(t, srv.url), legacySession(t, srv.url)
	if st := legacyPing(t, srv.url, s1); st != 200 { // s2 is now the least recently used
		t.Fatalf("ping s1: %d", st)
	}
	s4 := legacySession(t, srv.url)
	for _, c := range []struct {
		name, sid string
		want      int
	}{{"s1", s1, 200}, {"s2", s2, 404}, {"s3", s3, 200}, {"s4", s4, 200}} {
		if st := legacyPing(t, srv.url, c.sid); st != c.want {
			t.Errorf("%s: status %d, want %d", c.name, st, c.want)
		}
	}
}

func TestHTTPSessionIdleExpiry(t *testing.T) {
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--session-idle", "0.5")
	sid := legacySession(t, srv.url)
	if st := legacyPing(t, srv.url, sid); st != 200 {
		t.Fatalf("a fresh session: %d", st)
	}
	<-time.After(1500 * time.Millisecond) // unused for three times the limit
	if st := legacyPing(t, srv.url, sid); st != 404 {
		t.Errorf("a session idle past --session-idle: status %d, want 404", st)
	}
}

// peakRSS is the server's peak resident memory in MiB.
func peakRSS(t *testing.T, pid int) float64 { return procStatus(t, pid, "VmHWM") }

// procStatus reads a memory figure of /proc/PID/status, in MiB.
func procStatus(t *testing.T, pid int, field string) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// plainBin is luagent built without the race detector, whose shadow
// memory would swamp what these tests measure.
func plainBin(t *testing.T) string {
	if b := os.Getenv("LUAGENT_TEST_BIN"); b != "" {
		return b
	}
	return testkit.Build(t, "cmd/luagent")
}

func servePlain(t *testing.T, args ...string) *httpServer {
	t.Helper()
	saved := bin
	bin = plainBin(t)
	defer func() { bin = saved }()
	return serveHTTPArgs(t, args...)
}

// 1,000 heads announcing 4 MiB bodies that never come: the server holds
// what arrived, not what was announced.
func TestHTTPLargeContentLengthCostsWhatArrives(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 connections")
	}
	srv := servePlain(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp")
	const n = 1000
	var conns []net.Conn
	for i := range n {
		c := dialRaw(t, srv.url)
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", hostPort(srv.url), 4<<20)
		conns = append(conns, c)
		_ = i
	}
	// "100 Continue" comes when the handler starts reading the body: by
	// then it has made whatever buffer it makes for it.
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.Contains(line, " 100 ") {
			t.Fatalf("connection %d: %q, %v", i, line, err)
		}
	}
	rss, data := peakRSS(t, srv.cmd.Process.Pid), procStatus(t, srv.cmd.Process.Pid, "VmData")
	t.Logf("peak RSS %.1f MiB, data mapped %.0f MiB", rss, data)
	if rss > 64 {
		t.Errorf("peak RSS %.1f MiB with %d bodies announced and not sent; want under 64", rss, n)
	}
	// Untouched pages are not resident, so RSS alone misses buffers made
	// from Content-Length; the heap mapped for them does not.
	if data > 512 {
		t.Errorf("%.0f MiB of memory mapped for %d bodies announced and not sent: buffers were made for what was announced", data, n)
	}
}

// A flood of initialize without DELETE: sessions stay within the cap, and
// so does memory.
func TestHTTPInitializeFloodIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("5,000 sessions")
	}
	srv := servePlain(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--max-sessions", "500")
	first := legacySession(t, srv.url)
	for range 5000 {
		legacySession(t, srv.url)
	}
	if st := legacyPing(t, srv.url, first); st != 404 {
		t.Errorf("the first of 5,001 sessions with --max-sessions 500: status %d, want 404 (ended to make room)", st)
	}
	if rss := peakRSS(t, srv.cmd.Process.Pid); rss > 64 {
		t.Errorf("peak RSS %.1f MiB after 5,001 initialize; want under 64", rss)
	} else {
		t.Logf("peak RSS %.1f MiB", rss)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "luagent test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestHTTPSServesHTTP2(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	srv := serveHTTPArgs(t, "testdata/hostile.lua", "--http", "127.0.0.1:0/mcp", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(srv.url, "https://") {
		t.Fatalf("the start-up line names %s", srv.url)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	for i := range 3 {
		resp, err := client.Do(mcpPost(context.Background(), srv.url, modernCallBody(i+1, "echo", `{"message":"over h2"}`), modernCallHeaders("echo")...))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.StatusCode != 200 || !strings.Contains(string(b), "over h2") {
			t.Fatalf("%s %d: %s", resp.Proto, resp.StatusCode, b)
		}
	}
}

func TestServeTLSFlagsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.pem", "not a certificate")
	r := luagent(t, "", nil, "serve", "testdata/hostile.lua", "--http", "127.0.0.1:0", "--tls-cert", bad, "--tls-key", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "cannot use --tls-cert") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("a bad certificate: code %d, stderr %q; want one line naming the files", r.code, r.stderr)
	}
}
