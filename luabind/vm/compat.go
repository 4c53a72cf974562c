package vm

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file and the other compat*.go files replace gopher-lua v1.1.2
// builtins that deviate from Lua 5.1 (LUA.md §1.15). Each replacement says
// which deviation it fixes. Argument errors read the way PUC Lua 5.1 writes
// them, "bad argument #2 to 'format' (number expected, got string)", always
// naming the builtin (Lua names the function as the call site spelled it) and
// counting arguments from the first one, also for method calls (Lua counts
// from the one after self there).

// InstallCompat replaces gopher-lua builtins that deviate from Lua 5.1 in L's globals
// (and in the string metatable's __index where relevant, which is the same `string` table).
// Call it after the standard libraries are opened. It must work whether or not `os` is opened
// (only replace os.date/os.time if the os table exists).
func InstallCompat(L *lua.LState) {
	g := L.G.Global
	set := func(t *lua.LTable, name string, fn lua.LGFunction) {
		t.RawSetString(name, L.NewFunction(fn))
	}
	set(g, "tonumber", compatTonumber)
	set(g, "tostring", compatTostring)
	set(g, "setmetatable", compatSetmetatable)
	set(g, "unpack", compatUnpack)

	installString := func(t *lua.LTable) {
		set(t, "format", compatFormat)
		set(t, "rep", compatRep)
		set(t, "upper", compatUpper)
		set(t, "lower", compatLower)
		set(t, "find", compatFind)
		set(t, "match", compatMatch)
		set(t, "gmatch", compatGmatch)
		set(t, "gsub", compatGsub)
		if t.RawGetString("gfind") != lua.LNil {
			set(t, "gfind", compatGmatch)
		}
	}
	str, _ := g.RawGetString("string").(*lua.LTable)
	if str != nil {
		installString(str)
	}
	// gopher-lua's string metatable is the string table itself, its __index
	// pointing back at it; patch __index too if a host made them differ.
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok && idx != str {
			installString(idx)
		}
	}
	if t, ok := g.RawGetString("table").(*lua.LTable); ok {
		set(t, "concat", compatConcat)
	}
	if t, ok := g.RawGetString("math").(*lua.LTable); ok {
		// gopher-lua sets math.huge to math.MaxFloat64; Lua's is +Inf.
		t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	}
	if t, ok := g.RawGetString("os").(*lua.LTable); ok {
		set(t, "date", compatOsDate)
		set(t, "time", compatOsTime)
	}
}

// ToString converts v the way Lua's tostring does: a __tostring metamethod
// is called (protected; an error it raises is raised again, unchanged, from
// the caller) and must return a string or a number; numbers are written as
// gopher-lua writes them except the special values, which take C's
// spellings "inf", "-inf" and "nan"; everything else as gopher-lua writes it
// ("table: 0xc000123456"). print and string.format's %s use it.
func ToString(L *lua.LState, v lua.LValue) string {
	if mf := L.GetMetaField(v, "__tostring"); mf != lua.LNil {
		if err := L.CallByParam(lua.P{Fn: mf, NRet: 1, Protect: true}, v); err != nil {
			if aerr, ok := err.(*lua.ApiError); ok {
				L.Error(aerr.Object, 0)
			}
			L.RaiseError("%s", err.Error())
		}
		r := L.Get(-1)
		L.Pop(1)
		switch r := r.(type) {
		case lua.LString:
			return string(r)
		case lua.LNumber:
			return compatNumberString(r)
		}
		L.RaiseError("'__tostring' must return a string")
	}
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return compatNumberString(v)
	}
	return v.String()
}

// compatNumberString is LNumber.String (integral values in full, others in
// Go's shortest form) with C's spellings of the special values: gopher-lua
// writes "+Inf", "-Inf" and "NaN". NaN is always "nan": glibc prints "-nan"
// for the NaN that 0/0 makes on x86, which only confuses.
func compatNumberString(n lua.LNumber) string {
	f := float64(n)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f != f:
		return "nan"
	}
	return n.String()
}

// compatTostring fixes tostring: gopher-lua writes +Inf/-Inf/NaN and lets a
// __tostring return any value; see ToString.
func compatTostring(L *lua.LState) int {
	if L.GetTop() < 1 {
		compatArgError(L, 1, "tostring", "value expected")
	}
	L.Push(lua.LString(ToString(L, L.Get(1))))
	return 1
}

