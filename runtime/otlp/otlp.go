// Package otlp exports luagent's trace events as OpenTelemetry spans over
// OTLP/HTTP (--otlp URL). Each span is a pair of events that share a
// span id (runtime/trace's span kinds): an agent run, its turns, each
// model request and tool call under a turn, and the MCP request a tool
// call makes. Attribute names follow the OpenTelemetry GenAI and MCP
// semantic conventions where they define one (gen_ai.*, mcp.*,
// jsonrpc.request.id, error.type); luagent.* where they do not.
//
// Events never carry secrets (runtime/trace's rule), so neither do spans:
// no arguments, results or prompts are exported.
package otlp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/trace"
)

// MaxOpen bounds the spans started and not yet ended (a start whose end
// never comes, e.g. a process killed mid-call, must not grow memory
// without end). Starts past it are not exported and are counted.
const MaxOpen = 10000

// Sink is a trace.Sink that turns event pairs into spans.
type Sink struct {
	tp     *sdktrace.TracerProvider
	tracer oteltrace.Tracer

	mu      sync.Mutex
	open    map[string]oteltrace.Span
	skipped int
}

// Options name the service the spans come from.
type Options struct {
	Service, Version string
	// Timeout bounds one export (5 s).
	Timeout time.Duration
}

// New returns a sink exporting to endpoint, a full OTLP/HTTP traces URL
// (http://127.0.0.1:4318/v1/traces). Spans are sent in batches by the
// SDK's batch processor as OTLP/HTTP JSON (export.go); Close sends what
// is left.
func New(endpoint string, o Options) (*Sink, error) {
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.Errorf(errs.Invalid, "otlp", "--otlp needs the collector's traces URL, e.g. http://127.0.0.1:4318/v1/traces")
	}
	quiet()
	if o.Service == "" {
		o.Service = "luagent"
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	exp := &exporter{url: endpoint, client: &http.Client{Timeout: o.Timeout}, backoff: 250 * time.Millisecond}
	res := resource.NewSchemaless(attribute.String("service.name", o.Service), attribute.String("service.version", o.Version))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithMaxQueueSize(4096), sdktrace.WithExportTimeout(2*o.Timeout)), sdktrace.WithResource(res))
	return &Sink{tp: tp, tracer: tp.Tracer("github.com/luagent/luagent"), open: map[string]oteltrace.Span{}}, nil
}

var (
	quietOnce sync.Once
	failures  atomic.Int64
)

// quiet keeps the SDK's own logging off stderr (the program's output is
// the user's) and counts export failures instead, for Failures.
func quiet() {
	quietOnce.Do(func() {
		otel.SetLogger(logr.Discard())
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) { failures.Add(1) }))
	})
}

// Failures says how many exports failed in this process (a collector
// down or refusing).
func Failures() int64 { return failures.Load() }

// Skipped says how many span starts were not exported (MaxOpen).
func (s *Sink) Skipped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// Close ends the spans still open (marked unfinished) and sends what is
// queued, until ctx ends.
func (s *Sink) Close(ctx context.Context) error {
	s.mu.Lock()
	now := time.Now()
	for id, sp := range s.open {
		sp.SetAttributes(attribute.Bool("luagent.unfinished", true))
		sp.End(oteltrace.WithTimestamp(now))
		delete(s.open, id)
	}
	s.mu.Unlock()
	return s.tp.Shutdown(ctx)
}

// Emit starts or ends the span an event belongs to; other events become
// span events on their parent when it is open, or are ignored.
func (s *Sink) Emit(e trace.Event) {
	if e.Span == "" {
		return
	}
	switch e.Kind {
	case trace.AgentStart:
		s.start(e, "invoke_agent "+nonEmpty(e.Agent, "agent"), oteltrace.SpanKindInternal,
			attribute.String("gen_ai.operation.name", "invoke_agent"),
			attribute.String("gen_ai.agent.name", e.Agent),
			attribute.String("gen_ai.request.model", e.Method))
	case trace.TurnStart:
		s.start(e, "turn "+strconv.Itoa(e.Count), oteltrace.SpanKindInternal,
			attribute.Int("luagent.turn", e.Count))
	case trace.ModelRequest:
		provider, model := splitModel(e.Method)
		s.start(e, "chat "+model, oteltrace.SpanKindClient,
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", provider),
			attribute.String("gen_ai.request.model", model),
			attribute.Int("luagent.turn", e.Count))
	case trace.AgentToolStart:
		s.start(e, "execute_tool "+e.Tool, oteltrace.SpanKindInternal,
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", e.Tool),
			attribute.String("gen_ai.tool.call.id", e.ID),
			attribute.String("luagent.mcp.server", e.Server))
	case trace.ToolCallStart:
		s.start(e, "tools/call "+e.Tool, oteltrace.SpanKindClient,
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", e.Tool),
			attribute.String("luagent.mcp.server", e.Server))
	case trace.RequestSent:
		// tools/call has its span from the MCP client (ToolCallStart),
		// which knows the caller; the JSON-RPC view of it would be a
		// second, parentless span.
		if e.Method == "tools/call" {
			return
		}
		s.start(e, e.Method, oteltrace.SpanKindClient,
			attribute.String("mcp.method.name", e.Method),
			attribute.String("jsonrpc.request.id", e.ID),
			attribute.String("luagent.mcp.server", e.Server))
	case trace.ModelResponse:
		attrs := []attribute.KeyValue{attribute.Int("gen_ai.usage.input_tokens", e.Input), attribute.Int("gen_ai.usage.output_tokens", e.Output)}
		if e.CostUSD != nil {
			attrs = append(attrs, attribute.Float64("luagent.cost_usd", *e.CostUSD))
		}
		s.end(e, attrs...)
	case trace.ErrorReply:
		if e.Method == "tools/call" {
			return
		}
		if e.Error == "" {
			e.Error = e.Message
		}
		code := strconv.Itoa(e.Code)
		s.end(e, attribute.String("error.type", code), attribute.String("rpc.response.status_code", code))
	case trace.Response:
		if e.Method == "tools/call" {
			return
		}
		s.end(e)
	case trace.AgentEnd, trace.TurnEnd, trace.AgentToolCall, trace.ToolCallEnd:
		s.end(e)
	}
}

func (s *Sink) start(e trace.Event, name string, kind oteltrace.SpanKind, attrs ...attribute.KeyValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.open) >= MaxOpen {
		s.skipped++
		return
	}
	ctx := context.Background()
	if p, ok := s.open[e.Parent]; ok {
		ctx = oteltrace.ContextWithSpan(ctx, p)
	}
	_, sp := s.tracer.Start(ctx, name, oteltrace.WithSpanKind(kind), oteltrace.WithTimestamp(e.Time), oteltrace.WithAttributes(attrs...))
	s.open[e.Span] = sp
}

func (s *Sink) end(e trace.Event, attrs ...attribute.KeyValue) {
	s.mu.Lock()
	sp, ok := s.open[e.Span]
	delete(s.open, e.Span)
	s.mu.Unlock()
	if !ok {
		return
	}
	sp.SetAttributes(attrs...)
	if e.Error != "" {
		sp.SetStatus(codes.Error, e.Error)
	}
	sp.End(oteltrace.WithTimestamp(e.Time))
}

// splitModel reads "openai:gpt-4.1" as provider and model; a bare name
// (mock, a Lua function model) is its own provider.
func splitModel(m string) (provider, model string) {
	if p, rest, ok := strings.Cut(m, ":"); ok && p != "" && rest != "" {
		return p, rest
	}
	return "luagent", m
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
