package vm

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// compatConcat fixes table.concat: gopher-lua's pushes every element and
// separator on the value stack and joins them there, so a long list
// overflows the registry or takes O(n²) time to grow it (LUA.md §1.1); it
// also clamps i and j to the array length instead of failing on the missing
// elements, and reads t[i] for i < 1 from the array part only. This is Lua
// 5.1's over a strings.Builder: elements t[i..j] read raw, strings and
// numbers (written as tostring writes them), anything else an error
// "invalid value (table) at index 3 in table for 'concat'" (the words of
// PUC Lua 5.1.5). Unlike Lua, the result is capped at MaxStringSize.
func compatConcat(L *lua.LState) int {
	t := compatCheckTable(L, 1, "concat")
	sep := compatOptString(L, 2, "concat", "")
	i := compatOptInt(L, 3, "concat", 1)
	j := compatOptInt(L, 4, "concat", int64(t.Len()))
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	limit := maxStringSize(L)
	var b strings.Builder
	for k := i; ; k++ {
		switch v := t.RawGet(lua.LNumber(k)).(type) {
		case lua.LString:
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteString(compatNumberString(v))
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if k == j {
			break
		}
		b.WriteString(sep)
		if b.Len() > limit {
			L.RaiseError("table.concat: result would be over the limit of %d bytes", limit)
		}
	}
	if b.Len() > limit {
		L.RaiseError("table.concat: result would be over the limit of %d bytes", limit)
	}
	L.Push(lua.LString(b.String()))
	return 1
}
