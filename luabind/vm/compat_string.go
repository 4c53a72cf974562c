package vm

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// MaxStringSize caps the strings that string.rep and table.concat build, in
// bytes. gopher-lua has no memory limit per state, and string.rep("x", 1e9)
// allocates a gigabyte (LUA.md §1.13). The sandbox lowers it; set it before
// states run, as it is read without synchronisation.
var MaxStringSize = 1 << 28

// compatFormatSpec is one parsed conversion of string.format.
type compatFormatSpec struct {
	minus, plus, space, hash, zero bool
	width                          int
	prec                           int // -1 when absent
}

// compatFormat fixes string.format: gopher-lua's is fmt.Sprintf over
// LValues, so %q quotes the Go way, a missing argument prints
// "%!d(MISSING)" instead of raising, %d of a non-numeric string prints 0,
// and Go verbs (%v, %t, %b) are accepted. This is Lua 5.1's str_format over
// C's printf, written out: flags "-+ #0", width and precision of at most two
// digits each, conversions c d i o u x X e E f g G q s and %%.
//
// Differences from PUC Lua 5.1 on purpose:
//   - %s converts any value with tostring (honouring __tostring), as Lua 5.2
//     does; 5.1 accepts only strings and numbers.
//   - numbers that %s and %q convert are written as tostring writes them
//     (integral values in full, others shortest), not with "%.14g".
//   - %c of 0 and %s of a string holding NUL keep the NUL byte (C's sprintf
//     stops there); NaN prints as "nan" whatever its sign bit (glibc: "-nan").
func compatFormat(L *lua.LState) int {
	top := L.GetTop()
	fs := compatCheckString(L, 1, "format")
	var b strings.Builder
	arg := 1
	for i := 0; i < len(fs); {
		c := fs[i]
		i++
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i < len(fs) && fs[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		// Lua takes the argument before it reads the conversion, so "%5%"
		// with no argument left says "no value".
		arg++
		if arg > top {
			compatArgError(L, arg, "format", "no value")
		}
		var sp compatFormatSpec
		i = compatScanFormat(L, fs, i, &sp)
		if i >= len(fs) {
			L.RaiseError("%s", "invalid option '%' to 'format'")
		}
		conv := fs[i]
		i++
		switch conv {
		case 'c':
			ch := compatCByte(compatCheckNumber(L, arg, "format"))
			compatPad(&b, &sp, "", string([]byte{ch}), false)
		case 'd', 'i':
			v := compatCInt(compatCheckNumber(L, arg, "format"))
			mag := uint64(v)
			if v < 0 {
				mag = -mag
			}
			compatFormatInt(&b, &sp, v < 0, mag, conv, true)
		case 'o', 'u', 'x', 'X':
			compatFormatInt(&b, &sp, false, compatCUint(compatCheckNumber(L, arg, "format")), conv, false)
		case 'e', 'E', 'f', 'g', 'G':
			compatFormatFloat(&b, &sp, compatCheckNumber(L, arg, "format"), conv)
		case 'q':
			compatQuote(&b, compatCheckString(L, arg, "format"))
		case 's':
			s := ToString(L, L.Get(arg))
			if sp.prec >= 0 && len(s) > sp.prec {
				s = s[:sp.prec]
			}
			compatPad(&b, &sp, "", s, false)
		default:
			opt := "%"
			if conv != 0 {
				opt += string([]byte{conv})
			}
			L.RaiseError("invalid option '%s' to 'format'", opt)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// compatScanFormat reads flags, width and precision of the conversion that
// starts at fs[i] into sp, with Lua 5.1's limits (scanformat), and returns
// the index of the conversion letter.
func compatScanFormat(L *lua.LState, fs string, i int, sp *compatFormatSpec) int {
	start := i
	for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
		switch fs[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-start >= 6 {
		L.RaiseError("invalid format (repeated flags)")
	}
	digits := func() int {
		n := 0
		for k := 0; k < 2 && i < len(fs) && compatIsDec(fs[i]); k++ {
			n = n*10 + int(fs[i]-'0')
			i++
		}
		return n
	}
	sp.width = digits()
	sp.prec = -1
	if i < len(fs) && fs[i] == '.' {
		i++
		sp.prec = digits()
	}
	if i < len(fs) && compatIsDec(fs[i]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	return i
}

// compatPad writes prefix and body padded to sp.width: spaces on the left,
// or on the right with '-', or zeros between prefix and body when zeroOK
// and the '0' flag is set.
func compatPad(b *strings.Builder, sp *compatFormatSpec, prefix, body string, zeroOK bool) {
	n := sp.width - len(prefix) - len(body)
	switch {
	case n <= 0:
		b.WriteString(prefix)
		b.WriteString(body)
	case sp.minus:
		b.WriteString(prefix)
		b.WriteString(body)
		b.WriteString(strings.Repeat(" ", n))
	case sp.zero && zeroOK:
		b.WriteString(prefix)
		b.WriteString(strings.Repeat("0", n))
		b.WriteString(body)
	default:
		b.WriteString(strings.Repeat(" ", n))
		b.WriteString(prefix)
		b.WriteString(body)
	}
}

// compatCByte is C's (unsigned char)(int)f on x86-64: the int conversion
// gives INT_MIN, whose low byte is 0, for NaN and values out of its range.
func compatCByte(f float64) byte {
	if f != f || f >= 2147483648.0 || f <= -2147483649.0 {
		return 0
	}
	return byte(int32(f))
}

// compatFormatInt writes an integer conversion as C's printf does: the
// precision is a minimum digit count (and turns off the '0' flag), '#' adds
// a leading 0 for %o and 0x/0X for nonzero %x/%X, '+' and ' ' apply to the
// signed conversions only.
func compatFormatInt(b *strings.Builder, sp *compatFormatSpec, neg bool, mag uint64, conv byte, signed bool) {
	base := 10
	switch conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if sp.prec == 0 && mag == 0 {
		digits = ""
	}
	if len(digits) < sp.prec {
		digits = strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	prefix := ""
	switch {
	case signed && neg:
		prefix = "-"
	case signed && sp.plus:
		prefix = "+"
	case signed && sp.space:
		prefix = " "
	}
	if sp.hash {
		switch {
		case conv == 'o' && (digits == "" || digits[0] != '0'):
			digits = "0" + digits
		case conv == 'x' && mag != 0:
			prefix = "0x"
		case conv == 'X' && mag != 0:
			prefix = "0X"
		}
	}
	compatPad(b, sp, prefix, digits, sp.prec < 0)
}

// compatFormatFloat writes %e %E %f %g %G as C's printf does. The digits
// come from strconv, which rounds exactly as glibc does (correctly, ties to
// even on the exact binary value).
func compatFormatFloat(b *strings.Builder, sp *compatFormatSpec, f float64, conv byte) {
	prefix := ""
	switch {
	case f == f && math.Signbit(f):
		prefix = "-"
		f = -f
	case sp.plus:
		prefix = "+"
	case sp.space:
		prefix = " "
	}
	upper := conv == 'E' || conv == 'G'
	var body string
	switch {
	case f != f:
		body = "nan"
	case math.IsInf(f, 0):
		body = "inf"
	}
	if body != "" {
		if upper {
			body = strings.ToUpper(body)
		}
		compatPad(b, sp, prefix, body, false)
		return
	}
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	switch conv {
	case 'f':
		body = strconv.FormatFloat(f, 'f', prec, 64)
		if sp.hash && prec == 0 {
			body += "."
		}
	case 'e', 'E':
		body = compatFmtE(f, prec, sp.hash)
	case 'g', 'G':
		body = compatFmtG(f, prec, sp.hash)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	compatPad(b, sp, prefix, body, true)
}

// compatFmtE is %.<prec>e of a non-negative finite f; strconv writes the
// exponent with at least two digits, as C does.
func compatFmtE(f float64, prec int, hash bool) string {
	s := strconv.FormatFloat(f, 'e', prec, 64)
	if hash && prec == 0 {
		k := strings.IndexByte(s, 'e')
		s = s[:k] + "." + s[k:]
	}
	return s
}

// compatFmtG is %.<prec>g of a non-negative finite f, by C's rule: with P
// the precision (6 if absent, 1 if 0) and X the decimal exponent after
// rounding to P digits, %f with precision P-1-X when P > X >= -4, else %e
// with precision P-1; then, without '#', trailing zeros and a trailing
// point are removed.
func compatFmtG(f float64, prec int, hash bool) string {
	p := prec
	if p == 0 {
		p = 1
	}
	es := strconv.FormatFloat(f, 'e', p-1, 64)
	k := strings.IndexByte(es, 'e')
	x, _ := strconv.Atoi(es[k+1:])
	var s, exp string
	if x < -4 || x >= p {
		s, exp = es[:k], es[k:]
	} else {
		s = strconv.FormatFloat(f, 'f', p-1-x, 64)
	}
	if hash {
		if !strings.Contains(s, ".") {
			s += "."
		}
	} else if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s + exp
}

// compatQuote writes s as Lua 5.1's %q does: in double quotes, with '"',
// '\\' and newline escaped by a backslash (the newline stays a real one),
// '\r' as \r and NUL as \000; every other byte raw.
func compatQuote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// compatRep fixes string.rep: gopher-lua's has no size cap, so
// string.rep("x", 1e9) allocates a gigabyte. The result is capped at
// MaxStringSize. It takes Lua 5.2's optional separator. A count beyond the
// int64 range saturates (Lua 5.1 casts it to int, and 1e300 copies is "").
func compatRep(L *lua.LState) int {
	s := compatCheckString(L, 1, "rep")
	n := compatCheckInt(L, 2, "rep")
	sep := compatOptString(L, 3, "rep", "")
	if n <= 0 {
		L.Push(lua.LString(""))
		return 1
	}
	size := float64(len(s))*float64(n) + float64(len(sep))*float64(n-1)
	if limit := maxStringSize(L); size > float64(limit) {
		L.RaiseError("string.rep: result would be %s bytes, over the limit of %d", compatBytes(size), limit)
	}
	if size == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if sep == "" {
		L.Push(lua.LString(strings.Repeat(s, int(n))))
		return 1
	}
	var b strings.Builder
	b.Grow(int(size))
	for k := int64(0); k < n; k++ {
		if k > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// compatBytes writes a byte count that may exceed the int64 range.
func compatBytes(size float64) string {
	if size < compatTwo63 {
		return strconv.FormatInt(int64(size), 10)
	}
	return strconv.FormatFloat(size, 'g', -1, 64)
}

// compatUpper fixes string.upper: gopher-lua uses strings.ToUpper, which is
// Unicode-aware ("é" becomes "É") and rewrites invalid UTF-8 as U+FFFD. C
// Lua's toupper in the C locale changes the bytes a-z only.
func compatUpper(L *lua.LState) int {
	L.Push(lua.LString(compatMapASCII(compatCheckString(L, 1, "upper"), 'a', 'z')))
	return 1
}

// compatLower fixes string.lower the same way as compatUpper.
func compatLower(L *lua.LState) int {
	L.Push(lua.LString(compatMapASCII(compatCheckString(L, 1, "lower"), 'A', 'Z')))
	return 1
}

// compatMapASCII switches the case of every byte of s in [lo, hi], an ASCII
// letter range (the case is bit 0x20).
func compatMapASCII(s string, lo, hi byte) string {
	i := 0
	for i < len(s) && (s[i] < lo || s[i] > hi) {
		i++
	}
	if i == len(s) {
		return s
	}
	out := []byte(s)
	for ; i < len(out); i++ {
		if c := out[i]; c >= lo && c <= hi {
			out[i] = c ^ 0x20
		}
	}
	return string(out)
}
