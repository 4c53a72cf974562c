package vm

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the Date and Time cases run in America/New_York

	lua "github.com/yuin/gopher-lua"
)

// compatCase is a Lua expression list and what PUC Lua 5.1.5 prints for it
// (generated with lua5.1 under TZ=America/New_York), except the cases marked
// as deliberate deviations. The values are joined with tabs; an error a case
// raises reads "LUAERR msg".
type compatCase struct {
	code, want string
}

// compatPrelude defines E(f, ...), which returns the message f raises
// without its position prefix ("ok" when f does not fail), and S(...), which
// joins its arguments with tostring and tabs (NaN as "nan", which PUC Lua
// spells "-nan" or "nan" by its sign bit). E uses match, not gsub, whose
// result TestCompatMaxStringSize caps.
const compatPrelude = `
function E(f, ...) local ok, e = pcall(f, ...) if ok then return "ok" end e = tostring(e) return e:match("^[^:]*:%d+: (.*)$") or e end
function S(...) local t = {} for i = 1, select('#', ...) do local v = select(i, ...) if type(v) == "number" and v ~= v then v = "nan" end t[i] = tostring(v) end return table.concat(t, "\t") end
`

// compatState returns a state with the standard libraries and the compat
// replacements, and the prelude loaded.
func compatState(t testing.TB) *lua.LState {
	t.Helper()
	// A value stack that may grow, as the host's states have.
	L := lua.NewState(lua.Options{RegistrySize: 1024, RegistryMaxSize: 1 << 20, RegistryGrowStep: 1024})
	t.Cleanup(L.Close)
	InstallCompat(L)
	if err := L.DoString(compatPrelude); err != nil {
		t.Fatal(err)
	}
	return L
}

// compatNewYork makes the local zone of os.date and os.time
// America/New_York for the test.
func compatNewYork(t *testing.T) {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	old := compatZone
	compatZone = loc
	t.Cleanup(func() { compatZone = old })
}

// compatEval runs the case's code as the generator did under lua5.1.
func compatEval(t *testing.T, L *lua.LState, code string) string {
	t.Helper()
	src := `local ok, r = pcall(function() return S(` + code + `) end) return ok and r or ("LUAERR " .. tostring(r))`
	if err := L.DoString(src); err != nil {
		return "GOERR " + err.Error()
	}
	defer L.Pop(1)
	return L.Get(-1).String()
}

func compatRunCases(t *testing.T, cases []compatCase) {
	t.Helper()
	compatNewYork(t)
	L := compatState(t)
	for _, c := range cases {
		if got := compatEval(t, L, c.code); got != c.want {
			t.Errorf("%s\n got: %q\nwant: %q", c.code, got, c.want)
		}
	}
	if top := L.GetTop(); top != 0 {
		t.Errorf("stack left with %d values", top)
	}
}

func TestCompatTonumber(t *testing.T)     { compatRunCases(t, compatTonumberCases) }
func TestCompatTostring(t *testing.T)     { compatRunCases(t, compatTostringCases) }
func TestCompatSetmetatable(t *testing.T) { compatRunCases(t, compatSetmetatableCases) }
func TestCompatUnpack(t *testing.T)       { compatRunCases(t, compatUnpackCases) }
func TestCompatFormat(t *testing.T)       { compatRunCases(t, compatFormatCases) }
func TestCompatRep(t *testing.T)          { compatRunCases(t, compatRepCases) }
func TestCompatUpperLower(t *testing.T)   { compatRunCases(t, compatUpperLowerCases) }
func TestCompatGmatch(t *testing.T)       { compatRunCases(t, compatGmatchCases) }
func TestCompatConcat(t *testing.T)       { compatRunCases(t, compatConcatCases) }
func TestCompatDate(t *testing.T)         { compatRunCases(t, compatDateCases) }
func TestCompatTime(t *testing.T)         { compatRunCases(t, compatTimeCases) }

