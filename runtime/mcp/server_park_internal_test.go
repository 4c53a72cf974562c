package mcp

import (
	"testing"
	"testing/synctest"
	"time"
)

// A park nobody comes back for is dropped after its time, freeing its
// place under the bound.
func TestParkExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ps parkStore
		id, err := ps.put("work", 1, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ps.put("more", 1, time.Minute); err == nil {
			t.Fatal("a second park fit under a bound of 1")
		}
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		if _, ok := ps.take(id); ok {
			t.Fatal("the park outlived its time")
		}
		if _, err := ps.put("more", 1, time.Minute); err != nil {
			t.Fatalf("after expiry: %v", err)
		}
	})
}
