package main

import (
	"bufio"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Whole-process timings, reported as medians (the machine is noisy, means
// are not). The lua5.1 benchmarks are the peer for the ratio; they skip
// when lua5.1 is not installed.

func reportMedian(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(0, "ns/op")
}

func timeCommand(b *testing.B, name string, args ...string) {
	ds := make([]time.Duration, 0, b.N)
	home := b.TempDir()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home)
		start := time.Now()
		out, err := cmd.Output()
		ds = append(ds, time.Since(start))
		if err != nil || strings.TrimSpace(string(out)) != "1" {
			b.Fatalf("%s: %q %v", name, out, err)
		}
	}
	reportMedian(b, ds)
}

func BenchmarkProcessPrint1(b *testing.B) { timeCommand(b, bin, "-e", "print(1)") }

func BenchmarkProcessPrint1Lua51(b *testing.B) {
	lua, err := exec.LookPath("lua5.1")
	if err != nil {
		b.Skip("lua5.1 not installed")
	}
	timeCommand(b, lua, "-e", "print(1)")
}

// BenchmarkREPLFirstPrompt is the time from exec to the first "> " on a
// terminal.
func BenchmarkREPLFirstPrompt(b *testing.B) {
	ds := make([]time.Duration, 0, b.N)
	home := b.TempDir()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home, "TERM=xterm")
		start := time.Now()
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			b.Fatal(err)
		}
		var seen strings.Builder
		buf := make([]byte, 1024)
		for !strings.Contains(seen.String(), "> ") {
			n, err := f.Read(buf)
			if err != nil {
				b.Fatalf("no prompt: %q %v", seen.String(), err)
			}
			seen.Write(buf[:n])
		}
		ds = append(ds, time.Since(start))
		f.Write([]byte{4})
		cmd.Wait()
		f.Close()
	}
	reportMedian(b, ds)
}

// BenchmarkServeFirstResponse is serve's cold start: from exec to the
// answer to initialize, then stdin closes and the server exits.
func BenchmarkServeFirstResponse(b *testing.B) {
	ds := make([]time.Duration, 0, b.N)
	home := b.TempDir()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "serve", "../../examples/echo.lua")
		cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		in.Write([]byte(initialize))
		line, err := bufio.NewReader(out).ReadString('\n')
		ds = append(ds, time.Since(start))
		if err != nil || !strings.Contains(line, `"serverInfo"`) {
			b.Fatalf("no answer: %q %v", line, err)
		}
		in.Close()
		cmd.Wait()
	}
	reportMedian(b, ds)
}
