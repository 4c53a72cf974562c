package headless

import (
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
	// server_error, authentication_failed, invalid_request or unknown.
	Error     string `json:"error"`
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
}

// ModelFallback is luagent's own (the SDK has none): a model gave up
// (its retries spent, its endpoint down, or the context too long for
// it) and the next fallback model answers the same request.
type ModelFallback struct {
	Type    string `json:"type"`    // "system"
	Subtype string `json:"subtype"` // "model_fallback"
	From    string `json:"from"`    // the model that failed
	To      string `json:"to"`      // the model asked now
	// Error is as api_retry's; ErrorKind is luagent's kind (rate_limit,
	// server, context_length, ...); Message the failure, one line.
	Error       string `json:"error"`
	ErrorKind   string `json:"error_kind"`
	ErrorStatus *int   `json:"error_status"`
	Message     string `json:"message"`
	UUID        string `json:"uuid"`
	SessionID   string `json:"session_id"`
}

// sdkError is a kind as the SDK names assistant errors.
func sdkError(k errs.Kind) string {
	switch k {
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
		return ModelFallback{Type: "system", Subtype: "model_fallback", From: n.Model, To: n.To, Error: sdkError(n.Kind),
			ErrorKind: n.Kind.String(), ErrorStatus: status, Message: n.Message, UUID: uuid, SessionID: sid}
	}
	return APIRetry{Type: "system", Subtype: "api_retry", Attempt: n.Attempt, MaxRetries: n.MaxRetries,
		RetryDelayMS: n.Wait.Milliseconds(), ErrorStatus: status, Error: sdkError(n.Kind), UUID: uuid, SessionID: sid}
}
