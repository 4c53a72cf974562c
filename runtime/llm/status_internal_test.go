package llm

import (
	"context"
	"errors"
	"testing"
)

// StatusOf reads the status an HTTP error came with, through failure();
// an error whose text merely begins with digits has none.
func TestStatusOf(t *testing.T) {
	m := &wireModel{name: "anthropic:x"}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"429", m.failure(ctx, m.httpError(429, []byte(`{"error":{"message":"slow down"}}`))), 429},
		{"529", m.failure(ctx, m.httpError(529, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))), 529},
		{"a stream error event that reads like a status", m.failure(ctx, streamError([]byte(`{"error":{"message":"500 problems","type":"api_error"}}`))), 0},
		{"a stream cut short", m.failure(ctx, streamCut("its end")), 0},
		{"a read that broke", m.failure(ctx, errors.New("502: connection reset")), 0},
		{"nil", nil, 0},
	} {
		if got := StatusOf(tc.err); got != tc.want {
			t.Errorf("%s: StatusOf(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
