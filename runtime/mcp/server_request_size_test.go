package mcp

import (
	"testing"
	"unsafe"
)

// Every call allocates a Request; past 416 bytes it lands in the 448 or
// 480-byte size class, which the W2 profile (scripts/bench/BENCHMARKS.md) measured as
// part of a per-call regression. Rare fields go in side structs (tr, in).
func TestRequestSizeClass(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are measured on 64-bit")
	}
	if n := unsafe.Sizeof(Request{}); n > 416 {
		t.Fatalf("Request is %d bytes, past the 416-byte size class: move fields used by few requests into requestTrace or requestInputs", n)
	}
}
