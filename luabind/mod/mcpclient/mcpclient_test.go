package mcpclient_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

func TestLua(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	skills, _, _ := testkit.SkillServer(t)
	luatest.RunDir(t, "testdata", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("FAKE", lua.LString(fake))
		h.L.SetGlobal("SKILLS", lua.LString(skills))
		h.L.SetGlobal("SKILLS_DIR", lua.LString(testkit.SkillDir()))
	}})
}

// Interop with real peers: the npm reference servers and the Go SDK v1.8.0.
func TestInterop(t *testing.T) {
	ecmd, eargs := testkit.Everything(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the filesystem\n"), 0o644)
	fcmd, fargs := testkit.Filesystem(t, root)
	gcmd, gargs := testkit.GoSDKServer(t, "modern")
	_, lgargs := testkit.GoSDKServer(t, "legacy")
	_, slargs := testkit.GoSDKServer(t, "sdk-legacy")
	everythingHTTP := testkit.EverythingHTTP(t)
	everythingSSE := testkit.EverythingSSE(t)
	gosdkStateful := testkit.GoSDKHTTP(t, "legacy", false)
	gosdkStateless := testkit.GoSDKHTTP(t, "modern", true)
	luatest.RunFile(t, "testdata/interop.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		set := func(name, cmd string, args []string) {
			tb := h.L.CreateTable(0, 2)
			tb.RawSetString("command", lua.LString(cmd))
			a := h.L.CreateTable(len(args), 0)
			for i, s := range args {
				a.RawSetInt(i+1, lua.LString(s))
			}
			tb.RawSetString("args", a)
			h.L.SetGlobal(name, tb)
		}
		set("EVERYTHING", ecmd, eargs)
		set("FILESYSTEM", fcmd, fargs)
		set("GOSDK_MODERN", gcmd, gargs)
		set("GOSDK_LEGACY", gcmd, lgargs)
		set("GOSDK_SDK_LEGACY", gcmd, slargs)
		h.L.SetGlobal("FS_ROOT", lua.LString(root))
		url := func(name, u string) {
			tb := h.L.CreateTable(0, 1)
			tb.RawSetString("url", lua.LString(u))
			h.L.SetGlobal(name, tb)
		}
		url("EVERYTHING_HTTP", everythingHTTP)
		url("EVERYTHING_SSE", everythingSSE)
		url("GOSDK_HTTP_STATEFUL", gosdkStateful)
		url("GOSDK_HTTP_STATELESS", gosdkStateless)
	}})
}
