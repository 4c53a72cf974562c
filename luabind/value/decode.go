package value

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
)

// MaxDepth is how deeply arrays and objects may nest, on decode and encode.
// It bounds recursion so hostile input like [[[[… cannot exhaust the stack.
const MaxDepth = 512

// maxExact is 2^53: every integer of at most this magnitude is exact in a
// float64, which is all a Lua number is.
const maxExact = 1 << 53

// smallInts are boxed once because converting a float64 to an interface
// allocates, and small integers dominate real messages.
var smallInts [256]lua.LValue

func init() {
	for i := range smallInts {
		smallInts[i] = lua.LNumber(i)
	}
}

// decoder holds the stacks on which an array's or object's items wait until
// the closing bracket says how big the table must be. It is pooled so the
// stacks are reused across calls.
type decoder struct {
	data    []byte
	pos     int
	depth   int
	L       *lua.LState
	vals    []lua.LValue
	keys    []string
	scratch []byte
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

// Decode parses one JSON value from data into Lua values: objects and arrays
// become tables carrying ObjectMeta and ArrayMeta, null becomes Null (also at
// the top level). Malformed input, integers beyond ±2^53 and nesting deeper
// than MaxDepth are errors of kind errs.Invalid whose message gives the byte
// offset.
func Decode(L *lua.LState, data []byte) (lua.LValue, error) {
	d := decoderPool.Get().(*decoder)
	d.data, d.pos, d.depth, d.L = data, 0, 0, L
	v, err := d.top()
	// After an error the stacks may still hold values; drop them so the pool
	// does not keep Lua values alive. (Popping clears what it pops.)
	clear(d.vals)
	clear(d.keys)
	d.vals, d.keys = d.vals[:0], d.keys[:0]
	d.data, d.L = nil, nil
	if cap(d.vals) <= 4096 && cap(d.scratch) <= 64<<10 {
		decoderPool.Put(d)
	}
	return v, err
}

func (d *decoder) top() (lua.LValue, error) {
	d.skipSpace()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.errorf("expected end of input after the value at offset %d, found %s", d.pos, d.found())
	}
	return v, nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) errorf(format string, args ...any) error {
	return errs.New(errs.Invalid, "json.decode", fmt.Sprintf(format, args...))
}

// found describes the byte at d.pos for error messages.
func (d *decoder) found() string {
	if d.pos >= len(d.data) {
		return "end of input"
	}
	c := d.data[d.pos]
	if c > ' ' && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (d *decoder) value() (lua.LValue, error) {
	if d.pos >= len(d.data) {
		return nil, d.errorf("expected a value at offset %d, found end of input", d.pos)
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return lua.LString(s), nil
	case 't':
		return d.literal("true", lua.LTrue)
	case 'f':
		return d.literal("false", lua.LFalse)
	case 'n':
		return d.literal("null", Null)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
		return nil, d.errorf("expected a value at offset %d, found %s", d.pos, d.found())
	}
}

func (d *decoder) literal(word string, v lua.LValue) (lua.LValue, error) {
	end := d.pos + len(word)
	if end > len(d.data) || string(d.data[d.pos:end]) != word {
		return nil, d.errorf("invalid literal at offset %d; expected %s", d.pos, word)
	}
	d.pos = end
	return v, nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.errorf("nesting deeper than %d at offset %d", MaxDepth, d.pos)
	}
	return nil
}

func (d *decoder) array() (lua.LValue, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	open := d.pos
	d.pos++ // '['
	base := len(d.vals)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
	} else {
		for {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.vals = append(d.vals, v)
			d.skipSpace()
			if d.pos < len(d.data) {
				c := d.data[d.pos]
				d.pos++
				if c == ',' {
					d.skipSpace()
					continue
				}
				if c == ']' {
					break
				}
				d.pos--
			}
			return nil, d.errorf("expected ',' or ']' after array element at offset %d, found %s (array opened at offset %d)", d.pos, d.found(), open)
		}
	}
	// Sized exactly: NewTable would preallocate 32 slots and a 32-entry map.
	items := d.vals[base:]
	t := d.L.CreateTable(len(items), 0)
	for i, v := range items {
		t.RawSetInt(i+1, v)
	}
	clear(items)
	d.vals = d.vals[:base]
	t.Metatable = ArrayMeta
	d.depth--
	return t, nil
}

func (d *decoder) object() (lua.LValue, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	open := d.pos
	d.pos++ // '{'
	kbase, vbase := len(d.keys), len(d.vals)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
	} else {
		for {
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return nil, d.errorf("expected a string key at offset %d, found %s (object opened at offset %d)", d.pos, d.found(), open)
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.skipSpace()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return nil, d.errorf("expected ':' after object key at offset %d, found %s", d.pos, d.found())
			}
			d.pos++
			d.skipSpace()
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.keys = append(d.keys, k)
			d.vals = append(d.vals, v)
			d.skipSpace()
			if d.pos < len(d.data) {
				c := d.data[d.pos]
				d.pos++
				if c == ',' {
					d.skipSpace()
					continue
				}
				if c == '}' {
					break
				}
				d.pos--
			}
			return nil, d.errorf("expected ',' or '}' after object member at offset %d, found %s (object opened at offset %d)", d.pos, d.found(), open)
		}
	}
	keys, vals := d.keys[kbase:], d.vals[vbase:]
	t := d.L.CreateTable(0, len(keys))
	// Later duplicates overwrite earlier ones: last wins, as in encoding/json.
	for i, k := range keys {
		t.RawSetString(k, vals[i])
	}
	clear(keys)
	clear(vals)
	d.keys, d.vals = d.keys[:kbase], d.vals[:vbase]
	t.Metatable = ObjectMeta
	d.depth--
	return t, nil
}

