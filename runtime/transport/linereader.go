package transport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/errs"
)

const (
	// DefaultMaxMessage is the default cap on one message line.
	DefaultMaxMessage = 16 << 20
	// PrefixSize is how much of an oversize line is kept, enough for the
	// caller to find the message id in any sane message.
	PrefixSize = 4 << 10

	readBufferSize = 64 << 10
	// Beyond this, a grown accumulation buffer is dropped after use rather
	// than kept for the next line, so one big message does not pin memory.
	keepBufferCap = 1 << 20
)

// OversizeError reports a message line longer than the limit. The line was
// read through and discarded; reading can go on with the next line.
type OversizeError struct {
	Server string // server name, "" when not known
	Size   int64  // bytes of the line seen (all of it unless the stream ended inside it)
	Max    int    // the limit
	Prefix []byte // the first PrefixSize bytes of the line, to look for the id in
}

func (e *OversizeError) Error() string {
	who := "the server"
	if e.Server != "" {
		who = fmt.Sprintf("server %q", e.Server)
	}
	return fmt.Sprintf("%s sent a message of %d bytes, over the limit of %d bytes; it was discarded (raise the message size limit or make the reply smaller)",
		who, e.Size, e.Max)
}

// Unwrap gives the error a kind (errs.Protocol) for errs.KindOf and errs.Is.
func (e *OversizeError) Unwrap() error { return errs.New(errs.Protocol, "", e.Error()) }

// LineReader splits a byte stream into newline-delimited JSON messages: it
// returns lines whose first byte other than space, tab or CR is '{', skips
// every other line (reporting it through OnJunk), and rejects a message line
// longer than its limit without buffering more than the limit.
//
// A LineReader is not safe for concurrent use.
type LineReader struct {
	br     *bufio.Reader
	src    *countingReader // under br: counts the reads of the stream
	max    int
	prefix int
	acc    []byte

	// OnJunk, if set, is called for each skipped line with at most its
	// first PrefixSize bytes (a fresh copy the callee may keep) and its full
	// size in bytes. Blank lines are junk too.
	OnJunk func(line []byte, size int64)

	// OnPartial, if set, is called once for each line the stream delivered
	// in pieces: the line's start was kept (moved to the front of the read
	// buffer, or into the growing line buffer) while more of it was read.
	// size is the line's length, reads how many reads it took.
	OnPartial func(size int64, reads int)
}

// countingReader counts the reads of the stream that brought bytes.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.reads++
	}
	return n, err
}

// NewLineReader returns a LineReader over r that rejects message lines of
// more than max bytes (the newline not counted). max <= 0 means
// DefaultMaxMessage.
func NewLineReader(r io.Reader, max int) *LineReader {
	return newLineReader(r, max, readBufferSize, PrefixSize)
}

func newLineReader(r io.Reader, max, bufSize, prefix int) *LineReader {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	src := &countingReader{r: r}
	return &LineReader{br: bufio.NewReaderSize(src, bufSize), src: src, max: max, prefix: prefix}
}

type lineKind int

const (
	lineMessage lineKind = iota
	lineJunk
	lineOversize
)

// Buffered is how many bytes of input are read but not yet returned.
func (l *LineReader) Buffered() int { return l.br.Buffered() }

// Next returns the next message, without its newline, in a slice the caller
// owns. A message line over the limit yields an *OversizeError; the next call
// continues after it. At the end of the stream Next returns io.EOF; a final
// line without a newline still counts as a line. Other errors are the
// reader's.
func (l *LineReader) Next() ([]byte, error) {
	for {
		kind, line, size, err := l.readLine()
		if err != nil {
			return nil, err
		}
		switch kind {
		case lineMessage:
			return line, nil
		case lineOversize:
			return nil, &OversizeError{Size: size, Max: l.max, Prefix: line}
		default:
			if l.OnJunk != nil {
				l.OnJunk(line, size)
			}
		}
	}
}

func (l *LineReader) partial(size int64, reads int) {
	if reads > 1 && l.OnPartial != nil {
		l.OnPartial(size, reads)
	}
}

// readLine reads one line in buffer-sized pieces. It keeps the whole line
// only while it may still be a message within the limit; a junk or oversize
// line keeps just its prefix, so memory stays bounded by the limit whatever
// the line's length.
func (l *LineReader) readLine() (lineKind, []byte, int64, error) {
	acc := l.acc[:0]
	var size int64
	decided := false // seen a byte other than leading whitespace
	isJSON := false
	reads := 1 // reads this line took: more than one when it came in pieces
	for {
		held, before := l.br.Buffered(), l.src.reads
		chunk, err := l.br.ReadSlice('\n')
		if n := l.src.reads - before; n > 0 {
			// Each read after the one that brought the line's first bytes
			// found part of it waiting (bytes the buffer held, or pieces
			// already taken).
			if held == 0 && size == 0 {
				n--
			}
			reads += n
		}
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if !decided {
			for _, c := range chunk {
				if c != ' ' && c != '\t' && c != '\r' {
					decided, isJSON = true, c == '{'
					break
				}
			}
		}
		size += int64(len(chunk))
		if (!decided || isJSON) && size <= int64(l.max) {
			acc = append(acc, chunk...)
		} else {
			if len(acc) > l.prefix {
				acc = acc[:l.prefix]
			}
			if room := l.prefix - len(acc); room > 0 {
				acc = append(acc, chunk[:min(room, len(chunk))]...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || size == 0) {
			l.acc = acc
			return 0, nil, 0, err
		}
		l.partial(size, reads)
		// A whole line, or the stream's last line without a newline.
		kind := lineJunk
		if isJSON {
			kind = lineMessage
			if size > int64(l.max) {
				kind = lineOversize
			}
		}
		if len(acc) > l.prefix && kind != lineMessage {
			acc = acc[:l.prefix]
		}
		line := make([]byte, len(acc))
		copy(line, acc)
		if cap(acc) > keepBufferCap {
			acc = nil
		}
		l.acc = acc
		return kind, line, size, nil
	}
}

// preview renders the start of a skipped line for a trace event or a log:
// at most limit bytes, control and other unprintable characters and invalid
// UTF-8 escaped so that a hostile server cannot drive the user's terminal.
func preview(b []byte, limit int) string {
	const ellipsis = "..."
	var sb strings.Builder
	cut := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		var piece string
		switch {
		case r == utf8.RuneError && n == 1:
			piece = fmt.Sprintf(`\x%02x`, b[i])
		case r == '\t':
			piece = `\t`
		case r == '\r':
			piece = `\r`
		case r == '\n':
			piece = `\n`
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			piece = fmt.Sprintf(`\x%02x`, r)
		case r == '\\':
			piece = `\\`
		case r != ' ' && !unicode.IsPrint(r):
			piece = fmt.Sprintf(`\u%04x`, r)
		default:
			piece = string(b[i : i+n])
		}
		i += n
		if sb.Len()+len(piece) > limit {
			return sb.String()[:cut] + ellipsis
		}
		sb.WriteString(piece)
		if sb.Len() <= limit-len(ellipsis) {
			cut = sb.Len() // the last piece boundary that leaves room for the ellipsis
		}
	}
	return sb.String()
}

// MessagePrefix returns the first bytes of the dropped message, so a
// JSON-RPC connection can fail the call it answered (jsonrpc.PrefixError).
func (e *OversizeError) MessagePrefix() []byte { return e.Prefix }

// MessageSize returns the size of the dropped message and the limit, for a
// server's answer to an oversized request to name them.
func (e *OversizeError) MessageSize() (size int64, max int) { return e.Size, e.Max }
