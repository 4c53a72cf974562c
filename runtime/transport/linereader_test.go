package transport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

type result struct {
	msg      string
	oversize *OversizeError
	isJunk   bool
	junk     string
	junkSize int64
}

// collect runs a LineReader to the end and records everything it reported.
func collect(t testing.TB, lr *LineReader) []result {
	var out []result
	lr.OnJunk = func(line []byte, size int64) {
		out = append(out, result{isJunk: true, junk: string(line), junkSize: size})
	}
	for {
		msg, err := lr.Next()
		var oe *OversizeError
		switch {
		case err == nil:
			out = append(out, result{msg: string(msg)})
		case errors.As(err, &oe):
			out = append(out, result{oversize: oe})
		case err == io.EOF:
			return out
		default:
			t.Fatalf("Next: %v", err)
		}
	}
}

// expect is the reference framing: split on newlines, classify each line.
func expect(data []byte, max, prefix int) []result {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte("\n"))
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	var out []result
	for _, l := range lines {
		trimmed := bytes.TrimLeft(l, " \t\r")
		keep := l[:min(len(l), prefix)]
		switch {
		case len(trimmed) == 0 || trimmed[0] != '{':
			out = append(out, result{isJunk: true, junk: string(keep), junkSize: int64(len(l))})
		case len(l) > max:
			out = append(out, result{oversize: &OversizeError{Size: int64(len(l)), Max: max, Prefix: keep}})
		default:
			out = append(out, result{msg: string(l)})
		}
	}
	return out
}

func sameResults(got, want []result) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.isJunk != w.isJunk || g.msg != w.msg || g.junk != w.junk || g.junkSize != w.junkSize || (g.oversize == nil) != (w.oversize == nil) {
			return false
		}
		if g.oversize != nil && (g.oversize.Size != w.oversize.Size || g.oversize.Max != w.oversize.Max ||
			!bytes.Equal(g.oversize.Prefix, w.oversize.Prefix)) {
			return false
		}
	}
	return true
}

func TestLineReader(t *testing.T) {
	cases := []string{
		"",
		"\n",
		`{"a":1}`,
		"{\"a\":1}\n{\"b\":2}\n",
		"junk\n{\"a\":1}\r\n  \t{}\n\n[1]\n",
		"{\"" + strings.Repeat("x", 100) + "\"}\n{}\n",
		strings.Repeat(" ", 50) + "{}\n" + strings.Repeat(" ", 50) + "\n{}",
		"no newline at the end",
		strings.Repeat("y", 70) + "\n{}\n",
	}
	for _, c := range cases {
		for _, buf := range []int{16, 32, 4096} {
			lr := newLineReader(strings.NewReader(c), 40, buf, 20)
			got := collect(t, lr)
			if want := expect([]byte(c), 40, 20); !sameResults(got, want) {
				t.Errorf("%q (buffer %d):\n got %+v\nwant %+v", c, buf, got, want)
			}
		}
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("{}\n{\"partial"), iotest.ErrReader(boom)), 0)
	if msg, err := lr.Next(); err != nil || string(msg) != "{}" {
		t.Fatalf("%q %v", msg, err)
	}
	if _, err := lr.Next(); err != boom {
		t.Fatalf("err %v", err)
	}
}

// endless yields n bytes of 'x' without holding them.
type endless struct{ n int64 }

var xs = bytes.Repeat([]byte("x"), 64<<10)

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(int64(len(p)), e.n)], xs)
	e.n -= int64(k)
	return k, nil
}

