package json_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/luatest"
)

func TestLua(t *testing.T) { luatest.RunDir(t, "testdata", luatest.Options{}) }
