package value

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/runtime/errs"
)

// walker is the part of Lua → JSON conversion that Encode and FromLua share:
// how a table is classified, cycle and depth checks, and the path that every
// error names. It never calls metamethods and needs no LState.
type walker struct {
	op     string
	path   []pathSeg     // where we are, only formatted when an error needs it
	tables []*lua.LTable // tables being visited, for cycle detection
	kvs    []member      // a shared stack of object members, one segment per open object
}

// pathSeg is an object key or, when idx > 0, a 1-based array index (the Lua
// index, since it is a Lua value the user has to fix).
type pathSeg struct {
	key string
	idx int
}

type member struct {
	k string
	v lua.LValue
}

// reset empties the stacks, which an error leaves half full. Popping clears
// what it pops, so only the live part needs clearing for the pool not to
// keep Lua values alive.
func (w *walker) reset() {
	clear(w.path)
	clear(w.tables)
	clear(w.kvs)
	w.path, w.tables, w.kvs = w.path[:0], w.tables[:0], w.kvs[:0]
}

func (w *walker) popPath(seg int) {
	clear(w.path[seg:])
	w.path = w.path[:seg]
}

// small reports whether the walker's buffers are worth pooling.
func (w *walker) small() bool { return cap(w.kvs) <= 4096 && cap(w.path) <= MaxDepth+1 }

func (w *walker) errorf(format string, args ...any) error {
	return errs.New(errs.Invalid, w.op, fmt.Sprintf(format, args...))
}

// where formats the current path JSONPath-style: $, $.a, $.a[2], $["a b"].
func (w *walker) where() string {
	b := []byte{'$'}
	for _, s := range w.path {
		switch {
		case s.idx > 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.idx), 10)
			b = append(b, ']')
		case isIdent(s.key):
			b = append(b, '.')
			b = append(b, s.key...)
		default:
			b = append(b, '[')
			b = appendString(b, s.key)
			b = append(b, ']')
		}
	}
	return string(b)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// enter pushes t on the visiting stack, refusing cycles and excess depth.
// A table seen twice on different branches is fine; only an ancestor is a
// cycle.
func (w *walker) enter(t *lua.LTable) error {
	for _, u := range w.tables {
		if u == t {
			return w.errorf("cycle at %s", w.where())
		}
	}
	if len(w.tables) >= MaxDepth {
		return w.errorf("nesting deeper than %d at %s", MaxDepth, w.where())
	}
	w.tables = append(w.tables, t)
	return nil
}

func (w *walker) leave() {
	w.tables[len(w.tables)-1] = nil
	w.tables = w.tables[:len(w.tables)-1]
}

// unsupported is the error for values JSON has no form for.
func (w *walker) unsupported(v lua.LValue) error {
	what := "a " + v.Type().String()
	switch v.(type) {
	case *lua.LUserData:
		what = "a userdata"
	case *lua.LState:
		what = "a thread"
	}
	return w.errorf("cannot encode %s at %s", what, w.where())
}

// checkNumber refuses what JSON cannot represent.
func (w *walker) checkNumber(f float64) error {
	switch {
	case math.IsNaN(f):
		return w.errorf("cannot encode NaN at %s", w.where())
	case math.IsInf(f, 1):
		return w.errorf("cannot encode inf at %s", w.where())
	case math.IsInf(f, -1):
		return w.errorf("cannot encode -inf at %s", w.where())
	}
	return nil
}

// isExactInt reports whether f is an integer that a float64 holds exactly
// and so can be written without an exponent or fraction.
func isExactInt(f float64) bool { return f == math.Trunc(f) && f >= -maxExact && f <= maxExact }

const (
	plainTable = iota
	arrayTable
	objectTable
)

// shape classifies t, reading it raw (no metamethods). For an array it
// returns n, the highest key; the caller reads elements 1..n. For an object
// it pushes the members on w.kvs from the length it had on entry, sorted by
// key when sorted is set, and the caller pops them.
func (w *walker) shape(t *lua.LTable, sorted bool) (isArray bool, n int, err error) {
	s := shapeState{w: w}
	switch t.Metatable {
	case lua.LValue(ArrayMeta):
		s.marker = arrayTable
	case lua.LValue(ObjectMeta):
		s.marker = objectTable
	}
	base := len(w.kvs)
	// Walk the array part by index and the hash part with Next, which hands
	// out the table's own boxed keys. ForEach would box every key afresh: one
	// allocation per entry.
	maxN := t.MaxN()
	if maxN >= lua.MaxArrayIndex {
		// Only if MaxArrayIndex was lowered after the table grew; Next cannot
		// resume from such a key, so take the slow road.
		t.ForEach(s.add)
	} else {
		for i := 1; i <= maxN; i++ {
			if v := t.RawGetInt(i); v != lua.LNil {
				s.addInt(i, v)
			}
		}
		var k, v lua.LValue
		if maxN == 0 {
			k, v = t.Next(lua.LNil)
		} else {
			k, v = t.Next(intValue(maxN))
		}
		for k != lua.LNil {
			s.add(k, v)
			k, v = t.Next(k)
		}
	}
	fail := func(err error) (bool, int, error) {
		clear(w.kvs[base:])
		w.kvs = w.kvs[:base]
		return false, 0, err
	}
	if s.bad != nil {
		return fail(w.keyError(s.bad, s.marker))
	}
	if s.marker == plainTable && s.ints > 0 && s.strs > 0 {
		return fail(w.errorf("table at %s mixes array and object keys", w.where()))
	}
	if s.marker == arrayTable || (s.marker == plainTable && s.ints > 0) {
		if float64(s.ints) != s.maxKey {
			return fail(w.sparseError(t))
		}
		return true, s.ints, nil
	}
	members := w.kvs[base:]
	if sorted || s.numKeys {
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.k, b.k) })
	}
	if s.numKeys {
		for i := 1; i < len(members); i++ {
			if members[i].k == members[i-1].k {
				return fail(w.errorf("object at %s has both the string key %q and the number key %s", w.where(), members[i].k, members[i].k))
			}
		}
	}
	return false, 0, nil
}

