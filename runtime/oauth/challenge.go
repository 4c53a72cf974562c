package oauth

import "strings"

// Challenge is a parsed WWW-Authenticate Bearer challenge (RFC 6750 §3,
// RFC 9728 §5.1). The zero Challenge (no header, or no Bearer challenge in
// it) is valid: Authorize then discovers the metadata at the well-known
// URLs and selects scopes without a challenge.
type Challenge struct {
	// Bearer reports whether the header held a Bearer challenge at all.
	Bearer bool
	// ResourceMetadata is the RFC 9728 protected-resource metadata URL.
	ResourceMetadata string
	// Scope is the space-separated scope the server asks for.
	Scope string
	// Error is the RFC 6750 error code: "invalid_token" (401),
	// "insufficient_scope" (403), "invalid_request" (400).
	Error            string
	ErrorDescription string
}

// Scopes returns the challenge's scopes, split on spaces.
func (c Challenge) Scopes() []string { return strings.Fields(c.Scope) }

// InsufficientScope reports whether the challenge is a 403 step-up request
// (error="insufficient_scope"): Authorize then asks for the union of the
// previous credential's scopes and the challenged ones.
func (c Challenge) InsufficientScope() bool { return c.Error == "insufficient_scope" }

// ParseChallenge parses a WWW-Authenticate header value (several challenges
// may share it, comma-separated, as RFC 9110 §11.6.1 allows) and returns
// its Bearer challenge, else its DPoP one. Parameter names are case-insensitive; values may be
// tokens or quoted strings with backslash escapes.
func ParseChallenge(header string) Challenge {
	chs := parseChallenges(header)
	for _, scheme := range []string{"Bearer", "DPoP"} {
		if c, ok := challengeOf(chs, scheme); ok {
			return c
		}
	}
	return Challenge{}
}

// challengeOf returns the first challenge of the scheme (a DPoP one, RFC
// 9449 §7.1, when a server asks for DPoP only: read as its Bearer one).
func challengeOf(chs []rawChallenge, scheme string) (Challenge, bool) {
	for _, ch := range chs {
		if strings.EqualFold(ch.scheme, scheme) {
			return Challenge{
				Bearer:           true,
				ResourceMetadata: ch.params["resource_metadata"],
				Scope:            ch.params["scope"],
				Error:            ch.params["error"],
				ErrorDescription: ch.params["error_description"],
			}, true
		}
	}
	return Challenge{}, false
}

type rawChallenge struct {
	scheme string
	params map[string]string
}

// parseChallenges splits a header into challenges. A token followed by "="
// is a parameter of the current challenge; any other token starts a new
// challenge (its scheme). A token68 ("Basic dXNlcg==") is read as a
// parameter of its challenge, which is harmless: only Bearer is used.
func parseChallenges(h string) []rawChallenge {
	var out []rawChallenge
	i := 0
	for i < len(h) {
		c := h[i]
		if c == ' ' || c == '\t' || c == ',' {
			i++
			continue
		}
		j := i
		for j < len(h) && isTchar(h[j]) {
			j++
		}
		if j == i { // not a token: skip the character
			i++
			continue
		}
		tok := h[i:j]
		k := skipWS(h, j)
		if k < len(h) && h[k] == '=' && len(out) > 0 {
			k = skipWS(h, k+1)
			var val string
			if k < len(h) && h[k] == '"' {
				val, k = readQuoted(h, k)
			} else {
				v0 := k
				for k < len(h) && h[k] != ',' && h[k] != ' ' && h[k] != '\t' {
					k++
				}
				val = h[v0:k]
			}
			name := strings.ToLower(tok)
			if p := out[len(out)-1].params; p != nil {
				if _, dup := p[name]; !dup {
					p[name] = val
				}
			}
			i = k
			continue
		}
		out = append(out, rawChallenge{scheme: tok, params: map[string]string{}})
		i = j
	}
	return out
}

func skipWS(h string, i int) int {
	for i < len(h) && (h[i] == ' ' || h[i] == '\t') {
		i++
	}
	return i
}

// readQuoted reads a quoted-string starting at h[i] == '"' and returns its
// unescaped value and the index after the closing quote (or the end, when
// it is unterminated).
func readQuoted(h string, i int) (string, int) {
	var b strings.Builder
	i++
	for i < len(h) {
		switch c := h[i]; c {
		case '\\':
			if i+1 < len(h) {
				b.WriteByte(h[i+1])
				i += 2
				continue
			}
			i++
		case '"':
			return b.String(), i + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
