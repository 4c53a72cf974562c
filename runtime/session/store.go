// Package session keeps the conversations of ask and chat: each run is a
// session with an id (runtime/sessionid), saved under
// $LUAGENT_HOME/sessions/ as JSON lines as it goes, so a run cut short
// loses no complete turn.
package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/luagent/luagent/runtime/sessionid"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/privfile"
	"github.com/luagent/luagent/runtime/secret"
)

// The caps of a session file (stdlib/doc/sessions.md). A line over
// MaxLine has its long parts cut (the model's own view is never cut by
// them); a file reaching MaxFile ends with a capped line and saves
// nothing more, which the user is told once.
const (
	DefaultMaxLine = 4 << 20  // 4 MiB
	DefaultMaxFile = 64 << 20 // 64 MiB
)

// Ext is a session file's extension.
const Ext = ".jsonl"

// Store is the sessions folder: one file per session, named by its id.
// Its methods are safe to call from several goroutines and processes:
// each file has one writer at a time (an advisory lock), and each line
// is written whole with one append.
type Store struct {
	Dir string
	// MaxLine and MaxFile are the caps (0: the defaults).
	MaxLine, MaxFile int64
	// Mask masks the secrets in what is written (nil: none).
	Mask *secret.Masker
	// Warn tells the user, once each, that the file reached its cap or
	// that a write failed (nil: nobody is told).
	Warn func(msg string)
}

// Dir is where home's sessions are saved: home/sessions.
func Dir(home string) string { return filepath.Join(home, "sessions") }

func (s *Store) maxLine() int64 {
	if s.MaxLine > 0 {
		return s.MaxLine
	}
	return DefaultMaxLine
}

func (s *Store) maxFile() int64 {
	if s.MaxFile > 0 {
		return s.MaxFile
	}
	return DefaultMaxFile
}

// Path is the file of the session id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id+Ext) }

func (s *Store) mkdir() error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return errs.Errorf(errs.Invalid, "session", "cannot make the sessions folder %s: %v", s.Dir, privfile.PathErr(err))
	}
	if fi, err := os.Stat(s.Dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		os.Chmod(s.Dir, 0o700) // ours, made wider by hand or an older luagent: private again
	}
	return nil
}

// Create starts a new session file with header h (its Type and Format
// are set; ID is NewID's when empty) and returns its writer.
func (s *Store) Create(h Header) (*Writer, error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	if h.ID == "" {
		h.ID = sessionid.New()
	}
	if !sessionid.Valid(h.ID) {
		return nil, errs.Errorf(errs.Invalid, "session", "%q is not a session id", h.ID)
	}
	h.Type, h.Format = TypeHeader, Format
	if h.Start.IsZero() {
		h.Start = time.Now().UTC().Round(time.Millisecond)
	}
	path := s.Path(h.ID)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND|privfile.OpenNoFollow, 0o600)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "session", "cannot create %s: %v", path, privfile.PathErr(err))
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, errs.Errorf(errs.Invalid, "session", "cannot lock %s: %v", path, err)
	}
	w := s.newWriter(f, unlock, h, 0, 1)
	if err := w.writeHeader(h); err != nil {
		w.Close()
		os.Remove(path)
		return nil, err
	}
	return w, nil
}

