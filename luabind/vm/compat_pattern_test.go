package vm

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestCompatPattern(t *testing.T)           { compatRunCases(t, compatPatternCases) }
func TestCompatPatternDeviations(t *testing.T) { compatRunCases(t, compatPatternDeviations) }

// lua51Driver evaluates each line of the file arg[1] as compatEval does
// and prints the result as a Go string literal, one a line.
const lua51Driver = `
local function goq(s)
  return '"' .. s:gsub('[%z\1-\31\34\92\127-\255]', function(c)
    if c == '"' then return '\\"' elseif c == '\\' then return '\\\\' end
    return string.format("\\x%02x", c:byte()) end) .. '"'
end
for line in io.lines(arg[1]) do
  local f = assert(loadstring("return S(" .. line .. ")"))
  local ok, r = pcall(f)
  print(goq(ok and r or ("LUAERR " .. tostring(r))))
end
`

// TestCompatPatternLua51 checks that the expected values of
// compatPatternCases are what PUC Lua 5.1 answers, and that it answers
// otherwise for each deviation. It runs when lua5.1 is installed (Debian:
// apt-get install lua5.1).
func TestCompatPatternLua51(t *testing.T) {
	lua51, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 not installed")
	}
	cases := append(append([]compatCase(nil), compatPatternCases...), compatPatternDeviations...)
	dir := t.TempDir()
	var codes strings.Builder
	for _, c := range cases {
		codes.WriteString(c.code + "\n")
	}
	script := filepath.Join(dir, "driver.lua")
	list := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(script, []byte(compatPrelude+lua51Driver), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte(codes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lua51, script, list).Output()
	if err != nil {
		t.Fatalf("lua5.1: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("lua5.1 printed %d lines for %d cases", len(lines), len(cases))
	}
	// pcall(string.gsub, ...) makes Lua name the function '?'.
	fname := regexp.MustCompile(`E\(string\.(\w+)`)
	for i, c := range cases {
		got, err := strconv.Unquote(lines[i])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if m := fname.FindStringSubmatch(c.code); m != nil {
			got = strings.ReplaceAll(got, "to '?'", "to '"+m[1]+"'")
		}
		deviation := i >= len(compatPatternCases)
		switch {
		case !deviation && got != c.want:
			t.Errorf("%s\n lua5.1: %q\nrecorded: %q", c.code, got, c.want)
		case deviation && got == c.want:
			t.Errorf("%s: marked as a deviation, but lua5.1 agrees: %q", c.code, got)
		}
	}
}

// The await guard (luabind/sched) finds gsub callbacks by this name.
func TestGsubCallbackFrame(t *testing.T) {
	if got := runtime.FuncForPC(reflect.ValueOf(gsubCallback).Pointer()).Name(); got != GsubCallbackFrame {
		t.Errorf("gsubCallback is %q, GsubCallbackFrame says %q", got, GsubCallbackFrame)
	}
}
