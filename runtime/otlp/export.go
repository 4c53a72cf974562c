package otlp

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/luagent/luagent/runtime/secret"
)

// exporter sends spans as OTLP/HTTP with the JSON encoding (the OTLP
// specification's "OTLP/HTTP JSON": lowerCamelCase fields, hex trace and
// span ids, 64-bit integers as decimal strings). The SDK's own OTLP/HTTP
// exporter speaks protobuf and links protobuf, gRPC and grpc-gateway
// into the binary: 9.5 MB more for every luagent start, measured when
// this was written (scripts/bench/BENCHMARKS.md, "Trace export"), for a flag most runs
// do not use. Collectors accept both encodings on /v1/traces.
type exporter struct {
	url     string
	client  *http.Client
	backoff time.Duration
}

func (x *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encode(spans))
	if err != nil {
		return err
	}
	wait := x.backoff
	for attempt := 1; ; attempt++ {
		retry, err := x.post(ctx, body)
		if err == nil || !retry || attempt == 3 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// post sends one export; retry says whether the failure may pass (the
// specification's retryable statuses, or no answer at all).
func (x *exporter) post(ctx context.Context, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := x.client.Do(req)
	if err != nil {
		return true, fmt.Errorf("otlp export: %w", secret.URLError(err)) // it quotes the URL
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == 429 || resp.StatusCode == 502 || resp.StatusCode == 503 || resp.StatusCode == 504:
		return true, fmt.Errorf("otlp export: the collector answered %s", resp.Status)
	}
	return false, fmt.Errorf("otlp export: the collector answered %s", resp.Status)
}

func (x *exporter) Shutdown(context.Context) error { return nil }

// The OTLP JSON shapes (opentelemetry-proto, trace/v1 and common/v1).
type (
	exportRequest struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   resourceJSON `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
	}
	resourceJSON struct {
		Attributes []keyValue `json:"attributes"`
	}
	scopeSpans struct {
		Scope scopeJSON  `json:"scope"`
		Spans []spanJSON `json:"spans"`
	}
	scopeJSON struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	spanJSON struct {
		TraceID      string      `json:"traceId"`
		SpanID       string      `json:"spanId"`
		ParentSpanID string      `json:"parentSpanId,omitempty"`
		Name         string      `json:"name"`
		Kind         int         `json:"kind"`
		Start        string      `json:"startTimeUnixNano"`
		End          string      `json:"endTimeUnixNano"`
		Attributes   []keyValue  `json:"attributes,omitempty"`
		Status       *statusJSON `json:"status,omitempty"`
	}
	statusJSON struct {
		Code    int    `json:"code"`
		Message string `json:"message,omitempty"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		String *string  `json:"stringValue,omitempty"`
		Int    *string  `json:"intValue,omitempty"`
		Bool   *bool    `json:"boolValue,omitempty"`
		Double *float64 `json:"doubleValue,omitempty"`
	}
)

func encode(spans []sdktrace.ReadOnlySpan) exportRequest {
	// One resource and scope for the process: group by neither.
	out := make([]spanJSON, 0, len(spans))
	for _, s := range spans {
		sc := s.SpanContext()
		j := spanJSON{
			TraceID: traceHex(sc.TraceID()),
			SpanID:  hexSpan(sc.SpanID()),
			Name:    s.Name(),
			// The SDK's SpanKind numbers are the protocol's.
			Kind:       int(s.SpanKind()),
			Start:      strconv.FormatInt(s.StartTime().UnixNano(), 10),
			End:        strconv.FormatInt(s.EndTime().UnixNano(), 10),
			Attributes: keyValues(s.Attributes()),
		}
		if p := s.Parent(); p.SpanID().IsValid() {
			j.ParentSpanID = hexSpan(p.SpanID())
		}
		switch st := s.Status(); st.Code {
		case codes.Error:
			j.Status = &statusJSON{Code: 2, Message: st.Description}
		case codes.Ok:
			j.Status = &statusJSON{Code: 1}
		}
		out = append(out, j)
	}
	var res []keyValue
	var scope scopeJSON
	if len(spans) > 0 {
		res = keyValues(spans[0].Resource().Attributes())
		is := spans[0].InstrumentationScope()
		scope = scopeJSON{Name: is.Name, Version: is.Version}
	}
	return exportRequest{ResourceSpans: []resourceSpans{{Resource: resourceJSON{Attributes: res}, ScopeSpans: []scopeSpans{{Scope: scope, Spans: out}}}}}
}

func hexSpan(id [8]byte) string { return hex.EncodeToString(id[:]) }

func keyValues(attrs []attribute.KeyValue) []keyValue {
	out := make([]keyValue, 0, len(attrs))
	for _, kv := range attrs {
		var v anyValue
		switch kv.Value.Type() {
		case attribute.BOOL:
			b := kv.Value.AsBool()
			v.Bool = &b
		case attribute.INT64:
			i := strconv.FormatInt(kv.Value.AsInt64(), 10)
			v.Int = &i
		case attribute.FLOAT64:
			f := kv.Value.AsFloat64()
			v.Double = &f
		default:
			str := kv.Value.Emit()
			v.String = &str
		}
		out = append(out, keyValue{Key: string(kv.Key), Value: v})
	}
	return out
}

func traceHex(id [16]byte) string { return hex.EncodeToString(id[:]) }
