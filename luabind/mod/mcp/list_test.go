package mcp

import (
	"encoding/json"
	"math"
	"testing"
)

// list joins the definitions itself; the bytes must be what json.Marshal
// of the result gives.
func TestListIsWhatMarshalGives(t *testing.T) {
	def := func(v map[string]any) json.RawMessage { b, _ := json.Marshal(v); return b }
	s := &luaServer{tools: map[string]*toolDef{}, prompts: map[string]*promptDef{}}
	for i, d := range []json.RawMessage{
		def(map[string]any{"name": "a", "description": "<b> & \u2028 \"q\" é", "inputSchema": json.RawMessage(`{"type":"object"}`)}),
		def(map[string]any{"name": "nan", "n": math.NaN()}), // does not marshal: nil
		def(map[string]any{"name": "c", "annotations": map[string]any{"readOnlyHint": true}}),
	} {
		if i == 1 && d != nil {
			t.Fatal("NaN marshalled")
		}
		name := string(rune('a' + i))
		s.tools[name] = &toolDef{name: name, def: d}
		s.toolOrder = append(s.toolOrder, name)
	}
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		var items []json.RawMessage
		if method == "tools/list" {
			for _, n := range s.toolOrder {
				items = append(items, s.tools[n].def)
			}
		}
		if items == nil {
			items = []json.RawMessage{}
		}
		key := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}[method]
		want, err := json.Marshal(map[string]any{key: items})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.list(method); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", method, got, want)
		}
	}
}
