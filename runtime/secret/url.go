package secret

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Hidden stands for a secret of a URL (or of a catalog entry) shown to a
// person.
const Hidden = "<hidden>"

// secretWords are the parts of a flag, variable, header or query name
// that say its value is a secret (--api-key, GITHUB_TOKEN=, ?access_token=).
var secretWords = []string{"key", "token", "secret", "password", "passwd", "pwd", "auth", "credential", "bearer", "cookie", "session", "signature"}

// Name reports whether a flag, variable, header or query parameter of
// this name holds a secret by its name (API_KEY, --token, Authorization).
func Name(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// urlSecretNames are query and fragment parameters that hold a secret
// though their name does not say so in Name's words: a signed URL's
// signature (?sig=, S3's X-Amz-Signature is Name's), an OAuth
// authorization code, a password or a JWT.
var urlSecretNames = map[string]bool{"sig": true, "code": true, "pass": true, "jwt": true, "otp": true}

func urlParamSecret(name string) bool {
	return Name(name) || urlSecretNames[strings.ToLower(name)]
}

// URL is raw as a person may see it: the password of its userinfo (or
// the user name when it stands alone, as a token often does:
// https://TOKEN@host) and the values of secret-named query and fragment
// parameters (?api_key=, ?token=, ?sig=, #access_token=) are Hidden. A URL
// that does not parse is Hidden whole when it has a query, a fragment or
// userinfo, since any may hold one. Everything else stays as written.
//
// Every message, trace event and status that names a URL shows it
// through URL (or URLsIn, or URLError); it is the one masking of URLs.
func URL(raw string) string { return MaskURL(raw, nil) }

// MaskURL is URL, adding to found (when not nil) each value it hides, for
// masking them in text that repeats them.
func MaskURL(raw string, found *[]string) string {
	if raw == "" || !strings.ContainsAny(raw, "?@#") {
		return raw
	}
	base, frag, hasFrag := strings.Cut(raw, "#")
	u, err := url.Parse(base)
	if err != nil {
		return hide(raw, found)
	}
	changed := false
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			if pw != "" {
				hide(pw, found)
				u.User, changed = url.UserPassword(u.User.Username(), placeholder), true
			}
		} else if name := u.User.Username(); name != "" && !IsReference(name) {
			hide(name, found)
			u.User, changed = url.User(placeholder), true
		}
	}
	if q, ok := maskParams(u.RawQuery, found); ok {
		u.RawQuery, changed = q, true
	}
	out := base
	if changed {
		// url.URL escapes < and >; write the marker after.
		out = strings.ReplaceAll(u.String(), placeholder, Hidden)
	}
	if hasFrag {
		f, ok := maskParams(frag, found)
		if ok {
			frag = strings.ReplaceAll(f, placeholder, Hidden)
		}
		out += "#" + frag
	}
	return out // as written where nothing changed, not as url.URL would re-spell it
}

const placeholder = "luagent-hidden-0c5f2a"

// maskParams hides the values of secret-named parameters in a query (or
// a fragment written like one: #access_token=...&state=...).
func maskParams(raw string, found *[]string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	q := strings.Split(raw, "&")
	changed := false
	for i, kv := range q {
		rawName, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" || IsReference(v) || !urlParamSecret(unescaped(rawName)) {
			continue
		}
		hide(unescaped(v), found)
		q[i], changed = rawName+"="+placeholder, true
	}
	return strings.Join(q, "&"), changed
}

// hide adds v to found (when not nil) and returns Hidden.
func hide(v string, found *[]string) string {
	if found != nil && v != "" {
		*found = append(*found, v)
	}
	return Hidden
}

// IsReference reports whether v names a parameter or a variable
// (${NAME}) rather than holding a value: a name is no secret.
func IsReference(v string) bool {
	return strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && !strings.Contains(v[2:], "${")
}

// unescaped is a query part decoded, or as written when it does not decode.
func unescaped(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// urlInText is a URL as text quotes it: a scheme, then anything but
// white space, quotes and angle brackets (how errors and logs delimit
// one: Post "https://...": ..., <https://...>).
// Compiled on first use: every luagent process imports this package, few
// mask a URL in text.
var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")
})

// URLsIn is text with each URL in it shown as URL shows it, for text
// that may quote one without saying where (a library's error, a
// server's message).
func URLsIn(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return urlInText().ReplaceAllStringFunc(text, func(u string) string {
		// A URL ending a sentence or a parenthesis keeps its punctuation
		// out of the masking (a query value would otherwise be hidden
		// with it, and the text read wrong).
		end := len(u)
		for end > 0 && strings.ContainsRune(".,;:)]}", rune(u[end-1])) {
			end--
		}
		return URL(u[:end]) + u[end:]
	})
}

// URLError masks the URL a *url.Error in err's chain quotes (net/http's
// client errors carry the whole request URL, query included) and
// returns err. Call it where such an error comes back from a client.
func URLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = URL(ue.URL)
	}
	return err
}