// A line far longer than the cap is streamed through: allocation is bounded
// by the cap and the buffer, not by the line.
func TestLineReaderOversizeIsStreamed(t *testing.T) {
	const lineLen = 128 << 20
	r := io.MultiReader(strings.NewReader(`{"id":42,"blob":"`), &endless{n: lineLen}, strings.NewReader("\"}\n{\"id\":43}\n"))
	lr := NewLineReader(r, 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := lr.Next()
	runtime.ReadMemStats(&after)
	var oe *OversizeError
	if !errors.As(err, &oe) || oe.Size != lineLen+int64(len(`{"id":42,"blob":""}`)) || !bytes.HasPrefix(oe.Prefix, []byte(`{"id":42,`)) {
		t.Fatalf("err %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("allocated %d bytes for a %d-byte line", alloc, oe.Size)
	}
	if msg, err := lr.Next(); err != nil || string(msg) != `{"id":43}` {
		t.Fatalf("%q %v", msg, err)
	}
	// The same for a junk line: never accumulated.
	lr = NewLineReader(io.MultiReader(&endless{n: lineLen}, strings.NewReader("\n{}\n")), 1<<20)
	var junkSize int64
	lr.OnJunk = func(line []byte, size int64) { junkSize = size }
	runtime.ReadMemStats(&before)
	msg, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil || string(msg) != "{}" || junkSize != lineLen {
		t.Fatalf("%q %v %d", msg, err, junkSize)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("allocated %d bytes skipping a junk line", alloc)
	}
}

func TestPreview(t *testing.T) {
	cases := map[string]string{
		"plain":                    "plain",
		"tab\there\r":              `tab\there\r`,
		"\x1b[2J\x00\x7f":          `\x1b[2J\x00\x7f`,
		"bad \xff utf8":            `bad \xff utf8`,
		"back\\slash":              `back\\slash`,
		"rtl \u202e override":      `rtl \u202e override`,
		"héllo wörld":              "héllo wörld",
		strings.Repeat("a", 80):    strings.Repeat("a", 80),
		strings.Repeat("a", 81):    strings.Repeat("a", 77) + "...",
		strings.Repeat("\x01", 30): strings.Repeat(`\x01`, 19) + "...",
	}
	for in, want := range cases {
		got := preview([]byte(in), 80)
		if got != want {
			t.Errorf("preview(%q) = %q, want %q", in, got, want)
		}
		if len(got) > 80 {
			t.Errorf("preview(%q) is %d bytes", in, len(got))
		}
	}
}

func TestFormatCommand(t *testing.T) {
	got := formatCommand("npx", []string{"-y", "@scope/server", "/my docs", ""})
	if want := `npx -y @scope/server "/my docs" ""`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// FuzzReadFraming feeds arbitrary streams to the framing: it must never
// panic, every message must be one line starting with '{' after optional
// whitespace and within the cap, and the whole result must match the
// reference split, whatever the buffer size and read pattern.
func FuzzReadFraming(f *testing.F) {
	f.Add([]byte("{\"a\":1}\njunk\n\n  {\"b\":2}"), uint8(10), uint8(0))
	f.Add([]byte(strings.Repeat("{", 100)+"\n{}\n"), uint8(5), uint8(1))
	f.Add([]byte("\r\n\t\r{\"x\":\"\xff\"}\r\n"), uint8(63), uint8(2))
	f.Add([]byte(strings.Repeat(" ", 40)+"{"+strings.Repeat("z", 40)), uint8(30), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, maxb, mode uint8) {
		max := int(maxb)%64 + 1
		prefix := int(mode>>2)%24 + 1
		var r io.Reader = bytes.NewReader(data)
		switch mode % 4 {
		case 1:
			r = iotest.OneByteReader(r)
		case 2:
			r = iotest.HalfReader(r)
		case 3:
			r = iotest.DataErrReader(r)
		}
		lr := newLineReader(r, max, 16, prefix)
		got := collect(t, lr)
		for _, g := range got {
			if g.oversize != nil || g.isJunk {
				continue
			}
			m := []byte(g.msg)
			if bytes.IndexByte(m, '\n') >= 0 || len(m) > max || !bytes.HasPrefix(bytes.TrimLeft(m, " \t\r"), []byte("{")) {
				t.Fatalf("bad message %q (max %d)", m, max)
			}
		}
		if want := expect(data, max, prefix); !sameResults(got, want) {
			t.Fatalf("framing differs:\n got %+v\nwant %+v", got, want)
		}
	})
}

// A batch line is junk to the LineReader (a client must skip "[INFO] ..."
// lines), reported whole when short and by its beginning and full size when
// long: enough for a server's connection to refuse it (jsonrpc.JunkStream).
// An oversized message reports its size and the limit for the refusal.
func TestLineReaderReportsBatchesAndSizes(t *testing.T) {
	small := `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`
	long := `[{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"` + strings.Repeat("x", 2*PrefixSize) + `"}}]`
	big := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"` + strings.Repeat("x", 100) + `"}}`
	lr := NewLineReader(strings.NewReader(small+"\n"+long+"\n"+big+"\n{}\n"), 64)
	type junk struct {
		line string
		size int64
	}
	var got []junk
	lr.OnJunk = func(line []byte, size int64) { got = append(got, junk{string(line), size}) }
	_, err := lr.Next()
	var oe *OversizeError
	if !errors.As(err, &oe) {
		t.Fatalf("Next: %v, want the oversized message", err)
	}
	if size, max := oe.MessageSize(); size != int64(len(big)) || max != 64 {
		t.Errorf("MessageSize %d %d, want %d 64", size, max, len(big))
	}
	if len(got) != 2 || got[0] != (junk{small, int64(len(small))}) || got[1].line != long[:PrefixSize] || got[1].size != int64(len(long)) {
		t.Errorf("junk: %d lines, want the batch whole and the long one by its beginning", len(got))
	}
	if msg, err := lr.Next(); err != nil || string(msg) != "{}" {
		t.Errorf("then %q %v", msg, err)
	}
}

// chunks is a stream that delivers its pieces one read each, as a pipe
// does when the writer flushes half a line.
type chunks []string

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	if n == len((*c)[0]) {
		*c = (*c)[1:]
	} else {
		(*c)[0] = (*c)[0][n:]
	}
	return n, nil
}

// A line the stream delivers in pieces is reported once (OnPartial), with
// its size and the reads it took; whole lines are not.
func TestPartialLines(t *testing.T) {
	type partial struct {
		size  int64
		reads int
	}
	cases := []struct {
		name   string
		pieces chunks
		buf    int
		want   []partial
	}{
		{"whole lines", chunks{`{"a":1}` + "\n" + `{"b":2}` + "\n"}, 64, nil},
		{"half a line, then the rest", chunks{`{"a":`, `1}` + "\n" + `{"b":2}` + "\n" + `{"c"`, `:3}` + "\n"}, 64, []partial{{7, 2}, {7, 2}}},
		{"a line in three reads", chunks{`{"a"`, `:"xy`, `z"}` + "\n"}, 64, []partial{{11, 3}}},
		{"junk in pieces", chunks{"hel", "lo\n" + `{"b":2}` + "\n"}, 64, []partial{{5, 2}}},
		{"longer than the buffer", chunks{`{"a":"` + strings.Repeat("x", 40) + `"}` + "\n"}, 16, []partial{{48, 4}}}, // 16+16+16+1 bytes
		{"last line without a newline", chunks{`{"a":`, `1}`}, 64, []partial{{7, 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pieces := tc.pieces
			lr := newLineReader(&pieces, 1<<20, tc.buf, PrefixSize)
			var got []partial
			lr.OnPartial = func(size int64, reads int) { got = append(got, partial{size, reads}) }
			collect(t, lr)
			if !slices.Equal(got, tc.want) {
				t.Errorf("OnPartial got %v, want %v", got, tc.want)
			}
		})
	}
}
