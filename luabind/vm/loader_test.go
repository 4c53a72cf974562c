package vm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/stdlib"
)

// hostileDir is a folder whose inspect.lua and help.lua would run with
// full access if require found them: each leaves a marker file.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"inspect", "help"} {
		src := "local f = io.open(" + strconvQuote(filepath.Join(dir, "RAN_"+name)) + ", 'w') f:write('x') f:close() return 'from the folder'"
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "mymod.lua"), []byte("return 'mymod from the folder'"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

func noMarkers(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"inspect", "help"} {
		if _, err := os.Stat(filepath.Join(dir, "RAN_"+name)); err == nil {
			t.Errorf("%s.lua of the folder ran", name)
		}
	}
}

// builtins is the real stdlib: compiled embedded modules are cached per
// process by name, so a stand-in "inspect.lua" would leak into other tests.
var builtins = stdlib.FS

// builtin is what the stdlib's inspect and help look like from Lua.
const builtin = `local function kind(m)
  if type(m) == "table" and type(m.inspect) == "function" then return "built-in inspect" end
  if type(m) == "table" and getmetatable(m) and getmetatable(m).__call then return "built-in help" end
  return tostring(m)
end
`

// Built-in modules come from the binary before any file search: a folder
// on package.path (however it got there) cannot stand in for them.
func TestRequireFindsBuiltinsBeforeFiles(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"on the search path", builtin + `return kind(require("inspect"))`, "built-in inspect"},
		{"package.path changed by a script", builtin + `package.path = PATTERN .. ";" .. package.path
			return kind(require("help"))`, "built-in help"},
		{"a user module still comes from the folder", `return require("mymod")`, "mymod from the folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := hostileDir(t)
			pattern := filepath.Join(dir, "?.lua")
			tt.src = strings.ReplaceAll(tt.src, "PATTERN", strconvQuote(pattern))
			L := vm.New(vm.Options{Paths: []string{pattern}, Embedded: builtins})
			defer L.Close()
			got, err := run(t, L, tt.src)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
			noMarkers(t, dir)
		})
	}
}

func TestRequireRefusesDotDot(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(dir, "secret.lua"), []byte("return 'escaped'"), 0o644)
	L := vm.New(vm.Options{Paths: []string{filepath.Join(sub, "?.lua")}, Embedded: builtins})
	defer L.Close()
	for _, name := range []string{"..secret", "../secret", "a..b", "/etc/passwd"} {
		_, err := run(t, L, `return require(`+strconvQuote(name)+`)`)
		if err == nil || !strings.Contains(err.Error(), "may not contain '..'") {
			t.Errorf("require(%q): %v", name, err)
		}
	}
}

// RequireBuiltin is how the host loads its own modules: from the binary,
// whatever a script did to package.path, package.loaders or the files
// around it.
func TestRequireBuiltin(t *testing.T) {
	dir := hostileDir(t)
	L := vm.New(vm.Options{Paths: []string{filepath.Join(dir, "?.lua")}, Embedded: builtins})
	defer L.Close()
	if _, err := run(t, L, `package.path = "`+filepath.Join(dir, "?.lua")+`"
		package.loaders[2] = function(name) return function() return "replaced loader" end end
		return 1`); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"inspect", "help"} {
		v, err := vm.RequireBuiltin(L, name)
		if err != nil {
			t.Fatalf("RequireBuiltin(%s): %v", name, err)
		}
		L.SetGlobal("got", v)
		if got, err := run(t, L, builtin+`return kind(got)`); err != nil || got != "built-in "+name {
			t.Errorf("RequireBuiltin(%s) = %q, %v", name, got, err)
		}
	}
	// The module is loaded once: require now returns the same value.
	if got, err := run(t, L, builtin+`return kind(require("inspect"))`); err != nil || got != "built-in inspect" {
		t.Errorf("require after RequireBuiltin: %q, %v", got, err)
	}
	if _, err := vm.RequireBuiltin(L, "mymod"); err == nil {
		t.Error("RequireBuiltin loaded a module that is not built in")
	}
	noMarkers(t, dir)
}

func TestSearchPathWithoutScriptFolder(t *testing.T) {
	got := vm.SearchPath("", "/h", "/x/?.lua;;")
	want := []string{"/h/lua/?.lua", "/h/lua/?/init.lua", "/x/?.lua"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("SearchPath = %v\nwant %v", got, want)
	}
}
