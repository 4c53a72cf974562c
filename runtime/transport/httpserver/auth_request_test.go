package httpserver

import (
	"maps"
	"net/http/httptest"
	"testing"
)

func TestRequestOf(t *testing.T) {
	r := httptest.NewRequest("POST", "http://example.com/mcp?x=1", nil)
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("Authorization", "Bearer secret")
	r.Header.Add("Accept", "application/json")
	r.Header.Add("Accept", "text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	q := RequestOf(r)
	if q.Method != "POST" || q.Path != "/mcp" || q.Remote != "127.0.0.1:5000" {
		t.Errorf("RequestOf: %+v", q)
	}
	want := map[string]string{"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
	if !maps.Equal(q.Headers, want) {
		t.Errorf("headers %v, want %v (no Authorization)", q.Headers, want)
	}
}