// Append opens the session id to go on with it: its file as read (the
// conversation to seed the agent with) and a writer appending the next
// turns after its last one. The session may have one writer at a time.
func (s *Store) Append(id string) (*Writer, *Session, error) {
	sess, err := s.Load(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(sess.Path, os.O_RDWR|os.O_APPEND|privfile.OpenNoFollow, 0o600)
	if err != nil {
		return nil, nil, errs.Errorf(errs.Invalid, "session", "cannot open %s: %v", sess.Path, privfile.PathErr(err))
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, nil, errs.Errorf(errs.Invalid, "session", "session %s is in use by another luagent run: wait for it to end, or --fork it into a new session", sess.ID)
		}
		return nil, nil, errs.Errorf(errs.Invalid, "session", "cannot lock %s: %v", sess.Path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		unlock()
		f.Close()
		return nil, nil, errs.Errorf(errs.Invalid, "session", "cannot read %s: %v", sess.Path, privfile.PathErr(err))
	}
	size := fi.Size()
	// A line a crash cut short ends here: the next one starts on its own.
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			if n, err := f.Write([]byte("\n")); err == nil {
				size += int64(n)
			}
		}
	}
	w := s.newWriter(f, unlock, sess.Header, size, sess.LastTurn+1)
	if sess.Capped || size >= s.maxFile() {
		w.capped = true
		w.warnCapped()
	}
	return w, sess, nil
}

// Fork starts a new session holding the complete turns of from, with
// header h (ForkedFrom is set to from's id).
func (s *Store) Fork(from *Session, h Header) (*Writer, error) {
	h.ForkedFrom = from.ID
	w, err := s.Create(h)
	if err != nil {
		return nil, err
	}
	ends := map[int]Line{}
	for _, e := range from.Ends {
		ends[e.Turn] = e
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	turn := 0
	for i, e := range from.Entries {
		turn = e.Turn
		w.writeLocked(Line{Type: TypeMessage, Turn: e.Turn, Message: &from.Entries[i].Message, Call: e.Call, Cut: e.Cut})
		if i+1 == len(from.Entries) || from.Entries[i+1].Turn != e.Turn {
			if end, ok := ends[e.Turn]; ok {
				w.writeLocked(end)
			}
		}
	}
	if b := from.Boundary; b != nil { // the fork goes on from the same summary
		w.writeLocked(Line{Type: TypeCompact, Turn: turn + 1, Message: &b.Summary, Kept: len(from.Entries) - b.From})
	}
	if from.LastTurn > turn {
		turn = from.LastTurn
	}
	w.turn = turn + 1
	w.first = w.turn
	return w, w.err
}

// Load reads the session id (a whole id, or the start of exactly one).
func (s *Store) Load(id string) (*Session, error) {
	path, err := s.find(id)
	if err != nil {
		return nil, err
	}
	return readFile(path)
}

func readFile(path string) (*Session, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|privfile.OpenNoFollow, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errs.Errorf(errs.NotFound, "session", "no session file %s (luagent sessions list shows them)", path)
		}
		return nil, errs.Errorf(errs.Invalid, "session", "cannot read %s: %v", path, privfile.PathErr(err))
	}
	defer f.Close()
	sess, err := Parse(f)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "session", "%s is not a session luagent can read: %v", path, err)
	}
	sess.Path = path
	return sess, nil
}

// find is the file of id: the session whose id it is, or the one whose
// id starts with it (at least 4 characters, and only one).
func (s *Store) find(id string) (string, error) {
	notFound := errs.Errorf(errs.NotFound, "session", "no session %q (luagent sessions list shows them)", id)
	if sessionid.Valid(id) {
		p := s.Path(id)
		if _, err := os.Lstat(p); err != nil {
			return "", notFound
		}
		return p, nil
	}
	if len(id) < 4 || strings.ContainsAny(id, `/\.`) {
		return "", notFound
	}
	names, _ := s.ids()
	var hit []string
	for _, n := range names {
		if strings.HasPrefix(n, id) {
			hit = append(hit, n)
		}
	}
	switch len(hit) {
	case 0:
		return "", notFound
	case 1:
		return s.Path(hit[0]), nil
	}
	return "", errs.Errorf(errs.Invalid, "session", "%q is the start of %d sessions' ids: give more of it", id, len(hit))
}

