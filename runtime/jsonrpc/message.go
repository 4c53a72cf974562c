// Package jsonrpc is JSON-RPC 2.0 for MCP: message encoding and decoding,
// and Conn, which multiplexes calls, notifications and incoming requests
// over a stream of framed messages (stdio lines).
//
// It is luagent's own small implementation rather than
// github.com/sourcegraph/jsonrpc2: MCP over HTTP gives every request its own
// response stream, stdio needs junk lines skipped and a size cap, and the
// client's hot path (a tools/call round trip) should not pay for reflection
// on the message envelope.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// ID is a request id: a JSON number or string, kept as its JSON text so it
// round-trips exactly and compares as a map key. The zero ID means "none"
// (a notification).
type ID struct{ raw string }

// IntID returns the id n.
func IntID(n int64) ID { return ID{strconv.FormatInt(n, 10)} }

// StringID returns the id s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{string(b)}
}

// IsZero reports whether there is no id.
func (id ID) IsZero() bool { return id.raw == "" }

// String is the id's JSON text (`7`, `"abc"`).
func (id ID) String() string { return id.raw }

// Raw returns the JSON text.
func (id ID) Raw() json.RawMessage { return json.RawMessage(id.raw) }

// MarshalJSON writes the id as it was received.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a number or a string; null is the zero ID.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		id.raw = ""
	case b[0] == '"':
		if !plainString(b) {
			var s string
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
		}
		id.raw = string(b)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		if _, err := strconv.ParseFloat(string(b), 64); err != nil {
			return fmt.Errorf("bad id %s", b)
		}
		id.raw = string(b)
	default:
		return fmt.Errorf("id must be a number or a string, got %s", b)
	}
	return nil
}

