package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzCanonicalJSON: canonical JSON means the same value, and canonical
// JSON of it is itself.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":{"d":[1,2.50,{"z":null,"y":true}],"c":"<&>"}}`, `[]`, `"x"`, `1e400`, `{"a":1,"a":2}`, `not json`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := canonicalJSON(json.RawMessage(s))
		if !json.Valid([]byte(s)) {
			return
		}
		again := canonicalJSON(out)
		if string(again) != string(out) {
			t.Fatalf("not stable: %s -> %s -> %s", s, out, again)
		}
		var a, b any
		if json.Unmarshal([]byte(s), &a) != nil || json.Unmarshal(out, &b) != nil {
			return
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("changed the value: %s -> %s", s, out)
		}
	})
}

// A schema is made canonical once: later requests reuse the bytes.
func TestSchemaMemo(t *testing.T) {
	var memo schemaMemo
	builds := 0
	build := func() (json.RawMessage, error) { builds++; return canonicalJSON(json.RawMessage(`{"b":1,"a":2}`)), nil }
	for range 3 {
		got, err := memo.of(json.RawMessage(`{"b":1,"a":2}`), build)
		if err != nil || string(got) != `{"a":2,"b":1}` {
			t.Fatalf("%s %v", got, err)
		}
	}
	if builds != 1 {
		t.Fatalf("built %d times, want 1", builds)
	}
}
