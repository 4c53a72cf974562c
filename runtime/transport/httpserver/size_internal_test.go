package httpserver

import "testing"

func TestSizeString(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1000, "1000 bytes"},
		{1 << 10, "1 KiB"},
		{64 << 10, "64 KiB"},
		{1<<10 + 1, "1025 bytes"},
		{4 << 20, "4 MiB"},
		{3 << 19, "1536 KiB"},
		{1 << 40, "1048576 MiB"},
	} {
		if got := sizeString(tt.n); got != tt.want {
			t.Errorf("sizeString(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
