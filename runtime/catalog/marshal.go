package catalog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Marshal encodes the catalog as config.json: indented by two spaces, the
// known members in a fixed order, then the unknown and managed ones in the
// order they were read. A value that did not change since Parse is written
// with the bytes it was read with; unknown members always are. Marshal of
// Parse of Marshal's output gives the same bytes.
func (c *Config) Marshal() ([]byte, error) {
	var top []entry
	version := c.Version
	if version == 0 {
		version = Version
	}
	was := c.read
	top = append(top, field(c.raw, "version", was != nil && was.Version == version, gen(strconv.Itoa(version))))
	switch raw, read := c.raw["mcpInitStrategy"]; {
	case was != nil && was.InitStrategy == c.InitStrategy:
		if read {
			top = append(top, entry{"mcpInitStrategy", node{raw: raw}})
		}
	case c.InitStrategy != "":
		top = append(top, entry{"mcpInitStrategy", quote(c.InitStrategy)})
	}
	servers := node{obj: true, members: []entry{}}
	for _, s := range c.Servers {
		servers.members = append(servers.members, entry{s.Name, s.node()})
	}
	if _, had := c.raw["mcpServers"]; had || len(c.Servers) > 0 || c.Permissions.Empty() {
		top = append(top, entry{"mcpServers", servers}) // a file of rules alone (a project's) needs none
	}
	top = append(top, c.modelEntries()...)
	top = append(top, c.toolSearchEntries(was)...)
	top = append(top, c.permissionsEntries()...)
	top = append(top, c.memoryEntries()...)
	top = appendExtra(top, c.extra)
	var w writer
	w.write(node{obj: true, members: top}, 0)
	w.buf.WriteByte('\n')
	return w.buf.Bytes(), nil
}

func (s *Server) node() node {
	read := s.read != nil // else every field is new
	w := s.read
	if !read {
		w = &Server{}
	}
	var ms []entry
	add := func(name string, same, isDefault bool, n node) {
		if same {
			if raw, ok := s.raw[name]; ok {
				ms = append(ms, entry{name, node{raw: raw}})
			}
			return
		}
		if !isDefault {
			ms = append(ms, entry{name, n})
		}
	}
	add("command", read && w.Command == s.Command, s.Command == "", quote(s.Command))
	add("args", read && slices.Equal(w.Args, s.Args) && (w.Args == nil) == (s.Args == nil), s.Args == nil, list(s.Args))
	add("cwd", read && w.Cwd == s.Cwd, s.Cwd == "", quote(s.Cwd))
	if read && envEqual(w.Env, s.Env) && (w.Env == nil) == (s.Env == nil) {
		add("env", true, false, node{})
	} else {
		add("env", false, s.Env == nil, envNode(s.Env, s.raw["env"]))
	}
	add("inheritEnv", read && w.InheritEnv.equal(s.InheritEnv), s.InheritEnv.IsDefault(), s.InheritEnv.node())
	add("url", read && w.URL == s.URL, s.URL == "", quote(s.URL))
	add("headers", read && reflect.DeepEqual(w.Headers, s.Headers), s.Headers == nil, strMapNode(s.Headers, s.raw["headers"]))
	add("oauth", read && oauthEqual(w.OAuth, s.OAuth), s.OAuth == nil, s.OAuth.node())
	add("startupTimeoutSeconds", read && w.StartupTimeout == s.StartupTimeout, s.StartupTimeout == 0, secondsNode(s.StartupTimeout))
	add("requestTimeoutSeconds", read && w.RequestTimeout == s.RequestTimeout, s.RequestTimeout == 0, secondsNode(s.RequestTimeout))
	add("protocol", read && w.Protocol == s.Protocol, s.Protocol == "", quote(s.Protocol))
	add("roots", read && w.Roots == s.Roots && slices.Equal(w.RootDirs, s.RootDirs) && (w.RootDirs == nil) == (s.RootDirs == nil), !s.Roots, s.rootsNode())
	add("sampling", read && w.Sampling == s.Sampling, !s.Sampling, gen(strconv.FormatBool(s.Sampling)))
	add("logLevel", read && w.LogLevel == s.LogLevel, s.LogLevel == "", quote(s.LogLevel))
	add("startup", read && w.Startup == s.Startup, s.Startup == "", quote(s.Startup))
	add("maxConcurrentCalls", read && w.MaxConcurrentCalls == s.MaxConcurrentCalls, s.MaxConcurrentCalls == 0, gen(strconv.Itoa(s.MaxConcurrentCalls)))
	add("enabledTools", read && listEqual(w.EnabledTools, s.EnabledTools), s.EnabledTools == nil, list(s.EnabledTools))
	add("disabledTools", read && listEqual(w.DisabledTools, s.DisabledTools), s.DisabledTools == nil, list(s.DisabledTools))
	add("enabled", read && w.Enabled == s.Enabled, read && s.Enabled, gen(strconv.FormatBool(s.Enabled)))
	return node{obj: true, members: appendExtra(ms, s.extra)}
}

