package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

type out struct {
	Type, ID string
	Retry    time.Duration
	Data     string
	HasData  bool
}

// readAll reads every event of in, and the error that ended the stream.
func readAll(in []byte, max int) ([]out, error) {
	r := NewReader(bytes.NewReader(in), max)
	var got []out
	for {
		ev, err := r.Next()
		if err != nil {
			return got, err
		}
		got = append(got, out{ev.Type, ev.ID, ev.Retry, string(ev.Data), ev.Data != nil})
	}
}

// reference is the standard's algorithm over the whole input at once,
// for lines ending in "\n" or "\r\n" (an event is dispatched when it had
// any field, so a caller sees ids and retry times without data): the
// reader must agree with it.
func reference(in []byte) []out {
	lines := strings.Split(string(in), "\n")
	lines = lines[:len(lines)-1] // the last has no newline: dropped
	var got []out
	var ev out
	var data []string
	field := false
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case l == "":
			if field {
				ev.Data, ev.HasData = strings.Join(data, "\n"), data != nil
				got = append(got, ev)
			}
			ev, data, field = out{}, nil, false
		case l[0] == ':':
		default:
			f, v, _ := strings.Cut(l, ":")
			v = strings.TrimPrefix(v, " ")
			switch f {
			case "event":
				ev.Type, field = v, true
			case "id":
				ev.ID, field = v, true
			case "retry":
				if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
					ev.Retry, field = time.Duration(ms)*time.Millisecond, true
				}
			case "data":
				data, field = append(data, v), true
			}
		}
	}
	return got
}

func TestReader(t *testing.T) {
	in := ": a comment\n" +
		"event: message_start\ndata: {\"a\":1}\n\n" +
		"data:no space\r\ndata:  two spaces\r\nid: 7\r\nretry: 10\r\n\r\n" +
		"event: ping\n\n" + // no data: dispatched without
		"data\n\n" + // a field without a colon: empty data
		"retry: soon\n\n" + // an invalid retry is no field
		"data: cut by the end"
	got, err := readAll([]byte(in), 1<<20)
	if err != io.EOF {
		t.Fatal(err)
	}
	want := []out{{Type: "message_start", Data: `{"a":1}`, HasData: true},
		{ID: "7", Retry: 10 * time.Millisecond, Data: "no space\n two spaces", HasData: true},
		{Type: "ping"}, {HasData: true}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A peer that never ends an event, or sends one endless line, costs the
// bound, not the process's memory.
func TestReaderBounds(t *testing.T) {
	many := strings.Repeat("data: "+strings.Repeat("x", 1000)+"\n", 100)
	long := "data: " + strings.Repeat("y", 200<<10) + "\n\n"
	for _, in := range []string{many, long} {
		if _, err := readAll([]byte(in), 64<<10); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("got %v", err)
		}
	}
	got, err := readAll([]byte(long), 1<<20) // within the bound: whole
	if err != io.EOF || len(got) != 1 || len(got[0].Data) != 200<<10 {
		t.Fatalf("got %d events, %v", len(got), err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("event: a\ndata: 1\n\ndata: 2\ndata: 3\n\n"))
	f.Add([]byte(": c\r\ndata:x\r\n\r\nevent\ndata\n\nid: 1\nretry: 5\n\n"))
	f.Add([]byte("data: " + strings.Repeat("z", 300) + "\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 256
		got, err := readAll(in, max)
		if err != io.EOF {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v", err)
			}
			return // over the bound: the reference has no bound
		}
		want := reference(in)
		if len(got) != len(want) {
			t.Fatalf("%q: got %+v, want %+v", in, got, want)
		}
		for i := range want {
			if got[i] != want[i] || len(got[i].Data) > max {
				t.Fatalf("%q: event %d: got %+v, want %+v", in, i, got[i], want[i])
			}
		}
	})
}
