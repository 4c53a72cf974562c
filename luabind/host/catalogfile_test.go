package host

import (
	"os"
	"path/filepath"
	"testing"
)

// The settings agent.new reads come from one parse of config.json while
// it is unchanged, and from a new one after an edit.
func TestCatalogParsedOnceWhileUnchanged(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"version": 1, "mcpServers": {}, "toolSearch": "never", "fallbackModels": ["mock"]}`)
	before := catalogs.loads
	CatalogModels(home)
	CatalogFallbackModels(home)
	if mode, _ := CatalogToolSearch(home); mode != "never" {
		t.Fatalf("toolSearch %q", mode)
	}
	CatalogProject(home, t.TempDir())
	if n := catalogs.loads - before; n != 1 {
		t.Fatalf("config.json parsed %d times for four readings, want 1", n)
	}
	write(`{"version": 1, "mcpServers": {}, "toolSearch": "always", "fallbackModels": ["mock", "mock"]}`)
	if mode, _ := CatalogToolSearch(home); mode != "always" {
		t.Fatalf("after an edit: toolSearch %q", mode)
	}
	if n := catalogs.loads - before; n != 2 {
		t.Fatalf("parsed %d times, want 2 (once more after the edit)", n)
	}
	os.Remove(path)
	if got := CatalogFallbackModels(home); len(got) != 0 {
		t.Fatalf("a removed file still gives %q", got)
	}
}
