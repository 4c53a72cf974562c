package jsonrpc_test

import (
	"testing"

	"github.com/luagent/luagent/runtime/jsonrpc"
)

// A 2026-07-28 tools/call as clients send it: Decode runs on every request.
var benchCall = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello world","n":3,"tags":["a","b"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"progressToken":"lg-7"}}}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCall)))
	for b.Loop() {
		if _, err := jsonrpc.Decode(benchCall); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	params := benchCall[len(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":`) : len(benchCall)-1]
	for b.Loop() {
		buf = jsonrpc.AppendRequest(buf[:0], jsonrpc.IntID(42), "tools/call", params)
	}
}
