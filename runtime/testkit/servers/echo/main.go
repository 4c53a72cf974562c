// Command echo is the benchmark's MCP server: one tool, echo, answered with
// as little work as possible, so a client benchmark measures the client. It
// speaks both eras over stdio (server/discover, or initialize) and nothing
// else of MCP.
package main

import (
	"bufio"
	"bytes"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	modern := false
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return
		}
		id := member(line, `"id":`)
		if id == nil {
			continue // a notification
		}
		method := member(line, `"method":`)
		var result string
		switch string(method) {
		case `"server/discover"`:
			modern = true
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"echo","version":"1"}},"ttlMs":3600000,"cacheScope":"public"}`
		case `"initialize"`:
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}`
		case `"tools/list"`:
			result = `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]` + cache(modern) + `}`
		case `"tools/call"`:
			msg := member(line, `"message":`)
			if msg == nil {
				msg = []byte(`""`)
			}
			result = `{"content":[{"type":"text","text":` + string(msg) + `}]` + kind(modern) + `}`
		default:
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"Method not found"}}` + "\n")
			out.Flush()
			continue
		}
		out.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + "}\n")
		out.Flush()
	}
}

func cache(modern bool) string {
	if modern {
		return `,"resultType":"complete","ttlMs":3600000,"cacheScope":"public"`
	}
	return ""
}

func kind(modern bool) string {
	if modern {
		return `,"resultType":"complete"`
	}
	return ""
}

// member returns the raw JSON value after key: a string (escapes kept) or
// a number/word. Good enough for the messages clients send; it is a
// benchmark server, not a parser.
func member(line []byte, key string) []byte {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return nil
	}
	v := bytes.TrimLeft(line[i+len(key):], " ")
	if len(v) == 0 {
		return nil
	}
	if v[0] == '"' {
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '"':
				return v[:j+1]
			}
		}
		return nil
	}
	j := 0
	for j < len(v) && v[j] != ',' && v[j] != '}' && v[j] != ' ' {
		j++
	}
	return v[:j]
}
