package transport

import "sync"

// Nothing luagent starts outlives it. Three layers see to that:
//
//   - Owners close what they start (the MCP client kills a server whose
//     handshake failed at once; the hub waits for its starts to end).
//   - EndAll, on luagent's way out, ends whatever is still running:
//     servers that never became ready (MarkReady) are killed at once,
//     ready ones closed with their grace. Start refuses from then on.
//   - For exits no code of luagent sees (SIGKILL, a crash, an os.Exit on
//     the way): on Linux each server gets a parent-death signal
//     (process_linux.go), and where a guard runs (EnableGuard) it kills
//     every process group luagent left behind (guard_unix.go).

var live = struct {
	sync.Mutex
	procs    map[*Process]bool
	ending   bool           // EndAll has begun: Start refuses
	starting sync.WaitGroup // Starts between beginStart and endStart
}{procs: map[*Process]bool{}}

// beginStart reserves a start, or says false when EndAll has begun. The
// caller ends it with endStart: EndAll waits for starts in flight, so a
// server spawned while luagent exits is ended with the others.
func beginStart() bool {
	live.Lock()
	defer live.Unlock()
	if live.ending {
		return false
	}
	live.starting.Add(1)
	return true
}

// endStart ends a start begun by beginStart: p, if it started, is now
// among what EndAll ends.
func endStart(p *Process) {
	if p != nil {
		live.Lock()
		live.procs[p] = true
		live.Unlock()
	}
	live.starting.Done()
}

func untrack(p *Process) {
	live.Lock()
	delete(live.procs, p)
	live.Unlock()
}

// EndAll ends every process Start started that is still running, all at
// the same time, and returns when they are gone: a server that never
// became ready (MarkReady) is killed at once, a ready one is closed as
// Close does (stdin, grace, SIGTERM, grace, SIGKILL). Starts in flight
// finish first and are ended too; from then on Start refuses. luagent
// calls it on its way out.
func EndAll() {
	live.Lock()
	live.ending = true
	live.Unlock()
	live.starting.Wait()
	live.Lock()
	procs := make([]*Process, 0, len(live.procs))
	for p := range live.procs {
		procs = append(procs, p)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() {
			if p.ready.Load() {
				p.Close()
			} else {
				p.Kill()
			}
		})
	}
	wg.Wait()
}
