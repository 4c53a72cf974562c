package h1

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
)

// body is a request body read from the connection: Content-Length bytes,
// or chunked. It sends 100 Continue before its first read when the client
// asked for it, and tells the connection when it reaches its end (only then
// may the connection watch for the client going away: the handler owns the
// reader until the body is done).
type body struct {
	mu      sync.Mutex // Read and Close may come from different goroutines
	c       *conn
	left    int64 // bytes left of a fixed-length body, or of the current chunk
	chunked bool
	expect  bool // 100-continue still to send
	done    bool
	err     error
	closed  bool
	excess  int64 // framing bytes not matched by data (chunked)
}

var (
	errBodyClosed   = errors.New("h1: read on a closed request body")
	errChunkedError = errors.New("h1: malformed chunked request body")
)

func (b *body) Read(p []byte) (int, error) {
	c := b.c
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errBodyClosed
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.done {
		return 0, io.EOF
	}
	if b.expect {
		b.expect = false
		if _, err := c.rwc.Write(continueLine); err != nil {
			b.err = err
			return 0, err
		}
	}
	n, err := b.read(p)
	if err != nil {
		b.err = err
		if err == io.EOF {
			b.err = nil
			b.finish()
		}
	}
	return n, err
}

var continueLine = []byte("HTTP/1.1 100 Continue\r\n\r\n")

func (b *body) read(p []byte) (int, error) {
	if b.chunked && b.left == 0 {
		size, err := b.chunkSize()
		if err != nil {
			return 0, err
		}
		if size == 0 {
			if err := b.trailer(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		b.left = size
	}
	if b.left == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.c.br.Read(p)
	b.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the client left inside the body
	}
	if err == nil && b.left == 0 {
		if b.chunked {
			err = b.crlf()
		} else {
			err = io.EOF
		}
	}
	return n, err
}

// finish marks the body read; the connection may now watch the socket.
func (b *body) finish() {
	b.done = true
	b.c.bodyDone()
}

// chunkSize reads a chunk-size line ("1a;ext=v"). The rules are net/http's
// (or stricter): CRLF only, at most 4 KiB, and no more than 16 KiB of
// framing beyond what the data sizes justify.
func (b *body) chunkSize() (int64, error) {
	line, err := b.line()
	if err != nil {
		return 0, err
	}
	b.excess += int64(len(line)) + 2
	line = strings.TrimRight(line, " \t")
	if i := strings.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	if line == "" || len(line) > 15 {
		return 0, errChunkedError
	}
	n, err := strconv.ParseUint(line, 16, 60)
	if err != nil {
		return 0, errChunkedError
	}
	b.excess = max(b.excess-16-2*int64(n), 0)
	if b.excess > 16<<10 {
		return 0, errChunkedError
	}
	return int64(n), nil
}

// trailer reads the trailer fields after the last chunk; they are checked
// like the head's and dropped.
func (b *body) trailer() error {
	for total := 0; ; {
		line, err := b.line()
		if err != nil {
			return err
		}
		if line == "" {
			return nil
		}
		if total += len(line); total > 64<<10 {
			return errChunkedError
		}
		i := strings.IndexByte(line, ':')
		if i <= 0 || !isToken(line[:i]) || !validValue(trimOWS(line[i+1:])) {
			return errChunkedError
		}
	}
}

// crlf reads the CRLF that ends a chunk's data.
func (b *body) crlf() error {
	var two [2]byte
	if _, err := io.ReadFull(b.c.br, two[:]); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if two != [2]byte{'\r', '\n'} {
		return errChunkedError
	}
	return nil
}

// line reads one line of chunked framing: it must end in CRLF and hold no
// other CR.
func (b *body) line() (string, error) {
	l, err := b.c.br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF {
			return "", io.ErrUnexpectedEOF
		}
		if err == bufio.ErrBufferFull {
			return "", errChunkedError
		}
		return "", err
	}
	if len(l) < 2 || l[len(l)-2] != '\r' || len(l) > 4096 {
		return "", errChunkedError
	}
	s := string(l[:len(l)-2])
	if strings.IndexByte(s, '\r') >= 0 {
		return "", errChunkedError
	}
	return s, nil
}

func (b *body) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}

// drain reads what the handler left of the body, up to max bytes, so the
// connection can serve its next request; it reports whether that worked.
func (b *body) drain(max int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return true
	}
	if b.err != nil || b.expect {
		// A client told to wait (100-continue never sent) may or may not
		// send the body: the connection's framing is lost.
		return false
	}
	if !b.chunked && b.left > max {
		return false
	}
	buf := make([]byte, 4096)
	var total int64
	for {
		n, err := b.read(buf)
		total += int64(n)
		if err == io.EOF {
			b.done = true
			return true
		}
		if err != nil || total > max {
			return false
		}
	}
}
