package oauth

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
)

// String describes the credential without its secrets (the access and
// refresh tokens and the client secret are never printed), so a credential
// that reaches a log or an error through %v stays safe.
func (c Credential) String() string {
	return fmt.Sprintf("oauth.Credential{issuer=%s client=%s resource=%s scope=%q access_token=%s refresh_token=%s client_secret=%s expires_at=%d}",
		c.Issuer, c.ClientID, c.Resource, c.Scope, present(c.AccessToken), present(c.RefreshToken), present(c.ClientSecret), c.ExpiresAt)
}

// GoString is String, for %#v.
func (c Credential) GoString() string { return c.String() }

// LogValue keeps the secrets out of slog records.
func (c Credential) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("issuer", c.Issuer),
		slog.String("client_id", c.ClientID),
		slog.String("resource", c.Resource),
		slog.String("scope", c.Scope),
		slog.String("access_token", present(c.AccessToken)),
		slog.String("refresh_token", present(c.RefreshToken)),
		slog.Int64("expires_at", c.ExpiresAt),
	)
}

// Expired reports whether the access token has expired at now or will
// within 30 seconds (a request sent with it might arrive late). An unknown
// expiry (ExpiresAt 0) is not expired: the server's 401 will tell.
func (c *Credential) Expired(now time.Time) bool {
	return c.ExpiresAt != 0 && now.Add(30*time.Second).Unix() >= c.ExpiresAt
}

func present(s string) string {
	if s == "" {
		return "(none)"
	}
	return "(redacted)"
}

// sanitize makes server-supplied text fit one error line: control
// characters become spaces and it is cut at 200 characters.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// redact removes secrets from text a server supplied (a hostile server could
// echo the code or a token back in error_description).
func redact(s string, secrets []string) string {
	for _, x := range secrets {
		if len(x) >= 4 {
			s = strings.ReplaceAll(s, x, "[redacted]")
		}
	}
	return s
}
