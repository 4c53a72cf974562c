//go:build !unix

package host

import (
	"os"
	"os/signal"
)

func warmSignals() {}

// subscribeSignals relays sigs to ch until unsubscribe is called.
func subscribeSignals(ch chan<- os.Signal, sigs ...os.Signal) (unsubscribe func()) {
	signal.Notify(ch, sigs...)
	return func() { signal.Stop(ch) }
}
