package approval

import (
	"testing"
	"testing/synctest"
	"time"
)

// A question a person answers for a server (a form, a sampling approval)
// is left out of the time of the calls running on that server, and only
// the part that overlapped each call; other servers' calls keep theirs.
func TestAskingIsNotTheCallsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		early := StartCall("notes")
		time.Sleep(time.Second)
		done := Asking("notes")
		late := StartCall("notes") // starts while the person is asked
		other := StartCall("files")
		time.Sleep(5 * time.Second) // the person fills in the form
		done()
		time.Sleep(time.Second)
		for _, tt := range []struct {
			name string
			sw   *Stopwatch
			want time.Duration
		}{
			{"a call running before the question", early, 2 * time.Second},
			{"a call started during the question", late, time.Second},
			{"another server's call", other, 6 * time.Second},
		} {
			if got := tt.sw.Stop(); got != tt.want {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			}
		}
	})
}
