package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/privfile"
)

// An agents-exe agent file is JSON ({"tag": "OpenAIAgentDescription",
// "contents": {...}}); stdlib/agent.lua's agent.from_agents_exe makes the
// agent it describes. Its model's key is the entry of the agents-exe keys
// file ({"keys": [{"id": ID, "value": KEY}]}) whose id is the file's
// apiKeyId.

// maxKeysFile bounds a keys file: it holds keys, not data.
const maxKeysFile = 1 << 20

// DefaultAPIKeysFile is where agents-exe keeps its keys
// (~/.config/agents-exe/secret-keys), read when no --api-keys FILE says
// otherwise ("" without a home directory).
func DefaultAPIKeysFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "agents-exe", "secret-keys")
}

// IsAgentsExe says whether an agent file is an agents-exe one: its name
// ends in .json or its text starts with "{" (no Lua chunk does).
func IsAgentsExe(name string, src []byte) bool {
	return strings.HasSuffix(strings.ToLower(name), ".json") || bytes.HasPrefix(bytes.TrimSpace(src), []byte("{"))
}

// LoadFile compiles an agent file, the one loader of agent files (ask
// --agent, chat --agent, serve, mcp-server --agent-file): a Lua file by
// compile (the host's, with its limits); an agents-exe file as stdlib's
// agent.agents_exe_loader(text, name), a function that returns the agent
// it describes. The file's text reaches Lua as a value, never as source.
func LoadFile(L *lua.LState, src []byte, name string, compile func(src []byte, name string) (*lua.LFunction, error)) (*lua.LFunction, error) {
	if !IsAgentsExe(name, src) {
		return compile(src, name)
	}
	loader, err := ModuleFunc(L, "agents_exe_loader")
	if err != nil {
		return nil, err
	}
	if err := L.CallByParam(lua.P{Fn: loader, NRet: 1, Protect: true}, lua.LString(src), lua.LString(name)); err != nil {
		return nil, err
	}
	fn, ok := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	if !ok {
		return nil, errs.New(errs.Internal, "agent", "agent.agents_exe_loader returned no function")
	}
	return fn, nil
}

// ModuleFunc is the function name of stdlib's agent module (require
// "agent"), for Go that runs one of its Lua programs by name.
func ModuleFunc(L *lua.LState, name string) (*lua.LFunction, error) {
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, lua.LString("agent")); err != nil {
		return nil, err
	}
	mod := L.Get(-1)
	L.Pop(1)
	t, ok := mod.(*lua.LTable)
	if !ok {
		return nil, errs.Errorf(errs.Internal, "agent", "require \"agent\" gave a %s, not the agent module", mod.Type())
	}
	fn, ok := t.RawGetString(name).(*lua.LFunction)
	if !ok {
		return nil, errs.Errorf(errs.Internal, "agent", "the agent module has no function %s", name)
	}
	return fn, nil
}

// native.load_file(path) -> fn: the agent file compiled (LoadFile), for
// agent.serve_files.
func (m *module) loadFile(L *lua.LState) int {
	path := L.CheckString(1)
	src, err := os.ReadFile(path)
	if err != nil {
		L.Error(sched.ErrorValueOf(L, errs.Errorf(errs.Invalid, "agent", "cannot read the agent file %s: %v", path, privfile.PathErr(err))), 0)
	}
	fn, err := LoadFile(L, src, path, func(src []byte, name string) (*lua.LFunction, error) { return vm.LoadChunk(L, src, name) })
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 0)
	}
	L.Push(fn)
	return 1
}

// modelOf reads a model = {provider =, model =, base_url =, api_key_env
// =, api_key_id =} table (agent.from_agents_exe's: modelUrl, modelName
// and apiKeyId): api_key_id names the key in the agents-exe keys file.
func (m *module) modelOf(t *lua.LTable) (llm.Model, error) {
	mc := llm.ModelConfig{Provider: optString(t, "provider"), Model: optString(t, "model"),
		BaseURL: optString(t, "base_url"), APIKeyEnv: optString(t, "api_key_env")}
	if mc.Provider == "" || mc.Model == "" {
		return nil, errs.New(errs.Invalid, "agent.new", "model = {...} needs provider and model: {provider = \"openai\", model = \"gpt-4.1-mini\", base_url = URL}")
	}
	// api_key_id given (even ""): the key is the keys file's or none,
	// never the environment's (whose key is for another endpoint).
	if id, ok := t.RawGetString("api_key_id").(lua.LString); ok {
		var err error
		if mc.APIKey, mc.KeyFrom, err = m.apiKey(string(id)); err != nil {
			return nil, err
		}
	}
	spec := mc.Provider + ":" + mc.Model
	return llm.New(spec, llm.Config{Lookup: m.cfg.Lookup, Models: map[string]llm.ModelConfig{spec: mc}})
}

// apiKey is the key with this id in the keys file (Config.APIKeysFile,
// else DefaultAPIKeysFile), "" when the id is not there or the default
// file does not exist; from says where it was looked up. Errors name the
// file, never a value.
func (m *module) apiKey(id string) (key, from string, err error) {
	path, given := m.cfg.APIKeysFile, true
	if path == "" {
		path, given = DefaultAPIKeysFile(), false
	}
	from = "the key " + quoteID(id) + " of " + path
	if path == "" {
		return "", from, nil
	}
	data, err := privfile.ReadLimited(path, maxKeysFile)
	if errors.Is(err, fs.ErrNotExist) && !given {
		return "", from, nil
	}
	if err != nil {
		return "", "", errs.Errorf(errs.Invalid, "agent", "cannot read the API keys file %s: %v (--api-keys FILE names another)", path, privfile.PathErr(err))
	}
	var f struct {
		Keys []struct {
			ID    string `json:"id"`
			Value string `json:"value"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		// Only where: the text may hold keys.
		where := `it must be {"keys": [{"id": ..., "value": ...}]}`
		var se *json.SyntaxError
		if errors.As(err, &se) {
			where = "invalid JSON at byte " + strconv.FormatInt(se.Offset, 10)
		}
		return "", "", errs.Errorf(errs.Invalid, "agent", "the API keys file %s: %s", path, where)
	}
	for _, k := range f.Keys {
		if k.ID == id {
			return k.Value, from, nil
		}
	}
	return "", from, nil
}

func quoteID(s string) string { b, _ := json.Marshal(s); return string(b) }
