package secret_test

import (
	"testing"

	"github.com/luagent/luagent/runtime/secret"
)

func TestMasker(t *testing.T) {
	m := secret.NewMasker([]string{"tok", "", "tok-longer", `a"b`})
	for in, want := range map[string]string{
		"x tok y":            "x <secret> y",
		"tok-longer":         "<secret>",
		`{"v":"a\"b"}`:       `{"v":"<secret>"}`,
		`a"b`:                "<secret>",
		"nothing to see":     "nothing to see",
		"tok tok-longer tok": "<secret> <secret> <secret>",
	} {
		if got := m.String(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	var none *secret.Masker = secret.NewMasker([]string{"", ""})
	if none != nil || none.String("tok") != "tok" || string(none.Bytes([]byte("tok"))) != "tok" {
		t.Error("a masker of nothing masks")
	}
}
