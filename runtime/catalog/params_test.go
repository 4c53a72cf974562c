package catalog

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestParseParams(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     Params
		err      string
	}{
		{"json", `{"github_token": "s3cret", "n": 3, "on": true}`, Params{"github_token": "s3cret", "n": "3", "on": "true"}, ""},
		{"lines", "# comment\n\ngithub_token=s3cret\n  other = a=b\n", Params{"github_token": "s3cret", "other": " a=b"}, ""},
		{"empty", "", Params{}, ""},
		{"bad json", `{"a": "s3cret",}`, nil, "p: not a JSON object of names to values: invalid JSON at byte"},
		{"array", `{"a": ["s3cret"]}`, Params{"a": `["s3cret"]`}, ""},
		{"bad name", `{"a b": "s3cret"}`, nil, `p: "a b" is not a parameter name`},
		{"no equals", "a=1\ns3cret\n", nil, "p:2: not NAME=VALUE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseParams("p", []byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || errs.KindOf(err) != errs.Invalid {
					t.Fatalf("err %v, want kind invalid and %q", err, c.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the error shows a value: %v", err)
				}
				return
			}
			if err != nil || len(got) != len(c.want) {
				t.Fatalf("%v %v", got, err)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestParseSet(t *testing.T) {
	if k, v, err := ParseSet("tok=a=b"); err != nil || k != "tok" || v != "a=b" {
		t.Errorf("%q %q %v", k, v, err)
	}
	for _, bad := range []string{"s3cret", "=s3cret", "a b=s3cret"} {
		_, _, err := ParseSet(bad)
		if err == nil || errs.KindOf(err) != errs.Invalid || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseSet(%q): %v", bad, err)
		}
	}
}
