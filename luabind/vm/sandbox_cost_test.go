package vm_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/luagent/luagent/luabind/vm"
)

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The meter's costs stand for the heap they approximate: what a snippet is
// charged is within a factor of two of what it made the heap grow by.
func TestSandboxMeterApproximatesTheHeap(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures the heap (the race detector changes allocation sizes)")
	}
	cases := []struct{ name, src string }{
		{"array slots", `K = {} for i = 1, 100000 do K[i] = i end`},
		{"hash keys", `K = {} for i = 1, 100000 do K[-i] = i end`},
		{"tables", `K = {} for i = 1, 20000 do K[i] = {} end`},
		{"closures", `K = {} for i = 1, 20000 do local x = i K[i] = function() return x end end`},
		{"coroutines", `K = {} for i = 1, 500 do K[i] = coroutine.create(function() end) end`},
		{"strings", `K = {} local s = string.rep("x", 4096) for i = 1, 1000 do K[i] = s .. i end`},
	}
	lim := vm.Limits{MemoryBytes: 1 << 40, Coroutines: 1 << 20}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := vm.NewSandbox(vm.SandboxOptions{Limits: lim})
			defer s.Close()
			fn, err := s.Load([]byte(c.src), c.name)
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := vm.BudgetContext(context.Background(), lim)
			defer stop()
			before := liveHeap()
			s.L.SetContext(ctx)
			s.L.Push(fn)
			if err := s.L.PCall(0, 0, nil); err != nil {
				t.Fatal(err)
			}
			grew := liveHeap() - before
			charged := vm.UsageOf(ctx).MemoryBytes
			runtime.KeepAlive(s.L)
			if ratio := float64(charged) / float64(grew); ratio < 0.5 || ratio > 2 {
				t.Errorf("charged %d for a heap growth of %d (ratio %.2f)", charged, grew, ratio)
			}
		})
	}
}
