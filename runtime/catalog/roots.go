package catalog

import (
	"path/filepath"
	"strings"
)

// RootFolders are the folders an entry with roots on exposes as its roots
// (nil with roots off): the working folder wd for "roots": true, else the
// list's folders, each absolute and clean — a relative one is wd's, "~"
// and "~/..." are home's (home "" leaves them relative). Nothing is
// checked on disk.
func (s *Server) RootFolders(wd, home string) []string {
	if !s.Roots {
		return nil
	}
	if s.RootDirs == nil {
		return []string{filepath.Clean(wd)}
	}
	out := make([]string, 0, len(s.RootDirs))
	for _, d := range s.RootDirs {
		switch {
		case home != "" && d == "~":
			d = home
		case home != "" && (strings.HasPrefix(d, "~/") || strings.HasPrefix(d, "~"+string(filepath.Separator))):
			d = filepath.Join(home, d[2:])
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		out = append(out, filepath.Clean(d))
	}
	return out
}
