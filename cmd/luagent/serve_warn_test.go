package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A tool handler's error is on the server's stderr at the default log
// level, as a warning with the error's file and line (the traceback stays
// at debug level); the client still gets only the message.
func TestServeLogsHandlerErrorsAsWarnings(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "tools.lua", `local s = mcp.server{ name = "calc", version = "1" }
s:tool{ name = "add", input = { a = "number" }, handler = function(args)
  error("boom")
end }
s:tool{ name = "table", handler = function() error({ code = 7 }) end }
return s
`)
	cmd := exec.Command(bin, "serve", "tools.lua")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir(), "LUAGENT_LOG=")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	stderr := make(chan string, 64)
	go func() {
		defer close(stderr)
		sc := bufio.NewScanner(errp)
		for sc.Scan() {
			stderr <- sc.Text()
		}
	}()
	replies := bufio.NewScanner(out)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	reply := func(id string) map[string]json.RawMessage {
		t.Helper()
		for replies.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(replies.Bytes(), &m) == nil && string(m["id"]) == id {
				return m
			}
		}
		t.Fatalf("no reply %s", id)
		return nil
	}
	// warning waits for the stderr line that has want (the server wrote it
	// before its reply, so it is there by now) and fails on a traceback.
	warning := func(want string) {
		t.Helper()
		var seen []string
		timeout := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-stderr:
				if !ok {
					t.Fatalf("no %q on stderr; it had:\n%s", want, strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
				if strings.Contains(l, "traceback") {
					t.Errorf("a traceback at the default log level: %q", l)
				}
				if strings.Contains(l, want) {
					if !strings.Contains(l, " WARN ") {
						t.Errorf("not a warning: %q", l)
					}
					return
				}
			case <-timeout:
				t.Fatalf("no %q on stderr within 20s; it had:\n%s", want, strings.Join(seen, "\n"))
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	reply("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, tc := range []struct{ tool, args, text, warn string }{
		{"add", `{"a":1}`, "boom", `[calc] tool "add" failed: tools.lua:3: boom`},
		{"table", `{}`, "{ code = 7 }", `[calc] tool "table" failed: { code = 7 }`},
	} {
		id := fmt.Sprint(i + 2)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + tc.args + `}}`)
		var res struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		b, _ := json.Marshal(reply(id))
		json.Unmarshal(b, &res)
		if !res.Result.IsError || len(res.Result.Content) != 1 || res.Result.Content[0].Text != tc.text {
			t.Errorf("%s: result %s, want isError with text %q", tc.tool, b, tc.text)
		}
		warning(tc.warn)
	}
}