// compatZoneCases check os.date and os.time across offset changes: each
// row's want is PUC Lua 5.1.5's output under TZ=zone, except where marked.
// A wall clock in a spring-forward gap is read with the offset before it;
// one that happens twice as its first occurrence.
var compatZoneCases = []struct{ zone, code, want string }{
	// A wall clock that happens twice: glibc's mktime picks by a guess it
	// caches from the previous call (here, in a fresh process, GMT's
	// 1635643800); this always takes the first occurrence, 01:30 BST.
	{"Europe/London", "os.time{year=2021, month=10, day=31, hour=1, min=30}", "1635640200"},
	{"Europe/London", "os.time{year=2021, month=3, day=28, hour=1, min=30}", "1616895000"},
	{"Europe/London", "os.date(\"%c %Z %z\", 1616895000)", "Sun Mar 28 02:30:00 2021 BST +0100"},
	{"Europe/London", "os.date(\"%H:%M %Z %z\", 1635643800)", "01:30 GMT +0000"},
	{"Europe/London", "os.date(\"*t\", 1616895000).isdst", "true"},
	{"Europe/London", "os.date(\"*t\", 1609459200).isdst", "false"},
	{"Europe/London", "os.time{year=1970, month=1, day=1, hour=1}", "0"},
	{"Australia/Lord_Howe", "os.time{year=2021, month=10, day=3, hour=2, min=15}", "1633189500"},
	// Twice again; glibc in a fresh process: 1617462900 (+1030).
	{"Australia/Lord_Howe", "os.time{year=2021, month=4, day=4, hour=1, min=45}", "1617461100"},
	{"Australia/Lord_Howe", "os.date(\"%H:%M %Z %z\", 1633189500)", "02:45 +11 +1100"},
	{"Australia/Lord_Howe", "os.date(\"%H:%M %z\", 1617462900)", "01:45 +1030"},
	{"Australia/Lord_Howe", "os.date(\"%H:%M %z\", 1617461100)", "01:45 +1100"},
	{"Australia/Lord_Howe", "os.date(\"*t\", 1633189500).isdst", "true"},
	{"Asia/Kolkata", "os.date(\"%c %Z %z\", 0)", "Thu Jan  1 05:30:00 1970 IST +0530"},
	{"Asia/Kolkata", "os.time{year=2000, month=1, day=1, hour=5, min=30}", "946684800"},
	{"Asia/Kolkata", "os.date(\"*t\", 0).isdst", "false"},
	{"America/St_Johns", "os.date(\"%H:%M %Z %z\", 1e9)", "23:16 NDT -0230"},
	{"America/St_Johns", "os.time{year=2021, month=3, day=14, hour=2, min=30}", "1615701600"},
	{"America/St_Johns", "os.date(\"%H:%M %Z\", os.time{year=2021, month=11, day=7, hour=0, min=30})", "00:30 NDT"},
	{"America/New_York", "os.time{year=2021, month=3, day=14, hour=1, min=30}", "1615703400"},
	{"America/New_York", "os.time{year=2021, month=3, day=14, hour=2, min=30}", "1615707000"},
	{"America/New_York", "os.time{year=2021, month=3, day=14, hour=3, min=30}", "1615707000"},
	{"America/New_York", "os.time{year=2021, month=11, day=7, hour=0, min=30}", "1636259400"},
	{"America/New_York", "os.time{year=2021, month=11, day=7, hour=1, min=30}", "1636263000"},
	{"America/New_York", "os.time{year=2021, month=11, day=7, hour=2, min=30}", "1636270200"},
	{"America/New_York", "os.time{year=2021, month=3, day=13, hour=26, min=30}", "1615707000"},
}

