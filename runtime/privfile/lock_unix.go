//go:build unix

package privfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// OpenNoFollow is an os.OpenFile flag that refuses a symbolic link where a
// private file should be (0 where the system has none).
const OpenNoFollow = syscall.O_NOFOLLOW

// Owner returns the uid that owns fi (false where that is unknown).
func Owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Lock takes an exclusive flock on path (created 0600 if missing), waiting
// until ctx ends, and returns the function that releases it. The holder
// unlinks the file when it releases it, so none is left behind; a waiter
// that then gets the lock of the unlinked file notices (path no longer
// names the file it locked) and tries again. flock locks belong to the open
// file, so goroutines of one process exclude each other as processes do;
// the kernel releases the lock of a process that dies.
func Lock(ctx context.Context, path string) (func(), error) {
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, err
		}
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil {
				break
			}
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				f.Close()
				return nil, &fs.PathError{Op: "flock", Path: path, Err: err}
			}
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				f.Close()
				return nil, ctx.Err()
			case <-t.C:
			}
			delay = min(delay*2, lockPoll)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() {
				os.Remove(path)
				f.Close()
			}, nil
		}
		f.Close() // the previous holder removed it: lock the new one
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}
