package value

import (
	"fmt"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestSentinelsInLua(t *testing.T) {
	L := newState(t)
	v, err := Decode(L, []byte(`{"arr":[1,null],"obj":{},"n":null}`))
	if err != nil {
		t.Fatal(err)
	}
	L.SetGlobal("v", v)
	checks := []string{
		`return tostring(null) == "json.null"`,
		`return tostring(v.n) == "json.null"`,
		`return v.n == null`,
		`return type(null) == "userdata"`,
		`return getmetatable(null) == "json.null"`,
		`return getmetatable(v.arr) == "json.array"`,
		`return getmetatable(v.obj) == "json.object"`,
		`return #v.arr == 2`,
		`return v.arr[2] == null`,
		`return not pcall(setmetatable, v.arr, {})`,
		`return not pcall(setmetatable, v.obj, nil)`,
		`return getmetatable(array()) == "json.array"`,
		`return rawequal(getmetatable(v.arr), getmetatable(array()))`,
		`return v.arr.missing == nil`,
	}
	for _, src := range checks {
		if got := eval(t, L, src); got != lua.LTrue {
			t.Errorf("%s: got %v", src, got)
		}
	}
}

func TestMarkers(t *testing.T) {
	tb := &lua.LTable{Metatable: lua.LNil}
	if IsArray(tb) || IsObject(tb) || IsArray(nil) {
		t.Error("plain table reported as marked")
	}
	if MarkArray(tb) != tb || !IsArray(tb) || IsObject(tb) {
		t.Error("MarkArray")
	}
	if MarkObject(tb) != tb || !IsObject(tb) || IsArray(tb) {
		t.Error("MarkObject")
	}
	if !IsNull(Null) || IsNull(lua.LNil) || IsNull(&lua.LUserData{}) {
		t.Error("IsNull")
	}
}

// TestConcurrentStates uses the shared sentinels from several states at
// once; run with -race.
func TestConcurrentStates(t *testing.T) {
	const in = `{"a":[1,null,{"b":{}}],"c":[]}`
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			L := lua.NewState()
			defer L.Close()
			L.SetGlobal("null", Null)
			for range 50 {
				v, err := Decode(L, []byte(in))
				if err != nil {
					errc <- err
					return
				}
				L.SetGlobal("v", v)
				if err := L.DoString(`assert(tostring(v.a[2]) == "json.null" and getmetatable(v.c) == "json.array" and v.a[2] == null)`); err != nil {
					errc <- err
					return
				}
				out, err := Encode(v, EncodeOptions{})
				if err != nil {
					errc <- err
					return
				}
				if string(out) != in {
					errc <- fmt.Errorf("got %s", out)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}
