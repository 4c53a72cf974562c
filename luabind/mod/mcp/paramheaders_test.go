package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// paramHeaders skips decoding schemas that cannot hold the annotation; the
// answer must be what decoding gives, however the key is spelt.
func TestParamHeaders(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   map[string]string
	}{
		{`{"type":"object","properties":{"message":{"type":"string"}}}`, nil},
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"X-MCP-Header":"Region"},"n":{"x-mcp-header":""}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"x\u002dmcp-header":"Region"}}}`, map[string]string{"Region": "r"}},
		{`{"properties":{"r":{"description":"sets the x-mcp-header"}}}`, nil},
		{`{"properties":{"r":{"description":"a \"quote\""}}}`, nil},
		{`{"properties":[1,2]}`, nil},
		{`not json`, nil},
	} {
		if got := paramHeaders(json.RawMessage(c.schema)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("paramHeaders(%s) = %v, want %v", c.schema, got, c.want)
		}
	}
}
