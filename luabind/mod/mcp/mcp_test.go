package mcp_test

import (
	"testing"

	"github.com/luagent/luagent/internal/testbin"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	lua "github.com/yuin/gopher-lua"
)

func TestLua(t *testing.T) {
	fake := testbin.Build(t, "internal/testserver/fake")
	luatest.RunDir(t, "testdata", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("FAKE", lua.LString(fake))
	}})
}