// shapeState accumulates what shape learns about a table's keys.
type shapeState struct {
	w          *walker
	marker     int
	ints, strs int
	maxKey     float64
	numKeys    bool       // an object-marked table had number keys, which may collide with strings
	bad        lua.LValue // the first key that cannot be encoded
}

func (s *shapeState) fail(k lua.LValue) {
	if s.bad == nil {
		s.bad = k
	}
}

// addInt records the entry at positive integer key i.
func (s *shapeState) addInt(i int, v lua.LValue) {
	if s.marker == objectTable {
		s.numKeys = true
		s.w.kvs = append(s.w.kvs, member{strconv.Itoa(i), v})
		return
	}
	s.ints++
	if f := float64(i); f > s.maxKey {
		s.maxKey = f
	}
}

func (s *shapeState) add(k, v lua.LValue) {
	switch k := k.(type) {
	case lua.LString:
		s.strs++
		if s.marker == arrayTable {
			s.fail(k)
			return
		}
		s.w.kvs = append(s.w.kvs, member{string(k), v})
	case lua.LNumber:
		f := float64(k)
		switch {
		case f != math.Trunc(f) || math.IsInf(f, 0):
			s.fail(k)
		case s.marker == objectTable:
			if !isExactInt(f) {
				s.fail(k)
				return
			}
			s.numKeys = true
			s.w.kvs = append(s.w.kvs, member{strconv.FormatInt(int64(f), 10), v})
		case f < 1:
			s.fail(k)
		default:
			s.ints++
			if f > s.maxKey {
				s.maxKey = f
			}
		}
	default:
		s.fail(k)
	}
}

func (w *walker) keyError(k lua.LValue, marker int) error {
	what := [...]string{"table", "array", "object"}[marker]
	switch k := k.(type) {
	case lua.LString:
		return w.errorf("array at %s has the string key %s; json.array tables take keys 1..n only", w.where(), appendString(nil, string(k)))
	case lua.LNumber:
		f := float64(k)
		s := keyString(f)
		switch {
		case f != math.Trunc(f) || math.IsInf(f, 0):
			return w.errorf("%s at %s has the non-integer key %s", what, w.where(), s)
		case marker == objectTable:
			return w.errorf("object at %s has the key %s, beyond 2^53", w.where(), s)
		default:
			return w.errorf("%s at %s has the key %s; array keys run 1..n", what, w.where(), s)
		}
	default:
		return w.errorf("%s at %s has a %s key; object keys must be strings", what, w.where(), k.Type())
	}
}

// sparseError names the first hole: "keys 1..3 then 7".
func (w *walker) sparseError(t *lua.LTable) error {
	var keys []float64
	t.ForEach(func(k, _ lua.LValue) {
		if n, ok := k.(lua.LNumber); ok {
			keys = append(keys, float64(n))
		}
	})
	slices.Sort(keys)
	run := 0
	for run < len(keys) && keys[run] == float64(run+1) {
		run++
	}
	next := "?"
	if run < len(keys) {
		next = keyString(keys[run])
	}
	var desc string
	switch run {
	case 0:
		desc = "the first key is " + next + ", not 1"
	case 1:
		desc = "key 1 then " + next
	default:
		desc = fmt.Sprintf("keys 1..%d then %s", run, next)
	}
	return w.errorf("sparse array at %s (%s); use json.null for holes", w.where(), desc)
}

// elem returns element i of an array-shaped table. Keys at or beyond
// lua.MaxArrayIndex live in the hash part, which RawGetInt does not see.
func elem(t *lua.LTable, i int) lua.LValue {
	if v := t.RawGetInt(i); v != lua.LNil {
		return v
	}
	return t.RawGet(lua.LNumber(i))
}

// keyString formats a number key for a message: integers in full, so the
// user can find the key, and anything else in Go's shortest form.
func keyString(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