// plain marks the bytes a string can hold without a closer look.
var plain = func() (p [256]bool) {
	for c := 0x20; c < 256; c++ {
		p[c] = c != '"' && c != '\\'
	}
	return p
}()

// str reads the string that starts at d.pos (a '"').
func (d *decoder) str() (string, error) {
	data := d.data
	i := d.pos + 1
	for i < len(data) && plain[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
		s := string(data[d.pos+1 : i])
		d.pos = i + 1
		return s, nil
	}
	return d.strSlow(i)
}

// strSlow continues str from i, the first byte that needs attention, building
// the string in scratch. Invalid UTF-8 is kept as is: strings are bytes.
func (d *decoder) strSlow(i int) (string, error) {
	data := d.data
	open := d.pos
	buf := append(d.scratch[:0], data[open+1:i]...)
	for {
		if i >= len(data) {
			d.scratch = buf
			return "", d.errorf("unterminated string at offset %d (string opened at offset %d)", i, open)
		}
		c := data[i]
		switch {
		case c == '"':
			d.scratch = buf
			d.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			d.scratch = buf
			return "", d.errorf("control character 0x%02x in string at offset %d; escape it", c, i)
		case c != '\\':
			start := i
			for i < len(data) && plain[data[i]] {
				i++
			}
			buf = append(buf, data[start:i]...)
			continue
		}
		// An escape.
		if i+1 >= len(data) {
			d.scratch = buf
			return "", d.errorf("unterminated string at offset %d (string opened at offset %d)", i+1, open)
		}
		switch e := data[i+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(data, i+2)
			if !ok {
				d.scratch = buf
				return "", d.errorf("invalid \\u escape in string at offset %d; expected 4 hex digits", i)
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A high surrogate pairs with an immediately following low
				// one; anything else is a lone surrogate and becomes U+FFFD.
				r2 := rune(-1)
				if r < 0xdc00 && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
					r2, _ = hex4(data, i+2)
				}
				if r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			d.scratch = buf
			return "", d.errorf("invalid escape '\\%s' in string at offset %d", escByte(e), i)
		}
		i += 2
	}
}

func escByte(c byte) string {
	if c > ' ' && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("x%02x", c)
}

// hex4 reads four hex digits at data[i:]; ok is false if there are fewer.
func hex4(data []byte, i int) (r rune, ok bool) {
	if i+4 > len(data) {
		return 0, false
	}
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number reads a JSON number at d.pos. Integer literals are accumulated
// exactly and refused beyond 2^53 rather than silently rounded; anything
// with a fraction or exponent goes through strconv.ParseFloat.
func (d *decoder) number() (lua.LValue, error) {
	data := d.data
	start := d.pos
	i := start
	neg := data[i] == '-'
	if neg {
		i++
	}
	var u uint64
	switch {
	case i < len(data) && data[i] == '0':
		i++
		if i < len(data) && isDigit(data[i]) {
			return nil, d.errorf("leading zero in number at offset %d", start)
		}
	case i < len(data) && isDigit(data[i]):
		for ; i < len(data) && isDigit(data[i]); i++ {
			if u <= maxExact { // stop accumulating once too big; it is an error anyway
				u = u*10 + uint64(data[i]-'0')
			}
		}
	default:
		d.pos = i
		return nil, d.errorf("expected a digit at offset %d, found %s", i, d.found())
	}
	isFloat := false
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			d.pos = i
			return nil, d.errorf("expected a digit after '.' at offset %d, found %s", i, d.found())
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
		isFloat = true
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			d.pos = i
			return nil, d.errorf("expected a digit in exponent at offset %d, found %s", i, d.found())
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
		isFloat = true
	}
	d.pos = i
	if !isFloat {
		if u > maxExact {
			return nil, d.errorf("integer %s at offset %d is beyond 2^53 and would lose precision; send it as a string", data[start:i], start)
		}
		if (!neg || u == 0) && u < uint64(len(smallInts)) {
			return smallInts[u], nil
		}
		f := float64(u)
		if neg && u != 0 {
			f = -f
		}
		return lua.LNumber(f), nil
	}
	f, err := strconv.ParseFloat(string(data[start:i]), 64)
	// ParseFloat reports underflow as ErrRange too, but rounding to zero is
	// the right answer there; only an infinite result is unrepresentable.
	if err != nil && math.IsInf(f, 0) {
		return nil, d.errorf("number %s at offset %d is out of range", data[start:i], start)
	}
	return lua.LNumber(f), nil
}

// intValue boxes i, without allocating when it is small.
func intValue(i int) lua.LValue {
	if i >= 0 && i < len(smallInts) {
		return smallInts[i]
	}
	return lua.LNumber(i)
}