// compatTonumber fixes tonumber: gopher-lua uses strconv.ParseInt unless
// the string has a '.', so tonumber("1e2") is nil, it trims only " \n\t",
// and it accepts Go syntax ("1_000", "0b1"). This follows Lua 5.1 (strtod
// and strtoul): decimal and hexadecimal numerals (hexadecimal fractions and
// p exponents too, as glibc's strtod reads them) between any C white space,
// and for a base other than 10 the digits of that base. Differences from
// PUC Lua 5.1 on glibc, on purpose:
//   - "inf", "nan", "infinity" are nil (strtod reads them as numbers; a
//     script converting input never means that). "1e999" is still inf, as
//     it is a numeral.
//   - a string with an embedded NUL is nil (C stops reading at the NUL).
//   - with a base, "-ff" is -255 and long numerals do not saturate at 2^64
//     (C's strtoul negates in unsigned arithmetic); Lua 5.2 behaves so.
func compatTonumber(L *lua.LState) int {
	base := int64(10)
	if v := L.Get(2); v != lua.LNil {
		base = compatCInt(compatCheckNumber(L, 2, "tonumber"))
	}
	if base == 10 {
		if L.GetTop() < 1 {
			compatArgError(L, 1, "tonumber", "value expected")
		}
		switch v := L.Get(1).(type) {
		case lua.LNumber:
			L.Push(v)
		case lua.LString:
			if f, ok := compatStr2Number(string(v)); ok {
				L.Push(lua.LNumber(f))
			} else {
				L.Push(lua.LNil)
			}
		default:
			L.Push(lua.LNil)
		}
		return 1
	}
	s := compatCheckString(L, 1, "tonumber")
	if base < 2 || base > 36 {
		compatArgError(L, 2, "tonumber", "base out of range")
	}
	if f, ok := compatParseBase(s, int(base)); ok {
		L.Push(lua.LNumber(f))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// compatSetmetatable fixes setmetatable: gopher-lua also accepts userdata
// and strings (a script could replace the string metatable that every
// string shares, or unlock a userdata's). Lua 5.1 accepts only tables.
func compatSetmetatable(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		compatTypeError(L, 1, "setmetatable", "table")
	}
	mt := L.Get(2)
	switch mt.(type) {
	case *lua.LNilType, *lua.LTable:
	default:
		mt = nil
	}
	if mt == nil || L.GetTop() < 2 {
		compatArgError(L, 2, "setmetatable", "nil or table expected")
	}
	if L.GetMetaField(t, "__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

// compatMaxUnpack is Lua 5.1's LUAI_MAXCSTACK: unpack refuses to return
// more values than this.
const compatMaxUnpack = 8000

// compatUnpack fixes unpack: gopher-lua pushes any number of values, so
// unpack({}, 1, 1e8) grows the value stack until the registry overflows, and
// it reads t[i] for i < 1 from the array part only (t[0] is always nil).
// Lua 5.1 raises "too many results to unpack" past LUAI_MAXCSTACK.
func compatUnpack(L *lua.LState) int {
	t := compatCheckTable(L, 1, "unpack")
	i := compatOptInt(L, 2, "unpack", 1)
	e := compatOptInt(L, 3, "unpack", int64(t.Len()))
	if i > e {
		return 0
	}
	if uint64(e)-uint64(i) >= compatMaxUnpack {
		L.RaiseError("too many results to unpack")
	}
	for k := i; ; k++ {
		L.Push(t.RawGet(lua.LNumber(k)))
		if k == e {
			break
		}
	}
	return int(e-i) + 1
}

// --- argument helpers -------------------------------------------------------

// compatArgError raises "bad argument #n to 'fname' (msg)".
func compatArgError(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

// compatTypeError raises "bad argument #n to 'fname' (want expected, got T)",
// T being "no value" past the last argument, as luaL_typerror says.
func compatTypeError(L *lua.LState, n int, fname, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	compatArgError(L, n, fname, want+" expected, got "+got)
}

// compatCheckString is luaL_checkstring: a string, or a number converted.
func compatCheckString(L *lua.LState, n int, fname string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return compatNumberString(v)
	}
	compatTypeError(L, n, fname, "string")
	return ""
}

// compatOptString is luaL_optstring: def when the argument is none or nil.
func compatOptString(L *lua.LState, n int, fname, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return compatCheckString(L, n, fname)
}

// compatCheckNumber is luaL_checknumber: a number, or a string holding a
// numeral (read as tonumber reads it).
func compatCheckNumber(L *lua.LState, n int, fname string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := compatStr2Number(string(v)); ok {
			return f
		}
	}
	compatTypeError(L, n, fname, "number")
	return 0
}

// compatCheckInt is luaL_checkint: a number truncated toward zero. Values
// beyond the int64 range saturate and NaN is 0, where C's cast is undefined.
func compatCheckInt(L *lua.LState, n int, fname string) int64 {
	return compatSaturate(compatCheckNumber(L, n, fname))
}

// compatOptInt is luaL_optint: def when the argument is none or nil.
func compatOptInt(L *lua.LState, n int, fname string, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return compatCheckInt(L, n, fname)
}

// compatCheckTable is luaL_checktype(L, n, LUA_TTABLE).
func compatCheckTable(L *lua.LState, n int, fname string) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		compatTypeError(L, n, fname, "table")
	}
	return t
}

// --- number conversions -----------------------------------------------------

