package hub

import (
	"slices"
	"testing"
)

// A stdio server's secrets are its env values of three characters or
// more, and each line of a value of several lines.
func TestEnvSecrets(t *testing.T) {
	got := envSecrets(map[string]string{"A": "ro", "B": "token-1", "C": "-----BEGIN KEY-----\r\nAbCdEf\r\n-----END KEY-----"})
	slices.Sort(got)
	want := []string{"-----BEGIN KEY-----", "-----BEGIN KEY-----\r\nAbCdEf\r\n-----END KEY-----", "-----END KEY-----", "AbCdEf", "token-1"}
	if !slices.Equal(got, want) {
		t.Errorf("envSecrets = %q, want %q", got, want)
	}
	if envSecrets(nil) != nil {
		t.Error("no env, secrets")
	}
}
