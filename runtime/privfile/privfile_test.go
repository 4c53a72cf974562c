package privfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("12345"), 0o600)
	tests := []struct {
		limit int64
		want  string
		err   error
	}{{5, "12345", nil}, {10, "12345", nil}, {4, "1234", ErrTooLarge}}
	for _, tt := range tests {
		got, err := ReadLimited(p, tt.limit)
		if string(got) != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("limit %d: %q, %v; want %q, %v", tt.limit, got, err, tt.want, tt.err)
		}
	}
	if _, err := ReadLimited(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	os.WriteFile(p, []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, TmpPrefix(p)+"999"), []byte("left by a dead process"), 0o600)
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %q mode %04o, want new 0600", data, fi.Mode().Perm())
	}
	BeforeRename = func(string) error { return errors.New("disk full") }
	defer func() { BeforeRename = func(string) error { return nil } }()
	if err := WriteAtomic(p, []byte("newer")); err == nil {
		t.Fatal("a failed rename reported no error")
	}
	data, _ = os.ReadFile(p)
	ents, _ := os.ReadDir(dir)
	if string(data) != "new" || len(ents) != 1 {
		t.Errorf("after a failed write: file %q, folder %d entries (want the old file alone)", data, len(ents))
	}
}

func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second holder got the lock: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(context.Background(), p)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the lock file is left behind: %v", err)
	}
	if _, err := Lock(context.Background(), filepath.Join(p, "no", "dir")); err == nil || !strings.Contains(err.Error(), "no") {
		t.Errorf("lock in a missing folder: %v", err)
	}
}