// plainString reports whether b is a JSON string with no escapes and no
// control bytes: valid as it stands.
func plainString(b []byte) bool {
	if len(b) < 2 || b[len(b)-1] != '"' {
		return false
	}
	for _, c := range b[1 : len(b)-1] {
		if c < ' ' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Message is any JSON-RPC message: a request (ID and Method), a notification
// (Method only) or a response (ID and Result or Error).
type Message struct {
	ID     ID
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// IsRequest, IsNotification and IsResponse classify the message.
func (m *Message) IsRequest() bool      { return m.Method != "" && !m.ID.IsZero() }
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID.IsZero() }
func (m *Message) IsResponse() bool     { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// Error is a JSON-RPC error object. As a Go error it reads
// "server error -32601: Method not found".
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("server error %d: %s", e.Code, e.Message)
}

// Standard codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Decode parses one message. A body that is not a JSON-RPC 2.0 message is an
// error of kind errs.Protocol; one that repeats a key the message is routed
// by is an *InvalidRequest (of that kind too).
//
// It checks the whole body with jsonscan.Valid (encoding/json.Valid's
// answer in a fraction of its time) and then reads only the envelope's
// members, leaving params and result as raw JSON: the reflection-based
// Unmarshal of the envelope was the largest CPU cost of a small request.
func Decode(b []byte) (*Message, error) {
	if !jsonscan.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, errs.Errorf(errs.Protocol, "", "not a JSON-RPC message: %v", err)
	}
	m := &Message{}
	var version, idRaw, method, errRaw []byte
	var seen, repeated member
	var params paramKeys
	end := jsonscan.Object(b, 0, func(key []byte, at int) int {
		k := envelopeMember(key)
		var vEnd int
		if k == memberParams && b[at] == '{' {
			// Its top-level keys are read on the way (repeated "name" or
			// "uri"), in the one pass over it.
			vEnd = jsonscan.Object(b, at, func(key []byte, at int) int {
				params.note(key)
				return jsonscan.SkipValue(b, at)
			})
		} else {
			vEnd = jsonscan.SkipValue(b, at)
		}
		if vEnd < 0 {
			return -1
		}
		val := b[at:vEnd]
		if seen&k != 0 {
			repeated |= k
			return vEnd
		}
		seen |= k
		switch k {
		case memberJSONRPC:
			version = val
		case memberID:
			idRaw = val
		case memberMethod:
			method = val
		case memberParams:
			m.Params = json.RawMessage(val)
		case memberResult:
			m.Result = json.RawMessage(val)
		case memberError:
			errRaw = val
		}
		return vEnd
	})
	hasResult := seen&memberResult != 0
	if end < 0 {
		return nil, errs.New(errs.Protocol, "", "not a JSON-RPC message: not a JSON object")
	}
	if repeated != 0 {
		ir := &InvalidRequest{Reason: repeated.first() + " appears more than once (JSON parsers differ on which one counts)",
			response: seen&memberMethod == 0 && seen&(memberResult|memberError) != 0}
		if repeated&memberID == 0 && idRaw != nil {
			ir.ID.UnmarshalJSON(idRaw) // a bad id stays zero
		}
		return nil, ir
	}
	if string(version) != `"2.0"` {
		return nil, errs.New(errs.Protocol, "", `not a JSON-RPC 2.0 message: "jsonrpc" is not "2.0"`)
	}
	if idRaw != nil {
		if err := m.ID.UnmarshalJSON(idRaw); err != nil {
			return nil, errs.Errorf(errs.Protocol, "", "not a JSON-RPC message: %v", err)
		}
	}
	if method != nil {
		// The body is valid JSON: a string without escapes (and valid
		// UTF-8) is its bytes.
		var plain bool
		if name, ok := jsonscan.SimpleString(method); ok {
			m.Method, plain = methodName(name), true
		}
		if !plain {
			if err := json.Unmarshal(method, &m.Method); err != nil {
				return nil, errs.New(errs.Protocol, "", "not a JSON-RPC message: method is not a string")
			}
		}
	}
	if params.repeated != "" {
		return nil, &InvalidRequest{ID: m.ID, Reason: "params " + params.repeated + " appears more than once (JSON parsers differ on which one counts)"}
	}
	if errRaw != nil && string(errRaw) != "null" {
		m.Error = &Error{}
		if err := json.Unmarshal(errRaw, m.Error); err != nil {
			return nil, errs.Errorf(errs.Protocol, "", "not a JSON-RPC message: bad error object: %v", err)
		}
	}
	m.Params = nullToNil(m.Params)
	if hasResult && m.Result == nil {
		m.Result = json.RawMessage("null")
	}
	switch {
	case m.Method != "" && (hasResult || m.Error != nil):
		return nil, errs.New(errs.Protocol, "", "a JSON-RPC message has both a method and a result or error")
	case m.Method == "" && !hasResult && m.Error == nil:
		return nil, errs.New(errs.Protocol, "", "a JSON-RPC message has neither a method nor a result or error")
	case m.Method == "" && m.ID.IsZero() && m.Error == nil:
		return nil, errs.New(errs.Protocol, "", "a JSON-RPC response has no id")
	}
	return m, nil
}

// member is a set of the envelope's members, one bit each.
type member uint8

const (
	memberJSONRPC member = 1 << iota
	memberID
	memberMethod
	memberParams
	memberResult
	memberError
)

var memberNames = [...]string{`"jsonrpc"`, `"id"`, `"method"`, `"params"`, `"result"`, `"error"`}

// first names the lowest member in the set.
func (s member) first() string {
	for i, n := range memberNames {
		if s&(1<<i) != 0 {
			return n
		}
	}
	return ""
}

// envelopeMember says which envelope member a key (JSON-quoted) names, or
// 0. A key is compared as a parser reads it: "\u006dethod" is "method".
func envelopeMember(key []byte) member {
	switch string(keyName(key)) {
	case "jsonrpc":
		return memberJSONRPC
	case "id":
		return memberID
	case "method":
		return memberMethod
	case "params":
		return memberParams
	case "result":
		return memberResult
	case "error":
		return memberError
	}
	return 0
}

// keyName is a member's key (JSON-quoted, from a valid body) as a parser
// reads it. Only a key with a backslash is decoded; the rest are their
// bytes (an invalid UTF-8 byte cannot make a key equal to an ASCII name).
func keyName(key []byte) []byte {
	name := key[1 : len(key)-1]
	if bytes.IndexByte(name, '\\') < 0 {
		return name
	}
	var s string
	json.Unmarshal(key, &s)
	return []byte(s)
}

// paramKeys watches params' top-level keys for a repeated "name" or "uri":
// what a request is routed by (Mcp-Name, a gateway's policy) must mean one
// thing.
type paramKeys struct {
	name, uri bool
	repeated  string // the quoted key, once one repeats
}

func (p *paramKeys) note(key []byte) {
	switch string(keyName(key)) {
	case "name":
		if p.name {
			p.repeated = `"name"`
		}
		p.name = true
	case "uri":
		if p.uri {
			p.repeated = `"uri"`
		}
		p.uri = true
	}
}

// InvalidRequest is Decode's error for a JSON object that reads as a
// message but must not be acted on: it repeats an envelope member, or
// params' "name" or "uri". Parsers keep the first or the last of repeated
// keys, so a gateway routing the message and the server behind it would
// act on different ones. A server answers it with RPCError and ID; a
// client skips it (or fails the call it answered).
type InvalidRequest struct {
	ID     ID // the message's id; zero when it has none, or the id is what repeats
	Reason string
	// response: shaped like a response (a result or an error, no method).
	response bool
}

func (e *InvalidRequest) Error() string { return e.Reason }

// Unwrap gives the error its kind (errs.Protocol) for errs.KindOf and errs.Is.
func (e *InvalidRequest) Unwrap() error { return errs.New(errs.Protocol, "", e.Reason) }

// RPCError is the answer to the message: -32600 Invalid Request.
func (e *InvalidRequest) RPCError() *Error {
	return &Error{Code: CodeInvalidRequest, Message: "invalid message: " + e.Reason}
}

// RefusedID is the id to answer a Decode error with: the message's id when
// Decode refused it as an *InvalidRequest and could read it, else the zero
// ID (null).
func RefusedID(err error) ID {
	var ir *InvalidRequest
	if errors.As(err, &ir) {
		return ir.ID
	}
	return ID{}
}

func nullToNil(r json.RawMessage) json.RawMessage {
	if string(r) == "null" {
		return nil
	}
	return r
}

// AppendRequest appends a request (or, with a zero id, a notification) to
// dst. params must be valid JSON or nil.
func AppendRequest(dst []byte, id ID, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	if !id.IsZero() {
		dst = append(dst, `,"id":`...)
		dst = append(dst, id.raw...)
	}
	dst = append(dst, `,"method":`...)
	dst = jsonscan.AppendString(dst, method)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// AppendResponse appends a response with result or err to dst.
func AppendResponse(dst []byte, id ID, result json.RawMessage, rerr *Error) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if id.IsZero() {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, id.raw...)
	}
	if rerr != nil {
		b, _ := json.Marshal(rerr)
		dst = append(dst, `,"error":`...)
		dst = append(dst, b...)
	} else {
		if len(result) == 0 {
			result = json.RawMessage("{}")
		}
		dst = append(dst, `,"result":`...)
		dst = append(dst, result...)
	}
	return append(dst, '}')
}

