// A local OTLP/HTTP traces receiver for tests. It
// takes the JSON encoding (the OTLP specification's: lowerCamelCase
// fields, hex ids, 64-bit integers as strings), refuses unknown fields so
// a misspelled key fails the test, and keeps the spans.

package testkit

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// OTLPSpan is a received span, ids in hex.
type OTLPSpan struct {
	Name, TraceID, SpanID, Parent string
	Kind                          int // 1 internal, 2 server, 3 client
	Start, End                    int64
	Attrs                         map[string]string
	Error                         string // the status message when the status is an error
	Service                       string
}

type wireValue struct {
	StringValue *string  `json:"stringValue"`
	IntValue    *string  `json:"intValue"`
	BoolValue   *bool    `json:"boolValue"`
	DoubleValue *float64 `json:"doubleValue"`
}

type wireKV struct {
	Key   string    `json:"key"`
	Value wireValue `json:"value"`
}

type wireRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []wireKV `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Scope struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"scope"`
			Spans []struct {
				TraceID      string   `json:"traceId"`
				SpanID       string   `json:"spanId"`
				ParentSpanID string   `json:"parentSpanId"`
				Name         string   `json:"name"`
				Kind         int      `json:"kind"`
				Start        string   `json:"startTimeUnixNano"`
				End          string   `json:"endTimeUnixNano"`
				Attributes   []wireKV `json:"attributes"`
				Status       *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

func (v wireValue) text() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return *v.IntValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.DoubleValue != nil:
		return strconv.FormatFloat(*v.DoubleValue, 'g', -1, 64)
	}
	return ""
}

// OTLPReceiver collects spans posted to URL.
type OTLPReceiver struct {
	URL   string
	mu    sync.Mutex
	spans []OTLPSpan
}

// NewOTLP starts a receiver on 127.0.0.1, closed when the test ends.
func NewOTLP(t testing.TB) *OTLPReceiver {
	r := &OTLPReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/json" {
			t.Errorf("otlp receiver: %s %s (%s)", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			http.Error(w, "not a traces export", http.StatusBadRequest)
			return
		}
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var ex wireRequest
		if err := dec.Decode(&ex); err != nil {
			t.Errorf("otlp receiver: %v in %s", err, b)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var got []OTLPSpan
		for _, rs := range ex.ResourceSpans {
			service := ""
			for _, kv := range rs.Resource.Attributes {
				if kv.Key == "service.name" {
					service = kv.Value.text()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					for _, id := range []struct {
						v string
						n int
					}{{sp.TraceID, 16}, {sp.SpanID, 8}} {
						if d, err := hex.DecodeString(id.v); err != nil || len(d) != id.n {
							t.Errorf("otlp receiver: span %s: id %q is not %d bytes of hex", sp.Name, id.v, id.n)
						}
					}
					s := OTLPSpan{Name: sp.Name, TraceID: sp.TraceID, SpanID: sp.SpanID, Parent: sp.ParentSpanID, Kind: sp.Kind,
						Attrs: map[string]string{}, Service: service}
					s.Start, _ = strconv.ParseInt(sp.Start, 10, 64)
					s.End, _ = strconv.ParseInt(sp.End, 10, 64)
					if s.Start == 0 || s.End < s.Start {
						t.Errorf("otlp receiver: span %s: start %q end %q", sp.Name, sp.Start, sp.End)
					}
					for _, kv := range sp.Attributes {
						s.Attrs[kv.Key] = kv.Value.text()
					}
					if sp.Status != nil && sp.Status.Code == 2 {
						s.Error = sp.Status.Message
					}
					got = append(got, s)
				}
			}
		}
		r.mu.Lock()
		r.spans = append(r.spans, got...)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/v1/traces"
	return r
}

// Spans returns what was received so far.
func (r *OTLPReceiver) Spans() []OTLPSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]OTLPSpan(nil), r.spans...)
}

// Named returns the received spans whose name is name.
func (r *OTLPReceiver) Named(name string) []OTLPSpan {
	var out []OTLPSpan
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}
