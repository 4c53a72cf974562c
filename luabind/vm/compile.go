package vm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// SyntaxError is a chunk that does not compile. Its Error text reads the way
// Lua reports syntax errors ("file.lua:3: 'end' expected near <eof>" style),
// not gopher-lua's "line:3(column:5)" form.
type SyntaxError struct {
	Source string
	Line   int // 0 when the error is at the end of the input
	Msg    string
	Near   string
	AtEOF  bool
}

func (e *SyntaxError) Error() string {
	switch {
	case e.AtEOF:
		return fmt.Sprintf("%s: %s at end of input", e.Source, e.Msg)
	case e.Near != "":
		return fmt.Sprintf("%s:%d: %s near '%s'", e.Source, e.Line, e.Msg, e.Near)
	}
	return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
}

// Incomplete reports whether err is a syntax error at the end of the input:
// an open block, string, comment or table that more lines could finish. The
// REPL uses it to ask for a continuation line.
func Incomplete(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se) && se.AtEOF
}

// Compile parses and compiles src into a prototype. name is the chunk name
// that positions and tracebacks show (a file path, "stdin", "=(repl)").
// A first line starting with '#' (a shebang) is blanked, as lua does, so
// line numbers still match the file. Errors have kind errs.Syntax, or
// errs.Limit for a chunk nested too deep (MaxSyntaxLevels, MaxTreeDepth).
func Compile(src []byte, name string) (proto *lua.FunctionProto, err error) {
	defer func() {
		// The parser is not ours; whatever it does with odd input must come
		// back as a syntax error, not take the host down.
		if r := recover(); r != nil {
			proto, err = nil, &errs.Error{Kind: errs.Syntax, Msg: fmt.Sprintf("%s: cannot compile: %v", name, r)}
		}
	}()
	if len(src) > 0 && src[0] == '#' {
		src = blankFirstLine(src)
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		se := syntaxError(err, name)
		return nil, &errs.Error{Kind: errs.Syntax, Msg: se.Error(), Err: se}
	}
	if err := checkNesting(chunk, name); err != nil {
		return nil, err
	}
	proto, err = lua.Compile(chunk, name)
	if err != nil {
		return nil, &errs.Error{Kind: errs.Syntax, Err: err, Msg: strings.TrimSpace(err.Error())}
	}
	return proto, nil
}

func blankFirstLine(src []byte) []byte {
	i := bytes.IndexByte(src, '\n')
	if i < 0 {
		return nil
	}
	out := make([]byte, len(src)-i)
	copy(out, src[i:])
	return out
}

func syntaxError(err error, name string) *SyntaxError {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &SyntaxError{Source: name, Msg: strings.TrimSpace(err.Error())}
	}
	se := &SyntaxError{Source: name, Msg: strings.TrimSpace(pe.Message), Near: pe.Token}
	if pe.Pos.Line == parse.EOF {
		se.AtEOF = true
	} else {
		se.Line = pe.Pos.Line
	}
	return se
}

// protoCache holds compiled prototypes of embedded and internal chunks, which
// never change while the process runs, so each compiles once per process no
// matter how many states (workers) load it. Prototypes are immutable and
// safe to share between states.
var protoCache sync.Map // key string -> *lua.FunctionProto

// CompileCached is Compile with a process-wide cache keyed by name. Use it
// only for sources that cannot change under the same name (embedded files).
func CompileCached(src []byte, name string) (*lua.FunctionProto, error) {
	return cachedCompile(&protoCache, Compile, src, name)
}

func cachedCompile(cache *sync.Map, compile func([]byte, string) (*lua.FunctionProto, error), src []byte, name string) (*lua.FunctionProto, error) {
	if p, ok := cache.Load(name); ok {
		return p.(*lua.FunctionProto), nil
	}
	p, err := compile(src, name)
	if err != nil {
		return nil, err
	}
	cache.Store(name, p)
	return p, nil
}

// MustCompile compiles an internal chunk and panics if it does not compile:
// a bug caught by any test that loads the package. Call it once per chunk
// (a package variable); it does not use the cache, so several internal
// chunks may share one chunk name.
func MustCompile(src, name string) *lua.FunctionProto {
	p, err := Compile([]byte(src), name)
	if err != nil {
		panic(err)
	}
	return p
}
