//go:build !unix

package privfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// OpenNoFollow is 0 here: the system has no such flag.
const OpenNoFollow = 0

// Owner is unknown here: ownership is not checked.
func Owner(fs.FileInfo) (int, bool) { return 0, false }

// Lock takes the lock by creating path exclusively, waiting until ctx
// ends; releasing removes it. (A process that dies holding it leaves the
// file: the error on timeout says so through the caller's message.)
func Lock(ctx context.Context, path string) (func(), error) {
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, lockPoll)
	}
}
