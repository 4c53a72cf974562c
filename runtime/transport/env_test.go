//go:build linux

package transport

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/trace"
)

func TestBuildEnv(t *testing.T) {
	t.Cleanup(func() {
		withheld.Lock()
		withheld.names = slices.DeleteFunc(withheld.names, func(n string) bool { return n == "WORK_KEY" })
		withheld.Unlock()
	})
	WithholdEnv("WORK_KEY", "")
	base := []string{"PATH=/bin", "HOME=/home/u", "USER=u", "TERM=()  { :; }", "FOO=bar",
		"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "OPENAI_BASE_URL=http://x", "MCP_ACCESS_TOKEN=tok",
		"LUAGENT_STATE_KEY=k", "WORK_KEY=w", "=C:=C:\\dir"}
	tests := []struct {
		name    string
		extra   map[string]string
		inherit Inherit
		want    []string
	}{
		{"default: all but luagent's own", nil, Inherit{},
			[]string{"PATH=/bin", "HOME=/home/u", "USER=u", "TERM=()  { :; }", "FOO=bar"}},
		{"env names a key: it passes, env's value wins", map[string]string{"OPENAI_API_KEY": "sk-for-server", "FOO": "baz"}, Inherit{},
			[]string{"PATH=/bin", "HOME=/home/u", "USER=u", "TERM=()  { :; }", "FOO=baz", "OPENAI_API_KEY=sk-for-server"}},
		{"minimal: the SDKs' list, no shell function", map[string]string{"X": "1"}, Inherit{Minimal: true},
			[]string{"PATH=/bin", "HOME=/home/u", "USER=u", "X=1"}},
		{"a list, a key named in it passes", nil, Inherit{Names: []string{"PATH", "FOO", "ANTHROPIC_API_KEY", "UNSET"}},
			[]string{"PATH=/bin", "FOO=bar", "ANTHROPIC_API_KEY=sk-ant"}},
		{"minimal and a list", nil, Inherit{Minimal: true, Names: []string{"WORK_KEY"}},
			[]string{"PATH=/bin", "HOME=/home/u", "USER=u", "WORK_KEY=w"}},
		{"an empty list: nothing", nil, Inherit{Names: []string{}}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := buildEnv(base, tt.extra, tt.inherit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	for _, bad := range []Inherit{{Names: []string{"A=B"}}, {Names: []string{""}}} {
		if _, err := buildEnv(base, nil, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := buildEnv(base, map[string]string{"K": "sec\x00ret"}, Inherit{}); err == nil || strings.Contains(err.Error(), "sec") {
		t.Errorf("NUL value: %v", err)
	}
}

// The keys luagent itself uses are withheld from a real server unless
// named; the trace names the variables of the entry's env, never a value.
func TestServerEnvironment(t *testing.T) {
	const key = "sk-test-7f3a9c"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("ANTHROPIC_API_KEY", key+"-ant")
	t.Setenv("LUAGENT_TEST_OTHER", "other")
	environ := func(t *testing.T, inherit Inherit, extra map[string]string) map[string]string {
		t.Helper()
		rec := &trace.Recorder{}
		var human bytes.Buffer
		cmd := serverCmd(t, "environ")
		cmd.Inherit = inherit
		cmd.Env["GORACE"] = os.Getenv("GORACE") // a quick exit of a -race child in every mode
		for k, v := range extra {
			cmd.Env[k] = v
		}
		p := start(t, cmd, Options{Trace: trace.Multi{rec, trace.NewHuman(&human)}})
		var m struct{ Env []string }
		if err := json.Unmarshal(mustRead(t, p), &m); err != nil {
			t.Fatal(err)
		}
		p.Close()
		b, _ := json.Marshal(rec.Events())
		if bytes.Contains(b, []byte(key)) || strings.Contains(human.String(), key) {
			t.Errorf("a key reached the trace: %s", b)
		}
		out := map[string]string{}
		for _, kv := range m.Env {
			k, v, _ := strings.Cut(kv, "=")
			out[k] = v
		}
		return out
	}
	t.Run("default", func(t *testing.T) {
		env := environ(t, Inherit{}, nil)
		if _, ok := env["OPENAI_API_KEY"]; ok || env["ANTHROPIC_API_KEY"] != "" {
			t.Errorf("provider keys inherited: %v", names(env))
		}
		if env["LUAGENT_TEST_OTHER"] != "other" || env["PATH"] == "" {
			t.Errorf("the rest not inherited: %v", names(env))
		}
	})
	t.Run("named in env", func(t *testing.T) {
		env := environ(t, Inherit{}, map[string]string{"OPENAI_API_KEY": key})
		if env["OPENAI_API_KEY"] != key || env["ANTHROPIC_API_KEY"] != "" {
			t.Errorf("got %v", names(env))
		}
	})
	t.Run("minimal", func(t *testing.T) {
		env := environ(t, Inherit{Minimal: true}, nil)
		for k := range env {
			if !slices.Contains(MinimalEnv(), k) && k != serverModeEnv && k != "GORACE" {
				t.Errorf("%s inherited in minimal mode", k)
			}
		}
		if env["PATH"] == "" {
			t.Error("PATH not inherited")
		}
	})
	t.Run("list", func(t *testing.T) {
		env := environ(t, Inherit{Names: []string{"LUAGENT_TEST_OTHER", "ANTHROPIC_API_KEY"}}, nil)
		if env["ANTHROPIC_API_KEY"] != key+"-ant" || env["LUAGENT_TEST_OTHER"] != "other" || env["PATH"] != "" || env["OPENAI_API_KEY"] != "" {
			t.Errorf("got %v", names(env))
		}
	})
}

// names are env's variable names: a failure shows which were inherited,
// never a value.
func names(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k := range env {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
