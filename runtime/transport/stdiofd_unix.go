//go:build unix

package transport

import (
	"os"
	"syscall"
)

// pollable returns f in non-blocking mode, as a file Go's network poller
// serves, when it is a pipe or a socket, and a function that puts it back
// as it was; ok reports whether it did. Terminals and regular files are
// left as they are.
func pollable(f *os.File) (_ *os.File, restore func(), ok bool) {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f, func() {}, false
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return f, func() {}, false
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f, func() {}, false
	}
	// NewFile sees the non-blocking flag and registers fd with the poller.
	pf := os.NewFile(uintptr(fd), f.Name())
	return pf, func() {
		// Through the file: nothing is done once it is closed (fd may
		// then be another file's).
		if rc, err := pf.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
		}
	}, true
}

// sameFile reports whether a and b are one pipe, socket or file (2>&1).
func sameFile(a, b *os.File) bool {
	var sa, sb syscall.Stat_t
	if syscall.Fstat(int(a.Fd()), &sa) != nil || syscall.Fstat(int(b.Fd()), &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// tryWriter returns a function that writes what f takes at once, without
// waiting for room (f is non-blocking): the bytes written, and an error
// only when f has failed, not when it is full.
func tryWriter(f *os.File) func([]byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return func(b []byte) (int, error) {
		var n int
		var werr error
		cerr := rc.Write(func(fd uintptr) bool {
			for {
				n, werr = syscall.Write(int(fd), b)
				if werr != syscall.EINTR {
					return true // one attempt: never wait here
				}
			}
		})
		if n < 0 {
			n = 0
		}
		if werr == syscall.EAGAIN {
			werr = nil
		}
		if werr == nil {
			werr = cerr
		}
		return n, werr
	}
}
