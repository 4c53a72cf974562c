package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b":null}], "c":"\u00e9\n\"x\""} `,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	"\"\xff\xfe\"", "\"\x7f\"", "\t\r\n[ ]\n",
	// and what is not JSON
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `01`, `-`, `1.`, `.5`, `+1`, `1e`, `1e+`,
	`tru`, `truex`, `nul`, `"a`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", `"a"b`, `[]]`, `{}{}`, `[1]x`, `'a'`, `NaN`,
	"\x00", `{"a":1 "b":2}`, `[-]`, `[--1]`, `[1.e5]`, `{"a":[}`,
}

func TestValid(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
	for _, n := range []int{maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			s := strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
			if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
				t.Errorf("%d nested %s: Valid %v, encoding/json %v", n, open, got, want)
			}
		}
	}
	line := []byte(validCases[11])
	if n := testing.AllocsPerRun(100, func() { Valid(line) }); n != 0 {
		t.Errorf("Valid allocates %v times", n)
	}
}

// On any input, the same answer as encoding/json.Valid.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	line := []byte(validCases[11])
	b.Run("jsonscan", func(b *testing.B) {
		for range b.N {
			Valid(line)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for range b.N {
			json.Valid(line)
		}
	})
}
