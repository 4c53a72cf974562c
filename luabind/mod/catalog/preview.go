package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/value"
	rcatalog "github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

// A catalog edit in two steps, so a person can see it before it is saved:
//
//	local p = cat:preview{ op = "save", name = "docs", entry = { url = "https://example.com/mcp" } }
//	show(p.before, p.after) -- config.json now and as it will be, secrets as <hidden>
//	if yes then cat:apply(p) end
//
// op is "save" (add, or replace an entry of that name), "remove",
// "enable" or "disable". preview validates the result with the catalog's
// own rules and raises their error (kind invalid) without writing;
// apply writes exactly the bytes previewed, or nothing when the file
// changed meanwhile. cat:show(name) is one entry as the file holds it.
// Env values, header values and an oauth clientSecret are never shown.

const planType = "mcp.catalog.plan"

// plan is a previewed edit: what to do, and the file it must give.
type plan struct {
	op, name string
	entry    *rcatalog.Server // for save
	want     []byte
}

// entryText is the member "name": {...} of the marshalled file, as its
// lines there (four spaces in).
func entryText(file []byte, name string) string {
	head := "    " + string(mustQuote(name)) + ": "
	lines := strings.Split(string(file), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, head) {
			continue
		}
		if strings.HasSuffix(strings.TrimSuffix(l, ","), "{}") {
			return strings.TrimSuffix(l, ",")
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSuffix(lines[j], ",") == "    }" {
				return strings.Join(lines[i:j], "\n") + "\n    }"
			}
		}
	}
	return ""
}

func mustQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// cat:show(name) -> the entry's text as config.json holds it (secrets
// <hidden>), or nil.
func catShow(L *lua.LState) int {
	path, name := checkCatalog(L), L.CheckString(2)
	c, _, err := rcatalog.Read(path)
	if err != nil {
		raise(L, err)
	}
	if c.Server(name) == nil {
		L.Push(lua.LNil)
		return 1
	}
	b, err := c.Masked().Marshal()
	if err != nil {
		raise(L, errs.Wrap(errs.Internal, "mcp.catalog", err))
	}
	L.Push(lua.LString(entryText(b, name)))
	return 1
}

// parseEntry reads one entry of config.json's fields as the file would.
func parseEntry(name string, entry *lua.LTable) (*rcatalog.Server, error) {
	raw, err := value.Encode(value.MarkObject(entry), value.EncodeOptions{})
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "mcp.catalog", "the entry: %v", err)
	}
	cfg, err := rcatalog.Parse([]byte(`{"version":1,"mcpServers":{` + string(mustQuote(name)) + `:` + string(raw) + `}}`))
	if err != nil {
		return nil, err
	}
	return fresh(cfg.Servers[0]), nil
}

// fresh is s as if made in Go: written in the catalog's own layout, not
// as the bytes it was parsed from (members the catalog does not know are
// dropped).
func fresh(s *rcatalog.Server) *rcatalog.Server {
	n := &rcatalog.Server{Name: s.Name, Enabled: s.Enabled, Command: s.Command, Args: s.Args, Cwd: s.Cwd,
		URL: s.URL, Headers: s.Headers, StartupTimeout: s.StartupTimeout, RequestTimeout: s.RequestTimeout,
		Protocol: s.Protocol, Roots: s.Roots, RootDirs: s.RootDirs, Sampling: s.Sampling, LogLevel: s.LogLevel, MaxConcurrentCalls: s.MaxConcurrentCalls,
		EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools}
	if s.Env != nil {
		n.Env = make(map[string]rcatalog.EnvValue, len(s.Env))
		for k, v := range s.Env {
			n.Env[k] = rcatalog.EnvValue{Value: v.Value, Param: v.Param, FromEnv: v.FromEnv}
		}
	}
	if o := s.OAuth; o != nil {
		n.OAuth = &rcatalog.OAuth{ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientIDMetadataURL: o.ClientIDMetadataURL, Scopes: o.Scopes}
	}
	return n
}

