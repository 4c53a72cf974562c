package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
)

// source is one configuration to import.
type source struct{ format, path string }

// mcpImport copies servers from another host's configuration:
//
//	luagent mcp import [--from claude-desktop|claude-code|cursor|vscode|codex|gemini] [FILE] [--dry-run]
func mcpImport(format, file string, dry bool, stdout, stderr io.Writer) int {
	var sources []source
	switch {
	case file != "" && format == "":
		if format = guessFormat(file); format == "" {
			return usageErr(stderr, "mcp import: say which host %s is from: luagent mcp import --from HOST %s (HOST: %s)", file, file, strings.Join(catalog.ImportFormats, ", "))
		}
		sources = []source{{format, file}}
	case file != "":
		sources = []source{{format, file}}
	case format != "":
		p, err := catalog.DefaultImportPath(format)
		if err != nil {
			return fail(stderr, err)
		}
		sources = []source{{format, p}}
	default:
		var looked []string
		for _, f := range catalog.ImportFormats {
			paths, _ := catalog.DefaultImportPaths(f)
			looked = append(looked, paths...)
			if p, err := catalog.DefaultImportPath(f); err == nil {
				fmt.Fprintf(stdout, "found a %s configuration: %s\n", f, p)
				sources = append(sources, source{f, p})
			}
		}
		if len(sources) == 0 {
			return fail(stderr, fmt.Errorf("no configuration of %s found (looked for %s); name one: luagent mcp import --from HOST FILE",
				strings.Join(catalog.ImportFormats, ", "), strings.Join(looked, ", ")))
		}
	}
	type found struct {
		s   *catalog.Server
		src source
	}
	var all []found
	var notes []string
	for _, src := range sources {
		servers, ns, err := catalog.ImportFile(src.format, src.path)
		if err != nil {
			return fail(stderr, err)
		}
		for _, n := range ns {
			notes = append(notes, src.format+": "+n)
		}
		for _, s := range servers {
			all = append(all, found{s, src})
		}
	}
	var added []found
	pick := func(c *catalog.Config) error {
		added = added[:0]
		for _, f := range all {
			if c.Server(f.s.Name) != nil {
				notes = append(notes, fmt.Sprintf("%s: %s: a server of that name is saved already; skipped (luagent mcp remove %s first to take this one)", f.src.format, f.s.Name, f.s.Name))
				continue
			}
			if err := c.Add(f.s, false); err != nil {
				return err
			}
			added = append(added, f)
		}
		return nil
	}
	var err error
	if dry {
		var c *catalog.Config
		if c, err = catalog.Load(catalogPath()); err == nil {
			err = pick(c)
		}
	} else {
		err = editCatalog(pick)
	}
	if err != nil {
		return fail(stderr, err)
	}
	verb := "added"
	if dry {
		verb = "would add"
	}
	for _, f := range added {
		state := ""
		if !f.s.Enabled {
			state = ", disabled"
		}
		fmt.Fprintf(stdout, "%s %s (%s%s: %s) from %s\n", verb, f.s.Name, f.s.Transport(), state, f.s.Shown(), f.src.path)
	}
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	switch {
	case dry:
		fmt.Fprintf(stdout, "dry run: %d server(s) would be added to %s; nothing was written\n", len(added), catalogPath())
	case len(added) == 0:
		fmt.Fprintf(stdout, "nothing added to %s\n", catalogPath())
	default:
		fmt.Fprintf(stdout, "%d server(s) added to %s (luagent mcp list shows them)\n", len(added), catalogPath())
	}
	return host.ExitOK
}

// guessFormat names the host of a configuration file from its name.
func guessFormat(path string) string {
	base, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch {
	case base == "claude_desktop_config.json":
		return catalog.FromClaudeDesktop
	case base == ".mcp.json" || base == ".claude.json":
		return catalog.FromClaudeCode
	case strings.HasSuffix(base, ".toml"):
		return catalog.FromCodex
	case dir == ".cursor":
		return catalog.FromCursor
	case dir == ".gemini":
		return catalog.FromGemini
	case dir == ".vscode" || base == "settings.json" || (dir == "User" && base == "mcp.json"):
		return catalog.FromVSCode
	}
	return ""
}
