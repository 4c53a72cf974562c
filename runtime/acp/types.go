// Package acp is the Agent Client Protocol (protocol version 1) on the
// agent's side: newline-delimited JSON-RPC 2.0 over a pair of streams
// (an editor runs the agent and talks to it on its stdin and stdout).
// It knows the wire: the methods an editor calls (initialize,
// authenticate, session/new, session/load, session/prompt, session/cancel,
// session/set_mode), the notifications and requests the agent sends back
// (session/update, session/request_permission, fs/*, terminal/*), the
// JSON-RPC errors for bad input, and the limits (a line's size, the
// requests in flight). What a session does is the Handler's: luagent's
// agent is wired in cmd/luagent (acp.go). The schema is
// github.com/agentclientprotocol/agent-client-protocol schema/schema.json.
package acp

import "encoding/json"

// ProtocolVersion is the ACP version spoken.
const ProtocolVersion = 1

// Method names.
const (
	MethodInitialize   = "initialize"
	MethodAuthenticate = "authenticate"
	MethodSessionNew   = "session/new"
	MethodSessionLoad  = "session/load"
	MethodPrompt       = "session/prompt"
	MethodCancel       = "session/cancel"
	MethodSetMode      = "session/set_mode"

	MethodUpdate            = "session/update"
	MethodRequestPermission = "session/request_permission"
	MethodReadTextFile      = "fs/read_text_file"
	MethodWriteTextFile     = "fs/write_text_file"
	MethodTerminalCreate    = "terminal/create"
	MethodTerminalOutput    = "terminal/output"
	MethodTerminalWait      = "terminal/wait_for_exit"
	MethodTerminalKill      = "terminal/kill"
	MethodTerminalRelease   = "terminal/release"
	MethodElicitationCreate = "elicitation/create"
)

// CodeAuthRequired is ACP's error for a method that needs authenticate
// first.
const CodeAuthRequired = -32000

// Implementation names a client or an agent.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeRequest is initialize's params.
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
}

// ClientCapabilities are what the client offers the agent.
type ClientCapabilities struct {
	FS       FileSystemCapabilities `json:"fs"`
	Terminal bool                   `json:"terminal"`
	// Elicitation is elicitation/create's modes (nil: none).
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
}

// ElicitationCapabilities say which elicitation modes the client shows:
// a mode is offered when its member is an object ({}).
type ElicitationCapabilities struct {
	Form json.RawMessage `json:"form,omitempty"`
	URL  json.RawMessage `json:"url,omitempty"`
}

// Offers reports whether the client takes elicitations in mode ("form"
// or "url").
func (c ClientCapabilities) Offers(mode string) bool {
	if c.Elicitation == nil {
		return false
	}
	raw := c.Elicitation.Form
	if mode == "url" {
		raw = c.Elicitation.URL
	}
	return len(raw) > 0 && raw[0] == '{'
}

// FileSystemCapabilities are the client's fs/* methods.
type FileSystemCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// InitializeResponse is initialize's result.
type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
}

// AgentCapabilities are what the agent supports.
type AgentCapabilities struct {
	LoadSession        bool               `json:"loadSession"`
	PromptCapabilities PromptCapabilities `json:"promptCapabilities"`
	MCPCapabilities    MCPCapabilities    `json:"mcpCapabilities"`
}

// PromptCapabilities are the content kinds a prompt may hold beyond text
// and resource links.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// MCPCapabilities are the MCP transports session/new takes besides stdio.
type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// AuthMethod is a way to authenticate.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// AuthenticateRequest is authenticate's params.
type AuthenticateRequest struct {
	MethodID string `json:"methodId"`
}

// MCPServer is one MCP server the client asks the session to connect:
// stdio (Command set, no Type) or http/sse (URL set).
type MCPServer struct {
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
}

