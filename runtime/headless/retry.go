package headless

import (
	"strings"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// APIRetry is a request to the model provider failing and being sent
// again after RetryDelayMS: the Claude Agent SDK's SDKAPIRetryMessage.
type APIRetry struct {
	Type         string `json:"type"`    // "system"
	Subtype      string `json:"subtype"` // "api_retry"
	Attempt      int    `json:"attempt"` // 1 is the first retry
	MaxRetries   int    `json:"max_retries"`
	RetryDelayMS int64  `json:"retry_delay_ms"`
	// ErrorStatus is the HTTP status; null when there was no answer (the
	// endpoint is down) or a stream failed before its output began.
	ErrorStatus *int `json:"error_status"`
	// Error is the SDK's SDKAssistantMessageError: rate_limit,
	// overloaded, server_error, authentication_failed, invalid_request
	// or unknown.
	Error     string `json:"error"`
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
}

// ModelFallback is a model giving up (its retries spent, its endpoint
// down, or the context too long for it) and the next fallback model
// answering the same request. The Claude Agent SDK has no message for
// it (its model_refusal_fallback is for refusals): it is the SDK's
// SDKInformationalMessage (a line hosts show), tagged "model_fallback",
// with luagent's own member model_fallback saying what happened.
type ModelFallback struct {
	Type      string       `json:"type"`    // "system"
	Subtype   string       `json:"subtype"` // "informational"
	Content   string       `json:"content"` // the status line
	Level     string       `json:"level"`   // "warning"
	Tag       string       `json:"tag"`     // "model_fallback"
	Fallback  FallbackInfo `json:"model_fallback"`
	UUID      string       `json:"uuid"`
	SessionID string       `json:"session_id"`
}

// FallbackInfo is a ModelFallback's detail: the model that failed, the
// one asked now, why (Error as api_retry's, ErrorKind luagent's kind:
// rate_limit, server, context_length, ...), the HTTP status (null when
// none) and the failure's one line.
type FallbackInfo struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Error       string `json:"error"`
	ErrorKind   string `json:"error_kind"`
	ErrorStatus *int   `json:"error_status"`
	Message     string `json:"message"`
}

// sdkError is a failure as the SDK names assistant errors
// (SDKAssistantMessageError).
func sdkError(n *llm.Notice) string {
	if n.Status == 529 || strings.Contains(strings.ToLower(n.Message), "overloaded") {
		return "overloaded"
	}
	switch n.Kind {
	case errs.RateLimit:
		return "rate_limit"
	case errs.Server, errs.Closed, errs.Timeout:
		return "server_error"
	case errs.Auth:
		return "authentication_failed"
	case errs.BadRequest, errs.ContextLength:
		return "invalid_request"
	}
	return "unknown"
}

// retryLine is an EventRetry's line: api_retry, or model_fallback.
func retryLine(e ragent.Event, sid, uuid string) any {
	n := e.Notice
	var status *int
	if n.Status > 0 {
		s := n.Status
		status = &s
	}
	if n.Type == llm.NoticeFallback {
		return ModelFallback{Type: "system", Subtype: "informational", Content: e.Message, Level: "warning", Tag: "model_fallback",
			Fallback: FallbackInfo{From: n.Model, To: n.To, Error: sdkError(n), ErrorKind: n.Kind.String(), ErrorStatus: status, Message: n.Message},
			UUID:     uuid, SessionID: sid}
	}
	return APIRetry{Type: "system", Subtype: "api_retry", Attempt: n.Attempt, MaxRetries: n.MaxRetries,
		RetryDelayMS: n.Wait.Milliseconds(), ErrorStatus: status, Error: sdkError(n), UUID: uuid, SessionID: sid}
}
