package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonscan"
)

// maxTimeout bounds startupTimeoutSeconds and requestTimeoutSeconds: a day.
const maxTimeout = 24 * time.Hour

// Parse decodes a config.json. It checks the shape (each known field has
// its type) and the version, not the rules Validate checks, so a file with
// a bad entry can still be edited (mcp remove) — Load validates. Unknown
// members, at every level, are kept with their bytes as read.
func Parse(data []byte) (*Config, error) {
	data = bytes.Clone(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) // raw values point into it
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errs.New(errs.Invalid, op, `the file is empty; write {"version": 1} in it or remove it`)
	}
	if !json.Valid(data) {
		return nil, errs.Errorf(errs.Invalid, op, "not valid JSON (%s); fix it by hand, the file was not changed", syntaxWhere(data))
	}
	var p problems
	c := &Config{Version: Version, InitStrategy: InitAuto}
	top, ok := objectMembers(data)
	if !ok {
		return nil, errs.New(errs.Invalid, op, `not a JSON object; the file must look like {"version": 1, "mcpServers": {}}`)
	}
	c.raw = map[string]json.RawMessage{}
	for _, m := range top {
		if _, dup := c.raw[m.name]; dup || c.extra.has(m.name) {
			p.add(m.name, "appears twice; keep one")
			continue
		}
		switch m.name {
		case "version":
			c.raw[m.name] = m.val
			v, ok := intValue(m.val)
			if !ok || v < 1 {
				p.add("version", "must be a whole number (1)")
				continue
			}
			if v > Version {
				return nil, errs.Errorf(errs.Invalid, op, "the file has version %d, newer than this luagent understands (%d); upgrade luagent (the file was not changed)", v, Version)
			}
			c.Version = int(v)
		case "mcpInitStrategy":
			c.raw[m.name] = m.val
			if c.InitStrategy = str(m.val, "mcpInitStrategy", &p); c.InitStrategy == "" {
				c.InitStrategy = InitAuto
			}
		case "mcpServers":
			c.raw[m.name] = m.val
			if isNull(m.val) {
				continue
			}
			ents, ok := objectMembers(m.val)
			if !ok {
				p.add("mcpServers", "must be an object of servers by name")
				continue
			}
			seen := map[string]bool{}
			for _, e := range ents {
				path := serverPath(e.name)
				if seen[e.name] {
					p.add(path, "appears twice; keep one")
					continue
				}
				seen[e.name] = true
				if s := parseServer(e.name, e.val, path, &p); s != nil {
					c.Servers = append(c.Servers, s)
				}
			}
		case "model":
			c.raw[m.name] = m.val
			c.DefaultModel = str(m.val, "model", &p)
		case "models":
			c.raw[m.name] = m.val
			c.Models = parseModels(m.val, &p)
		case "fallbackModels":
			// Kept as written (nothing edits it).
			c.extra.set(m.name, m.val)
			if !isNull(m.val) {
				c.FallbackModels = strList(m.val, "fallbackModels", &p)
			}
		case "toolSearch":
			c.raw[m.name] = m.val
			c.ToolSearch = str(m.val, "toolSearch", &p)
		case "toolSearchThreshold":
			c.raw[m.name] = m.val
			switch v, ok := intValue(m.val); {
			case isNull(m.val):
			case !ok || v < 1 || v > math.MaxInt32:
				p.add("toolSearchThreshold", toolSearchThresholdRule)
			default:
				c.ToolSearchThreshold = int(v)
			}
		case "permissions":
			c.raw[m.name] = m.val
			c.Permissions = parsePermissions(m.val, &p)
		case "memoryFiles":
			c.raw[m.name] = m.val
			c.MemoryFiles = parseMemoryFiles(m.val, &p)
		case "notifications":
			c.raw[m.name] = m.val
			c.Notifications = str(m.val, "notifications", &p)
		case "hooks":
			// Kept as written (nothing edits it); hooks.go reads it.
			c.extra.set(m.name, m.val)
			c.parseHooks(m.val)
		default:
			c.extra.set(m.name, m.val)
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	c.read = &Config{Version: c.Version, InitStrategy: c.InitStrategy, DefaultModel: c.DefaultModel,
		ToolSearch: c.ToolSearch, ToolSearchThreshold: c.ToolSearchThreshold}
	return c, nil
}

// ParseServers reads an mcpServers object ({"fs": {"command": ...}, ...}),
// as the file's member would be read, and checks each entry with
// Validate's rules: servers a script gives inline (mcp.hub{servers = ...},
// cat:add) follow the same rules as the file's.
func ParseServers(raw []byte) ([]*Server, error) {
	cfg, err := Parse([]byte(`{"version":1,"mcpServers":` + string(raw) + `}`))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return nil, err
	}
	return cfg.Servers, nil
}

