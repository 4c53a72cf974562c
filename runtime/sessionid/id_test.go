package sessionid

import "testing"

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := New()
		if !Valid(id) || seen[id] {
			t.Fatalf("id %q: valid %v, seen %v", id, Valid(id), seen[id])
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "../etc/passwd", "0f8fad5b-d9cb-469f-a165-70867728950", "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-169f-a165-70867728950e"} {
		if Valid(bad) {
			t.Errorf("Valid(%q) = true", bad)
		}
	}
}
