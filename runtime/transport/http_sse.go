package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/origin"
	"github.com/luagent/luagent/runtime/secret"
)

// The deprecated HTTP+SSE transport (2024-11-05), for servers that refuse
// a Streamable HTTP initialize with 400, 404 or 405: the client GETs the
// URL, whose SSE stream first names (event "endpoint") where to POST; every
// server message then arrives on that one stream.

// fallBackToSSE opens the SSE stream, learns the endpoint and sends init
// there; from then on every Write goes to the endpoint.
func (h *HTTP) fallBackToSSE(init []byte) error {
	req, err := h.newRequest(h.ctx, http.MethodGet, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := h.opts.Client.Do(req)
	if e, ok := origin.Refused(err); ok {
		return e
	}
	if err != nil {
		return unwrapURLError(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		return fmt.Errorf("GET answered HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	endpoint := make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		first := true
		err := h.events(resp.Body, func(ev sseEvent) {
			if first {
				first = false
				if ev.event != "endpoint" {
					endpoint <- ""
					return
				}
				endpoint <- string(ev.data)
				return
			}
			if (ev.event == "" || ev.event == "message") && len(ev.data) > 0 {
				h.deliver(ev.data)
			}
		})
		if first {
			endpoint <- ""
		}
		if h.ctx.Err() == nil {
			why := "the server ended it"
			if err != nil {
				why = err.Error()
			}
			h.fail(errs.Errorf(errs.Process, "", "the SSE stream of MCP server %s (HTTP+SSE at %s) ended: %s", h.opts.Name, secret.URL(h.url), why))
		}
	}()
	var ep string
	select {
	case ep = <-endpoint:
	case <-time.After(10 * time.Second):
		return errors.New("no endpoint event within 10s")
	case <-h.ctx.Done():
		return context.Cause(h.ctx)
	}
	if ep == "" {
		return errors.New("its SSE stream did not start with an endpoint event")
	}
	base, _ := url.Parse(h.url)
	ref, err := url.Parse(strings.TrimSpace(ep))
	if err != nil {
		return fmt.Errorf("its endpoint %q is not a URL", secret.URL(ep))
	}
	abs := base.ResolveReference(ref)
	if origin.Of(abs) != origin.Of(base) {
		// The endpoint must be on the same origin (2024-11-05 security).
		return fmt.Errorf("its endpoint %s is on another origin", secret.URL(abs.String()))
	}
	h.mu.Lock()
	h.endpoint = abs.String()
	h.mu.Unlock()
	h.postSSE(h.endpoint, init, "initialize", jsonscan.Member(init, "id"), true)
	return nil
}

// postSSE POSTs one message to the HTTP+SSE endpoint; the answer, if any,
// comes on the stream.
func (h *HTTP) postSSE(endpoint string, msg []byte, method string, id []byte, isRequest bool) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, endpoint, bytes.NewReader(msg))
	if err == nil {
		for k, vs := range h.opts.Header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		if h.opts.Token != nil {
			var tok string
			if tok, err = h.opts.Token(h.ctx); err == nil && tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
		}
	}
	if err != nil {
		h.failRequest(id, isRequest, err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		if h.ctx.Err() == nil {
			h.failRequest(id, isRequest, err)
		}
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode >= 300 && isRequest {
		h.deliver(errorReply(id, -32600, fmt.Sprintf("HTTP %d for %s: %s", resp.StatusCode, method, strings.TrimSpace(string(body))), resp.StatusCode))
	}
}

// modernError: body is a JSON-RPC error with a 2026-07-28 code (a modern
// server, never an HTTP+SSE one).
func modernError(body []byte) bool {
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &r) != nil || r.Error == nil {
		return false
	}
	return r.Error.Code == -32020 || r.Error.Code == -32021 || r.Error.Code == -32022
}
