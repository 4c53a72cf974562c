package value

import (
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// EncodeOptions controls the form of Encode's output.
type EncodeOptions struct {
	// Indent is "" for compact output. Otherwise each array element and
	// object member goes on its own line, indented by Indent once per level,
	// with one space after the colon, as json.MarshalIndent(v, "", Indent).
	Indent string
}

type encoder struct {
	walker
	buf    []byte
	indent string
}

var encoderPool = sync.Pool{New: func() any { return &encoder{walker: walker{op: "json.encode"}} }}

// Encode returns the JSON form of v. Errors are of kind errs.Invalid and name
// the path of the offending value, e.g. "json.encode: cannot encode NaN at
// $.a[2]".
func Encode(v lua.LValue, opt EncodeOptions) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.indent = opt.Indent
	e.buf = e.buf[:0]
	err := e.value(v)
	var out []byte
	if err == nil {
		// One exact-size copy, so the growing buffer stays in the pool.
		out = append(make([]byte, 0, len(e.buf)), e.buf...)
	}
	e.release()
	return out, err
}

// AppendJSON appends the JSON form of v to dst. On error dst is returned
// unchanged (its spare capacity may have been written to).
func AppendJSON(dst []byte, v lua.LValue, opt EncodeOptions) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.indent = opt.Indent
	pooled := e.buf
	e.buf = dst
	err := e.value(v)
	out := e.buf
	e.buf = pooled
	e.release()
	if err != nil {
		return dst, err
	}
	return out, nil
}

func (e *encoder) release() {
	e.reset()
	if e.small() && cap(e.buf) <= 64<<10 {
		encoderPool.Put(e)
	}
}

func (e *encoder) value(v lua.LValue) error {
	switch v := v.(type) {
	case nil, *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case lua.LBool:
		e.buf = strconv.AppendBool(e.buf, bool(v))
	case lua.LNumber:
		f := float64(v)
		if err := e.checkNumber(f); err != nil {
			return err
		}
		e.buf = appendNumber(e.buf, f)
	case lua.LString:
		e.buf = appendString(e.buf, string(v))
	case *lua.LTable:
		return e.table(v)
	case *lua.LUserData:
		if v != Null {
			return e.unsupported(v)
		}
		e.buf = append(e.buf, "null"...)
	default:
		return e.unsupported(v)
	}
	return nil
}

func (e *encoder) table(t *lua.LTable) error {
	if err := e.enter(t); err != nil {
		return err
	}
	base := len(e.kvs)
	isArray, n, err := e.shape(t, true)
	if err != nil {
		return err
	}
	openB, closeB := byte('{'), byte('}')
	if isArray {
		openB, closeB = '[', ']'
	} else {
		n = len(e.kvs) - base
	}
	e.buf = append(e.buf, openB)
	e.path = append(e.path, pathSeg{})
	seg := len(e.path) - 1
	for i := range n {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline(len(e.tables))
		var v lua.LValue
		if isArray {
			e.path[seg].idx = i + 1
			v = elem(t, i+1)
		} else {
			// Index e.kvs afresh: nested objects push onto it and may move it.
			m := e.kvs[base+i]
			e.path[seg].key = m.k
			e.buf = appendString(e.buf, m.k)
			e.buf = append(e.buf, ':')
			if e.indent != "" {
				e.buf = append(e.buf, ' ')
			}
			v = m.v
		}
		if err := e.value(v); err != nil {
			return err
		}
	}
	e.popPath(seg)
	clear(e.kvs[base:])
	e.kvs = e.kvs[:base]
	e.leave()
	if n > 0 {
		e.newline(len(e.tables))
	}
	e.buf = append(e.buf, closeB)
	return nil
}

// newline starts a new line indented to depth, when pretty-printing.
func (e *encoder) newline(depth int) {
	if e.indent == "" {
		return
	}
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, e.indent...)
	}
}

// appendNumber writes a finite f. Integers within ±2^53 are written as
// integers; other values in the shortest form that reads back the same. An
// exponent is used below 1e-6, as encoding/json and JavaScript do, and also
// above 2^53, so that a big integral float is never written as an integer
// literal that Decode would refuse as imprecise.
func appendNumber(b []byte, f float64) []byte {
	if isExactInt(f) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs < 1e-6 || abs > maxExact {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Turn e-07 into e-7, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// safe marks the ASCII bytes a JSON string can carry unescaped. <, > and &
// are left alone: the output is for MCP peers, not HTML.
var safe = func() (s [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\'
	}
	return s
}()

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 bytes become U+FFFD,
// as in encoding/json, so the output is always valid UTF-8. It is written
// raw rather than as \ufffd so that re-encoding decoded output is stable.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
