package acp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(r *Reader) (lines []string, over []int64, err error) {
	for {
		line, err := r.Next()
		var tl *LineTooLong
		switch {
		case errors.Is(err, io.EOF):
			return lines, over, nil
		case errors.As(err, &tl):
			over = append(over, tl.Size)
			lines = append(lines, "!"+string(tl.Prefix))
		case err != nil:
			return lines, over, err
		default:
			lines = append(lines, string(line))
		}
	}
}

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		lines    []string
	}{
		{"lines", "a\nbb\n", 10, []string{"a", "bb"}},
		{"crlf", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"no last newline", "a\nb", 10, []string{"a", "b"}},
		{"blank lines kept", "\n\na\n", 10, []string{"", "", "a"}},
		{"at the limit", "abcd\n", 4, []string{"abcd"}},
		{"over the limit, then on", "abcde\nok\n", 4, []string{"!abcde", "ok"}},
		{"over at the end", "ok\nabcdefgh", 4, []string{"ok", "!abcdefgh"}},
		{"empty", "", 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := readAll(NewReader(strings.NewReader(tc.in), tc.max))
			if err != nil || strings.Join(got, "|") != strings.Join(tc.lines, "|") {
				t.Errorf("%q: %q, %v", tc.in, got, err)
			}
		})
	}
}

// A line far over the limit is read through in pieces: its prefix kept,
// its size told, memory bounded, the next line whole.
func TestReaderHugeLine(t *testing.T) {
	huge := `{"id":42,"method":"x","params":"` + strings.Repeat("y", 1<<20) + `"}`
	r := NewReader(strings.NewReader(huge+"\n{}\n"), 1024)
	_, err := r.Next()
	var tl *LineTooLong
	if !errors.As(err, &tl) || tl.Size != int64(len(huge)+1) || len(tl.Prefix) != prefixKeep || tl.Max != 1024 {
		t.Fatalf("%T %v", err, err)
	}
	if !strings.HasPrefix(string(tl.MessagePrefix()), `{"id":42`) {
		t.Errorf("prefix %q", tl.Prefix[:20])
	}
	if line, err := r.Next(); string(line) != "{}" || err != nil {
		t.Errorf("next: %q %v", line, err)
	}
}

// FuzzReader: whatever the input, no line is over the limit, nothing
// panics, and the lines under it come back as they were.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 3)
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n\n\n"), 8)
	f.Add(bytes.Repeat([]byte("x"), 100), 7)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 16
		}
		r := NewReader(bytes.NewReader(in), max)
		var rebuilt [][]byte
		for i := 0; i <= len(in)+1; i++ {
			line, err := r.Next()
			var tl *LineTooLong
			if errors.As(err, &tl) {
				if len(tl.Prefix) > prefixKeep || tl.Size <= int64(max) {
					t.Fatalf("over: prefix %d size %d max %d", len(tl.Prefix), tl.Size, max)
				}
				rebuilt = nil // lines no longer comparable
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(line) > max {
				t.Fatalf("line of %d over %d", len(line), max)
			}
			if rebuilt != nil || i == 0 {
				rebuilt = append(rebuilt, append([]byte(nil), line...))
			}
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the end: %v", err)
		}
		if rebuilt != nil && !bytes.Contains(in, []byte("\r")) {
			want := bytes.TrimSuffix(in, []byte("\n"))
			if got := bytes.Join(rebuilt, []byte("\n")); len(in) > 0 && !bytes.Equal(got, want) {
				t.Fatalf("lines %q from %q", got, in)
			}
		}
	})
}
