// Package agent is the loop between a model and tools: it offers the
// model a hub's MCP tools (under their qualified names, server__tool),
// the hub's resources as two meta-tools, skills (Config.Skills) by name
// with two tools that load them, and tools of its own; it runs the
// calls the model asks for through hooks and approval (runtime/approval),
// several at once when the model asks for several, and feeds the results
// back until the model answers or a limit ends the loop. It knows nothing of
// Lua: luabind adapts Lua tools, policies and hooks to the functions here.
//
//	a := agent.New(agent.Config{Model: m, Hub: h, System: "You are terse."})
//	text, tr, err := a.Ask(ctx, "What is in README.md?")
//	b, _ := json.Marshal(tr) // the transcript, to save
//
// The conversation persists across Ask calls until Reset.
package agent

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/compact"
	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/skills"
	"github.com/luagent/luagent/runtime/trace"
)

// Defaults of Config.
const (
	DefaultMaxTurns          = 20
	DefaultMetaToolThreshold = 40
)

// Tool search modes (Config.ToolSearch), as config.json's toolSearch and
// agent.new's tool_search name them.
const (
	ToolSearchAuto   = "auto"   // defer above MetaToolThreshold tools (the default)
	ToolSearchAlways = "always" // defer the hub's tools whatever their number
	ToolSearchNever  = "never"  // offer every tool, however many
)

// NoApproverReason is why an Ask decision is a denial when nobody can be
// asked (Config.Ask is nil and Config.Yes is false).
const NoApproverReason = approval.NoApproverReason

