package log_test

import (
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/luatest"
	logmod "github.com/luagent/luagent/luabind/mod/log"
)

func TestLua(t *testing.T) {
	t.Setenv("LUAGENT_LOG", "")
	luatest.RunDir(t, "testdata", luatest.Options{})
}

// A log line quotes servers as often as the script: its control
// characters show, its lines stay.
func TestLogShowsControls(t *testing.T) {
	var b strings.Builder
	lg := &logmod.Logger{W: &b, Level: logmod.Debug, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	lg.Log(logmod.Debug, "[srv] boom\x1b]0;title\x07\u202e\nnext")
	if want := "03:04:05 DEBUG [srv] boom\\x1b]0;title\\x07\\u202e\nnext\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
