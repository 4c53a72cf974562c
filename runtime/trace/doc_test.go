package trace

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// stdlib/doc/trace.md is the events' reference: every kind and every member of
// the JSON shape is in it.
func TestDocsListEveryKindAndMember(t *testing.T) {
	doc, err := os.ReadFile("../../stdlib/doc/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range []string{"trace.go", "httpsink.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	kinds := regexp.MustCompile(`Kind = "([a-z_]+)"`).FindAllSubmatch(src, -1)
	members := regexp.MustCompile("json:\"([a-z_]+)[,\"]").FindAllSubmatch(src, -1)
	if len(kinds) < 20 || len(members) < 15 {
		t.Fatalf("found %d kinds and %d members: the pattern is stale", len(kinds), len(members))
	}
	for _, m := range append(kinds, members...) {
		if name := string(m[1]); !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("stdlib/doc/trace.md does not mention `%s`", name)
		}
	}
}
