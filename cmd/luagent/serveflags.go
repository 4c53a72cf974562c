package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// limitFlag is one of serve --http's limits (httpserver.Limits): its flag,
// the value it wants (for messages) and how it sets the field.
type limitFlag struct {
	name, want, usage string
	set               func(l *httpserver.Limits, v string) error
}

func seconds(field func(*httpserver.Limits) *time.Duration) func(*httpserver.Limits, string) error {
	return func(l *httpserver.Limits, v string) error {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs <= 0 || secs > 1e6 {
			return fmt.Errorf("want seconds > 0")
		}
		*field(l) = time.Duration(secs * float64(time.Second))
		return nil
	}
}

func count(field func(*httpserver.Limits) *int) func(*httpserver.Limits, string) error {
	return func(l *httpserver.Limits, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number >= 1")
		}
		*field(l) = n
		return nil
	}
}

var limitFlags = []limitFlag{
	{"--max-conns", "N", "connections open at once (default 1024; more wait)", count(func(l *httpserver.Limits) *int { return &l.MaxConns })},
	{"--max-sessions", "N", "2025-11-25 sessions; a new one ends the least recently used (default 1000)", count(func(l *httpserver.Limits) *int { return &l.MaxSessions })},
	{"--session-idle", "SECONDS", "end a session unused this long (default 1800)", seconds(func(l *httpserver.Limits) *time.Duration { return &l.SessionIdle })},
	{"--idle-timeout", "SECONDS", "close a keep-alive connection idle this long (default 60)", seconds(func(l *httpserver.Limits) *time.Duration { return &l.IdleTimeout })},
	{"--header-timeout", "SECONDS", "to receive a request's head (default 10)", seconds(func(l *httpserver.Limits) *time.Duration { return &l.HeaderTimeout })},
	{"--body-timeout", "SECONDS", "to receive a whole request, head and body (default 30)", seconds(func(l *httpserver.Limits) *time.Duration { return &l.BodyTimeout })},
	{"--write-timeout", "SECONDS", "to write an answer or event to a client that does not read (default 30)", seconds(func(l *httpserver.Limits) *time.Duration { return &l.WriteTimeout })},
	{"--max-body", "SIZE", "largest request body (default 4MiB)", func(l *httpserver.Limits, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		l.MaxBody = n
		return nil
	}},
}

// parseSize reads a byte count: 1048576, 512KiB, 4MiB (also KB/MB/k/M,
// all powers of 1024).
func parseSize(v string) (int64, error) {
	num, mult := v, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"k", 1 << 10}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return 0, fmt.Errorf("want a size in bytes such as 1048576, 512KiB or 4MiB")
	}
	return n * mult, nil
}

func example(want string) string {
	switch want {
	case "SECONDS":
		return "30"
	case "SIZE":
		return "4MiB"
	}
	return "100"
}

// httpAddr checks --http's ADDR[/PATH] and returns it in HOST:PORT/PATH
// form: a bare port means 127.0.0.1:PORT, a bare /PATH the default address.
func httpAddr(v string) (string, error) {
	addr, path := v, ""
	if i := strings.Index(v, "/"); i >= 0 {
		addr, path = v[:i], v[i:]
	}
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("--http %s: %s; use PORT, HOST:PORT or HOST:PORT/PATH (e.g. --http 8081 or --http 127.0.0.1:8081/mcp)", v, why)
	}
	switch {
	case addr == "":
		addr = "127.0.0.1:8080"
	case isPort(addr):
		addr = "127.0.0.1:" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return bad("not an address")
	}
	if !isPort(port) {
		return bad("the port must be a number from 0 to 65535")
	}
	if strings.ContainsAny(host, " \t") {
		return bad("the host has a space in it")
	}
	if host == "" {
		addr = "127.0.0.1:" + port // a bare :PORT listens on loopback
	}
	return addr + path, nil
}

func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535 && s != "" && s[0] != '+' && s[0] != '-'
}
