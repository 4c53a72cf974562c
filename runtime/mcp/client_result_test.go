package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// A tools/call result must be an object: anything else is the server
// breaking the protocol, through every way of calling a tool.
func TestCallToolResultNotAnObject(t *testing.T) {
	results := map[string]string{"number": `5`, "array": `[]`, "null": `null`, "string": `"done"`, "bool": `true`}
	url, _ := modernHTTP(t, func(w http.ResponseWriter, r *http.Request, method string, n int, id json.RawMessage) {
		if method == "tools/list" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"resultType":"complete","tools":[`+
				`{"name":"number","inputSchema":{"type":"object"}},{"name":"array","inputSchema":{"type":"object"}},`+
				`{"name":"null","inputSchema":{"type":"object"}},{"name":"string","inputSchema":{"type":"object"}},`+
				`{"name":"bool","inputSchema":{"type":"object"}},{"name":"fine","inputSchema":{"type":"object"}}]}}`)
			return
		}
		res, ok := results[r.Header.Get("Mcp-Name")]
		if !ok {
			res = okResult
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+res+`}`)
	})
	c := connectURL(t, url)
	ctx := context.Background()
	check := func(how, tool string, err error) {
		t.Helper()
		if errs.KindOf(err) != errs.Protocol || !strings.Contains(err.Error(), `"scripted"`) || !strings.Contains(err.Error(), "not an object") {
			t.Errorf("%s %s: kind %v, %v; want a protocol error naming the server and saying the result is not an object", how, tool, errs.KindOf(err), err)
		}
	}
	for tool := range results {
		_, err := c.CallTool(ctx, tool, nil, CallOptions{})
		check("CallTool", tool, err)
		_, err = c.CallToolRaw(ctx, tool, nil, CallOptions{})
		check("CallToolRaw", tool, err)
		done := make(chan error, 1)
		c.CallToolAsync(ctx, tool, nil, CallOptions{}, func(_ json.RawMessage, err error) { done <- err })
		check("CallToolAsync", tool, <-done)
	}
	if r, err := c.CallTool(ctx, "fine", nil, CallOptions{}); err != nil || r.Text() != "ok" {
		t.Errorf("an object result: %v %v", r, err)
	}
}