// EnvVariable is one variable of a stdio server's environment.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPHeader is one header of an http server's requests.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NewSessionRequest is session/new's params.
type NewSessionRequest struct {
	Cwd        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

// LoadSessionRequest is session/load's params.
type LoadSessionRequest struct {
	SessionID  string      `json:"sessionId"`
	Cwd        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
}

// SessionMode is one of the modes a session may be in.
type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SessionModeState is the modes and the current one.
type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// NewSessionResponse is session/new's result.
type NewSessionResponse struct {
	SessionID string            `json:"sessionId"`
	Modes     *SessionModeState `json:"modes,omitempty"`
}

// LoadSessionResponse is session/load's result.
type LoadSessionResponse struct {
	Modes *SessionModeState `json:"modes,omitempty"`
}

// PromptRequest is session/prompt's params.
type PromptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

// ContentBlock is a piece of a prompt or of a message: text, image,
// audio, resource_link or resource (embedded).
type ContentBlock struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"`
	MIMEType string            `json:"mimeType,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Resource *EmbeddedResource `json:"resource,omitempty"`
}

// EmbeddedResource is a resource block's contents.
type EmbeddedResource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// TextBlock is a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// StopReason says why a prompt turn ended.
type StopReason string

// The stop reasons.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// PromptResponse is session/prompt's result.
type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
}

// CancelNotification is session/cancel's params.
type CancelNotification struct {
	SessionID string `json:"sessionId"`
}

// SetModeRequest is session/set_mode's params.
type SetModeRequest struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// Session update kinds (Update.SessionUpdate).
const (
	UpdateUserMessage  = "user_message_chunk"
	UpdateAgentMessage = "agent_message_chunk"
	UpdateAgentThought = "agent_thought_chunk"
	UpdateToolCall     = "tool_call"
	UpdateToolCallUpd  = "tool_call_update"
	UpdatePlan         = "plan"
	UpdateCurrentMode  = "current_mode_update"
	UpdateCommands     = "available_commands_update"
)

// AvailableCommand is a slash command the client may offer: a prompt
// "/NAME args" runs it.
type AvailableCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *CommandInput `json:"input,omitempty"`
}

// CommandInput is what the command's argument is, as a hint.
type CommandInput struct {
	Hint string `json:"hint"`
}

// Update is one session/update's update. Content is a chunk's block;
// the tool call fields are a tool_call's or a tool_call_update's.
type Update struct {
	SessionUpdate string `json:"sessionUpdate"`
	// A message chunk's.
	Content *ContentBlock `json:"content,omitempty"`
	// A tool call's (ToolCallFields, flattened).
	*ToolCall
	// current_mode_update's.
	CurrentModeID string `json:"currentModeId,omitempty"`
	// plan's.
	Entries []PlanEntry `json:"entries,omitempty"`
	// available_commands_update's.
	Commands []AvailableCommand `json:"availableCommands,omitempty"`
}

// MarshalJSON flattens the tool call's fields beside sessionUpdate (a
// chunk's "content" is one block, a tool call's a list).
func (u Update) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if u.ToolCall != nil {
		raw, err := json.Marshal(u.ToolCall)
		if err != nil {
			return nil, err
		}
		// Its members as they were encoded: a number in rawInput keeps
		// every digit (decoded to any it became a float64).
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, err
		}
		for k, v := range fields {
			m[k] = v
		}
	}
	m["sessionUpdate"] = u.SessionUpdate
	if u.Content != nil {
		m["content"] = u.Content
	}
	if u.CurrentModeID != "" {
		m["currentModeId"] = u.CurrentModeID
	}
	if u.SessionUpdate == UpdateCommands {
		m["availableCommands"] = u.Commands
		if u.Commands == nil {
			m["availableCommands"] = []AvailableCommand{}
		}
	}
	if u.SessionUpdate == UpdatePlan {
		m["entries"] = u.Entries
		if u.Entries == nil {
			m["entries"] = []PlanEntry{}
		}
	}
	return json.Marshal(m)
}

// PlanEntry is one step of a plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
}

// ToolKind is the kind of a tool call, for the client's icons.
type ToolKind string

// The tool kinds.
const (
	KindRead    ToolKind = "read"
	KindEdit    ToolKind = "edit"
	KindDelete  ToolKind = "delete"
	KindMove    ToolKind = "move"
	KindSearch  ToolKind = "search"
	KindExecute ToolKind = "execute"
	KindThink   ToolKind = "think"
	KindFetch   ToolKind = "fetch"
	KindOther   ToolKind = "other"
)

// ToolCallStatus is where a tool call is.
type ToolCallStatus string

// The statuses.
const (
	StatusPending    ToolCallStatus = "pending"
	StatusInProgress ToolCallStatus = "in_progress"
	StatusCompleted  ToolCallStatus = "completed"
	StatusFailed     ToolCallStatus = "failed"
)

// ToolCall is a tool_call's fields, and a tool_call_update's (where all
// but the id are optional).
type ToolCall struct {
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title,omitempty"`
	Kind       ToolKind          `json:"kind,omitempty"`
	Status     ToolCallStatus    `json:"status,omitempty"`
	Content    []ToolCallContent `json:"content,omitempty"`
	Locations  []Location        `json:"locations,omitempty"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage   `json:"rawOutput,omitempty"`
}

// ToolCallContent is what a tool call shows: a content block
// (Type "content"), a diff, or a terminal.
type ToolCallContent struct {
	Type       string        `json:"type"`
	Content    *ContentBlock `json:"content,omitempty"`
	Path       string        `json:"path,omitempty"`
	OldText    *string       `json:"oldText,omitempty"`
	NewText    *string       `json:"newText,omitempty"`
	TerminalID string        `json:"terminalId,omitempty"`
}

// Location is a file (and line) a tool call works on.
type Location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PermissionOptionKind is what choosing an option means.
type PermissionOptionKind string

// The option kinds.
const (
	AllowOnce    PermissionOptionKind = "allow_once"
	AllowAlways  PermissionOptionKind = "allow_always"
	RejectOnce   PermissionOptionKind = "reject_once"
	RejectAlways PermissionOptionKind = "reject_always"
)

// PermissionOption is one answer the client may choose.
type PermissionOption struct {
	OptionID string               `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
}

// RequestPermissionRequest is session/request_permission's params.
type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCall           `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// RequestPermissionResponse is its result.
type RequestPermissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // cancelled, selected
		OptionID string `json:"optionId,omitempty"`
	} `json:"outcome"`
}

// ReadTextFileRequest is fs/read_text_file's params.
type ReadTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

// ReadTextFileResponse is its result.
type ReadTextFileResponse struct {
	Content string `json:"content"`
}

// WriteTextFileRequest is fs/write_text_file's params.
type WriteTextFileRequest struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// CreateTerminalRequest is terminal/create's params.
type CreateTerminalRequest struct {
	SessionID       string        `json:"sessionId"`
	Command         string        `json:"command"`
	Args            []string      `json:"args,omitempty"`
	Env             []EnvVariable `json:"env,omitempty"`
	Cwd             string        `json:"cwd,omitempty"`
	OutputByteLimit int           `json:"outputByteLimit,omitempty"`
}

// CreateTerminalResponse is its result.
type CreateTerminalResponse struct {
	TerminalID string `json:"terminalId"`
}

// TerminalRequest is the params of terminal/output, wait_for_exit, kill
// and release.
type TerminalRequest struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

// TerminalExitStatus is how a terminal's command ended.
type TerminalExitStatus struct {
	ExitCode *int    `json:"exitCode,omitempty"`
	Signal   *string `json:"signal,omitempty"`
}

// TerminalOutputResponse is terminal/output's result.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
}
