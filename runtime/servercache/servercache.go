// Package servercache keeps what each MCP server listed at its last
// successful start — its tools, prompts and resources, its name and
// version, its instructions —
// so that a run can offer a server's tools before the server has finished
// starting (runtime/hub). One private file per server under
// $LUAGENT_HOME/cache/servers/, named by Key: a hash of what defines the
// server (command, args, cwd, the names of its env variables — never their
// values —, url). Files are replaced atomically under a lock, so two runs
// at once each read a whole file, the old one or the new one; a file that
// is torn, corrupt, too large or of another format is no cache.
//
//	dir := servercache.Dir(home)
//	e, tools, ok := servercache.Load(dir, servercache.Key(cfg))
//	err := servercache.Save(ctx, dir, servercache.Key(cfg), servercache.Entry{Tools: raws})
//
// It knows nothing of connections.
package servercache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/privfile"
)

// Format is the version of the file format; a file of another is no cache.
const Format = 1

// maxSize bounds a cache file (a server with thousands of tools fits).
const maxSize = 16 << 20

// Entry is what one server listed at its last successful start.
type Entry struct {
	Format int `json:"format"`
	// Server is the server's own name and version (serverInfo).
	Server mcp.Implementation `json:"server"`
	// Instructions are the server's instructions, if any.
	Instructions string `json:"instructions,omitempty"`
	// Tools are the tool objects as the server listed them.
	Tools []json.RawMessage `json:"tools"`
	// Prompts, Resources and Templates are its prompt, resource and
	// resource template objects, for a server that declared the prompts
	// or resources capability (Prompts, Resources say which).
	HasPrompts   bool              `json:"hasPrompts,omitempty"`
	HasResources bool              `json:"hasResources,omitempty"`
	Prompts      []json.RawMessage `json:"prompts,omitempty"`
	Resources    []json.RawMessage `json:"resources,omitempty"`
	Templates    []json.RawMessage `json:"resourceTemplates,omitempty"`
	// Saved is when the entry was written.
	Saved time.Time `json:"saved"`
}

// Dir is the cache folder under a luagent home.
func Dir(home string) string { return filepath.Join(home, "cache", "servers") }

// Key names a server's cache file: a hash of its command, args, cwd, the
// sorted names of its env variables (their values are never read), and
// url. Entries that differ only in things that do not change what the
// server is (timeouts, filters, name) share a file.
func Key(s *catalog.Server) string {
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	b, _ := json.Marshal(struct {
		Command string   `json:"command,omitempty"`
		Args    []string `json:"args,omitempty"`
		Cwd     string   `json:"cwd,omitempty"`
		Env     []string `json:"env,omitempty"`
		URL     string   `json:"url,omitempty"`
	}{s.Command, s.Args, s.Cwd, names, s.URL})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// Decode decodes the entry's tools (each with Raw set); a tool that does
// not decode, or has no name, makes the whole entry unusable (ok false).
func (e *Entry) Decode() (tools []mcp.Tool, ok bool) {
	tools = make([]mcp.Tool, 0, len(e.Tools))
	for _, raw := range e.Tools {
		var t mcp.Tool
		if json.Unmarshal(raw, &t) != nil || t.Name == "" {
			return nil, false
		}
		t.Raw = slices.Clone(raw)
		tools = append(tools, t)
	}
	return tools, true
}

// Load reads a server's entry and its tools, decoded; ok is false when
// there is none or it is unusable (torn, corrupt, too large, another
// format, tools that do not decode).
func Load(dir, key string) (e Entry, tools []mcp.Tool, ok bool) {
	data, err := privfile.ReadLimited(filepath.Join(dir, key+".json"), maxSize)
	if err != nil {
		return Entry{}, nil, false
	}
	if json.Unmarshal(data, &e) != nil || e.Format != Format || e.Tools == nil {
		return Entry{}, nil, false
	}
	if tools, ok = e.Decode(); !ok {
		return Entry{}, nil, false
	}
	return e, tools, true
}

// Same reports whether e and o hold the same lists, name, version and
// instructions (when they were saved, and the format, aside): a server
// that listed what its cache holds needs no new file.
func (e *Entry) Same(o *Entry) bool {
	// A saved entry's values went through json.Marshal (compacted, <>&
	// escaped); a server's own bytes are compared the same way.
	raws := func(a, b []json.RawMessage) bool {
		return slices.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(encoded(x), encoded(y)) })
	}
	return e.Server == o.Server && e.Instructions == o.Instructions &&
		e.HasPrompts == o.HasPrompts && e.HasResources == o.HasResources &&
		raws(e.Tools, o.Tools) && raws(e.Prompts, o.Prompts) &&
		raws(e.Resources, o.Resources) && raws(e.Templates, o.Templates)
}

// encoded is raw as json.Marshal writes it into a file.
func encoded(raw json.RawMessage) []byte {
	b, err := json.Marshal(raw)
	if err != nil {
		return raw
	}
	return b
}

// Save replaces a server's entry (folder 0700, file 0600, atomic rename
// under the file's lock). e.Format and e.Saved are set here. The wait for
// another run writing the same file ends with ctx: give it a deadline (the
// cache is an optimisation, not worth holding an exit for).
func Save(ctx context.Context, dir, key string, e Entry) error {
	e.Format, e.Saved = Format, time.Now().UTC()
	if e.Tools == nil {
		e.Tools = []json.RawMessage{}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return errs.Errorf(errs.Invalid, "servercache", "encoding the tool cache: %v", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errs.Errorf(errs.Invalid, "servercache", "making the tool cache folder %s: %v", dir, privfile.PathErr(err))
	}
	path := filepath.Join(dir, key+".json")
	unlock, err := privfile.Lock(ctx, path+".lock")
	if err != nil {
		return errs.Errorf(errs.Invalid, "servercache", "locking the tool cache %s: %v", path, privfile.PathErr(err))
	}
	defer unlock()
	if err := privfile.WriteAtomic(path, data); err != nil {
		return errs.Errorf(errs.Invalid, "servercache", "writing the tool cache %s: %v", path, privfile.PathErr(err))
	}
	return nil
}
