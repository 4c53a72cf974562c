package catalog

// Hidden stands for a secret in a catalog shown to a person.
const Hidden = "<hidden>"

// Masked is c as a person may see it: Masked of each server. c itself is
// untouched, since it is what gets written.
func (c *Config) Masked() *Config {
	mc := *c
	mc.Servers = make([]*Server, len(c.Servers))
	for i, s := range c.Servers {
		mc.Servers[i] = s.Masked()
	}
	return &mc
}

// Masked is a copy of s with every secret Hidden: literal env values,
// header values (they carry tokens) and the oauth client secret. Env
// references ({"param": NAME}, {"fromEnv": NAME}) are names, not
// secrets, and stay: a person approving a save should see which
// parameter or variable the server will be given.
func (s *Server) Masked() *Server {
	n := *s
	if s.Env != nil {
		n.Env = make(map[string]EnvValue, len(s.Env))
		for k, v := range s.Env {
			if v.Param == "" && v.FromEnv == "" {
				v.Value = Hidden
			}
			n.Env[k] = v
		}
	}
	if s.Headers != nil {
		n.Headers = make(map[string]string, len(s.Headers))
		for k := range s.Headers {
			n.Headers[k] = Hidden
		}
	}
	if s.OAuth != nil && s.OAuth.ClientSecret != "" {
		o := *s.OAuth
		o.ClientSecret = Hidden
		n.OAuth = &o
	}
	return &n
}
