package catalog

import "slices"

// Fields is the entry's members as config.json holds them, a JSON object
// written as Marshal writes the entry — the members luagent knows (a
// field the catalog learns shows here with no other change), and the
// connection identity (connectionId) — but not the unknown members and
// the other managed ones (connectionCredentials, ...), which luagent
// keeps for other tools without reading them, at any level. Secrets stay
// as they are: call it on Masked to show an entry.
func (s *Server) Fields() []byte {
	n := s.node()
	n.members = slices.DeleteFunc(n.members, func(e entry) bool {
		return e.name != "connectionId" && slices.Contains(s.extra.names, e.name)
	})
	for i, e := range n.members {
		switch {
		case e.name == "oauth" && s.OAuth != nil:
			o := s.OAuth.node()
			o.members = slices.DeleteFunc(o.members, func(m entry) bool { return slices.Contains(s.OAuth.extra.names, m.name) })
			n.members[i].val = o
		case e.name == "env" && s.Env != nil:
			env := node{obj: true}
			for _, k := range keyOrder(s.Env, s.raw["env"]) {
				env.members = append(env.members, entry{k, s.Env[k].fieldNode()})
			}
			n.members[i].val = env
		}
	}
	var w writer
	w.write(n, 0)
	return w.buf.Bytes()
}

// fieldNode is an env value without the unknown members of its object.
func (v EnvValue) fieldNode() node {
	switch {
	case v.Param != "":
		return node{obj: true, members: []entry{{"param", quote(v.Param)}}}
	case v.FromEnv != "":
		return node{obj: true, members: []entry{{"fromEnv", quote(v.FromEnv)}}}
	case v.obj:
		return node{obj: true, members: []entry{{"value", quote(v.Value)}}}
	}
	return quote(v.Value)
}
