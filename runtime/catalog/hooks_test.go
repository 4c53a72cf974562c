package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

func TestHooksMember(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	good := `{"version": 1, "hooks": {"PreToolUse": [{"matcher": "fs__write", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}]}}`
	os.WriteFile(path, []byte(good), 0o600)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	hs := c.HooksFrom(path)
	if len(hs.Groups) != 1 || hs.Groups[0].Source != path || hs.Groups[0].Hooks[0].Command != "./guard.sh" {
		t.Errorf("%+v", hs)
	}
	// Written back as read.
	out, err := c.Marshal()
	if err != nil || !strings.Contains(string(out), `"matcher": "fs__write"`) {
		t.Errorf("%v\n%s", err, out)
	}
	// A bad hook: one line naming the file and the field's path.
	os.WriteFile(path, []byte(`{"version": 1, "hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}`), 0o600)
	_, err = Load(path)
	var ps Problems
	if errs.KindOf(err) != errs.Invalid || !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != "hooks.PreToolUse[0].matcher" ||
		!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%v (%+v)", err, ps)
	}
	// Parse alone (mcp remove on such a file) still reads it.
	if _, err := Parse([]byte(`{"version": 1, "hooks": {"Stop": 3}}`)); err != nil {
		t.Errorf("Parse: %v", err)
	}
}