// ids are the ids of the session files in the folder.
func (s *Store) ids() ([]string, error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, errs.Errorf(errs.Invalid, "session", "cannot read %s: %v", s.Dir, privfile.PathErr(err))
	}
	var out []string
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), Ext)
		if ok && e.Type().IsRegular() && sessionid.Valid(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// Info is a session as listed.
type Info struct {
	ID          string    `json:"id"`
	Cwd         string    `json:"cwd"`
	Start       time.Time `json:"start"`
	Updated     time.Time `json:"updated"`
	Turns       int       `json:"turns"`
	FirstPrompt string    `json:"first_prompt"`
	Model       string    `json:"model"`
	AgentFile   string    `json:"agent_file,omitempty"`
	Command     string    `json:"command,omitempty"`
	ForkedFrom  string    `json:"forked_from,omitempty"`
	Size        int64     `json:"size"`
	Path        string    `json:"path"`
}

// List lists the sessions, the most recently used first. A file that
// cannot be read is left out.
func (s *Store) List() ([]Info, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(ids))
	for _, id := range ids {
		path := s.Path(id)
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		sess, err := readFile(path)
		if err != nil {
			continue
		}
		out = append(out, Info{ID: sess.ID, Cwd: sess.Cwd, Start: sess.Start, Updated: fi.ModTime().UTC(), Turns: sess.Turns(),
			FirstPrompt: sess.FirstPrompt(), Model: sess.LastModel(), AgentFile: sess.AgentFile, Command: sess.Command,
			ForkedFrom: sess.ForkedFrom, Size: fi.Size(), Path: path})
	}
	slices.SortStableFunc(out, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if c := b.Start.Compare(a.Start); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Latest is the most recently used session started in the folder cwd
// (Info's ID, Cwd, Start, Updated and Path: only headers are read).
func (s *Store) Latest(cwd string) (Info, error) {
	ids, err := s.ids()
	if err != nil {
		return Info{}, err
	}
	var all []Info
	for _, id := range ids {
		if fi, err := os.Lstat(s.Path(id)); err == nil {
			all = append(all, Info{ID: id, Updated: fi.ModTime().UTC(), Size: fi.Size(), Path: s.Path(id)})
		}
	}
	slices.SortStableFunc(all, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, i := range all {
		h, err := readHeader(i.Path)
		if err == nil && h.ID == i.ID && h.Cwd == cwd {
			i.Cwd, i.Start, i.Model, i.AgentFile, i.Command, i.ForkedFrom = h.Cwd, h.Start, h.Model, h.AgentFile, h.Command, h.ForkedFrom
			return i, nil
		}
	}
	return Info{}, errs.Errorf(errs.NotFound, "session", "no session was started in %s yet (luagent sessions list shows them all)", cwd)
}

// readHeader reads a session file's first line only.
func readHeader(path string) (Header, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|privfile.OpenNoFollow, 0)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, _, _ := readLine(bufio.NewReaderSize(io.LimitReader(f, 64<<10), 4096))
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeHeader || h.Format != Format {
		return Header{}, errNotSession("not a session header")
	}
	return h, nil
}

// Remove deletes the session id; one a run is writing is refused.
func (s *Store) Remove(id string) error {
	path, err := s.find(id)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|privfile.OpenNoFollow, 0)
	if err != nil {
		return errs.Errorf(errs.Invalid, "session", "cannot open %s: %v", path, privfile.PathErr(err))
	}
	defer f.Close()
	unlock, err := lockFile(f)
	if err != nil {
		if errors.Is(err, errLocked) {
			return errs.Errorf(errs.Invalid, "session", "session %s is in use by a luagent run: remove it after that run ends", strings.TrimSuffix(filepath.Base(path), Ext))
		}
		return errs.Errorf(errs.Invalid, "session", "cannot lock %s: %v", path, err)
	}
	defer unlock()
	if err := os.Remove(path); err != nil {
		return errs.Errorf(errs.Invalid, "session", "cannot remove %s: %v", path, privfile.PathErr(err))
	}
	return nil
}

func errNotSession(why string) error { return fmt.Errorf("%s", why) }

func errFormat(v int) error {
	return fmt.Errorf("it is of format %d; this luagent reads format %d", v, Format)
}
