package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

func TestLoad(t *testing.T) {
	t.Run("missing file is an empty catalog", func(t *testing.T) {
		c, err := Load(Path(filepath.Join(t.TempDir(), "home")))
		if err != nil || c.Version != Version || c.InitStrategy != InitAuto || len(c.Servers) != 0 {
			t.Fatalf("Load = %+v, %v", c, err)
		}
	})
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"a folder", func(t *testing.T, p string) { os.Mkdir(p, 0o700) }, "is a folder, not a file"},
		{"a symbolic link loop", func(t *testing.T, p string) { os.Symlink(filepath.Base(p), p) }, "check its permissions"},
		{"a dangling symbolic link", func(t *testing.T, p string) { os.Symlink("nowhere.json", p) }, "symbolic link to a file that does not exist"},
		{"unreadable", func(t *testing.T, p string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads any file (the symbolic link loop covers a read error as root)")
			}
			os.WriteFile(p, []byte("{}"), 0o000)
		}, "permission denied"},
		{"invalid JSON", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"mcpServers": {`), 0o600) }, "not valid JSON"},
		{"newer version", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"version": 7}`), 0o600) }, "newer than this luagent understands"},
		{"a rule broken", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(`{"mcpServers": {"a": {"url": "ftp://x"}}}`), 0o600)
		}, "mcpServers.a.url: must be an http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Path(t.TempDir())
			tt.setup(t, p)
			c, err := Load(p)
			if c != nil || !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("Load = %v, %v; want an error of kind invalid naming %s and saying %q", c, err, p, tt.want)
			}
			// Update refuses too, and writes nothing.
			before, _ := os.ReadFile(p)
			called := false
			err = Update(context.Background(), p, func(*Config) error { called = true; return nil })
			after, _ := os.ReadFile(p)
			if tt.name == "a rule broken" {
				if err == nil || called != true {
					t.Errorf("Update of a file with a bad entry: %v (fn called %v); want fn called and the result refused", err, called)
				}
			} else if err == nil || called {
				t.Errorf("Update = %v (fn called %v), want an error", err, called)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("Update changed the file")
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	p := Path(home)
	ctx := context.Background()
	add := func(c *Config) error {
		return c.Add(&Server{Name: "a", Enabled: true, Command: "npx", Env: map[string]EnvValue{"T": {Value: "secret"}}}, false)
	}
	if err := Update(ctx, p, add); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(home); di.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", di.Mode())
	}
	c, err := Load(p)
	if err != nil || c.Server("a") == nil || c.Server("a").Env["T"].Value != "secret" {
		t.Fatalf("Load after Update: %+v, %v", c, err)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 1 {
		t.Errorf("the folder holds more than config.json: %v", ents)
	}
	before, _ := os.ReadFile(p)
	t.Run("an error from fn writes nothing", func(t *testing.T) {
		boom := errs.New(errs.NotFound, "test", "boom")
		err := Update(ctx, p, func(c *Config) error { c.Remove("a"); return boom })
		after, _ := os.ReadFile(p)
		if !errors.Is(err, boom) || !bytes.Equal(before, after) {
			t.Errorf("err %v; file changed %v", err, !bytes.Equal(before, after))
		}
	})
	t.Run("a result that breaks a rule writes nothing", func(t *testing.T) {
		err := Update(ctx, p, func(c *Config) error { c.Server("a").URL = "https://x.example/mcp"; return nil })
		after, _ := os.ReadFile(p)
		if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "has both command and url") || !bytes.Equal(before, after) {
			t.Errorf("err %v; file changed %v", err, !bytes.Equal(before, after))
		}
	})
	t.Run("an existing name fails", func(t *testing.T) {
		if err := Update(ctx, p, add); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "already in the catalog") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("a symbolic link is kept and its target replaced", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "dotfiles", "luagent.json")
		os.MkdirAll(filepath.Dir(real), 0o700)
		os.WriteFile(real, before, 0o600)
		link := filepath.Join(dir, "config.json")
		os.Symlink(real, link)
		if err := Update(ctx, link, func(c *Config) error { c.Server("a").Enabled = false; return nil }); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
			t.Error("the link was replaced by a file")
		}
		if c, err := Load(link); err != nil || c.Server("a").Enabled {
			t.Errorf("after the edit through the link: %v", err)
		}
	})
	t.Run("the lock wait ends with ctx", func(t *testing.T) {
		hold := make(chan struct{})
		held := make(chan struct{})
		done := make(chan error)
		go func() {
			done <- Update(ctx, p, func(*Config) error { close(held); <-hold; return nil })
		}()
		<-held
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		err := Update(short, p, func(*Config) error { t.Error("fn ran without the lock"); return nil })
		close(hold)
		if !errs.Is(err, errs.Timeout) || !strings.Contains(err.Error(), "another luagent process is editing the catalog") {
			t.Errorf("err = %v", err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// The environment of a child process of TestConcurrentWriters.
const childEnv = "LUAGENT_CATALOG_TEST_CHILD" // "PATH PREFIX COUNT"

// Several goroutines and two other processes add distinct entries to one
// file at once: none is lost, and the file stays valid.
func TestConcurrentWriters(t *testing.T) {
	p := Path(t.TempDir())
	const goroutines, perWriter, children = 6, 5, 2
	var cmds []*exec.Cmd
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentChild$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s proc%d %d", childEnv, p, i, perWriter))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child %d:\n%s", i, out.String())
			}
		})
	}
	var wg sync.WaitGroup
	errc := make(chan error, goroutines*perWriter)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errc <- addMany(p, fmt.Sprintf("g%d", g), perWriter)
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Error(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := (goroutines + children) * perWriter; len(c.Servers) != want {
		t.Errorf("%d entries, want %d: some were lost", len(c.Servers), want)
	}
}

func addMany(path, prefix string, n int) error {
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		err := Update(context.Background(), path, func(c *Config) error {
			return c.Add(&Server{Name: name, Enabled: true, Command: "true"}, false)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// TestConcurrentChild is a child process of TestConcurrentWriters.
func TestConcurrentChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("run by TestConcurrentWriters")
	}
	var path, prefix string
	var n int
	if _, err := fmt.Sscanf(spec, "%s %s %d", &path, &prefix, &n); err != nil {
		t.Fatal(err)
	}
	if err := addMany(path, prefix, n); err != nil {
		t.Fatal(err)
	}
}

// Read is what Update reads: a missing file is an empty catalog and no
// bytes; a folder is refused with the file named.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	c, data, err := Read(Path(dir))
	if err != nil || data != nil || c.Version != Version || c.InitStrategy != InitAuto || len(c.Servers) != 0 {
		t.Errorf("Read(missing) = %+v, %q, %v", c, data, err)
	}
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "folder") {
		t.Errorf("Read(folder) = %v", err)
	}
}
