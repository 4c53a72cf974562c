package vm

import (
	"context"
	"strings"
)

// The matcher of Lua 5.1's string patterns: lstrlib.c's match, max_expand,
// min_expand, captures, %b, %f and the anchors, ported step for step so
// that what matches, what it captures and how long it takes are Lua 5.1's
// (linear where Lua's is, exponential where Lua's is). Two things are added:
//
//   - every few thousand steps the matcher polls a context, so a timeout, a
//     cancellation or SIGTERM stops even an exponential pattern;
//   - recursion is bounded (patMaxDepth), so a long pattern cannot exhaust
//     the Go stack; C Lua 5.1 has only its C stack.
//
// It knows nothing of gopher-lua: errors are panics of patError, which the
// builtins in compat_pattern.go turn into Lua errors.
//
// One deliberate difference: the pattern ends at its last byte, and a NUL
// in it is an ordinary character (as in Lua 5.2). C Lua 5.1 stops reading
// the pattern at a NUL.

const (
	patMaxCaptures = 32   // LUA_MAXCAPTURES
	patMaxDepth    = 5000 // nested match calls before "pattern too complex"
	patCheckEvery  = 4096 // steps between two polls of the context
	capUnfinished  = -1   // CAP_UNFINISHED
	capPosition    = -2   // CAP_POSITION
	patSpecials    = "^$*+?.([%-"
)

// patError is what the matcher panics with: a pattern error in Lua 5.1's
// words, or an interruption.
type patError string

type patCapture struct{ init, len int }

// matcher is lstrlib.c's MatchState for one subject and one pattern.
// Positions are byte offsets; a match function returns the end of what it
// matched or -1.
type matcher struct {
	src, pat string
	level    int // captures opened so far
	// steps counts the work done (matcher calls and bytes scanned); the
	// context is polled when it reaches next.
	steps, next int
	ctx         context.Context
	fname       string // the builtin, for the interruption message
	// first is the byte every match must start with when the pattern
	// begins with a plain character that must occur, else -1: searches
	// skip to it with strings.IndexByte.
	first   int
	capture [patMaxCaptures]patCapture
}

// reset prepares m to match pat against src under ctx (nil: never
// interrupted). p0 is where the pattern proper starts (1 after an anchor).
func (m *matcher) reset(ctx context.Context, fname, src, pat string, p0 int) {
	// Field by field: the capture array needs no clearing (level says
	// which entries hold captures), and gmatch resets once per call.
	m.src, m.pat, m.ctx, m.fname = src, pat, ctx, fname
	m.level, m.steps, m.next, m.first = 0, 0, patCheckEvery, -1
	if p0 < len(pat) && strings.IndexByte(patSpecials+")", pat[p0]) < 0 &&
		(p0+1 == len(pat) || strings.IndexByte("*?-", pat[p0+1]) < 0) {
		m.first = int(pat[p0])
	}
}

func (m *matcher) fail(msg string) { panic(patError(msg)) }

// count adds n steps of work and polls the context when it is due.
func (m *matcher) count(n int) {
	m.steps += n
	if m.steps >= m.next {
		m.poll()
	}
}

func (m *matcher) poll() {
	m.next = m.steps + patCheckEvery
	if m.ctx == nil {
		return
	}
	select {
	case <-m.ctx.Done():
		panic(patError(m.fname + " interrupted: " + context.Cause(m.ctx).Error()))
	default:
	}
}

// attempt is one match of the pattern from p at s, as do_match's loop body
// runs it.
func (m *matcher) attempt(s, p int) int {
	m.level = 0
	return m.match(s, p, 0)
}

// skip returns the first position at or after s where a match may start.
func (m *matcher) skip(s int) int {
	if m.first < 0 {
		return s
	}
	src, c := m.src, byte(m.first)
	// A plain loop over the next few bytes, IndexByte's call beyond.
	for i := s; i < len(src) && i < s+16; i++ {
		if src[i] == c {
			return i
		}
	}
	if s+16 >= len(src) {
		return max(s, len(src))
	}
	i := strings.IndexByte(src[s+16:], c)
	if i < 0 {
		i = len(src) - s - 16
	}
	m.count(16 + i)
	return s + 16 + i
}

