package session

import (
	"context"
	"testing"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/secret"
)

// BenchmarkTurn is one ask (a tool call and an answer, the mock model)
// without a recorder and with a session recording it (with the masking
// ask and chat use): the difference is what saving a session adds to a
// turn.
func BenchmarkTurn(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "recorded"}[rec]
		b.Run(name, func(b *testing.B) {
			s := store(b)
			s.Mask = secret.NewMasker([]string{"sk-0123456789abcdef", "ghp_abcdefghijklmnop"})
			a := newAgent(echoTool())
			if rec {
				w, err := s.Create(Header{Cwd: "/bench", Model: "mock"})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				a.SetRecorder(w)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.Reset()
				if _, _, err := a.Ask(ctx, "echo text=hello"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ agent.Recorder = (*Writer)(nil)