func parseServer(name string, raw json.RawMessage, path string, p *problems) *Server {
	ms, ok := objectMembers(raw)
	if !ok {
		p.add(path, "must be an object (command and args, or url)")
		return nil
	}
	s := &Server{Name: name, Enabled: true, raw: map[string]json.RawMessage{}}
	eachField(ms, path, p, s.raw, &s.extra, func(m member, fp string) bool {
		switch m.name {
		case "command":
			s.Command = str(m.val, fp, p)
		case "args":
			s.Args = strList(m.val, fp, p)
		case "cwd":
			s.Cwd = str(m.val, fp, p)
		case "env":
			s.Env = envMap(m.val, fp, p)
		case "inheritEnv":
			s.InheritEnv = inheritEnv(m.val, fp, p)
		case "url":
			s.URL = str(m.val, fp, p)
		case "headers":
			s.Headers = strMap(m.val, fp, p)
		case "oauth":
			s.OAuth = parseOAuth(m.val, fp, p)
		case "enabled":
			s.Enabled = boolean(m.val, fp, p, true)
		case "startupTimeoutSeconds":
			s.StartupTimeout = seconds(m.val, fp, p)
		case "requestTimeoutSeconds":
			s.RequestTimeout = seconds(m.val, fp, p)
		case "protocol":
			s.Protocol = str(m.val, fp, p)
		case "roots":
			s.Roots, s.RootDirs = roots(m.val, fp, p)
		case "sampling":
			s.Sampling = boolean(m.val, fp, p, false)
		case "logLevel":
			s.LogLevel = str(m.val, fp, p)
		case "startup":
			s.Startup = str(m.val, fp, p)
		case "maxConcurrentCalls":
			v, ok := intValue(m.val)
			switch {
			case isNull(m.val):
			case !ok || v < 0 || v > math.MaxInt32:
				p.add(fp, "must be a whole number, 0 or more (0: no bound)")
			default:
				s.MaxConcurrentCalls = int(v)
			}
		case "enabledTools":
			s.EnabledTools = strList(m.val, fp, p)
		case "disabledTools":
			s.DisabledTools = strList(m.val, fp, p)
		default:
			return false
		}
		return true
	})
	s.read = s.fields()
	return s
}

func parseOAuth(raw json.RawMessage, path string, p *problems) *OAuth {
	if isNull(raw) {
		return nil
	}
	ms, ok := objectMembers(raw)
	if !ok {
		p.add(path, "must be an object (clientId, clientSecret, clientIdMetadataUrl, scopes)")
		return nil
	}
	o := &OAuth{raw: map[string]json.RawMessage{}}
	eachField(ms, path, p, o.raw, &o.extra, func(m member, fp string) bool {
		switch m.name {
		case "clientId":
			o.ClientID = str(m.val, fp, p)
		case "clientSecret":
			o.ClientSecret = str(m.val, fp, p)
		case "clientIdMetadataUrl":
			o.ClientIDMetadataURL = str(m.val, fp, p)
		case "scopes":
			o.Scopes = strList(m.val, fp, p)
		default:
			return false
		}
		return true
	})
	o.read = o.fields()
	return o
}

// inheritEnv reads "minimal" (any other string is kept for Validate to
// name), a list of names, or null (the default).
func inheritEnv(raw json.RawMessage, path string, p *problems) InheritEnv {
	switch {
	case isNull(raw):
		return InheritEnv{}
	case raw[0] == '"':
		v := str(raw, path, p)
		if v == InheritMinimal {
			return InheritEnv{Minimal: true}
		}
		return InheritEnv{other: v}
	case raw[0] == '[':
		if l := strList(raw, path, p); l != nil {
			return InheritEnv{List: true, Names: l}
		}
		return InheritEnv{}
	}
	p.add(path, inheritEnvRule)
	return InheritEnv{}
}

// roots reads true, false or null (off), or a list of folders (on).
func roots(raw json.RawMessage, path string, p *problems) (bool, []string) {
	if raw[0] == '[' {
		var l []string
		if json.Unmarshal(raw, &l) == nil {
			return true, append([]string{}, l...)
		}
	} else if string(raw) == "true" || string(raw) == "false" || isNull(raw) {
		return string(raw) == "true", nil
	}
	p.add(path, rootsRule)
	return false, nil
}