// search finds the first match of the pattern from p starting at init or
// later (only at init when anchored), as str_find_aux and gmatch_aux do.
func (m *matcher) search(init, p int, anchored bool) (start, end int) {
	for s := init; ; s++ {
		if !anchored {
			s = m.skip(s)
		}
		if e := m.attempt(s, p); e >= 0 {
			return s, e
		}
		if anchored || s >= len(m.src) {
			return -1, -1
		}
	}
}

// captures is how many values a match pushes: its captures, or the whole
// match when it has none and whole is set (push_captures).
func (m *matcher) captures(whole bool) int {
	if m.level == 0 && whole {
		return 1
	}
	return m.level
}

// captureAt returns capture i of the match [s, e) (push_onecapture): its
// text, or for a position capture its 1-based position as pos.
func (m *matcher) captureAt(i, s, e int) (text string, pos int) {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return m.src[s:e], 0
	}
	c := m.capture[i]
	switch c.len {
	case capUnfinished:
		m.fail("unfinished capture")
	case capPosition:
		return "", c.init + 1
	}
	return m.src[c.init : c.init+c.len], 0
}

// match is lstrlib.c's match, its gotos the loop's continues; d counts
// the calls of match it runs inside.
func (m *matcher) match(s, p, d int) int {
	if d > patMaxDepth {
		m.fail("pattern too complex")
	}
	pat, src := m.pat, m.src
	for {
		m.steps++
		if m.steps >= m.next {
			m.poll()
		}
		if p == len(pat) {
			return s
		}
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition, d)
			}
			return m.startCapture(s, p+1, capUnfinished, d)
		case ')':
			return m.endCapture(s, p+1, d)
		case '$':
			if p+1 == len(pat) {
				if s == len(src) {
					return s
				}
				return -1
			}
		case '%':
			if p+1 < len(pat) {
				switch c := pat[p+1]; {
				case c == 'b':
					if s = m.matchBalance(s, p+2); s < 0 {
						return -1
					}
					p += 4
					continue
				case c == 'f':
					p += 2
					if p >= len(pat) || pat[p] != '[' {
						m.fail("missing '[' after '%f' in pattern")
					}
					ep := m.classEnd(p)
					var prev, cur byte
					if s > 0 {
						prev = src[s-1]
					}
					if s < len(src) {
						cur = src[s]
					}
					if matchBracketClass(prev, pat, p, ep-1) || !matchBracketClass(cur, pat, p, ep-1) {
						return -1
					}
					p = ep
					continue
				case c >= '0' && c <= '9':
					if s = m.matchCapture(s, c); s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		// A single-character class, perhaps with a quantifier.
		ep := m.classEnd(p)
		ok := s < len(src) && singleMatch(src[s], pat, p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if ok {
					if r := m.match(s+1, ep+1, d+1); r >= 0 {
						return r
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep, d)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, p, ep, d)
			case '-':
				return m.minExpand(s, p, ep, d)
			}
		}
		if !ok {
			return -1
		}
		s++
		p = ep
	}
}

// classEnd returns the end of the single-character class at p.
func (m *matcher) classEnd(p int) int {
	pat := m.pat
	c := pat[p]
	p++
	switch c {
	case '%':
		if p >= len(pat) {
			m.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for { // look for a ']'; the first character is never it
			if p >= len(pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++ // skip escapes such as "%]"
			}
			if p < len(pat) && pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

// singleMatch reports whether c is in the class pat[p:ep].
func singleMatch(c byte, pat string, p, ep int) bool {
	switch pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, pat[p+1])
	case '[':
		return matchBracketClass(c, pat, p, ep-1)
	}
	return pat[p] == c
}

// matchBracketClass reports whether c is in the set pat[p:ec+1], p at its
// '[' and ec at its ']'.
func matchBracketClass(c byte, pat string, p, ec int) bool {
	sig := true
	if pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return sig
			}
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

// The classes of C's <ctype.h> in the "C" locale.
const (
	ctAlpha = 1 << iota
	ctCntrl
	ctDigit
	ctLower
	ctPunct
	ctSpace
	ctUpper
	ctXdigit
)

var ctype = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		var k uint8
		switch {
		case c >= 'a' && c <= 'z':
			k = ctAlpha | ctLower
		case c >= 'A' && c <= 'Z':
			k = ctAlpha | ctUpper
		case c >= '0' && c <= '9':
			k = ctDigit
		case c == ' ':
			k = ctSpace
		case c >= '\t' && c <= '\r':
			k = ctSpace | ctCntrl
		case c < 32 || c == 127:
			k = ctCntrl
		case c < 127:
			k = ctPunct
		}
		if (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9') {
			k |= ctXdigit
		}
		t[c] = k
	}
	return t
}()