// do applies p's edit to c.
func (p *plan) do(c *rcatalog.Config, path string) (string, error) {
	switch p.op {
	case "save":
		verb := "add"
		if c.Server(p.name) != nil {
			verb = "replace"
		}
		e := *p.entry // Add keeps the entry it is given: each run its own
		return verb, c.Add(&e, true)
	case "remove":
		if !c.Remove(p.name) {
			return "", errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s (list the servers to see their names)", p.name, path)
		}
		return "remove", nil
	case "enable", "disable":
		s := c.Server(p.name)
		if s == nil {
			return "", errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s (list the servers to see their names)", p.name, path)
		}
		s.Enabled = p.op == "enable"
		return p.op, nil
	}
	return "", errs.Errorf(errs.Invalid, "mcp.catalog", `op must be "save", "remove", "enable" or "disable", not %q`, p.op)
}

// cat:preview{op=, name=, entry=} -> {op=, name=, path=, changed=,
// new_file=, relaid=, before=, after=, entry=, plan=}: op is what happens
// ("add", "replace", "remove", "enable", "disable"); before and after are
// the file's text now ("" when there is none) and as it will be written,
// secrets <hidden> in both; relaid says the other entries are written in
// the catalog's layout, unlike the file now; entry is the entry's text
// after (nil when removed). meta.lua makes the diff shown.
func catPreview(L *lua.LState) int {
	path := checkCatalog(L)
	o := L.CheckTable(2)
	fail := func(err error) { raise(L, err) }
	p := &plan{op: lua.LVAsString(o.RawGetString("op")), name: lua.LVAsString(o.RawGetString("name"))}
	if p.name == "" {
		fail(errs.New(errs.Invalid, "mcp.catalog", "preview needs the server's name"))
	}
	if p.op == "save" {
		e, ok := o.RawGetString("entry").(*lua.LTable)
		if !ok {
			fail(errs.New(errs.Invalid, "mcp.catalog", `a save needs entry = {url = ...} or {command = ..., args = {...}}`))
		}
		var err error
		if p.entry, err = parseEntry(p.name, e); err != nil {
			fail(err)
		}
	}
	c, before, err := rcatalog.Read(path)
	if err != nil {
		fail(err)
	}
	old, err := c.Masked().Marshal()
	if err != nil {
		fail(errs.Wrap(errs.Internal, "mcp.catalog", err))
	}
	if before == nil {
		old = nil
	}
	realOld, _ := c.Marshal()
	verb, err := p.do(c, path)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		fail(err)
	}
	if p.want, err = c.Marshal(); err != nil {
		fail(errs.Wrap(errs.Internal, "mcp.catalog", err))
	}
	shown, _ := c.Masked().Marshal()
	t := L.CreateTable(0, 10)
	set := func(k string, v lua.LValue) { t.RawSetString(k, v) }
	set("op", lua.LString(verb))
	set("name", lua.LString(p.name))
	set("path", lua.LString(path))
	set("changed", lua.LBool(!bytes.Equal(p.want, before)))
	set("new_file", lua.LBool(before == nil))
	set("relaid", lua.LBool(before != nil && !bytes.Equal(realOld, before)))
	set("before", lua.LString(old))
	set("after", lua.LString(shown))
	if et := entryText(shown, p.name); et != "" && verb != "remove" {
		set("entry", lua.LString(et))
	}
	ud := L.NewUserData()
	ud.Value = p
	ud.Metatable = L.NewTypeMetatable(planType)
	set("plan", ud)
	L.Push(t)
	return 1
}

// cat:apply(preview) writes what preview showed; when the file changed
// since, it writes nothing and raises (kind invalid).
func catApply(L *lua.LState) int {
	path := checkCatalog(L)
	var p *plan
	if t, ok := L.Get(2).(*lua.LTable); ok {
		if ud, ok := t.RawGetString("plan").(*lua.LUserData); ok {
			p, _ = ud.Value.(*plan)
		}
	}
	if p == nil {
		L.ArgError(2, "cat:preview's result expected")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := rcatalog.Update(ctx, path, func(c *rcatalog.Config) error {
		if _, err := p.do(c, path); err != nil {
			return err
		}
		if got, err := c.Marshal(); err != nil || !bytes.Equal(got, p.want) {
			return errs.Errorf(errs.Invalid, "mcp.catalog", "%s changed since the preview (another edit?): nothing was saved; preview the change again", path)
		}
		return nil
	})
	if err != nil {
		raise(L, err)
	}
	return 0
}
