package chat

import (
	"reflect"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
)

func TestParseKV(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []string
		want   map[string]string
		kind   errs.Kind
	}{
		{"none", nil, map[string]string{}, 0},
		{"one", []string{"who=Ada"}, map[string]string{"who": "Ada"}, 0},
		{"split at the first =", []string{"q=a=b=c"}, map[string]string{"q": "a=b=c"}, 0},
		{"no = is empty", []string{"flag"}, map[string]string{"flag": ""}, 0},
		{"empty value", []string{"k="}, map[string]string{"k": ""}, 0},
		{"values stay strings", []string{"n=42", "b=true", "j={\"x\":1}"}, map[string]string{"n": "42", "b": "true", "j": `{"x":1}`}, 0},
		{"several", []string{"a=1", "b", "c=x y"}, map[string]string{"a": "1", "b": "", "c": "x y"}, 0},
		{"duplicate", []string{"a=1", "a=2"}, nil, errs.Invalid},
		{"duplicate without =", []string{"a", "a=2"}, nil, errs.Invalid},
		{"no name", []string{"=v"}, nil, errs.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKV(tc.tokens)
			if tc.kind != 0 {
				if errs.KindOf(err) != tc.kind {
					t.Fatalf("ParseKV(%q) error %v (kind %s), want kind %s", tc.tokens, err, errs.KindOf(err), tc.kind)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseKV(%q) = %v, %v; want %v", tc.tokens, got, err, tc.want)
			}
		})
	}
}

func FuzzParseKV(f *testing.F) {
	for _, s := range []string{"a=1 b", "q=a=b", "=x", "a a", "k= v=", "ü=ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tokens := strings.Fields(line)
		got, err := ParseKV(tokens)
		seen := map[string]bool{}
		wantErr := false
		for _, tok := range tokens {
			k, _, _ := strings.Cut(tok, "=")
			wantErr = wantErr || k == "" || seen[k]
			seen[k] = true
		}
		if wantErr {
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("ParseKV(%q) = %v, %v; want an invalid error", tokens, got, err)
			}
			return
		}
		if err != nil || len(got) != len(tokens) {
			t.Fatalf("ParseKV(%q) = %v, %v", tokens, got, err)
		}
		for _, tok := range tokens {
			k, v, _ := strings.Cut(tok, "=")
			if got[k] != v {
				t.Fatalf("ParseKV(%q)[%q] = %q, want %q", tokens, k, got[k], v)
			}
		}
	})
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Command
		kind errs.Kind
	}{
		{"/help", Command{Name: "help", Args: []string{}}, 0},
		{"  /quit  ", Command{Name: "quit", Args: []string{}}, 0},
		{"/exit", Command{Name: "quit", Args: []string{}}, 0},
		{"/mcps", Command{Name: "mcp", Args: []string{}}, 0},
		{"/mcp prompt srv greet who=Ada x", Command{Name: "mcp", Args: []string{"prompt", "srv", "greet", "who=Ada", "x"}, Rest: "prompt srv greet who=Ada x"}, 0},
		{"/model openai:gpt-4.1-mini", Command{Name: "model", Args: []string{"openai:gpt-4.1-mini"}, Rest: "openai:gpt-4.1-mini"}, 0},
		{"/lua print( 'a  b' )", Command{Name: "lua", Args: []string{"print(", "'a", "b'", ")"}, Rest: "print( 'a  b' )"}, 0},
		{"/save out.json", Command{Name: "save", Args: []string{"out.json"}, Rest: "out.json"}, 0},
		{"/nope", Command{}, errs.NotFound},
		{"/", Command{}, errs.Invalid},
		{"hello", Command{}, errs.Invalid},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got, err := ParseCommand(tc.line)
			if tc.kind != 0 {
				if errs.KindOf(err) != tc.kind {
					t.Fatalf("ParseCommand(%q) error %v, want kind %s", tc.line, err, tc.kind)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseCommand(%q) = %#v, %v; want %#v", tc.line, got, err, tc.want)
			}
		})
	}
}

func TestIsCommandAndUnescape(t *testing.T) {
	for _, tc := range []struct {
		line    string
		command bool
		text    string
	}{
		{"/help", true, "/help"},
		{"hello /help", false, "hello /help"},
		{"//etc/passwd is a path", false, "/etc/passwd is a path"},
		{"  //x", false, "/x"},
	} {
		if got := IsCommand(tc.line); got != tc.command {
			t.Errorf("IsCommand(%q) = %v", tc.line, got)
		}
		if !tc.command {
			if got := Unescape(tc.line); got != tc.text {
				t.Errorf("Unescape(%q) = %q, want %q", tc.line, got, tc.text)
			}
		}
	}
}

func TestParseApproval(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Approval
		ok   bool
	}{
		{"y", Approval{Choice: AllowOnce}, true},
		{"YES", Approval{Choice: AllowOnce}, true},
		{"a", Approval{Choice: AllowAlways}, true},
		{"always", Approval{Choice: AllowAlways}, true},
		{"u", Approval{Choice: AllowAlways, Where: approval.SaveUser}, true},
		{"s", Approval{Choice: AllowSession}, true},
		{"session", Approval{Choice: AllowSession}, true},
		{"n", Approval{Choice: Deny}, true},
		{"n  not that file ", Approval{Choice: Deny, Reason: "not that file"}, true},
		{"no", Approval{Choice: Deny}, true},
		{"", Approval{}, false},
		{"maybe", Approval{}, false},
		{"y please", Approval{}, false},
		{"e", Approval{Choice: AllowOnce, Edit: true}, true},
		{"edit", Approval{Choice: AllowOnce, Edit: true}, true},
	} {
		got, ok := ParseApproval(tc.line)
		if ok != tc.ok || ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseApproval(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestComplete(t *testing.T) {
	servers := []string{"srv", "slow", "web"}
	prompts := func(s string) []string {
		if s == "srv" {
			return []string{"greet", "grade", "summary"}
		}
		return nil
	}
	for _, tc := range []struct {
		text, head string
		cands      []string
	}{
		{"/m", "", []string{"/mcp", "/mcps", "/memory", "/meta", "/model"}},
		{"/q", "", []string{"/quit"}},
		{"/mcp p", "/mcp ", []string{"prompt"}},
		{"/mcp s", "/mcp ", []string{"slow", "srv"}},
		{"/mcp restart w", "/mcp restart ", []string{"web"}},
		{"/mcp disable s", "/mcp disable ", []string{"slow", "srv"}},
		{"/mcp prompt s", "/mcp prompt ", []string{"slow", "srv"}},
		{"/mcps prompt w", "/mcps prompt ", []string{"web"}},
		{"/mcp prompt srv gr", "/mcp prompt srv ", []string{"grade", "greet"}},
		{"/mcp prompt web ", "/mcp prompt web ", nil},
		{"/mcp prompt srv greet w", "/mcp prompt srv greet ", nil},
		{"hello /m", "hello /m", nil},
	} {
		head, cands := Complete(tc.text, servers, prompts)
		if head != tc.head || !reflect.DeepEqual(cands, tc.cands) {
			t.Errorf("Complete(%q) = %q, %q; want %q, %q", tc.text, head, cands, tc.head, tc.cands)
		}
	}
}
