package secret_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/secret"
)

func TestURL(t *testing.T) {
	for _, c := range []struct {
		in, want string
		found    []string
	}{
		{"", "", nil},
		{"https://example.com/mcp", "https://example.com/mcp", nil},
		{"https://example.com/mcp?x=1&y=%20", "https://example.com/mcp?x=1&y=%20", nil},
		{"https://example.com/a%2Fb?x=1", "https://example.com/a%2Fb?x=1", nil}, // as written
		// userinfo: the password; a user name alone is a token as often as not
		{"https://u:p-SECRET@example.com/mcp", "https://u:<hidden>@example.com/mcp", []string{"p-SECRET"}},
		{"https://ghp-SECRET@github.com/x", "https://<hidden>@github.com/x", []string{"ghp-SECRET"}},
		{"https://u:@example.com/", "https://u:@example.com/", nil},
		// secret-named query parameters, in any case, escaped or not
		{"https://example.com/mcp?access_token=a-SECRET", "https://example.com/mcp?access_token=<hidden>", []string{"a-SECRET"}},
		{"https://example.com/mcp?Key=k-SECRET&region=eu", "https://example.com/mcp?Key=<hidden>&region=eu", []string{"k-SECRET"}},
		{"https://example.com/?apiKey=1&secret=2&password=3&auth=4&Authorization=5&session_id=6&client_secret=7",
			"https://example.com/?apiKey=<hidden>&secret=<hidden>&password=<hidden>&auth=<hidden>&Authorization=<hidden>&session_id=<hidden>&client_secret=<hidden>",
			[]string{"1", "2", "3", "4", "5", "6", "7"}},
		{"https://blob.example/f?sv=2020&sig=s%2F-SECRET&se=2030", "https://blob.example/f?sv=2020&sig=<hidden>&se=2030", []string{"s/-SECRET"}},
		{"https://s3.example/f?X-Amz-Credential=c-SECRET&X-Amz-Signature=g-SECRET", "https://s3.example/f?X-Amz-Credential=<hidden>&X-Amz-Signature=<hidden>", []string{"c-SECRET", "g-SECRET"}},
		{"http://127.0.0.1:9/cb?code=c-SECRET&state=xyz", "http://127.0.0.1:9/cb?code=<hidden>&state=xyz", []string{"c-SECRET"}},
		{"https://example.com/?api%5Fkey=e-SECRET", "https://example.com/?api%5Fkey=<hidden>", []string{"e-SECRET"}},
		{"https://example.com/?token=&x", "https://example.com/?token=&x", nil},
		{"https://example.com/?token=${TOKEN}", "https://example.com/?token=${TOKEN}", nil},
		// both, as a catalog entry may hold them
		{"http://user:pa55@127.0.0.1:1/mcp?token=s3cret&api_key=k", "http://user:<hidden>@127.0.0.1:1/mcp?token=<hidden>&api_key=<hidden>", []string{"pa55", "s3cret", "k"}},
		// fragments written as parameters (OAuth's implicit flow)
		{"https://app.example/cb#access_token=f-SECRET&state=1", "https://app.example/cb#access_token=<hidden>&state=1", []string{"f-SECRET"}},
		{"https://example.com/doc#section-2", "https://example.com/doc#section-2", nil},
		{"https://u:p-SECRET@example.com/?token=t-SECRET#id_token=i-SECRET", "https://u:<hidden>@example.com/?token=<hidden>#id_token=<hidden>", []string{"p-SECRET", "t-SECRET", "i-SECRET"}},
		// a URL that does not parse may hold anything: hidden whole
		{"https://example.com/%zz?token=t-SECRET", "<hidden>", []string{"https://example.com/%zz?token=t-SECRET"}},
		{"http://u:pa#ss-SECRET@example.com/", "<hidden>", []string{"http://u:pa#ss-SECRET@example.com/"}},
		{"http://[::1/?token=t-SECRET", "<hidden>", []string{"http://[::1/?token=t-SECRET"}},
		{"not a url at all", "not a url at all", nil},
	} {
		if got := secret.URL(c.in); got != c.want {
			t.Errorf("URL(%s) = %s, want %s", c.in, got, c.want)
		}
		var found []string
		secret.MaskURL(c.in, &found)
		if strings.Join(found, "|") != strings.Join(c.found, "|") {
			t.Errorf("MaskURL(%s) found %q, want %q", c.in, found, c.found)
		}
	}
}

func TestURLsIn(t *testing.T) {
	for in, want := range map[string]string{
		"nothing here": "nothing here",
		`Post "http://user:***@127.0.0.1:1/mcp?token=s3cret&api_key=k": dial tcp 127.0.0.1:1: connect: connection refused`: `Post "http://user:<hidden>@127.0.0.1:1/mcp?token=<hidden>&api_key=<hidden>": dial tcp 127.0.0.1:1: connect: connection refused`,
		"see https://x.example/?key=SECRET.":                                      "see https://x.example/?key=<hidden>.",
		"(at https://x.example/?key=SECRET) and <https://ghp-SECRET@github.com/>": "(at https://x.example/?key=<hidden>) and <https://<hidden>@github.com/>",
		"two: a://h/?token=1 b://h/?token=2":                                      "two: a://h/?token=<hidden> b://h/?token=<hidden>",
		"https://example.com/mcp is fine":                                         "https://example.com/mcp is fine",
	} {
		if got := secret.URLsIn(in); got != want {
			t.Errorf("URLsIn(%q) =\n %q, want\n %q", in, got, want)
		}
	}
}

// net/http's client errors quote the request URL: URLError masks it in
// place, wherever the *url.Error sits in the chain.
func TestURLError(t *testing.T) {
	req, _ := http.NewRequestWithContext(context.Background(), "GET", "http://user:pa55@127.0.0.1:1/mcp?token=s3cret&api_key=k", nil)
	_, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Skip("something listens on port 1")
	}
	err = secret.URLError(err)
	for _, s := range []string{"pa55", "s3cret", "api_key=k"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("%q is in %v", s, err)
		}
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1/mcp") || secret.URLError(nil) != nil {
		t.Errorf("URLError(%v): the URL's place is lost, or nil is not nil", err)
	}
}

// Any text: no panic, and a URL's password or secret-named query value
// (long enough not to occur by chance elsewhere) is never in what is
// shown.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"http://u:pass@h/?token=tokn#access_token=x", "https://%zz?key=1", "a://b@c", "x?y=z&sig=1", "http://[::1]:80/?code=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		shown := secret.URL(s)
		secret.URLsIn("see " + s + " and " + s)
		base, _, _ := strings.Cut(s, "#")
		u, err := url.Parse(base)
		if err != nil {
			return
		}
		var secrets []string
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				secrets = append(secrets, pw)
			}
		}
		if q, err := url.ParseQuery(u.RawQuery); err == nil {
			for k, vs := range q {
				if secret.Name(k) {
					secrets = append(secrets, vs...)
				}
			}
		}
		for _, x := range secrets {
			if len(x) >= 4 && strings.Count(s, x) == 1 && !strings.Contains(secret.Hidden, x) && strings.Contains(shown, x) {
				t.Fatalf("URL(%q) = %q shows %q", s, shown, x)
			}
		}
	})
}
