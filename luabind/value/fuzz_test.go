package value

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
)

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		``, `null`, `true`, `false`, `0`, `-0`, `1.5`, `-1e-7`, `1e21`, `1E+2`,
		`9007199254740992`, `9007199254740993`, `1e400`, `0.1`, `123456789.125`,
		`""`, `"a\"b\\c\/\b\f\n\r\t"`, `"\u00e9\ud83d\ude00\ud800\udc00x"`, "\"\xff\xc3\"",
		`[]`, `{}`, `[1,null,3]`, `[1,null]`, `{"a":null}`, `{"a":1,"a":2}`,
		`{"b":[{"c":{}}],"a":[[],[null]]}`, `[[[[[[[[]]]]]]]]`, ` { "x" : [ 1 , 2 ] } `,
		`[1,]`, `{"a"}`, `01`, `"abc`, `[`, `tru`, `{"a":1}x`,
	} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/tools_call.json"); err == nil {
		f.Add(b)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(L, data) // must not panic, whatever the bytes
		if err != nil {
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("Decode error of kind %v: %v", errs.KindOf(err), err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON %q", data)
		}
		out, err := Encode(v, EncodeOptions{})
		if err != nil {
			t.Fatalf("Encode(Decode(%q)): %v", data, err)
		}
		if !json.Valid(out) {
			t.Fatalf("Encode(Decode(%q)) = %q is not valid JSON", data, out)
		}
		want, got := unmarshal(t, data), unmarshal(t, out)
		if !sameJSON(want, got) {
			t.Fatalf("round trip of %q gave %q", data, out)
		}
		// Encoding is canonical: a second trip gives the same bytes.
		v2, err := Decode(L, out)
		if err != nil {
			t.Fatalf("Decode(%q): %v", out, err)
		}
		out2, err := Encode(v2, EncodeOptions{})
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("second trip: %q then %q (%v)", out, out2, err)
		}
		// Pretty output is the same document.
		pretty, err := Encode(v, EncodeOptions{Indent: "  "})
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, pretty); err != nil || !bytes.Equal(compact.Bytes(), out) {
			t.Fatalf("pretty %q compacts to %q, want %q (%v)", pretty, compact.Bytes(), out, err)
		}
	})
}

func unmarshal(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			t.Fatalf("encoding/json rejects %q: %v", b, err)
		}
		t.Fatalf("unmarshal %q: %v", b, err)
	}
	return v
}

// sameJSON compares two documents decoded with UseNumber, numbers by their
// float64 value, since formatting may differ.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		fa, err1 := strconv.ParseFloat(string(a), 64)
		fb, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && fa == fb
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			y, ok := bm[k]
			if !ok || !sameJSON(x, y) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}
