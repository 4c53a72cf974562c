package mcp

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestDeadlinesExpireInOrderWithOneTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var expired []string
		d := &deadlines{timeout: time.Second, expire: func(r *Request) {
			mu.Lock()
			expired = append(expired, r.Method)
			mu.Unlock()
		}}
		got := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), expired...)
		}
		a, b, c := &Request{Method: "a"}, &Request{Method: "b"}, &Request{Method: "c"}
		d.add(a)
		time.Sleep(300 * time.Millisecond)
		d.add(b)
		time.Sleep(300 * time.Millisecond)
		d.add(c)
		d.remove(b) // answered in time: never expires
		time.Sleep(400*time.Millisecond + time.Nanosecond)
		synctest.Wait()
		if g := got(); len(g) != 1 || g[0] != "a" {
			t.Fatalf("at 1s: expired %v, want [a]", g)
		}
		time.Sleep(600 * time.Millisecond)
		synctest.Wait()
		if g := got(); len(g) != 2 || g[1] != "c" {
			t.Fatalf("at 1.6s: expired %v, want [a c]", g)
		}
		// Empty now; a new request arms the timer again.
		e := &Request{Method: "e"}
		d.add(e)
		time.Sleep(time.Second + time.Nanosecond)
		synctest.Wait()
		if g := got(); len(g) != 3 || g[2] != "e" {
			t.Fatalf("expired %v, want [a c e]", g)
		}
		d.stop()
	})
}
