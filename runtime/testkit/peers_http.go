package testkit

import (
	"bufio"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// HTTP peers: servers started for one test that speak Streamable HTTP on a
// loopback port; each returns its endpoint URL and stops with the test.

// EverythingHTTP starts server-everything in streamableHttp mode (a
// 2025-11-25 stateful server of the TypeScript SDK 1.x, with resumable SSE).
func EverythingHTTP(t testing.TB) string {
	t.Helper()
	node, js := npmBin(t, everythingPkg)
	port := freePort(t)
	cmd := exec.Command(node, js, "streamableHttp")
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	startHTTP(t, cmd, regexp.MustCompile(`listening on port (\d+)`), false)
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

// EverythingSSE starts server-everything in sse mode: the deprecated
// HTTP+SSE transport (2024-11-05) of the TypeScript SDK 1.x; the returned
// URL is its SSE endpoint (GET /sse, POSTs to /message?sessionId=…).
func EverythingSSE(t testing.TB) string {
	t.Helper()
	node, js := npmBin(t, everythingPkg)
	port := freePort(t)
	cmd := exec.Command(node, js, "sse")
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	startHTTP(t, cmd, regexp.MustCompile(`running on port (\d+)`), false)
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/sse"
}

// GoSDKHTTP starts runtime/testkit/servers/gosdk over Streamable HTTP: mode
// "legacy" is the SDK's stateful server, mode "modern" with stateless its
// stateless one (how go-sdk serves 2026-07-28 over HTTP).
func GoSDKHTTP(t testing.TB, mode string, stateless bool) string {
	t.Helper()
	path, args := GoSDKServer(t, mode)
	args = append(args, "-http", "127.0.0.1:0")
	if stateless {
		args = append(args, "-stateless")
	}
	return startHTTP(t, exec.Command(path, args...), regexp.MustCompile(`listening on (http://\S+)`), true)
}

// startHTTP starts cmd and waits for ready on its stderr (or stdout);
// with urlGroup the first group of ready is the URL.
func startHTTP(t testing.TB, cmd *exec.Cmd, ready *regexp.Regexp, urlGroup bool) string {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatalf("peers: starting %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	var lines []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[len(m)-1]
				// Keep draining so the server never blocks on stderr.
				for sc.Scan() {
				}
				return
			}
			lines = append(lines, sc.Text())
		}
		close(found)
	}()
	select {
	case v, ok := <-found:
		if !ok {
			t.Fatalf("peers: %s exited before listening:\n%s", cmd.Path, strings.Join(lines, "\n"))
		}
		if urlGroup {
			return v
		}
		return ""
	case <-time.After(30 * time.Second):
		t.Fatalf("peers: %s did not start listening within 30 s", cmd.Path)
	}
	return ""
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
