package chat

import (
	"reflect"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// A command's arguments are split as a shell splits words: quotes hold
// spaces and are removed; nothing is expanded. /lua and /meta take their
// text as typed (Rest).
func TestParseCommandQuotes(t *testing.T) {
	for _, tc := range []struct {
		line string
		args []string
		kind errs.Kind
	}{
		{`/mcp prompt srv review focus="error handling"`, []string{"prompt", "srv", "review", "focus=error handling"}, 0},
		{`/mcp prompt srv p a='x "y" z' b=c\ d e='$HOME' f=#1 g={a,b} h=~/x i=*.go j="a\"b"`,
			[]string{"prompt", "srv", "p", `a=x "y" z`, "b=c d", "e=$HOME", "f=#1", "g={a,b}", "h=~/x", "i=*.go", `j=a"b`}, 0},
		{`/mcp prompt srv p e=$HOME`, nil, errs.Invalid},
		{`/mcp prompt srv p e="$(id)"`, nil, errs.Invalid},
		{`/mcp prompt srv p q=a<b`, nil, errs.Invalid},
		{`/save "my notes.json"`, []string{"my notes.json"}, 0},
		{`/mcp prompt srv p a='#1' b="#2"`, []string{"prompt", "srv", "p", "a=#1", "b=#2"}, 0},
		{`/mcp prompt srv p #1`, nil, errs.Invalid},
		{`/mcp prompt srv p focus="unclosed`, nil, errs.Invalid},
		{`/lua print("it's")`, []string{`print("it's")`}, 0},
		{`/meta add the server "x`, []string{"add", "the", "server", `"x`}, 0},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got, err := ParseCommand(tc.line)
			if tc.kind != 0 {
				if errs.KindOf(err) != tc.kind {
					t.Fatalf("ParseCommand(%q) = %#v, %v; want kind %s", tc.line, got, err, tc.kind)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got.Args, tc.args) {
				t.Fatalf("ParseCommand(%q) = %#v, %v; want args %q", tc.line, got.Args, err, tc.args)
			}
		})
	}
}

func TestPromptValuesWithSpaces(t *testing.T) {
	c, err := ParseCommand(`/mcp prompt srv review focus="error handling" depth=2`)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := ParseKV(c.Args[3:])
	if err != nil || kv["focus"] != "error handling" || kv["depth"] != "2" {
		t.Fatalf("%v %v", kv, err)
	}
}