// Encode returns the message's wire form.
func (m *Message) Encode() []byte {
	if m.IsResponse() || (m.Method == "" && !m.ID.IsZero()) {
		return AppendResponse(nil, m.ID, m.Result, m.Error)
	}
	return AppendRequest(nil, m.ID, m.Method, m.Params)
}

// methodName is the method named by b: for the methods of MCP, the
// constant itself, so that a message does not make a string of its own
// for them (the switch compares b without making one).
func methodName(b []byte) string {
	switch string(b) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "ping":
		return "ping"
	case "initialize":
		return "initialize"
	case "server/discover":
		return "server/discover"
	case "notifications/initialized":
		return "notifications/initialized"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/progress":
		return "notifications/progress"
	case "notifications/message":
		return "notifications/message"
	case "resources/read":
		return "resources/read"
	case "resources/list":
		return "resources/list"
	case "resources/templates/list":
		return "resources/templates/list"
	case "prompts/get":
		return "prompts/get"
	case "prompts/list":
		return "prompts/list"
	case "completion/complete":
		return "completion/complete"
	case "tasks/get":
		return "tasks/get"
	case "tasks/result":
		return "tasks/result"
	case "sampling/createMessage":
		return "sampling/createMessage"
	case "elicitation/create":
		return "elicitation/create"
	case "roots/list":
		return "roots/list"
	}
	return string(b)
}
