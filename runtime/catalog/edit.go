package catalog

import "github.com/luagent/luagent/runtime/errs"

// Server returns the entry named name, or nil.
func (c *Config) Server(name string) *Server {
	for _, s := range c.Servers {
		if s != nil && s.Name == name {
			return s
		}
	}
	return nil
}

// Add appends s. An entry of that name already there is an error of kind
// invalid unless force, which replaces it in its place; the replaced
// entry's unknown and managed members (connectionId, ...) stay with the
// name.
func (c *Config) Add(s *Server, force bool) error {
	if s == nil || s.Name == "" {
		return errs.New(errs.Invalid, op, "Add needs a server with a name")
	}
	for i, old := range c.Servers {
		if old == nil || old.Name != s.Name {
			continue
		}
		if !force {
			return errs.Errorf(errs.Invalid, op, "a server named %s is already in the catalog; pick another name, or pass --force to replace it", s.Name)
		}
		n := *s
		n.extra, n.read, n.raw = old.extra, old.read, old.raw
		c.Servers[i] = &n
		return nil
	}
	c.Servers = append(c.Servers, s)
	return nil
}

// Remove removes the entry named name and reports whether there was one.
func (c *Config) Remove(name string) bool {
	for i, s := range c.Servers {
		if s != nil && s.Name == name {
			c.Servers = append(c.Servers[:i], c.Servers[i+1:]...)
			return true
		}
	}
	return false
}

// Enabled returns the entries that are enabled, in the file's order.
func (c *Config) Enabled() []*Server {
	var out []*Server
	for _, s := range c.Servers {
		if s != nil && s.Enabled {
			out = append(out, s)
		}
	}
	return out
}