const rootsRule = `must be true, false or a list of folders like [".", "~/src"] (true: the working folder)`

const inheritEnvRule = `must be "minimal" or a list of variable names like ["PATH", "HOME"] (leave it out to inherit all but luagent's own keys)`

func envMap(raw json.RawMessage, path string, p *problems) map[string]EnvValue {
	if isNull(raw) {
		return nil
	}
	ms, ok := objectMembers(raw)
	if !ok {
		p.add(path, `must be an object of variables: {"NAME": "value"}`)
		return nil
	}
	out := make(map[string]EnvValue, len(ms))
	for _, m := range ms {
		fp := path + "." + m.name
		if _, dup := out[m.name]; dup {
			p.add(fp, "appears twice; keep one")
			continue
		}
		v, ok := parseEnvValue(m.val, fp, p)
		if ok {
			out[m.name] = v
		}
	}
	return out
}

func parseEnvValue(raw json.RawMessage, path string, p *problems) (EnvValue, bool) {
	v := EnvValue{raw: raw}
	if raw[0] == '"' {
		v.Value = str(raw, path, p)
		v.was = [3]string{v.Value}
		return v, true
	}
	ms, ok := objectMembers(raw)
	if !ok {
		p.add(path, `must be a string, {"param": NAME} or {"fromEnv": NAME}`)
		return v, false
	}
	v.obj = true
	n := 0
	seen := map[string]bool{}
	for _, m := range ms {
		fp := path + "." + m.name
		if seen[m.name] {
			p.add(fp, "appears twice; keep one")
			continue
		}
		seen[m.name] = true
		switch m.name {
		case "value":
			v.Value, n = str(m.val, fp, p), n+1
		case "param":
			v.Param, n = str(m.val, fp, p), n+1
		case "fromEnv":
			v.FromEnv, n = str(m.val, fp, p), n+1
		default:
			v.extra.set(m.name, m.val)
		}
	}
	if n != 1 {
		p.add(path, `must have exactly one of value, param and fromEnv: {"param": NAME} or {"fromEnv": NAME}`)
		return v, false
	}
	v.was = [3]string{v.Value, v.Param, v.FromEnv}
	return v, true
}

// fields is a copy of the known fields of s, to tell later which changed.
func (s *Server) fields() *Server {
	c := &Server{Name: s.Name, Enabled: s.Enabled, Command: s.Command, Args: cloneList(s.Args), Cwd: s.Cwd,
		InheritEnv: s.InheritEnv.clone(), URL: s.URL, StartupTimeout: s.StartupTimeout, RequestTimeout: s.RequestTimeout, Protocol: s.Protocol,
		Roots: s.Roots, RootDirs: cloneList(s.RootDirs), Sampling: s.Sampling, LogLevel: s.LogLevel, Startup: s.Startup, MaxConcurrentCalls: s.MaxConcurrentCalls,
		EnabledTools: cloneList(s.EnabledTools), DisabledTools: cloneList(s.DisabledTools)}
	if s.Env != nil {
		c.Env = make(map[string]EnvValue, len(s.Env))
		for k, v := range s.Env {
			c.Env[k] = v
		}
	}
	if s.Headers != nil {
		c.Headers = make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			c.Headers[k] = v
		}
	}
	if s.OAuth != nil {
		c.OAuth = s.OAuth.fields()
		c.OAuth.extra = s.OAuth.extra
	}
	return c
}

func (i InheritEnv) clone() InheritEnv {
	i.Names = cloneList(i.Names)
	return i
}

func (o *OAuth) fields() *OAuth {
	return &OAuth{ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientIDMetadataURL: o.ClientIDMetadataURL, Scopes: cloneList(o.Scopes)}
}

func cloneList(l []string) []string {
	if l == nil {
		return nil
	}
	return append([]string{}, l...)
}

// eachField reads an object's members into a struct that keeps each
// known field's value as written in raw and unknown fields in extra:
// field reads one (fp is its path) and reports whether it knows it; a
// name that appears twice is a problem.
func eachField(ms []member, path string, p *problems, raw map[string]json.RawMessage, extra *members, field func(m member, fp string) bool) {
	for _, m := range ms {
		fp := path + "." + m.name
		if _, dup := raw[m.name]; dup || extra.has(m.name) {
			p.add(fp, "appears twice; keep one")
			continue
		}
		if field(m, fp) {
			raw[m.name] = m.val
		} else {
			extra.set(m.name, m.val)
		}
	}
}

