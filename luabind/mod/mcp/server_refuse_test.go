package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/transport"
)

// `luagent serve` over stdio answers a batch and a line over the size limit
// with -32600, in both eras, instead of leaving the client to its timeout;
// it then goes on serving.
func TestServeRefusesBatchAndOversize(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			w := startWire(t)
			params := func(fields string) string {
				if era == "modern" {
					return `{` + fields + `,` + envelope + `}`
				}
				return `{` + fields + `}`
			}
			if era == "legacy" {
				w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				if m := w.recv(); m["result"] == nil {
					t.Fatalf("initialize: %s", m["error"])
				}
			}
			echo := func(id, msg string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params(`"name":"echo","arguments":{"message":"`+msg+`"}`) + `}`
			}
			expect := func(what, id, part string) {
				t.Helper()
				m := w.recv()
				var e struct {
					Message string `json:"message"`
				}
				json.Unmarshal(m["error"], &e)
				if c := errCode(t, m); c != -32600 || string(m["id"]) != id || !strings.Contains(e.Message, part) {
					t.Errorf("%s: id %s, %d %q; want id %s, -32600 saying %q", what, m["id"], c, e.Message, id, part)
				}
			}
			w.send("[" + echo("1", "a") + "," + echo(`"two"`, "b") + "]")
			expect("batch", "1", "batches are not supported")
			expect("batch", `"two"`, "batches are not supported")

			big := strings.Repeat("x", transport.DefaultMaxMessage)
			w.send(echo("3", big))
			expect("oversized line", "3", "over the size limit of 16777216 bytes")

			w.send(echo("4", "still here"))
			if m := w.recv(); string(m["id"]) != "4" || !strings.Contains(string(m["result"]), "still here") {
				t.Errorf("after the refusals: %s %s %s", m["id"], m["result"], m["error"])
			}
		})
	}
}