const (
	compatTwo63 = 9223372036854775808.0  // 2^63
	compatTwo64 = 18446744073709551616.0 // 2^64
)

// compatSaturate truncates f toward zero into the int64 range, saturating;
// NaN is 0.
func compatSaturate(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= compatTwo63:
		return math.MaxInt64
	case f < -compatTwo63:
		return math.MinInt64
	}
	return int64(f)
}

// compatCInt is C's (long)f on x86-64 (cvttsd2si): truncation, and the
// "integer indefinite" value math.MinInt64 for NaN and out-of-range values.
// string.format's %d uses it so that it prints what PUC Lua prints there.
func compatCInt(f float64) int64 {
	if f != f || f >= compatTwo63 || f < -compatTwo63 {
		return math.MinInt64
	}
	return int64(f)
}

// compatCUint is C's (unsigned long)f as gcc compiles it on x86-64: values
// below 2^63 (negative ones included) through the signed conversion, values
// in [2^63, 2^64) exactly, larger ones 0, NaN 2^63.
func compatCUint(f float64) uint64 {
	switch {
	case f != f:
		return 1 << 63
	case f < compatTwo63:
		return uint64(compatCInt(f))
	case f < compatTwo64:
		return uint64(f)
	}
	return 0
}

// compatIsSpace is C's isspace in the C locale.
func compatIsSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// compatStr2Number reads s as Lua 5.1's lua_tonumber does (luaO_str2d over
// glibc's strtod): optional white space, an optional sign, a decimal numeral
// (digits with an optional point and exponent) or a hexadecimal one ("0x"
// then hex digits with an optional point and binary exponent "p±n"), optional
// white space. inf and nan are refused; see compatTonumber.
func compatStr2Number(s string) (float64, bool) {
	i, j := 0, len(s)
	for i < j && compatIsSpace(s[i]) {
		i++
	}
	for j > i && compatIsSpace(s[j-1]) {
		j--
	}
	s = s[i:j]
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var f float64
	var ok bool
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		f, ok = compatParseHexFloat(s[2:])
	} else {
		f, ok = compatParseDecFloat(s)
	}
	if !ok {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// compatScanDigits returns the length of the prefix of s made of bytes for
// which isDigit holds.
func compatScanDigits(s string, isDigit func(byte) bool) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func compatIsDec(c byte) bool { return c >= '0' && c <= '9' }

func compatIsHex(c byte) bool {
	return compatIsDec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// compatScanMantissa checks that s is digits, an optional point and digits,
// at least one digit in all, then an optional exponent introduced by one of
// exp (its digits decimal). It returns the mantissa and the exponent text
// (without the letter), or ok false.
func compatScanMantissa(s string, isDigit func(byte) bool, exp string) (mant, expo string, ok bool) {
	n := compatScanDigits(s, isDigit)
	digits := n
	if n < len(s) && s[n] == '.' {
		m := compatScanDigits(s[n+1:], isDigit)
		digits += m
		n += 1 + m
	}
	if digits == 0 {
		return "", "", false
	}
	mant = s[:n]
	rest := s[n:]
	if rest == "" {
		return mant, "", true
	}
	if !strings.ContainsRune(exp, rune(rest[0])) {
		return "", "", false
	}
	rest = rest[1:]
	e := rest
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		rest = rest[1:]
	}
	if rest == "" || compatScanDigits(rest, compatIsDec) != len(rest) {
		return "", "", false
	}
	return mant, e, true
}

// compatParseDecFloat reads an unsigned decimal numeral, all of s.
func compatParseDecFloat(s string) (float64, bool) {
	if _, _, ok := compatScanMantissa(s, compatIsDec, "eE"); !ok {
		return 0, false
	}
	// s is now known to be in the syntax ParseFloat reads; it can only fail
	// with ErrRange, and then returns ±Inf or 0 as strtod does.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// compatParseHexFloat reads the part of a hexadecimal numeral after "0x".
func compatParseHexFloat(s string) (float64, bool) {
	mant, expo, ok := compatScanMantissa(s, compatIsHex, "pP")
	if !ok {
		return 0, false
	}
	if expo == "" {
		expo = "0"
	}
	f, err := strconv.ParseFloat("0x"+mant+"p"+expo, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// compatParseBase reads s as C's strtoul(s, &end, base) followed by Lua
// 5.1's check that only white space follows, except that a '-' negates the
// value and the value is accumulated as a float (no saturation).
func compatParseBase(s string, base int) (float64, bool) {
	i := 0
	for i < len(s) && compatIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digit := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'a' && c <= 'z':
			return int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			return int(c-'A') + 10
		}
		return 99
	}
	// strtoul skips a "0x" prefix in base 16 when a hex digit follows it.
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digit(s[i+2]) < 16 {
		i += 2
	}
	start := i
	var n float64
	for i < len(s) && digit(s[i]) < base {
		n = n*float64(base) + float64(digit(s[i]))
		i++
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && compatIsSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
