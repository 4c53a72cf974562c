package main

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestHTTPAddr(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"8081", "127.0.0.1:8081", ""},
		{"8081/x", "127.0.0.1:8081/x", ""},
		{":0", "127.0.0.1:0", ""},
		{":9/mcp", "127.0.0.1:9/mcp", ""},
		{"/only/path", "127.0.0.1:8080/only/path", ""},
		{"0.0.0.0:443/mcp", "0.0.0.0:443/mcp", ""},
		{"[::1]:8080", "[::1]:8080", ""},
		{"localhost:8080", "localhost:8080", ""},
		{"notaport", "", "not an address"},
		{"127.0.0.1:99999", "", "0 to 65535"},
		{"127.0.0.1:http", "", "0 to 65535"},
		{"65536", "", "not an address"},
		{"-1", "", "not an address"},
		{"a b:80", "", "space"},
	} {
		got, err := httpAddr(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--http "+tc.in) {
				t.Errorf("httpAddr(%q) = %q, %v; want an error naming it and saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("httpAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzHTTPAddr(f *testing.F) {
	for _, s := range []string{"8081", ":0/mcp", "[::1]:1", "x:y", "/p", "", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := httpAddr(s)
		if err != nil {
			return
		}
		addr, _, _ := strings.Cut(got, "/")
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("httpAddr(%q) = %q, which is not HOST:PORT: %v", s, got, err)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			t.Fatalf("httpAddr(%q) = %q: port %q", s, got, port)
		}
	})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"512KiB", 512 << 10}, {"4MiB", 4 << 20}, {"1GiB", 1 << 30},
		{"4M", 4 << 20}, {"8k", 8 << 10}, {"0", 0}, {"-1", 0}, {"1.5MiB", 0}, {"MiB", 0}, {"99999999999999GiB", 0},
	} {
		got, err := parseSize(tc.in)
		if (tc.want == 0) != (err != nil) || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestLimitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--max-conns", "0"}, "--max-conns 0: want a whole number >= 1"},
		{[]string{"--session-idle=abc"}, "--session-idle abc: want seconds > 0"},
		{[]string{"--write-timeout"}, "--write-timeout needs SECONDS"},
		{[]string{"--max-body", "4MiB"}, ""},
		{[]string{"--idle-timeout", "0.5"}, ""},
	} {
		o, code, ok := parseServe(options{serve: true}, append([]string{"s.lua", "--http"}, tc.args...), io.Discard, &strings.Builder{})
		if tc.err == "" {
			if !ok {
				t.Errorf("%v: refused (code %d)", tc.args, code)
			}
			continue
		}
		var stderr strings.Builder
		_, _, ok = parseServe(options{serve: true}, append([]string{"s.lua", "--http"}, tc.args...), io.Discard, &stderr)
		if ok || !strings.Contains(stderr.String(), tc.err) {
			t.Errorf("%v: ok=%v, stderr %q; want %q", tc.args, ok, stderr.String(), tc.err)
		}
		_ = o
	}
}
