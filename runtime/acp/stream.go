package acp

import (
	"bytes"
	"encoding/json"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/transport"
)

// DefaultMaxLine bounds one incoming message (a line): a prompt with an
// embedded file fits; a runaway client does not grow the agent's memory.
const DefaultMaxLine = 8 << 20

// lines is the agent's stdio stream: the MCP server's (transport.Stdio:
// a write never waits for a client that stops reading, and output held
// for one is bounded), with its skipped lines left to the Server (junk)
// rather than to jsonrpc.Conn, which would skip them in silence.
type lines struct{ st *transport.Stdio }

func (l lines) Read() ([]byte, error)  { return l.st.Read() }
func (l lines) Write(msg []byte) error { return l.st.Write(msg) }
func (l lines) Close() error           { return l.st.Close() }

// junk answers a line the transport skipped because it is not a JSON
// object, as JSON-RPC says, with a null id: JSON of another kind (a
// batch) is an invalid request, anything else a parse error. Blank lines
// are skipped. line is at most the transport's prefix of it, size its
// whole length.
func (s *Server) junk(line []byte, size int64) {
	t, whole := bytes.TrimSpace(line), int64(len(line)) == size
	if len(t) == 0 && whole {
		return
	}
	rerr := &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: the line is not JSON (one JSON-RPC message a line)"}
	if whole && json.Valid(t) {
		rerr = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request: not a JSON-RPC message: not a JSON object"}
	}
	s.conn.Reply(jsonrpc.ID{}, nil, rerr)
}