// Config configures an Agent. Model is required; the rest is optional.
type Config struct {
	Model llm.Model
	// System is the agent's own system prompt; each ready server's
	// instructions are appended to it, labelled by server.
	System string

	// Hub gives the MCP tools and resources (nil: none). Servers narrows
	// them to a subset of the hub's servers (nil: all).
	Hub     *hub.Hub
	Servers []string
	// Tools are the agent's own tools, offered beside the hub's. A name
	// also used by a hub tool shadows it.
	Tools []LocalTool
	// Skills are offered by name and description in the system prompt,
	// with load_skill and read_skill_file (nil: none). A server's skills
	// outside Servers are left out. Nothing is read until the model loads
	// a skill.
	Skills skills.Source

	// Approve decides each call (nil: approval.Default); it runs
	// concurrently for the calls of one turn. Ask is how an interactive
	// host asks a person when Approve says Ask (one question at a time);
	// nil means nobody can be asked, and an Ask becomes a Deny
	// (NoApproverReason) unless Yes, which allows every Ask without
	// asking.
	Approve func(ctx context.Context, c Call) (Decision, string)
	Ask     func(ctx context.Context, c Call) (Decision, string)
	Yes     bool
	// Rules are the agent's own permission rules (runtime/permission),
	// decided before Approve, with the host's (SetRules).
	Rules approval.Rules

	// Hooks. BeforeTool runs before the policy and may change
	// c.Arguments; an error denies the call (its text is the reason).
	// AfterTool may change the result the model sees. BeforeModel may
	// change each request; AfterModel sees each response. They run on
	// the loop's goroutines: BeforeTool and AfterTool concurrently when
	// the model asks for several calls at once.
	BeforeTool  func(ctx context.Context, c *Call) error
	AfterTool   func(ctx context.Context, c Call, r *Result)
	BeforeModel func(ctx context.Context, r *llm.Request)
	AfterModel  func(ctx context.Context, r *llm.Response)
	// HookSet is the lifecycle hooks (runtime/hooks: config.json's
	// commands, Lua handlers; hooks.go), nil: none until On adds one.
	// Subagent makes an answer fire SubagentStop instead of Stop.
	HookSet  *hooks.Set
	Subagent bool

	// MaxTurns bounds the model calls of one Ask (0: DefaultMaxTurns).
	// TokenBudget bounds the tokens (input + output, summed over the
	// turns) of one Ask (0: no bound). Timeout bounds one Ask's wall time
	// (0: none beyond ctx).
	MaxTurns    int
	TokenBudget int
	Timeout     time.Duration
	// MaxCost bounds what the agent's requests cost, in USD, summed over
	// its Asks (0: no bound): checked after each model response, before
	// the next request; reaching it ends the Ask with a limit error
	// (EndCost), keeping what was done. A model with no known price
	// cannot be bounded: Ask fails at once (errs.Invalid).
	MaxCost float64
	// Prices prices the requests (nil: the built-in list prices of
	// runtime/cost); a configured model's "price" is Set in it by name.
	Prices *cost.Table
	// MetaToolThreshold: when the MCP tools offered (hub tools plus local
	// tools) number more than this, mcp_search_tools replaces the hub's
	// tools and the model calls what it finds (0: the default 40; < 0:
	// never).
	MetaToolThreshold int
	// ToolSearch is when mcp_search_tools stands for the hub's tools:
	// ToolSearchAuto ("" too) above MetaToolThreshold, ToolSearchAlways
	// whenever the hub offers a tool, ToolSearchNever not at all.
	ToolSearch string

	// OnEvent receives the loop's events as they happen: text deltas,
	// tool calls starting, progressing and ending, approvals, the end.
	// Calls are serialized; it must return quickly.
	OnEvent func(Event)
	// Name names the agent in its trace events (and as a served tool).
	Name string

	// Bindings pin tool arguments (see Binding). Secrets are values
	// (parameters marked secret) masked as SecretMask in everything the
	// agent reports: events, trace, transcript, the text it returns, and
	// the tool results the model sees.
	Bindings []Binding
	Secrets  []string
	// CodeMode offers the model run_lua, a Lua snippet calling the tools
	// (codemode.go); the zero value is off.
	CodeMode CodeMode
	// Trace receives the loop's trace events (model requests and
	// responses, approvals, tool calls, the end).
	Trace trace.Sink

	// The context window (context.go, runtime/compact). ContextWindow is
	// the model's window in tokens (0: llm.KnownWindow of the model's
	// name, which may be unknown; < 0: unknown). CompactThreshold is the
	// share of it a request's input tokens reach for the next request to
	// compact the conversation first (0: compact.DefaultThreshold, 0.8).
	// KeepTurns is how many last user turns stay whole (0:
	// compact.DefaultKeepTurns). Summarize writes the summary of the older
	// turns (nil: the model, asked with compact.SummaryPrompt).
	ContextWindow    int
	CompactThreshold float64
	KeepTurns        int
	Summarize        compact.Summarizer
	// NoCompaction turns compaction off: not before a request, not after
	// a context_length error (Compact, /compact, still compacts).
	NoCompaction bool
	// ToolResultLimit bounds the bytes of a tool result's text the model
	// gets at once; the rest it pages with read_tool_result (0:
	// compact.DefaultResultLimit, 40 kB; < 0: never cut).
	ToolResultLimit int
}

// Agent is a model with tools and a conversation. Ask calls on one Agent
// run one at a time.
type Agent struct {
	cfg Config

	mu       sync.Mutex // held by Ask: one conversation, one loop at a time
	messages []llm.Message
	found    map[string]bool // hub tools found by mcp_search_tools (meta mode)
	ids      int             // tool call ids made up for models without them

	evMu sync.Mutex // serializes OnEvent

	sampleEdit atomic.Pointer[SampleEdit] // SetSampleEdit's (session.go)
	// approver runs Config.Approve and asks Config.Ask (or SetAsk's: a
	// server may sample at any time).
	approver *approval.Approver

	secrets *secret.Masker // Config.Secrets' masks (nil: none)

	lc       lifecycle                   // the lifecycle hooks' state (hooks.go)
	recorder atomic.Pointer[recorderBox] // SetRecorder's (record.go)
	recorded int                         // a.messages[:recorded] were told to it (under mu)

	costMu  sync.Mutex // guards costs, run and maxCost
	costs   Costs      // every request's usage and cost (cost.go)
	run     *costRun   // the running Ask's accounting (nil: none)
	maxCost float64    // Config.MaxCost, or what SetLimits set
	// The context window's state (context.go; under mu).
	lastInput   int      // the last request's input tokens (0: none since a compaction)
	trBase      int      // a.messages[trBase:] are the running Ask's, not yet in its transcript
	pinned      []string // Pin's notes
	compactions int
	results     *compact.Store // cut tool results (nil: none are cut)
}

