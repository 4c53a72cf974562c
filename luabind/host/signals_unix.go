//go:build unix

package host

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// hub is the process's one signal.Notify registration for SIGINT and
// SIGTERM; Run, Serve and the REPL subscribe to it. Each signal.Notify
// waits, once per signal, for the runtime's signal thread to update its
// mask (0.1 ms in all on this project's VM), so the registration is made
// once, in the background, as the first host is built (warmSignals), and
// subscribing later costs nothing on the way to a server's first answer.
//
// A signal that arrives with nobody subscribed does what it would with no
// registration: the hub undoes that signal's registration and raises it
// again (ending the process, or nothing if the signal was inherited
// ignored). The next subscriber registers it again.
var hub struct {
	once sync.Once
	in   chan os.Signal

	mu   sync.Mutex
	on   map[os.Signal]bool // registered now
	subs map[*sigSub]bool
}

type sigSub struct {
	ch   chan<- os.Signal
	sigs []os.Signal
}

var hubSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// warmSignals makes the hub's registration; the first caller waits for it.
func warmSignals() {
	hub.once.Do(func() {
		hub.in = make(chan os.Signal, 4)
		hub.on = map[os.Signal]bool{}
		hub.subs = map[*sigSub]bool{}
		signal.Notify(hub.in, hubSignals...)
		for _, s := range hubSignals {
			hub.on[s] = true
		}
		go hubLoop()
	})
}

// subscribeSignals relays sigs (some of hubSignals) to ch as signal.Notify
// would, without blocking, until unsubscribe is called.
func subscribeSignals(ch chan<- os.Signal, sigs ...os.Signal) (unsubscribe func()) {
	warmSignals()
	s := &sigSub{ch: ch, sigs: sigs}
	hub.mu.Lock()
	for _, sig := range sigs {
		if !hub.on[sig] {
			signal.Notify(hub.in, sig)
			hub.on[sig] = true
		}
	}
	hub.subs[s] = true
	hub.mu.Unlock()
	return func() {
		hub.mu.Lock()
		delete(hub.subs, s)
		hub.mu.Unlock()
	}
}

func hubLoop() {
	for sig := range hub.in {
		hub.mu.Lock()
		delivered := false
		for s := range hub.subs {
			for _, want := range s.sigs {
				if want == sig {
					delivered = true
					select {
					case s.ch <- sig:
					default:
					}
				}
			}
		}
		if !delivered && hub.on[sig] {
			signal.Reset(sig)
			hub.on[sig] = false
			if n, ok := sig.(syscall.Signal); ok {
				syscall.Kill(syscall.Getpid(), n)
			}
		}
		hub.mu.Unlock()
	}
}
