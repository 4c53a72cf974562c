package catalog

import (
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// Hidden stands for a secret in a catalog shown to a person.
const Hidden = secret.Hidden

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
// header values (they carry tokens) and the oauth client secret, and in
// the URL and args what names itself a secret (maskArgs, maskURL). Env
// references ({"param": NAME}, {"fromEnv": NAME}) are names, not
// secrets, and stay: a person approving a save should see which
// parameter or variable the server will be given.
func (s *Server) Masked() *Server {
	n := *s
	n.URL = secret.MaskURL(s.URL, nil)
	n.Args = maskArgs(s.Args, nil)
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

// SecretName reports whether a flag, variable, header or query parameter
// of this name holds a secret by its name (API_KEY, --token,
// Authorization).
func SecretName(name string) bool { return secret.Name(name) }

// maskArgs hides the values of secret-named options in a command line,
// which users write there when a server takes its key as a flag:
// `--api-key=V`, `--token V`, `-e GITHUB_TOKEN=V` (docker's), a header
// `Authorization: Bearer V` given as one argument, and secret query
// parameters of URLs among them. A reference to a parameter or variable
// (`${NAME}`) is a name, not a secret, and stays. Args itself is
// untouched; nil stays nil.
func maskArgs(args []string, found *[]string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext && !strings.HasPrefix(a, "-"):
			out[i] = hidden(a, found)
		case strings.HasPrefix(a, "-") && strings.Contains(a, "="):
			name, v, _ := strings.Cut(a, "=")
			out[i] = a
			if SecretName(name) {
				out[i] = name + "=" + hidden(v, found)
			}
		case strings.HasPrefix(a, "-"):
			out[i] = a
		default:
			out[i] = maskWord(a, found)
		}
		hideNext = strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && SecretName(a)
	}
	return out
}

// maskWord hides a secret in one argument that is not an option: NAME=V
// with a secret name, a `Name: value` header with a secret name, or a
// URL's secrets.
func maskWord(a string, found *[]string) string {
	if name, v, ok := strings.Cut(a, "="); ok && name != "" && !strings.ContainsAny(name, " :/") && SecretName(name) {
		return name + "=" + hidden(v, found)
	}
	if name, v, ok := strings.Cut(a, ":"); ok && name != "" && !strings.ContainsAny(name, " /") && !strings.Contains(a, "://") && SecretName(name) {
		return name + ": " + hidden(strings.TrimSpace(v), found)
	}
	if strings.Contains(a, "://") {
		return secret.MaskURL(a, found)
	}
	return a
}

// hidden is Hidden, adding v to found (when not nil), or v itself when
// v is empty or a reference: ${NAME} names a parameter or variable.
func hidden(v string, found *[]string) string {
	if v == "" || secret.IsReference(v) {
		return v
	}
	if found != nil {
		*found = append(*found, v)
	}
	return Hidden
}

// SecretsIn returns the values Masked hides in s — literal env values,
// header values, the oauth client secret and the secrets of its URL and
// args — for masking them in text that repeats them (a model's answer).
func SecretsIn(s *Server) []string {
	var found []string
	for _, v := range s.Env {
		if v.Param == "" && v.FromEnv == "" && v.Value != "" {
			found = append(found, v.Value)
		}
	}
	for _, v := range s.Headers {
		if v != "" {
			found = append(found, v)
		}
	}
	if s.OAuth != nil && s.OAuth.ClientSecret != "" {
		found = append(found, s.OAuth.ClientSecret)
	}
	secret.MaskURL(s.URL, &found)
	maskArgs(s.Args, &found)
	return found
}

// Shown is the entry's URL, or its command line (arguments a shell would
// split quoted), for people: with its secrets hidden as Masked hides them
// and its control characters visible (an imported entry is another
// program's file). Env values are not part of it.
func (s *Server) Shown() string {
	if s.URL != "" {
		return visible.Line(secret.MaskURL(s.URL, nil))
	}
	parts := []string{shellWord(s.Command)}
	for _, a := range maskArgs(s.Args, nil) {
		parts = append(parts, shellWord(a))
	}
	return strings.Join(parts, " ")
}

// shellWord is a as a shell would read it back: quoted (Go's quoting,
// which writes a control character as an escape) when it holds a blank,
// a shell's special character or a control character.
func shellWord(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\$`!*?;&|<>()[]{}#~") && visible.Line(a) == a {
		return a
	}
	return strconv.Quote(a)
}
