package jsonrpc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
)

// Decode refuses an envelope that parsers would read differently, with the
// id when the id itself is not what repeats.
func TestDecodeRefusesRepeatedKeys(t *testing.T) {
	for _, tc := range []struct {
		in, id, key string // id "" is null
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"x"}}`, "1", `"method"`},
		{`{"jsonrpc":"2.0","id":"a","\u006dethod":"tools/list","method":"tools/call"}`, `"a"`, `"method"`},
		{`{"jsonrpc":"2.0","method":"tools/list","id":7,"\u006d\u0065thod":"x"}`, "7", `"method"`},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, "1", `"jsonrpc"`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, "", `"id"`},
		{`{"jsonrpc":"2.0","\u0069d":1,"id":1,"method":"ping"}`, "", `"id"`},
		{`{"jsonrpc":"2.0","method":"notifications/x","method":"y"}`, "", `"method"`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{},"name":"b"}}`, "3", `"name"`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"a","ur\u0069":"b"}}`, "4", `"uri"`},
		{`{"jsonrpc":"2.0","id":5,"result":{},"id":6}`, "", `"id"`},
	} {
		_, err := jsonrpc.Decode([]byte(tc.in))
		if err == nil {
			t.Errorf("%s: decoded", tc.in)
			continue
		}
		var ir *jsonrpc.InvalidRequest
		if !errors.As(err, &ir) || errs.KindOf(err) != errs.Protocol {
			t.Errorf("%s: %T %v (kind %v), want *InvalidRequest of kind protocol", tc.in, err, err, errs.KindOf(err))
			continue
		}
		if got := jsonrpc.RefusedID(err).String(); got != tc.id {
			t.Errorf("%s: id %q, want %q", tc.in, got, tc.id)
		}
		if rerr := ir.RPCError(); rerr.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(rerr.Message, tc.key) {
			t.Errorf("%s: answer %d %q, want -32600 naming %s", tc.in, rerr.Code, rerr.Message, tc.key)
		}
	}
}
