package store

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/oauth"
)

// Legacy returns the token record that MCP_OAUTH_TOKEN_FILE names: a JSON
// object with client_id, token_endpoint, access_token, refresh_token and
// expires_at (Unix seconds; milliseconds and RFC 3339 strings are read too,
// and written back in the form found). serverURL is the MCP server it is
// for, used in messages ("" if unknown); warn receives warnings (nil:
// os.Stderr).
//
// Its Entry follows the store's rules: private permissions (0600, fixed
// with a warning), the same lock, re-read, atomic save and RefreshOnce. The
// lock is the file's path plus ".lock", beside it, present only while
// held. A symbolic link is followed: the file it points to is replaced and
// the link kept. Other members of the object are kept as they were.
func Legacy(path, serverURL string, warn io.Writer) *Entry {
	return &Entry{url: serverURL, path: path, legacy: true, warn: func() io.Writer {
		if warn != nil {
			return warn
		}
		return os.Stderr
	}}
}

// LoadLegacyFile reads the token record at path (see Legacy).
func LoadLegacyFile(path string, warn io.Writer) (*oauth.Credential, error) {
	return Legacy(path, "", warn).Load()
}

// expiry forms found in legacy records.
type expiryForm uint8

const (
	expirySeconds expiryForm = iota
	expiryMillis
	expiryRFC3339
)

// legacyRecord reads expires_at in any of its forms.
type legacyRecord struct {
	oauth.Credential
	ExpiresAt json.RawMessage `json:"expires_at,omitempty"`
}

func decodeLegacy(data []byte) (*oauth.Credential, map[string]json.RawMessage, expiryForm, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, nil, 0, err
	}
	if members == nil {
		return nil, nil, 0, badRecord("not a JSON object")
	}
	var rec legacyRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, nil, 0, err
	}
	c := rec.Credential
	form := expirySeconds
	raw := bytes.TrimSpace(rec.ExpiresAt)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var s string
		json.Unmarshal(raw, &s)
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, nil, 0, badRecord("expires_at is not a number or an RFC 3339 time")
		}
		c.ExpiresAt, form = t.Unix(), expiryRFC3339
	default:
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, nil, 0, &json.UnmarshalTypeError{Field: "expires_at", Type: reflect.TypeFor[float64]()}
		}
		if n > 1e11 { // past the year 5000 in seconds: milliseconds
			c.ExpiresAt, form = int64(n/1000), expiryMillis
		} else {
			c.ExpiresAt = int64(n)
		}
	}
	return &c, members, form, nil
}

// encodeLegacy writes c over the record now at path (the caller holds the
// lock), keeping members it does not know and expires_at's form. c is the
// whole truth for the members it has: an empty one is removed.
func encodeLegacy(path string, c *oauth.Credential) ([]byte, error) {
	members := map[string]json.RawMessage{}
	form := expirySeconds
	if data, err := readLimited(path); err == nil {
		if _, m, f, err := decodeLegacy(data); err == nil {
			members, form = m, f
		}
	}
	for _, name := range credentialMembers() {
		delete(members, name)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, err
	}
	for k, v := range set {
		members[k] = v
	}
	if c.ExpiresAt != 0 {
		var v any = c.ExpiresAt
		switch form {
		case expiryMillis:
			v = c.ExpiresAt * 1000
		case expiryRFC3339:
			v = time.Unix(c.ExpiresAt, 0).UTC().Format(time.RFC3339)
		}
		members["expires_at"], _ = json.Marshal(v)
	}
	return json.MarshalIndent(members, "", "  ")
}

// credentialMembers lists the JSON names of oauth.Credential's fields.
func credentialMembers() []string {
	t := reflect.TypeFor[oauth.Credential]()
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}
