package vm

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// FuzzPattern: any pattern against any subject, through find, match,
// gmatch and gsub, either returns or raises a Lua error; never a Go panic,
// never a hang (every call runs under a context that ends after a quarter of a second,
// which interrupts even an exponential pattern). A gsub that replaces each
// match by itself gives the subject back.
func FuzzPattern(f *testing.F) {
	for _, c := range [][2]string{
		{"hello world", "o"}, {"a\tb", "\t"}, {"x = 1", "(%w+)%s*=%s*(%w+)"}, {"f(a(b)c)", "%b()"},
		{"THE (quick) fox", "%f[%a]%a+"}, {"aaa", "a-"}, {"abab", "((a)(b))%1"}, {"abc", "^(a)()$"},
		{"abc", "[^%a-z]"}, {"a]b", "[]]"}, {"abc", "[a"}, {"abc", "%"}, {"abc", "(()"}, {"abc", ")"},
		{"aaaaaaaaaaaaaaaa", "a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"}, {"", ""}, {"\x00\xff", "%z."},
	} {
		f.Add(c[0], c[1])
	}
	var mu sync.Mutex
	var L *lua.LState
	var find, match, gmatch, gsub lua.LValue
	f.Fuzz(func(t *testing.T, s, p string) {
		mu.Lock()
		defer mu.Unlock()
		if L == nil {
			L = lua.NewState(lua.Options{RegistrySize: 1024, RegistryMaxSize: 1 << 20, RegistryGrowStep: 1024})
			InstallCompat(L)
			str := L.GetGlobal("string")
			find, match, gmatch, gsub = L.GetField(str, "find"), L.GetField(str, "match"), L.GetField(str, "gmatch"), L.GetField(str, "gsub")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		L.SetContext(ctx)
		defer L.RemoveContext()
		defer L.SetTop(0)
		call := func(what string, fn lua.LValue, args ...lua.LValue) bool {
			t.Helper()
			L.SetTop(0)
			err := L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...)
			if err == nil {
				return true
			}
			if ae, ok := err.(*lua.ApiError); !ok || ae.Type == lua.ApiErrorPanic {
				t.Fatalf("%s(%q, %q): Go panic: %v", what, s, p, err)
			}
			if ctx.Err() != nil && !strings.Contains(err.Error(), "interrupted") && !strings.Contains(err.Error(), "context") {
				t.Fatalf("%s(%q, %q) after the deadline: %v", what, s, p, err)
			}
			return false
		}
		ls, lp := lua.LString(s), lua.LString(p)
		if call("find", find, ls, lp) {
			if st, ok := L.Get(1).(lua.LNumber); ok {
				if e := L.Get(2).(lua.LNumber); st < 1 || int(e) > len(s) || e < st-1 {
					t.Fatalf("find(%q, %q) = %v, %v", s, p, st, e)
				}
			}
		}
		call("match", match, ls, lp)
		if call("gmatch", gmatch, ls, lp) {
			it := L.Get(1)
			for k := 0; k <= len(s)+1; k++ {
				if !call("gmatch iterator", it) || L.Get(1) == lua.LNil {
					break
				}
			}
		}
		if call("gsub", gsub, ls, lp, lua.LString("%0")) && L.Get(1) != ls {
			t.Fatalf("gsub(%q, %q, \"%%0\") = %q, want the subject", s, p, L.Get(1))
		}
	})
}