func TestCompatZones(t *testing.T) {
	L := compatState(t)
	old := compatZone
	t.Cleanup(func() { compatZone = old })
	for _, c := range compatZoneCases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		compatZone = loc
		if got := compatEval(t, L, c.code); got != c.want {
			t.Errorf("TZ=%s %s\n got: %q\nwant: %q", c.zone, c.code, got, c.want)
		}
	}
}

// TestCompatDateLocal checks os.date without '!' against Go's own reading
// of the process's zone, whatever it is.
func TestCompatDateLocal(t *testing.T) {
	L := compatState(t)
	for _, sec := range []int64{0, 1e9, 1700000000, -1e9} {
		tm := time.Unix(sec, 0).In(time.Local)
		code := "os.date('%Y-%m-%d %H:%M:%S', " + strconv.FormatInt(sec, 10) + ")"
		if got, want := compatEval(t, L, code), tm.Format("2006-01-02 15:04:05"); got != want {
			t.Errorf("%s = %q, want %q", code, got, want)
		}
		code = "os.time(os.date('*t', " + strconv.FormatInt(sec, 10) + "))"
		if got, want := compatEval(t, L, code), strconv.FormatInt(sec, 10); got != want {
			t.Errorf("%s = %q, want %q", code, got, want)
		}
	}
}

// TestCompatToString covers the exported ToString the host's print uses.
func TestCompatToString(t *testing.T) {
	L := compatState(t)
	if err := L.DoString(`
		obj = setmetatable({}, {__tostring = function(self) return "obj!" end})
		num = setmetatable({}, {__tostring = function() return 1/0 end})
		errtab = {code = 7}
		bad = setmetatable({}, {__tostring = function() error(errtab) end})
		badstr = setmetatable({}, {__tostring = function() error("nope", 0) end})
		ud = newproxy and newproxy(true)
	`); err != nil {
		t.Fatal(err)
	}
	g := L.G.Global
	for _, c := range []struct {
		v    lua.LValue
		want string
	}{
		{lua.LNil, "nil"},
		{lua.LTrue, "true"},
		{lua.LString("a\x00b"), "a\x00b"},
		{lua.LNumber(42), "42"},
		{lua.LNumber(-0.5), "-0.5"},
		{lua.LNumber(1e15), "1000000000000000"},
		{lua.LNumber(math.Inf(1)), "inf"},
		{lua.LNumber(math.Inf(-1)), "-inf"},
		{lua.LNumber(math.NaN()), "nan"},
		{lua.LNumber(math.Copysign(math.NaN(), -1)), "nan"},
		{g.RawGetString("obj"), "obj!"},
		{g.RawGetString("num"), "inf"},
	} {
		if got := ToString(L, c.v); got != c.want {
			t.Errorf("ToString(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := ToString(L, L.NewTable()); !strings.HasPrefix(got, "table: 0x") {
		t.Errorf("ToString(table) = %q", got)
	}
	if top := L.GetTop(); top != 0 {
		t.Errorf("stack left with %d values", top)
	}

	// An error in __tostring is raised again from the caller, its value
	// unchanged: call ToString from a Go function run by pcall.
	L.SetGlobal("gostr", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(ToString(L, L.Get(1))))
		return 1
	}))
	for _, c := range []struct{ code, want string }{
		{`local ok, e = pcall(gostr, bad) return tostring(ok) .. " " .. tostring(e == errtab)`, "false true"},
		{`local ok, e = pcall(gostr, badstr) return tostring(ok) .. " " .. e`, "false nope"},
		{`return gostr(obj) .. gostr(12)`, "obj!12"},
		{`local ok, e = pcall(print, bad) return tostring(ok)`, "false"},
	} {
		if err := L.DoString(c.code); err != nil {
			t.Errorf("%s: %v", c.code, err)
			continue
		}
		if got := L.Get(-1).String(); got != c.want {
			t.Errorf("%s = %q, want %q", c.code, got, c.want)
		}
		L.Pop(1)
	}
}

