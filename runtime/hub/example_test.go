package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/testkit"
)

// A hub over two saved servers: one works, one is disabled. Wait is for
// one-shot use; an interactive host would Subscribe and go on at once.
func Example() {
	bin := testkit.Build(exampleT{}, "cmd/luagent")
	script, _ := filepath.Abs("testdata/alpha.lua")
	h := hub.New([]*catalog.Server{
		{Name: "alpha", Enabled: true, Command: bin, Args: []string{"serve", script}},
		{Name: "later", Enabled: false, URL: "https://example.com/mcp"},
	}, hub.Options{})
	defer h.Close()
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.Wait(ctx)
	for _, s := range h.Status() {
		fmt.Println(s.Name, s.Status)
	}
	found, _ := h.Search("echo a message", hub.SearchOptions{Limit: 1})
	fmt.Println(found[0].Name)
	r, err := h.Call(ctx, found[0].Name, json.RawMessage(`{"message":"hello"}`), hub.CallOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text())
	// Output:
	// alpha ready
	// later disabled
	// alpha__echo
	// hello
}

// exampleT lets an Example build the test binaries.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                   {}
func (exampleT) Fatalf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...); os.Exit(1) }
