package project

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/privfile"
)

// TrustFile is where the trusted folders are kept, under $LUAGENT_HOME
// (mode 0600).
const TrustFile = "trusted_folders.json"

// trustList is the file: the folders trusted, and the ones chat asked
// about and was told no (so it does not ask again).
type trustList struct {
	Version  int      `json:"version"`
	Trusted  []string `json:"trusted"`
	Declined []string `json:"declined,omitempty"`
}

// Clean is dir as the trust file holds it: absolute, cleaned, symbolic
// links resolved (when it exists).
func Clean(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", errs.Errorf(errs.Invalid, "trust", "cannot make %s absolute: %v", dir, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return filepath.Clean(abs), nil
}

// Trusted reports whether dir is a folder the user trusted, or inside
// one.
func Trusted(home, dir string) bool {
	l, err := read(home)
	if err != nil {
		return false
	}
	d, err := Clean(dir)
	if err != nil {
		return false
	}
	for _, t := range l.Trusted {
		if d == t || strings.HasPrefix(d, strings.TrimSuffix(t, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Declined reports whether the user said no when chat asked to trust dir.
func Declined(home, dir string) bool {
	l, err := read(home)
	if err != nil {
		return false
	}
	d, err := Clean(dir)
	return err == nil && slices.Contains(l.Declined, d)
}

// Trust adds dir to the trusted folders (and forgets a no).
func Trust(home, dir string) (string, error) {
	d, err := Clean(dir)
	if err != nil {
		return "", err
	}
	return d, update(home, func(l *trustList) {
		l.Declined = slices.DeleteFunc(l.Declined, func(s string) bool { return s == d })
		if !slices.Contains(l.Trusted, d) {
			l.Trusted = append(l.Trusted, d)
		}
	})
}

// Decline records the user's no to trusting dir.
func Decline(home, dir string) error {
	d, err := Clean(dir)
	if err != nil {
		return err
	}
	return update(home, func(l *trustList) {
		if !slices.Contains(l.Declined, d) {
			l.Declined = append(l.Declined, d)
		}
	})
}

// Remove takes dir off the trusted folders (and off the declined ones)
// and reports whether it was trusted.
func Remove(home, dir string) (bool, error) {
	d, err := Clean(dir)
	if err != nil {
		return false, err
	}
	was := false
	err = update(home, func(l *trustList) {
		n := len(l.Trusted)
		l.Trusted = slices.DeleteFunc(l.Trusted, func(s string) bool { return s == d })
		was = len(l.Trusted) != n
		l.Declined = slices.DeleteFunc(l.Declined, func(s string) bool { return s == d })
	})
	return was, err
}

// List returns the trusted folders, in the order they were trusted.
func List(home string) ([]string, error) {
	l, err := read(home)
	if err != nil {
		return nil, err
	}
	return l.Trusted, nil
}

func trustPath(home string) string { return filepath.Join(home, TrustFile) }

func read(home string) (*trustList, error) {
	p := trustPath(home)
	data, err := privfile.ReadLimited(p, 4<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return &trustList{Version: 1}, nil
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "trust", "cannot read %s: %v; check its permissions", p, privfile.PathErr(err))
	}
	var l trustList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, errs.Errorf(errs.Invalid, "trust", "%s is not a trust list (%v); fix it or remove it (luagent trust DIR writes it again)", p, err)
	}
	return &l, nil
}

func update(home string, fn func(*trustList)) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return errs.Errorf(errs.Invalid, "trust", "cannot create %s: %v", home, privfile.PathErr(err))
	}
	p := trustPath(home)
	unlock, err := privfile.Lock(context.Background(), p+".lock")
	if err != nil {
		return errs.Errorf(errs.Invalid, "trust", "cannot lock %s: %v", p, privfile.PathErr(err))
	}
	defer unlock()
	l, err := read(home)
	if err != nil {
		return err
	}
	fn(l)
	l.Version = 1
	if l.Trusted == nil {
		l.Trusted = []string{}
	}
	data, _ := json.MarshalIndent(l, "", "  ")
	if err := privfile.WriteAtomic(p, append(data, '\n')); err != nil {
		return errs.Errorf(errs.Invalid, "trust", "cannot save %s: %v", p, privfile.PathErr(err))
	}
	return nil
}
