package hub

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
)

func TestQualify(t *testing.T) {
	long := strings.Repeat("x", 70)
	ids := []toolID{
		{"fs", "read_file"},   // plain
		{"fs", "read.file"},   // a dot: sanitized, hashed
		{"a__b", "c"},         // a__b__c, twice: both hashed
		{"a", "b__c"},         //
		{"gh", long},          // too long: cut, hashed
		{"gh", long + "y"},    // shares the cut prefix: differs by hash
		{"web", "search-äöü"}, // non-ASCII
	}
	q := qualify(ids)
	seen := map[string]bool{}
	for _, id := range ids {
		n := q[id]
		if !ValidName(n) {
			t.Errorf("%v: %q is not a valid name", id, n)
		}
		if seen[n] {
			t.Errorf("%v: %q given twice", id, n)
		}
		seen[n] = true
	}
	if q[ids[0]] != "fs__read_file" {
		t.Errorf("plain name changed: %q", q[ids[0]])
	}
	if n := q[ids[1]]; !strings.HasPrefix(n, "fs__read_file_") || len(n) != len("fs__read_file_")+8 {
		t.Errorf("sanitized: %q", n)
	}
	if q[ids[2]] == "a__b__c" || q[ids[3]] == "a__b__c" {
		t.Errorf("a clash kept the plain name: %q %q", q[ids[2]], q[ids[3]])
	}
	if len(q[ids[4]]) != MaxName {
		t.Errorf("cut name %q has %d bytes", q[ids[4]], len(q[ids[4]]))
	}
	// Deterministic, whatever the order.
	rev := make([]toolID, len(ids))
	for i, id := range ids {
		rev[len(ids)-1-i] = id
	}
	q2 := qualify(rev)
	for _, id := range ids {
		if q[id] != q2[id] {
			t.Errorf("%v: %q then %q", id, q[id], q2[id])
		}
	}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"read_text_file":        "read text file",
		"readTextFile":          "read text file",
		"HTTPServer get-URLs":   "http server get url",
		"list files, quickly!":  "list file quickly",
		"address class process": "address class process",
		"v2Api":                 "v2 api",
	} {
		if got := strings.Join(tokenize(in), " "); got != want {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSameEntry(t *testing.T) {
	cfg, err := catalog.Parse([]byte(`{"version":1,"mcpServers":{
		"a":{"command":"x","args":["1"],"env":{"K":{"param":"p"}},"connectionId":"c1"},
		"b":{"command":"x","args":["1"],"env":{"K":{"param":"p"}},"connectionId":"c2"},
		"c":{"command":"x","args":["2"],"env":{"K":{"param":"p"}}},
		"d":{"command":"x","args":["1"],"env":{"K":{"param":"q"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c, d := cfg.Server("a"), cfg.Server("b"), cfg.Server("c"), cfg.Server("d")
	b.Name = "a"
	if !sameEntry(a, b) {
		t.Error("entries differing in a managed member only are not the same")
	}
	c.Name, d.Name = "a", "a"
	if sameEntry(a, c) || sameEntry(a, d) {
		t.Error("entries differing in args or env are the same")
	}
	// An HTTP entry's credentials are bound to its connectionId.
	h1 := &catalog.Server{Name: "h", URL: "https://x.example/mcp"}
	h2 := &catalog.Server{Name: "h", URL: "https://x.example/mcp"}
	h1.SetConnectionID("c1")
	h2.SetConnectionID("c2")
	if sameEntry(h1, h2) {
		t.Error("HTTP entries with different connectionIds are the same")
	}
}
