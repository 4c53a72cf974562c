// Package mcp is the Model Context Protocol for luagent's Go core: the
// protocol types of both eras and the Client, which negotiates the era with
// each server (the 2026-07-28 modern stateless revision, or the legacy
// initialize handshake of 2025-11-25 and earlier) and then offers one API
// whatever the server speaks: tools, resources, prompts, completion,
// logging, change notifications, server requests answered by callbacks
// (legacy server→client requests and modern input_required rounds alike)
// and tasks.
//
//	c, err := mcp.Connect(ctx, mcp.Options{Name: "fs",
//		Command: transport.Command{Path: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}}})
//	tools, err := c.Tools(ctx)
//	res, err := c.CallTool(ctx, "read_text_file", json.RawMessage(`{"path":"README.md"}`), mcp.CallOptions{})
//
// The Server answers both eras on any number of connections (ServeStream
// for stdio, runtime/transport/httpserver for Streamable HTTP). What it
// offers is registered with Go handlers — AddTool, AddResource, AddResourceTemplate,
// AddPrompt, SetCompletion, and their Remove counterparts — and it lists
// them, checks arguments against each tool's input schema, encodes results
// and tells clients when a list changes. A handler gets the request and
// answers once, from any goroutine, so it never holds up the connection;
// AddToolFunc serves a tool from a plain function instead:
//
//	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "calc", Version: "1.0.0"}})
//	mcp.AddToolFunc(srv, mcp.Tool{Name: "add"}, func(ctx context.Context, in struct{ A, B float64 }) (*mcp.CallToolResult, error) {
//		return mcp.TextResult(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil
//	})
//	srv.ServeStream(ctx, transport.NewStdio(os.Stdin, os.Stdout, 0))
//
// No package of runtime/ imports Lua: a Go program can use this alone.
package mcp

import (
	"encoding/json"
)

// Protocol versions.
const (
	ModernVersion = "2026-07-28"
	LegacyVersion = "2025-11-25"
)

// ModernVersions are the per-request (modern) revisions luagent speaks, most
// preferred first.
var ModernVersions = []string{ModernVersion}

// LegacyVersions are the handshake revisions luagent accepts from servers,
// most preferred first.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Era is which family of revisions a server speaks.
type Era int

const (
	EraUnknown Era = iota
	EraLegacy
	EraModern
)

func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	}
	return "unknown"
}

// Keys of the modern request and result envelope (params._meta, result._meta).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaRelatedTask        = "io.modelcontextprotocol/related-task"
	TasksExtension         = "io.modelcontextprotocol/tasks"
)

// Error codes of MCP beyond JSON-RPC's.
const (
	CodeResourceNotFound           = -32002 // legacy
	CodeHeaderMismatch             = -32020 // modern
	CodeMissingClientCapability    = -32021 // modern
	CodeUnsupportedProtocolVersion = -32022 // modern
	CodeURLElicitationRequired     = -32042 // legacy
)

// IsModernErrorCode reports whether code is one of the errors only a modern
// server sends; it identifies the server's era during the probe. The
// pre-release numbers (-32001, -32003, -32004) are deliberately not here.
func IsModernErrorCode(code int) bool {
	return code == CodeHeaderMismatch || code == CodeMissingClientCapability || code == CodeUnsupportedProtocolVersion
}

// Result types of modern results.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
	ResultTask          = "task"
)

// Implementation names a client or server.
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// ServerCapabilities is what a server offers. Unknown members are kept in
// Raw.
type ServerCapabilities struct {
	Tools *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"tools,omitempty"`
	Resources *struct {
		Subscribe   bool `json:"subscribe,omitempty"`
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"resources,omitempty"`
	Prompts *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"prompts,omitempty"`
	Logging     json.RawMessage            `json:"logging,omitempty"`
	Completions json.RawMessage            `json:"completions,omitempty"`
	Tasks       *LegacyTaskCapability      `json:"tasks,omitempty"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
	Raw         json.RawMessage            `json:"-"`
}

// LegacyTaskCapability is the 2025-11-25 experimental tasks capability.
type LegacyTaskCapability struct {
	List     json.RawMessage `json:"list,omitempty"`
	Cancel   json.RawMessage `json:"cancel,omitempty"`
	Requests *struct {
		Tools *struct {
			Call json.RawMessage `json:"call,omitempty"`
		} `json:"tools,omitempty"`
	} `json:"requests,omitempty"`
}

// Info is what the client learned about a server when it connected.
type Info struct {
	Era             Era
	ProtocolVersion string
	ServerInfo      Implementation
	Capabilities    ServerCapabilities
	Instructions    string
	// SupportedVersions is the modern server's list (DiscoverResult).
	SupportedVersions []string
}

// Tool is one entry of tools/list. Raw is the whole object as the server
// sent it, for callers that want every field (the Lua binding); given to
// Server.AddTool, it is listed as is.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Raw          json.RawMessage  `json:"-"`
	// ManualTask (server side): a task tool whose handler makes the call a
	// task itself (Request.StartTask), after asking for input the way an
	// ordinary call does; otherwise the call is a task before the handler
	// runs.
	ManualTask bool `json:"-"`
}

// ToolExecution says how a tool runs: TaskSupport "optional", "required"
// or "forbidden" (the default).
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ToolAnnotations are a tool's hints about its behaviour.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Root is a filesystem root the client exposes.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// CallToolResult is a tools/call result. Raw is the whole result object:
// as received (client), or sent as is when set (server).
type CallToolResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
	Raw               json.RawMessage   `json:"-"`
}

// Text returns the text of the result's text content blocks, joined by
// newlines.
func (r *CallToolResult) Text() string {
	var out []byte
	for _, c := range r.Content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &b) == nil && b.Type == "text" {
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, b.Text...)
		}
	}
	return string(out)
}

// Progress is one notifications/progress update, or a task status update
// delivered the same way.
type Progress struct {
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
	// Status is set for task status updates ("working", "input_required").
	Status string `json:"-"`
}

// LogMessage is a notifications/message.
type LogMessage struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// LogLevels are the RFC 5424 levels MCP logging uses, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// inputRequest is one entry of a modern InputRequiredResult.inputRequests.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}
