// Tells tests how to start the MCP reference servers that
// luagent's client is tested against:
//
//   - the npm servers pinned in scripts/peers/package-lock.json
//     (@modelcontextprotocol/server-everything and server-filesystem),
//     installed by `make peers` and started with the machine's node directly;
//   - a Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0) server,
//     runtime/testkit/servers/gosdk, built once per test process.
//
// Each function returns a command line (program and arguments) that speaks
// MCP over stdio. README.md beside this file records how each server behaves
// on the wire.

package testkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// SkipEnv names the environment variable that turns a missing npm
// installation into a skip instead of a failure.
const SkipEnv = "LUAGENT_SKIP_PEERS"

const (
	everythingPkg = "@modelcontextprotocol/server-everything"
	filesystemPkg = "@modelcontextprotocol/server-filesystem"
)

// Everything returns the command that runs server-everything over stdio.
func Everything(t testing.TB) (cmd string, args []string) {
	t.Helper()
	node, js := npmBin(t, everythingPkg)
	return node, []string{js, "stdio"}
}

// Filesystem returns the command that runs server-filesystem over stdio,
// allowing access to root (which should exist; pass an absolute path).
func Filesystem(t testing.TB, root string) (cmd string, args []string) {
	t.Helper()
	node, js := npmBin(t, filesystemPkg)
	return node, []string{js, root}
}

// GoSDKServer returns the command that runs runtime/testkit/servers/gosdk in the
// given mode ("modern", "modern-only", "legacy" or "sdk-legacy"; see that
// command's documentation). Append "-tools", "N" or "-page-size", "N" to args
// as needed. The binary is built once per test process.
func GoSDKServer(t testing.TB, mode string) (cmd string, args []string) {
	t.Helper()
	gosdk.once.Do(func() { gosdk.path, gosdk.err = buildGoSDK() })
	if gosdk.err != nil {
		t.Fatalf("peers: building the Go SDK test server: %v", gosdk.err)
	}
	return gosdk.path, []string{"-mode", mode}
}

// RepoRoot returns the directory holding the module's go.mod, found by
// walking up from the working directory (a package directory under go test).
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	return root
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// npmBin locates node and the bin script of an installed npm package,
// checking that the installed version is the one pinned in
// scripts/peers/package.json.
func npmBin(t testing.TB, pkg string) (node, js string) {
	t.Helper()
	root := RepoRoot(t)
	peersDir := filepath.Join(root, "scripts", "peers")
	missing := func(format string, a ...any) {
		t.Helper()
		peerMissing(t, fmt.Sprintf(format, a...))
	}

	var want struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := readJSON(filepath.Join(peersDir, "package.json"), &want); err != nil {
		t.Fatalf("peers: %v", err)
	}
	pinned, ok := want.Dependencies[pkg]
	if !ok {
		t.Fatalf("peers: %s is not listed in scripts/peers/package.json", pkg)
	}

	pkgDir := filepath.Join(peersDir, "node_modules", filepath.FromSlash(pkg))
	var got struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if err := readJSON(filepath.Join(pkgDir, "package.json"), &got); err != nil {
		missing("%s is not installed in scripts/peers/node_modules", pkg)
	}
	if got.Version != pinned {
		missing("%s %s is installed but %s is pinned", pkg, got.Version, pinned)
	}
	// "bin" is either a string or an object with one entry per command.
	var bin string
	if json.Unmarshal(got.Bin, &bin) != nil {
		var bins map[string]string
		if err := json.Unmarshal(got.Bin, &bins); err != nil || len(bins) != 1 {
			t.Fatalf("peers: %s: unexpected \"bin\" field %s", pkg, got.Bin)
		}
		for _, b := range bins {
			bin = b
		}
	}
	js = filepath.Join(pkgDir, filepath.FromSlash(bin))

	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	return node, js
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

var gosdk struct {
	once sync.Once
	path string
	err  error
}

const gosdkDirPrefix = "luagent-gosdk-"

// buildGoSDK builds the test server into a per-process temporary directory
// and removes the directories left by test processes that have exited.
func buildGoSDK() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	sweepGoSDKDirs()
	dir := filepath.Join(os.TempDir(), gosdkDirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	goTool, err := exec.LookPath("go") // go test puts GOROOT/bin first on PATH
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "gosdk-testserver")
	build := exec.Command(goTool, "build", "-o", out, "./runtime/testkit/servers/gosdk")
	build.Dir = root
	if msg, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, msg)
	}
	return out, nil
}

func sweepGoSDKDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), gosdkDirPrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), gosdkDirPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if !alive(pid) {
			os.RemoveAll(d)
		}
	}
}

// TSClient returns the command that runs scripts/tsclient/drive.mjs — the
// official TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in
// scripts/tsclient/package-lock.json) on its pinned Node 24 — with args to
// append before "--era ...". See scripts/tsclient/README.md.
func TSClient(t testing.TB) (cmd string, args []string) {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "scripts", "tsclient")
	const pkg = "@modelcontextprotocol/client"
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	if pinned, ok := pinnedInstalled(t, dir, pkg, node); !ok {
		peerMissing(t, fmt.Sprintf("%s %s and its Node are not installed in scripts/tsclient/node_modules", pkg, pinned))
	}
	return node, []string{filepath.Join(dir, "drive.mjs")}
}

// pinnedInstalled reports whether pkg is installed in dir/node_modules at
// the version dir/package.json pins (pinned), with node beside it.
func pinnedInstalled(t testing.TB, dir, pkg, node string) (pinned string, ok bool) {
	t.Helper()
	var want, got struct {
		Dependencies map[string]string `json:"dependencies"`
		Version      string            `json:"version"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &want); err != nil {
		t.Fatalf("peers: %v", err)
	}
	pinned = want.Dependencies[pkg]
	err := readJSON(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"), &got)
	_, serr := os.Stat(node)
	return pinned, err == nil && serr == nil && got.Version == pinned
}

// peerMissing ends a test whose pinned peer is not installed: a skip with
// LUAGENT_SKIP_PEERS=1, else a failure saying to run make peers.
func peerMissing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv(SkipEnv) == "1" {
		t.Skipf("peers: %s (%s=1)", msg, SkipEnv)
	}
	t.Fatalf("peers: %s; run `make peers` (or set %s=1 to skip)", msg, SkipEnv)
}

// inspectorPkg is the MCP Inspector, pinned in scripts/tsclient.
const inspectorPkg = "@modelcontextprotocol/inspector"

// Inspector returns the pinned Node 24 of scripts/tsclient and the
// inspector's launcher script, or fails (skips with LUAGENT_SKIP_PEERS=1)
// when `make peers` has not installed them.
func Inspector(t testing.TB) (node, cli string) {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "scripts", "tsclient")
	var want struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &want); err != nil {
		t.Fatal(err)
	}
	pinned := want.Dependencies[inspectorPkg]
	if pinned == "" {
		t.Fatalf("%s is not listed in scripts/tsclient/package.json", inspectorPkg)
	}
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(inspectorPkg))
	var got struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	err := readJSON(filepath.Join(pkgDir, "package.json"), &got)
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	_, serr := os.Stat(node)
	if err != nil || serr != nil || got.Version != pinned || got.Bin["mcp-inspector"] == "" {
		peerMissing(t, fmt.Sprintf("%s %s and its Node are not installed in scripts/tsclient/node_modules", inspectorPkg, pinned))
	}
	return node, filepath.Join(pkgDir, filepath.FromSlash(got.Bin["mcp-inspector"]))
}

// ACPClient returns scripts/tsclient's pinned Node 24 and the arguments that
// run scripts/acpclient/drive.mjs — the official ACP TypeScript SDK's client
// connection (@agentclientprotocol/sdk, pinned in
// scripts/acpclient/package-lock.json) — to which a test appends its own
// ("--timeout", "MS", "--", AGENT...). It fails (skips with
// LUAGENT_SKIP_PEERS=1) when `make peers` has not installed them. See
// scripts/acpclient/README.md.
func ACPClient(t testing.TB) (node string, args []string) {
	t.Helper()
	root := RepoRoot(t)
	dir := filepath.Join(root, "scripts", "acpclient")
	const pkg = "@agentclientprotocol/sdk"
	node = filepath.Join(root, "scripts", "tsclient", "node_modules", ".bin", "node")
	if pinned, ok := pinnedInstalled(t, dir, pkg, node); !ok {
		peerMissing(t, fmt.Sprintf("%s %s (scripts/acpclient/node_modules) or scripts/tsclient's Node is not installed", pkg, pinned))
	}
	return node, []string{filepath.Join(dir, "drive.mjs")}
}