// classMask maps the letter of each class (%a, %d, ...) to its ctype bits.
var classMask = [256]uint8{'a': ctAlpha, 'c': ctCntrl, 'd': ctDigit, 'l': ctLower, 'p': ctPunct,
	's': ctSpace, 'u': ctUpper, 'w': ctAlpha | ctDigit, 'x': ctXdigit}

// matchClass is lstrlib.c's match_class: whether c is in the class %cl
// (an upper-case letter is the complement).
func matchClass(c, cl byte) bool {
	upper := cl >= 'A' && cl <= 'Z'
	lower := cl
	if upper {
		lower += 'a' - 'A'
	}
	var res bool
	if lower == 'z' {
		res = c == 0
	} else if k := classMask[lower]; k != 0 {
		res = ctype[c]&k != 0
	} else {
		return cl == c
	}
	return res != upper
}

func (m *matcher) maxExpand(s, p, ep, d int) int {
	src, pat := m.src, m.pat
	i := 0
	for s+i < len(src) && singleMatch(src[s+i], pat, p, ep) {
		i++
	}
	m.count(i)
	// Try the rest of the pattern with the most repetitions first.
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1, d+1); r >= 0 {
			return r
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep, d int) int {
	for {
		if r := m.match(s, ep+1, d+1); r >= 0 {
			return r
		}
		if s < len(m.src) && singleMatch(m.src[s], m.pat, p, ep) {
			s++ // one more repetition
		} else {
			return -1
		}
	}
}

func (m *matcher) startCapture(s, p, what, d int) int {
	if m.level >= patMaxCaptures {
		m.fail("too many captures")
	}
	m.capture[m.level] = patCapture{s, what}
	m.level++
	r := m.match(s, p, d+1)
	if r < 0 {
		m.level-- // undo the capture
	}
	return r
}

func (m *matcher) endCapture(s, p, d int) int {
	l := -1
	for k := m.level - 1; k >= 0; k-- {
		if m.capture[k].len == capUnfinished {
			l = k
			break
		}
	}
	if l < 0 {
		m.fail("invalid pattern capture")
	}
	m.capture[l].len = s - m.capture[l].init
	r := m.match(s, p, d+1)
	if r < 0 {
		m.capture[l].len = capUnfinished
	}
	return r
}

// matchCapture matches a copy of capture %d (d its digit) at s.
func (m *matcher) matchCapture(s int, d byte) int {
	l := int(d) - '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.fail("invalid capture index")
	}
	c := m.capture[l]
	// A position capture has a negative length, which C's size_t
	// comparison makes too long to match.
	if c.len < 0 || len(m.src)-s < c.len {
		return -1
	}
	m.count(c.len)
	if m.src[s:s+c.len] != m.src[c.init:c.init+c.len] {
		return -1
	}
	return s + c.len
}

// matchBalance matches %bxy, p at x.
func (m *matcher) matchBalance(s, p int) int {
	pat, src := m.pat, m.src
	if p+1 >= len(pat) {
		m.fail("unbalanced pattern")
	}
	if s >= len(src) || src[s] != pat[p] {
		return -1
	}
	b, e := pat[p], pat[p+1]
	cont := 1
	for i := s + 1; i < len(src); i++ {
		switch src[i] {
		case e:
			if cont--; cont == 0 {
				m.count(i - s)
				return i + 1
			}
		case b:
			cont++
		}
	}
	m.count(len(src) - s)
	return -1
}
