package compact

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStoreCutAndRead(t *testing.T) {
	s := NewStore(100)
	if got, cut := s.Cut("c1", "short"); cut || got != "short" || s.Len() != 0 {
		t.Fatalf("a short result was cut: %q", got)
	}
	whole := strings.Repeat("0123456789", 35) // 350 bytes
	shown, cut := s.Cut("c1", whole)
	if !cut || !strings.HasPrefix(shown, whole[:100]) || !strings.Contains(shown, `read_tool_result with id "c1" and offset 100`) {
		t.Fatalf("cut: %q", shown)
	}
	// Paging reads the rest, one bounded page at a time, each naming the
	// next offset.
	var b strings.Builder
	b.WriteString(whole[:100])
	for off := 100; off < len(whole); off += 100 {
		page, ok := s.Read("c1", off)
		if !ok {
			t.Fatal("c1 is not kept")
		}
		body, note, _ := strings.Cut(page, "\n\n[")
		if len(body) > 100 {
			t.Fatalf("page at %d has %d bytes", off, len(body))
		}
		if off+100 < len(whole) && !strings.Contains(note, fmt.Sprintf("offset %d", off+100)) {
			t.Errorf("page at %d: note %q", off, note)
		}
		b.WriteString(body)
	}
	if b.String() != whole {
		t.Error("the pages are not the whole result")
	}
	if page, ok := s.Read("c1", 1000); !ok || !strings.Contains(page, "past the end") {
		t.Errorf("past the end: %q", page)
	}
	if _, ok := s.Read("nope", 0); ok {
		t.Error("an unknown id was found")
	}
	s.Reset()
	if s.Len() != 0 {
		t.Error("Reset kept results")
	}
}

// A cut never splits a UTF-8 character, and a page always advances.
func TestStoreUTF8(t *testing.T) {
	s := NewStore(5)
	whole := strings.Repeat("é€", 10) // 2- and 3-byte characters
	shown, _ := s.Cut("x", whole)
	first, _, _ := strings.Cut(shown, "\n\n[")
	if !utf8.ValidString(first) || len(first) == 0 {
		t.Fatalf("first page %q", first)
	}
	got := first
	for off := len(first); off < len(whole); {
		page, _ := s.Read("x", off)
		body, _, _ := strings.Cut(page, "\n\n[")
		if !utf8.ValidString(body) || len(body) == 0 {
			t.Fatalf("page at %d: %q", off, body)
		}
		got += body
		off += len(body)
	}
	if got != whole {
		t.Errorf("pages %q", got)
	}
	tiny := NewStore(1)
	if shown, _ := tiny.Cut("y", "€€"); !strings.HasPrefix(shown, "€\n") {
		t.Errorf("a page smaller than a character: %q", shown)
	}
}
