package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// list joins the stored definitions itself; the result must be what
// marshalling {member: items} gives, compact, with [] for none.
func TestListIsWhatMarshalGives(t *testing.T) {
	srv := NewServer(ServerOptions{})
	defer srv.Close()
	ok := func(c *ToolCall) { c.Return(nil, nil) }
	var defs []json.RawMessage
	for _, d := range []string{
		`{"name": "a", "description": "<b> & \u2028 \"q\" é", "inputSchema": {"type": "object"}}`,
		`{"name":"c","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}`,
	} {
		if err := srv.AddTool(Tool{Raw: json.RawMessage(d)}, ok); err != nil {
			t.Fatal(err)
		}
		defs = append(defs, json.RawMessage(d))
	}
	typed := Tool{Name: "typed", Annotations: &ToolAnnotations{Title: "T"}}
	if err := srv.AddTool(typed, ok); err != nil {
		t.Fatal(err)
	}
	typed.InputSchema = defaultInput
	b, _ := json.Marshal(typed)
	defs = append(defs, b)
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		items := []json.RawMessage{}
		if method == "tools/list" {
			items = defs
		}
		want, err := json.Marshal(map[string]any{listKinds[method].member: items})
		if err != nil {
			t.Fatal(err)
		}
		got := srv.reg.list(method)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		var compact bytes.Buffer
		json.Compact(&compact, got)
		if !reflect.DeepEqual(g, w) || compact.String() != string(got) {
			t.Errorf("%s:\n got %s\nwant %s", method, got, want)
		}
	}
}
