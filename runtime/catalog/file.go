package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/privfile"
	"github.com/luagent/luagent/runtime/transport"
)

// maxFile bounds what Load reads: a catalog is small.
const maxFile = 16 << 20

// Path returns the catalog's path under home ($LUAGENT_HOME or ~/.luagent).
func Path(home string) string { return filepath.Join(home, "config.json") }

// Load reads, parses and validates the catalog at path. A missing file is
// an empty catalog (Version 1, InitAuto); anything else that goes wrong —
// the file cannot be read, is not valid JSON, has a newer version, breaks a
// rule — is an error of kind invalid that names the file and says what to
// do, never an empty catalog.
//
// The variables its models read their keys from (KeyVars) are luagent's
// own credentials from then on: no server started later inherits them
// (transport.WithholdEnv). Every reader of the catalog that may start a
// server loads it here, so no caller has to remember.
func Load(path string) (*Config, error) {
	c, _, err := Read(path)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, inFile(path, err)
	}
	transport.WithholdEnv(c.KeyVars()...)
	return c, nil
}

// Read reads and parses the catalog at path as Update does, without
// Validate's rules (a file with a bad entry can still be previewed and
// fixed), and returns the bytes read too (nil for a missing file, which is
// an empty catalog). A file larger than 16 MiB, a dangling symbolic link,
// a folder or bad JSON is an error of kind invalid that names the file.
func Read(path string) (*Config, []byte, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return &Config{Version: Version, InitStrategy: InitAuto}, nil, nil
	}
	data, err := privfile.ReadLimited(path, maxFile)
	switch {
	case errors.Is(err, privfile.ErrTooLarge):
		return nil, nil, errs.Errorf(errs.Invalid, op, "cannot read %s: larger than 16 MiB; is it the right file?", path)
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, errs.Errorf(errs.Invalid, op, "cannot read %s: it is a symbolic link to a file that does not exist; fix the link or remove it", path)
	case errors.Is(err, syscall.EISDIR):
		return nil, nil, errs.Errorf(errs.Invalid, op, "cannot read %s: it is a folder, not a file; move it away", path)
	case err != nil:
		return nil, nil, errs.Errorf(errs.Invalid, op, "cannot read %s: %v; check its permissions (luagent needs to read and write it)", path, privfile.PathErr(err))
	}
	c, err := Parse(data)
	if err != nil {
		return nil, nil, inFile(path, err)
	}
	return c, data, nil
}

// inFile puts the file's path in front of a parse or validation error.
func inFile(path string, err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		return &errs.Error{Kind: e.Kind, Op: op, Msg: path + ": " + e.Msg, Err: e.Err}
	}
	return errs.Wrap(errs.Invalid, op, fmt.Errorf("%s: %w", path, err))
}

// Update edits the catalog at path: under an exclusive lock shared by every
// luagent process (and goroutine), it reads the file again, calls fn with
// it, validates the result and writes it atomically (a temporary file in
// the same folder, fsync, rename, fsync of the folder), mode 0600; the
// folder is made 0700 if missing. An error from fn, or a result that breaks
// a rule, writes nothing. A file with a bad entry can still be edited (fn
// may remove or fix it); a file that does not parse cannot. When path is a
// symbolic link, the file it points to is replaced and the link kept.
// Waiting for the lock ends with ctx.
func Update(ctx context.Context, path string, fn func(*Config) error) error {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			if _, _, lerr := Read(path); lerr != nil {
				return lerr // a dangling link or a loop: the read error says it as Load does
			}
			return errs.Errorf(errs.Invalid, op, "cannot follow the symbolic link %s: %v; fix the link or remove it", path, privfile.PathErr(err))
		}
		target = t
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errs.Errorf(errs.Invalid, op, "cannot create the folder %s: %v; check that luagent may write there (or set LUAGENT_HOME)", dir, privfile.PathErr(err))
	}
	lock := target + ".lock"
	unlock, err := privfile.Lock(ctx, lock)
	switch {
	case err != nil && ctx.Err() != nil:
		k := errs.Cancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			k = errs.Timeout
		}
		return errs.Errorf(k, op, "gave up waiting for the lock %s (%v): another luagent process is editing the catalog; try again", lock, ctx.Err())
	case err != nil:
		return errs.Errorf(errs.Invalid, op, "cannot lock %s: %v; check that luagent may write to %s", lock, privfile.PathErr(err), dir)
	}
	defer unlock()
	c, old, err := Read(target)
	if err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return inFile(path, err)
	}
	data, err := c.Marshal()
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	if old != nil && bytes.Equal(data, old) {
		return nil
	}
	if err := privfile.WriteAtomic(target, data); err != nil {
		return errs.Errorf(errs.Invalid, op, "cannot save %s: %v; check that luagent may write to %s (the file was left as it was)", target, privfile.PathErr(err), dir)
	}
	return nil
}
