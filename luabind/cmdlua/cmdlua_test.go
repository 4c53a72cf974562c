package cmdlua

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/errs"
)

func TestLuaCommands(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "commands")
	os.MkdirAll(dir, 0o755)
	files := map[string]string{
		"table.lua": `return {description = "count words", argument_hint = "TEXT",
			run = function(args, argv) return "There are " .. #argv .. " words in: " .. args end}`,
		"fn.lua":   `return function(args, argv) return "second is " .. tostring(argv[2]) end`,
		"io.lua":   `return function() return io.open("/etc/passwd"):read("*a") end`,
		"loop.lua": `return function() while true do end end`,
		"bad.lua":  `return 42`,
		"nofn.lua": `return {description = "x"}`,
		"plain.md": "plain $1",
	}
	for n, s := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)
	}
	set := cmdfile.LoadCommands(cmdfile.Options{Home: home})
	Describe(context.Background(), set)
	if len(set.Problems) != 2 || !strings.Contains(strings.Join(set.Problems, "|"), "bad.lua") || !strings.Contains(strings.Join(set.Problems, "|"), "nofn.lua") {
		t.Errorf("problems %q", set.Problems)
	}
	if set.Find("bad") != nil || set.Find("nofn") != nil {
		t.Error("failed files still found")
	}
	c := set.Find("table")
	if c == nil || c.Usage() != "/table TEXT" || !strings.HasPrefix(c.Help(), "count words") {
		t.Fatalf("table %+v", c)
	}
	ctx := context.Background()
	for name, want := range map[string]string{"table": "There are 2 words in: a 'b c' d", "fn": "second is b c", "plain": "plain a"} {
		got, err := Prompt(ctx, set.Find(name), `a 'b c' d`)
		if name == "table" {
			want = "There are 3 words in: a 'b c' d"
		}
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	// Nothing granted: no io; a loop ends at the instruction budget.
	if _, err := Prompt(ctx, set.Find("io"), ""); err == nil || !strings.Contains(err.Error(), "io.lua") {
		t.Errorf("io: %v", err)
	}
	if _, err := Prompt(ctx, set.Find("loop"), ""); errs.KindOf(err) != errs.Limit && errs.KindOf(err) != errs.Timeout {
		t.Errorf("loop: %v (%v)", err, errs.KindOf(err))
	}
}
