package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A tool whose handler runs a backtracking Lua pattern (40 s in one
// string.find before issue 13, where nothing looked at the handler's
// deadline) is stopped by --handler-timeout, and the Lua state is free at
// once for the next call; requests the server answers itself are answered
// while it runs. A gsub over 1 MiB of tabs (minutes before) fits in the
// same timeout.
func TestStdioPatternObeysHandlerTimeout(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			p := startStdio(t, era, "--handler-timeout", "1", "testdata/patterns.lua")
			builtins := []string{"find", "match", "gmatch", "gsub"}
			if era == "modern" {
				builtins = builtins[:1]
			}
			id := 10
			for _, b := range builtins {
				sent := p.call(id, "backtrack", fmt.Sprintf(`{"builtin":%q}`, b))
				p.quick(id + 1)
				if l := p.await(fmt.Sprint(id+1), 5*time.Second); l.at.Sub(sent) > 500*time.Millisecond {
					t.Errorf("%s: a quick request was answered %v after the call, want well before its timeout", b, l.at.Sub(sent).Round(time.Millisecond))
				}
				l := p.await(fmt.Sprint(id), 10*time.Second)
				if !strings.Contains(l.raw, "--handler-timeout") || !strings.Contains(l.raw, `"isError":true`) {
					t.Errorf("%s: answered %.300s; want the handler-timeout error", b, l.raw)
				}
				stopped := time.Now()
				p.call(id+2, "echo", `{"message":"after"}`)
				l = p.await(fmt.Sprint(id+2), 10*time.Second)
				if d := l.at.Sub(stopped); d > 500*time.Millisecond || !strings.Contains(l.raw, `"after"`) {
					t.Errorf("%s: the next call was answered %v after the timeout: %.300s; want at once, the pattern stopped", b, d.Round(time.Millisecond), l.raw)
				}
				id += 10
			}
			p.call(id, "tabs", `{"mib":1}`)
			if l := p.await(fmt.Sprint(id), 20*time.Second); !strings.Contains(l.raw, "1048576 replaced, no tab left") {
				t.Errorf("gsub over 1 MiB of tabs: %.300s", l.raw)
			}
		})
	}
}
