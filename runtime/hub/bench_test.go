package hub

import (
	"context"
	"fmt"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
)

// BenchmarkStart: from Start to all ready for 10 local Lua servers
// (luagent serve testdata/alpha.lua), Close included.
func BenchmarkStart(b *testing.B) {
	var servers []*catalog.Server
	for i := range 10 {
		servers = append(servers, luaServer(b, fmt.Sprintf("lua%d", i)))
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := New(servers, Options{})
		h.Start()
		if err := h.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, s := range h.Status() {
			if s.Status != Ready {
				b.Fatalf("%s: %s %v", s.Name, s.Status, s.Err)
			}
		}
		b.StartTimer()
		h.Close()
	}
}