// TestCompatInstallSubset installs into a state with only some libraries:
// no os, no math, and a string metatable whose __index is another table.
func TestCompatInstallSubset(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.StringLibName, lua.OpenString}} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.fn), Protect: true}, lua.LString(lib.name)); err != nil {
			t.Fatal(err)
		}
	}
	methods := L.NewTable()
	mt := L.GetMetatable(lua.LString("")).(*lua.LTable)
	mt.RawSetString("__index", methods)
	InstallCompat(L)
	if L.GetGlobal("os") != lua.LNil || L.GetGlobal("math") != lua.LNil {
		t.Fatal("InstallCompat created os or math")
	}
	if err := L.DoString(`assert(("%d"):format(7) == "7") assert(string.format("%5.1f", 1) == "  1.0")
		assert(tonumber("1e2") == 100)`); err != nil {
		t.Fatal(err)
	}
}

// TestCompatConcatLong joins far more values than the value stack holds,
// in a state whose stack cannot grow (gopher-lua's overflowed).
func TestCompatConcatLong(t *testing.T) {
	L := lua.NewState(lua.Options{RegistrySize: 1024, RegistryMaxSize: 1024})
	defer L.Close()
	InstallCompat(L)
	start := time.Now()
	if err := L.DoString(`
		local t = {}
		for i = 1, 200000 do t[i] = i % 10 end
		local s = table.concat(t, ",")
		assert(#s == 200000 * 2 - 1, #s)
		assert(s:sub(1, 8) == "1,2,3,4,")`); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestCompatMaxStringSize lowers the cap as the sandbox does.
func TestCompatMaxStringSize(t *testing.T) {
	old := MaxStringSize
	MaxStringSize = 10
	t.Cleanup(func() { MaxStringSize = old })
	// S joins with table.concat, which the cap now limits: evaluate each
	// case on its own.
	compatNewYork(t)
	L := compatState(t)
	for _, c := range []compatCase{
		{`string.rep("ab", 5)`, "ababababab"},
		{`E(string.rep, "ab", 6)`, "string.rep: result would be 12 bytes, over the limit of 10"},
		{`E(string.rep, "ab", 4, "--")`, "string.rep: result would be 14 bytes, over the limit of 10"},
		{`table.concat({"abcde", "fghij"})`, "abcdefghij"},
		{`E(table.concat, {"abcde", "fghij"}, ",")`, "table.concat: result would be over the limit of 10 bytes"},
		{`E(table.concat, {"abcdefghijk"})`, "table.concat: result would be over the limit of 10 bytes"},
		{`(string.gsub("abcde", "%w", "%0%0"))`, "aabbccddee"},
		{`E(string.gsub, "abcde", "%w", "%0%0%0")`, "string.gsub: result would be over the limit of 10 bytes"},
		{`E(string.gsub, "abcde", "", "xx")`, "string.gsub: result would be over the limit of 10 bytes"},
		{`E(string.gsub, "abcde", "%w", function(c) return c:rep(3) end)`, "string.gsub: result would be over the limit of 10 bytes"},
	} {
		if err := L.DoString("return " + c.code); err != nil {
			t.Errorf("%s: %v", c.code, err)
			continue
		}
		if got := L.Get(-1).String(); got != c.want {
			t.Errorf("%s\n got: %q\nwant: %q", c.code, got, c.want)
		}
		L.SetTop(0)
	}
}

// TestCompatNoGoPanic calls every replacement with odd arguments and checks
// that each call either returns or raises a Lua error: never a Go runtime
// panic (which PCall reports as ApiErrorPanic).
func TestCompatNoGoPanic(t *testing.T) {
	compatNewYork(t)
	old := MaxStringSize
	MaxStringSize = 1 << 20
	t.Cleanup(func() { MaxStringSize = old })
	L := compatState(t)
	if err := L.DoString(`
		odd = {nil, true, 0, -1, 0.5, 1e300, -1e300, 0/0, 1/0, -1/0, 2^63, -2^63, 2^53 + 1, 2^31, -2^31 - 1, 255, 36, 99,
			"", "x", "%", "%d", "%5.2f", "%-99.99f", "%#+ 0x", "%c%q%s", "!*t", "*t", "!%c %Q %", "%a", "((", "[", "[^", "%b", "%1", "()", "^", "$",
			"1e2", "0x", " 0x1p4 ", "inf", "\0", "\255\254", ("y"):rep(300),
			{}, {1, 2, 3}, {year = 2000, month = 1, day = 1}, {year = 1e300, month = 1, day = 1}, {year = "x", month = 1, day = 1},
			setmetatable({}, {__tostring = function() error("boom") end}), setmetatable({}, {__tostring = function() return {} end}),
			setmetatable({}, {__metatable = "locked"}), setmetatable({}, {__index = function(t, k) return k end}),
			print, coroutine.create(function() end), io.stdout}
		n = 0
		for i = 1, 100 do if odd[i] ~= nil or i == 1 then n = i end end
	`); err != nil {
		t.Fatal(err)
	}
	n := int(L.GetGlobal("n").(lua.LNumber))
	odd := L.GetGlobal("odd").(*lua.LTable)
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = odd.RawGetInt(i + 1)
	}
	type fn struct {
		name string
		f    lua.LValue
	}
	var fns []fn
	for _, name := range []string{"tonumber", "tostring", "setmetatable", "unpack",
		"string.format", "string.rep", "string.upper", "string.lower", "string.gmatch",
		"string.find", "string.match", "string.gsub",
		"table.concat", "os.date", "os.time"} {
		parts := strings.Split(name, ".")
		var v lua.LValue = L.G.Global
		for _, p := range parts {
			v = L.GetField(v, p)
		}
		fns = append(fns, fn{name, v})
	}
	call := func(f fn, args ...lua.LValue) {
		t.Helper()
		if err := L.CallByParam(lua.P{Fn: f.f, NRet: lua.MultRet, Protect: true}, args...); err != nil {
			if aerr, ok := err.(*lua.ApiError); !ok || aerr.Type == lua.ApiErrorPanic {
				t.Fatalf("%s%v: Go panic: %v", f.name, args, err)
			}
			L.SetTop(0)
			return
		}
		// gmatch's iterator: drain it.
		if it, ok := L.Get(1).(*lua.LFunction); ok && f.name == "string.gmatch" {
			L.SetTop(0)
			for k := 0; k < 400; k++ {
				if err := L.CallByParam(lua.P{Fn: it, NRet: 1, Protect: true}); err != nil {
					if aerr, ok := err.(*lua.ApiError); !ok || aerr.Type == lua.ApiErrorPanic {
						t.Fatalf("%s%v iterator: Go panic: %v", f.name, args, err)
					}
					break
				}
				done := L.Get(-1) == lua.LNil
				L.SetTop(0)
				if done {
					break
				}
			}
		}
		L.SetTop(0)
	}
	for _, f := range fns {
		call(f)
		for _, a := range vals {
			call(f, a)
			for _, b := range vals {
				call(f, a, b)
			}
		}
		for _, a := range vals[:20] {
			for _, b := range vals[:20] {
				for _, c := range vals[:20] {
					call(f, a, b, c)
				}
			}
		}
	}
}

func BenchmarkCompatGmatch(b *testing.B) {
	L := compatState(b)
	if err := L.DoString(`s = ("word "):rep(10000)`); err != nil {
		b.Fatal(err)
	}
	fn, err := L.LoadString(`local n = 0 for w in s:gmatch("%a+") do n = n + 1 end assert(n == 10000)`)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompatFormat(b *testing.B) {
	L := compatState(b)
	fn, err := L.LoadString(`for i = 1, 1000 do string.format("%5d|%-8s|%.3f|%x|%q", i, "abc", i / 7, i, "a\nb") end`)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}
