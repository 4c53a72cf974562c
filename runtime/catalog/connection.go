package catalog

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// connectionIDMember is the managed member a host sets to bind an entry's
// credentials to an immutable connection identity.
const connectionIDMember = "connectionId"

// ConnectionID is the entry's connectionId ("" when it has none): the
// identity a managed host gives the connection, which its OAuth
// credentials are bound to (runtime/oauth/store Store.Connection) instead
// of its URL alone. The member is kept as written on every edit.
func (s *Server) ConnectionID() string {
	raw, ok := s.extra.values[connectionIDMember]
	if !ok {
		return ""
	}
	var id string
	if json.Unmarshal(raw, &id) != nil {
		return ""
	}
	return id
}

// SetConnectionID sets the entry's connectionId (a managed host's, or a
// test's); "" keeps it as it is.
func (s *Server) SetConnectionID(id string) {
	if id == "" {
		return
	}
	b, _ := json.Marshal(id)
	s.extra.set(connectionIDMember, b)
}

// validateConnectionID checks the member's type: a nonempty string.
func (s *Server) validateConnectionID(at func(field, msg string)) {
	raw, ok := s.extra.values[connectionIDMember]
	if !ok {
		return
	}
	var id string
	if json.Unmarshal(raw, &id) != nil || strings.TrimSpace(id) == "" {
		at(connectionIDMember, "must be a nonempty string (the connection's identity, set by the host that manages it); remove it or give one")
	}
}

// validateConnections refuses two entries that share a connectionId: each
// connection's credentials belong to one entry.
func (c *Config) validateConnections(p *problems) {
	first := map[string]string{}
	for _, s := range c.Servers {
		if s == nil {
			continue
		}
		id := s.ConnectionID()
		if id == "" {
			continue
		}
		if name, dup := first[id]; dup {
			p.add(serverPath(s.Name)+"."+connectionIDMember, fmt.Sprintf("is also the connectionId of %s; two entries may not share one: give each its own or remove one", name))
			continue
		}
		first[id] = s.Name
	}
}

// ServersAt returns the HTTP entries whose URL is u, spelled either way
// (SameURL), in the file's order.
func (c *Config) ServersAt(u string) []*Server {
	want, ok := NormalizeURL(u)
	if !ok {
		return nil
	}
	var out []*Server
	for _, s := range c.Servers {
		if s == nil || s.URL == "" {
			continue
		}
		if n, ok := NormalizeURL(s.URL); ok && n == want {
			out = append(out, s)
		}
	}
	return out
}

// SameURL reports whether two server URLs are equivalent spellings of one
// (NormalizeURL).
func SameURL(a, b string) bool {
	na, oka := NormalizeURL(a)
	nb, okb := NormalizeURL(b)
	return oka && okb && na == nb
}

// NormalizeURL is an absolute http(s) URL in one spelling (RFC 3986 §6.2.2
// and §6.2.3): scheme and host in lower case, the default port left out,
// "/" for an empty path, percent-encoded unreserved characters decoded and
// the other percent-encodings in upper case; no fragment. The query stays
// significant: only its percent-encodings are normalized. ok is false for
// what is not an absolute http or https URL.
func NormalizeURL(raw string) (norm string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	path := normalizePercent(u.EscapedPath())
	if path == "" {
		path = "/"
	}
	out := scheme + "://"
	if u.User != nil {
		out += u.User.String() + "@"
	}
	out += host + path
	if q := normalizePercent(u.RawQuery); q != "" {
		out += "?" + q
	}
	return out, true
}

// normalizePercent decodes the percent-encoded unreserved characters of s
// and writes the other percent-encodings' hex digits in upper case.
func normalizePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
				b.WriteByte(c)
			} else {
				b.WriteString(strings.ToUpper(s[i : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