func (s *Server) rootsNode() node {
	if s.RootDirs != nil {
		return list(s.RootDirs)
	}
	return gen(strconv.FormatBool(s.Roots))
}

// toolSearchEntries are the top-level toolSearch and toolSearchThreshold,
// as read when unchanged (was: the fields as parsed, nil for a catalog
// made in Go).
func (c *Config) toolSearchEntries(was *Config) []entry {
	if was == nil {
		was = &Config{}
	}
	var out []entry
	switch raw, read := c.raw["toolSearch"]; {
	case was.ToolSearch == c.ToolSearch && read:
		out = append(out, entry{"toolSearch", node{raw: raw}})
	case c.ToolSearch != "":
		out = append(out, entry{"toolSearch", quote(c.ToolSearch)})
	}
	switch raw, read := c.raw["toolSearchThreshold"]; {
	case was.ToolSearchThreshold == c.ToolSearchThreshold && read:
		out = append(out, entry{"toolSearchThreshold", node{raw: raw}})
	case c.ToolSearchThreshold != 0:
		out = append(out, entry{"toolSearchThreshold", gen(strconv.Itoa(c.ToolSearchThreshold))})
	}
	return out
}

// listEqual: the same strings, and both nil or both not (a list left out
// and an empty one differ).
func listEqual(a, b []string) bool {
	return slices.Equal(a, b) && (a == nil) == (b == nil)
}

func (i InheritEnv) node() node {
	switch {
	case i.Minimal:
		return quote(InheritMinimal)
	case i.IsList():
		return list(i.Names)
	}
	return quote(i.other)
}

func (o *OAuth) node() node {
	if o == nil {
		return node{}
	}
	w := o.read
	var ms []entry
	add := func(name string, same, isDefault bool, n node) {
		if same && w != nil {
			if raw, ok := o.raw[name]; ok {
				ms = append(ms, entry{name, node{raw: raw}})
			}
			return
		}
		if !isDefault {
			ms = append(ms, entry{name, n})
		}
	}
	if w == nil {
		w = &OAuth{}
	}
	add("clientId", w.ClientID == o.ClientID, o.ClientID == "", quote(o.ClientID))
	add("clientSecret", w.ClientSecret == o.ClientSecret, o.ClientSecret == "", quote(o.ClientSecret))
	add("clientIdMetadataUrl", w.ClientIDMetadataURL == o.ClientIDMetadataURL, o.ClientIDMetadataURL == "", quote(o.ClientIDMetadataURL))
	add("scopes", slices.Equal(w.Scopes, o.Scopes) && (w.Scopes == nil) == (o.Scopes == nil), o.Scopes == nil, list(o.Scopes))
	return node{obj: true, members: appendExtra(ms, o.extra)}
}

func oauthEqual(a, b *OAuth) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ClientID == b.ClientID && a.ClientSecret == b.ClientSecret && a.ClientIDMetadataURL == b.ClientIDMetadataURL &&
		slices.Equal(a.Scopes, b.Scopes) && (a.Scopes == nil) == (b.Scopes == nil) && a.extra.equal(b.extra)
}

