package value

import (
	"os"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// sample1KB is a tools/call result as an MCP server would send it: about
// 1 KB, five levels of nesting, strings with escapes, numbers, booleans and
// an array of content blocks.
func sample1KB(b *testing.B) []byte {
	data, err := os.ReadFile("testdata/tools_call.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecode1KB(b *testing.B) {
	data := sample1KB(b)
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(L, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode1KB(b *testing.B) {
	data := sample1KB(b)
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	v, err := Decode(L, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(v, EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoundTrip1KB(b *testing.B) {
	data := sample1KB(b)
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := Decode(L, data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(v, EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromLua1KB(b *testing.B) {
	data := sample1KB(b)
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	v, err := Decode(L, data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromLua(v); err != nil {
			b.Fatal(err)
		}
	}
}