// New returns an agent over cfg.
func New(cfg Config) *Agent {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.MetaToolThreshold == 0 {
		cfg.MetaToolThreshold = DefaultMetaToolThreshold
	}
	a := &Agent{cfg: cfg, maxCost: cfg.MaxCost, found: map[string]bool{}, secrets: secret.NewMasker(cfg.Secrets),
		approver: approval.New(cfg.Approve, cfg.Ask, cfg.Yes).WithRules(cfg.Rules)}
	if cfg.ToolResultLimit >= 0 {
		a.results = compact.NewStore(cfg.ToolResultLimit)
	}
	a.initHooks()
	return a
}

// Reset forgets the conversation (and the tools found by search).
func (a *Agent) Reset() {
	a.mu.Lock()
	a.messages = nil
	a.found = map[string]bool{}
	a.recorded = 0
	a.lastInput = 0
	if a.results != nil {
		a.results.Reset()
	}
	a.mu.Unlock()
	a.resetHooks()
}

// Messages returns a copy of the conversation so far.
func (a *Agent) Messages() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.messages...)
}

// LocalTool is a tool the agent runs itself (Go code, or a Lua function
// adapted by luabind).
type LocalTool struct {
	Name        string // ^[a-zA-Z0-9_-]{1,64}$
	Description string
	// Schema is the JSON Schema of the arguments (nil: any object).
	Schema json.RawMessage
	// Annotations are as MCP's; ReadOnlyHint lets approval.Default allow
	// the tool without asking.
	Annotations *Annotations
	Call        func(ctx context.Context, args json.RawMessage) (Result, error)
}

// Annotations are a tool's MCP annotations (hints).
type Annotations = approval.Annotations

// Result is a tool's result as MCP has it: content blocks (text, image,
// audio, resource_link, resource), structured content, and whether it is
// an error.
type Result struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// TextResult is a result of one text block.
func TextResult(text string, isError bool) Result {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return Result{Content: []json.RawMessage{b}, IsError: isError}
}

// Call is one tool call the model asked for, as hooks and the policy see
// it (approval.Call).
type Call = approval.Call

// Tool kinds of a Call.
const (
	KindMCP   = approval.KindMCP
	KindLocal = approval.KindLocal
	KindMeta  = approval.KindMeta
)

// Decision is an approval policy's answer (approval.Decision).
type Decision = approval.Decision

// The decisions.
const (
	Allow = approval.Allow
	Deny  = approval.Deny
	Ask   = approval.Ask // ask a person (Config.Ask), or deny if nobody can answer
)

// EndReason says why a loop ended.
type EndReason string

// The end reasons.
const (
	EndAnswer    EndReason = "answer"    // the model answered without asking for tools
	EndMaxTurns  EndReason = "max_turns" // Config.MaxTurns model calls were made
	EndBudget    EndReason = "budget"    // Config.TokenBudget tokens were spent
	EndCost      EndReason = "max_cost"  // Config.MaxCost USD were spent
	EndTimeout   EndReason = "timeout"   // Config.Timeout (or ctx's deadline) passed
	EndCancelled EndReason = "cancelled" // ctx was cancelled
	EndError     EndReason = "error"     // the model failed (the error says how)
)