func (v EnvValue) same(o EnvValue) bool {
	return v.Value == o.Value && v.Param == o.Param && v.FromEnv == o.FromEnv && v.extra.equal(o.extra)
}

func envEqual(a, b map[string]EnvValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if o, ok := b[k]; !ok || !v.same(o) {
			return false
		}
	}
	return true
}

func (v EnvValue) node() node {
	if v.raw != nil && v.was == [3]string{v.Value, v.Param, v.FromEnv} {
		return node{raw: v.raw}
	}
	var ms []entry
	switch {
	case v.Param != "":
		ms = append(ms, entry{"param", quote(v.Param)})
	case v.FromEnv != "":
		ms = append(ms, entry{"fromEnv", quote(v.FromEnv)})
	case !v.obj && len(v.extra.names) == 0:
		return quote(v.Value)
	default:
		ms = append(ms, entry{"value", quote(v.Value)})
	}
	return node{obj: true, members: appendExtra(ms, v.extra)}
}

// envNode writes env's variables in the order they were read (old holds
// the object as read), then new ones sorted.
func envNode(env map[string]EnvValue, old json.RawMessage) node {
	n := node{obj: true, members: []entry{}}
	for _, k := range keyOrder(env, old) {
		n.members = append(n.members, entry{k, env[k].node()})
	}
	return n
}

func strMapNode(m map[string]string, old json.RawMessage) node {
	n := node{obj: true, members: []entry{}}
	for _, k := range keyOrder(m, old) {
		n.members = append(n.members, entry{k, quote(m[k])})
	}
	return n
}

func keyOrder[V any](m map[string]V, old json.RawMessage) []string {
	var keys []string
	seen := map[string]bool{}
	if old != nil {
		ms, _ := objectMembers(old)
		for _, e := range ms {
			if _, ok := m[e.name]; ok && !seen[e.name] {
				keys, seen[e.name] = append(keys, e.name), true
			}
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

func appendExtra(ms []entry, x members) []entry {
	for _, n := range x.names {
		ms = append(ms, entry{n, node{raw: x.values[n]}})
	}
	return ms
}

// field is the member name: its bytes as read when same, else n.
func field(raw map[string]json.RawMessage, name string, same bool, n node) entry {
	if r, ok := raw[name]; ok && same {
		return entry{name, node{raw: r}}
	}
	return entry{name, n}
}

func secondsNode(d time.Duration) node {
	if d%time.Second == 0 {
		return gen(strconv.FormatInt(int64(d/time.Second), 10))
	}
	return gen(strconv.FormatFloat(d.Seconds(), 'f', -1, 64))
}

// node is a value to write: raw bytes (a value as read, or one encoded
// here), or an object written one member a line.
type node struct {
	raw     []byte
	obj     bool
	members []entry
}

type entry struct {
	name string
	val  node
}

func gen(s string) node { return node{raw: []byte(s)} }

// quote encodes s as a JSON string without HTML escapes (URLs keep & and
// < as they are).
func quote(s string) node { return node{raw: quoteBytes(s)} }

func quoteBytes(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// list encodes a list of strings on one line.
func list(l []string) node {
	b := []byte{'['}
	for i, s := range l {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, quoteBytes(s)...)
	}
	return node{raw: append(b, ']')}
}

type writer struct{ buf bytes.Buffer }

func (w *writer) write(n node, depth int) {
	if !n.obj {
		w.buf.Write(n.raw)
		return
	}
	if len(n.members) == 0 {
		w.buf.WriteString("{}")
		return
	}
	w.buf.WriteString("{\n")
	for i, m := range n.members {
		w.indent(depth + 1)
		w.buf.Write(quoteBytes(m.name))
		w.buf.WriteString(": ")
		w.write(m.val, depth+1)
		if i < len(n.members)-1 {
			w.buf.WriteByte(',')
		}
		w.buf.WriteByte('\n')
	}
	w.indent(depth)
	w.buf.WriteByte('}')
}

func (w *writer) indent(depth int) {
	for range depth {
		w.buf.WriteString("  ")
	}
}
