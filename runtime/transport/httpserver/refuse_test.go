package httpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A POST whose envelope repeats a key is refused with 400 and -32600, with
// its id when the id is not what repeats (a gateway routing on the first
// "method" and a server acting on the last would disagree).
func TestRepeatedKeysRefused(t *testing.T) {
	ts, _ := start(t)
	for _, tc := range []struct {
		name, body, id string
	}{
		{"method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"echo","arguments":{},` + envelope + `}}`, "1"},
		{"escaped method", `{"jsonrpc":"2.0","id":2,"\u006dethod":"tools/list","method":"tools/call","params":{"name":"echo","arguments":{},` + envelope + `}}`, "2"},
		{"id", `{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/list","params":{` + envelope + `}}`, "null"},
		{"name", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","name":"other","arguments":{},` + envelope + `}}`, "5"},
		{"uri", `{"jsonrpc":"2.0","id":"six","method":"resources/read","params":{"uri":"a://x","uri":"a://y",` + envelope + `}}`, `"six"`},
	} {
		r := post(t, ts.URL, modernHeaders("tools/call", "echo"), tc.body)
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(r.body), &m)
		if r.status != 400 || m.Error.Code != -32600 || string(m.ID) != tc.id || !strings.Contains(m.Error.Message, "more than once") {
			t.Errorf("%s: %d %s, want 400, -32600 with id %s", tc.name, r.status, r.body, tc.id)
		}
	}
}
