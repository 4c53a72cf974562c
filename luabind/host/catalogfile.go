package host

import (
	"os"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
)

// catalogs keeps the last config.json parsed: agent.new reads its models,
// fallback models, tool search settings, context windows and hooks at every
// build, and an ask builds more than one agent. The file is parsed again
// only when its size or modification time changed (an outside edit, /mcp's
// reload), so callers still see every change; they only read the Config.
var catalogs struct {
	mu    sync.Mutex
	path  string
	size  int64
	mod   time.Time
	c     *catalog.Config
	err   error
	loads int // parses, for tests
}

// loadCatalog is catalog.Load of home's config.json, parsed once while the
// file is unchanged.
func loadCatalog(home string) (*catalog.Config, error) {
	path := catalog.Path(home)
	fi, statErr := os.Stat(path)
	catalogs.mu.Lock()
	defer catalogs.mu.Unlock()
	if statErr == nil && catalogs.path == path && catalogs.size == fi.Size() && catalogs.mod.Equal(fi.ModTime()) {
		return catalogs.c, catalogs.err
	}
	c, err := catalog.Load(path)
	catalogs.loads++
	catalogs.path = ""
	if statErr == nil {
		catalogs.path, catalogs.size, catalogs.mod, catalogs.c, catalogs.err = path, fi.Size(), fi.ModTime(), c, err
	}
	return c, err
}