// A member of a JSON object, its key decoded.
type member struct {
	name string
	val  json.RawMessage
}

// objectMembers returns the members of the object raw in order (raw is
// valid JSON), or false when it is not an object.
func objectMembers(raw []byte) ([]member, bool) {
	var out []member
	bad := false
	ok := jsonscan.Members(raw, func(key, val []byte) bool {
		name, simple := jsonscan.UnquoteSimple(key)
		if !simple && json.Unmarshal(key, &name) != nil {
			bad = true
			return false
		}
		out = append(out, member{name, json.RawMessage(val)})
		return true
	})
	return out, ok && !bad
}

func isNull(raw []byte) bool { return string(raw) == "null" }

func str(raw []byte, path string, p *problems) string {
	if isNull(raw) {
		return ""
	}
	if s, ok := jsonscan.UnquoteSimple(raw); ok {
		return s
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		p.add(path, "must be a string")
	}
	return s
}

func boolean(raw []byte, path string, p *problems, def bool) bool {
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return def
	}
	p.add(path, "must be true or false")
	return def
}

func strList(raw []byte, path string, p *problems) []string {
	if isNull(raw) {
		return nil
	}
	var l []string
	if json.Unmarshal(raw, &l) != nil {
		p.add(path, `must be an array of strings: ["a", "b"]`)
		return nil
	}
	return l
}

func strMap(raw []byte, path string, p *problems) map[string]string {
	if isNull(raw) {
		return nil
	}
	var m map[string]string
	if json.Unmarshal(raw, &m) != nil {
		p.add(path, `must be an object of strings: {"Name": "value"}`)
		return nil
	}
	return m
}

// intValue decodes a whole number (1 and 1.0 alike).
func intValue(raw []byte) (int64, bool) {
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func seconds(raw []byte, path string, p *problems) time.Duration {
	if isNull(raw) {
		return 0
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f <= 0 || f > maxTimeout.Seconds() || time.Duration(f*float64(time.Second)) <= 0 {
		p.add(path, "must be a number of seconds above 0 and at most 86400 (leave it out for the default)")
		return 0
	}
	return time.Duration(math.Round(f * float64(time.Second)))
}

// syntaxWhere says where the first syntax error of data is.
func syntaxWhere(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return "it does not parse"
	}
	off := int(se.Offset) - 1 // the offending byte's
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%s at line %d, column %d", se.Error(), line, col)
}

// serverPath is the JSON path of an entry, for messages.
func serverPath(name string) string {
	if nameRE.MatchString(name) {
		return "mcpServers." + name
	}
	return "mcpServers." + quoteName(name)
}

func quoteName(name string) string {
	b, _ := json.Marshal(name)
	return string(b)
}

// members holds JSON object members by name, in their order, with their
// values exactly as read (see the type's declaration in catalog.go).

func (m *members) has(name string) bool {
	_, ok := m.values[name]
	return ok
}

func (m *members) set(name string, val json.RawMessage) {
	if m.values == nil {
		m.values = map[string]json.RawMessage{}
	}
	if _, ok := m.values[name]; !ok {
		m.names = append(m.names, name)
	}
	m.values[name] = val
}

func (m members) equal(o members) bool {
	if len(m.names) != len(o.names) {
		return false
	}
	for i, n := range m.names {
		if o.names[i] != n || !bytes.Equal(m.values[n], o.values[n]) {
			return false
		}
	}
	return true
}

// Problem is one thing wrong with a catalog: the JSON path of the field
// and what to do.
type Problem struct {
	Path string // mcpServers.remote-tools.oauth.clientIdMetadataUrl
	Msg  string // must be an https URL with a path
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Problems is the cause of a validation or parse error (errors.As): every
// problem found, not only the first.
type Problems []Problem

func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	if len(ps) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%d problems: %s", len(ps), strings.Join(parts, "; "))
}

type problems struct{ list Problems }

func (p *problems) add(path, msg string) { p.list = append(p.list, Problem{path, msg}) }

// err is nil, or an error of kind invalid listing every problem.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &errs.Error{Kind: errs.Invalid, Op: op, Msg: p.list.Error(), Err: p.list}
}

const op = "catalog"
