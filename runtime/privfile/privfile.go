// Package privfile holds the file handling that luagent's private files
// share — the OAuth credential store and the server catalog (config.json):
// an exclusive lock between processes and goroutines (Lock), atomic
// replacement with owner-only permissions (WriteAtomic), and bounded reads
// (ReadLimited). It knows nothing of what the files hold.
package privfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PathErr drops the path an *fs.PathError or *os.LinkError repeats, for
// messages that name the file themselves.
func PathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// ErrTooLarge is returned by ReadLimited for a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// ReadLimited reads the file at path, at most limit bytes; a larger file
// is ErrTooLarge (the bytes read so far are returned with it).
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAllLimited(f, limit)
}

// ReadAllLimited reads r to its end, at most limit bytes; more is
// ErrTooLarge.
func ReadAllLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return data, err
	}
	if int64(len(data)) > limit {
		return data[:limit], ErrTooLarge
	}
	return data, nil
}

// BeforeRename is a test hook: WriteAtomic calls it with the temporary
// file's path after the file is written and synced, before the rename. An
// error it returns fails the write as a failed rename would.
var BeforeRename = func(tmp string) error { return nil }

// TmpPrefix is the name prefix of path's temporary files. Only the lock
// holder makes them, so under the lock any that exist were left by a
// process that died (WriteAtomic removes them).
func TmpPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// WriteAtomic replaces the file at path with data: a temporary file in the
// same folder (mode 0600), fsync, rename over path, fsync of the folder. A
// reader sees the old file or the new one, never a mix; on error the old
// file is left as it was and the temporary file is removed. The caller
// holds path's lock (Lock).
func WriteAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if old, _ := filepath.Glob(filepath.Join(dir, globEscape(TmpPrefix(path))+"*")); len(old) > 0 {
		for _, o := range old {
			os.Remove(o)
		}
	}
	f, err := os.CreateTemp(dir, TmpPrefix(path)+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = BeforeRename(tmp); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename or removal in dir durable (best effort).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lockPoll bounds the wait between two tries of a busy lock.
const lockPoll = 25 * time.Millisecond
