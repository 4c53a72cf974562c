package host

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
)

// MaxWorkers bounds --workers: each worker is a whole Lua state.
const MaxWorkers = 256

// workers are the Lua states besides the host's own that serve one HTTP
// endpoint (--workers N): each runs the same compiled script in its own
// state and loop, so handlers run in parallel on several cores while each
// state stays single-threaded.
type workers struct {
	hosts []*Host
	srvs  []*rmcp.Server
	done  []chan struct{}
}

// startWorkers runs proto in n new hosts configured like h and returns
// once each has returned its server (or one failed: the error says which).
func (h *Host) startWorkers(proto *lua.FunctionProto, s Script, n int) (*workers, error) {
	w := &workers{}
	type started struct {
		i   int
		srv *rmcp.Server
		err error
	}
	ready := make(chan started, n)
	for i := range n {
		wh := New(h.cfg)
		wh.RunInit(context.Background())
		wh.setArg(s)
		fn, err := vm.FunctionOf(wh.L, proto)
		if err != nil {
			wh.Close()
			w.stop()
			return nil, err
		}
		done := make(chan struct{})
		w.hosts = append(w.hosts, wh)
		w.done = append(w.done, done)
		main := wh.Loop.Spawn(fn, nil, sched.SpawnOptions{Name: "main"})
		main.OnDone(func(t *sched.Task) {
			if f := t.Failure(); f != nil {
				ready <- started{i: i, err: errs.Errorf(errs.Runtime, "", "worker %d: %s", i+2, f.Message)}
				return
			}
			var ret lua.LValue = lua.LNil
			if r := t.Results(); len(r) > 0 {
				ret = r[0]
			}
			wh.serverOf(ret, s.Name, func(srv *rmcp.Server, err error) {
				if err != nil {
					ready <- started{i: i, err: errs.Errorf(errs.Runtime, "", "worker %d: %v", i+2, err)}
					return
				}
				ready <- started{i: i, srv: srv}
			})
		})
		go func() {
			defer close(done)
			wh.Loop.Run(context.Background(), sched.UntilStopped)
		}()
	}
	w.srvs = make([]*rmcp.Server, n)
	var first error
	for range n {
		st := <-ready
		if st.err != nil && first == nil {
			first = st.err
		}
		w.srvs[st.i] = st.srv
	}
	if first != nil {
		w.stop()
		return nil, fmt.Errorf("%v (the script ran in the first state; --workers runs it once per worker)", first)
	}
	return w, nil
}

// stop ends every worker: its server, then handlers still running, then
// its loop and state.
func (w *workers) stop() {
	for i, wh := range w.hosts {
		if i < len(w.srvs) && w.srvs[i] != nil {
			w.srvs[i].Close()
		}
		wh.Loop.Cancel(errs.New(errs.Cancelled, "", "the server is shutting down"))
		wh.Loop.Post(wh.Loop.Stop)
	}
	for i, wh := range w.hosts {
		<-w.done[i]
		wh.Close()
	}
}
