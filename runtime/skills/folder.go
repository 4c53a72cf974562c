package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/luagent/luagent/runtime/errs"
)

// Reading skills from disk for a server to publish (a Lua server's
// s:skill{dir=|file=} and s:skills_dir): the files a skill's folder holds,
// within the limits a client enforces, so that a folder too large fails
// where it is read rather than where a client reads it.

// ReadFolder reads every regular file under dir, by slash-separated path
// within it ("SKILL.md", "references/FORMS.md"). SKILL.md is required;
// more than MaxFiles files or MaxSkillBytes bytes in all is an error.
func ReadFolder(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	total := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if len(files) == MaxFiles {
			return fmt.Errorf("%s has more than %d files", dir, MaxFiles)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += len(b); total > MaxSkillBytes {
			return fmt.Errorf("%s holds more than %d bytes", dir, MaxSkillBytes)
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if _, ok := files["SKILL.md"]; err == nil && !ok {
		err = fmt.Errorf("%s has no SKILL.md", dir)
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "", "skill folder: %w", err)
	}
	return files, nil
}

// Folders lists the folders of root that hold a SKILL.md, sorted: the
// skills of a folder of skills.
func Folders(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "", "skills folder: %w", err)
	}
	var dirs []string
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if st, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil && st.Mode().IsRegular() {
			dirs = append(dirs, p)
		}
	}
	slices.Sort(dirs)
	return dirs, nil
}

// ReadSkillFile reads one SKILL.md of at most MaxSkillBytes.
func ReadSkillFile(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err == nil && st.Size() > MaxSkillBytes {
		err = fmt.Errorf("%s is larger than %d bytes", p, MaxSkillBytes)
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(p)
	}
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "", "skill file: %w", err)
	}
	return b, nil
}
