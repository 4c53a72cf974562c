package oauth_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/luagent/luagent/runtime/oauth"
)

// The integration: on a 401 (or a 403 insufficient_scope) parse the
// challenge and authorize; on a 401 with a refresh token, refresh first.
func Example() {
	flow, err := oauth.New(oauth.Config{
		ServerURL: "https://mcp.example.com/mcp",
		Scopes:    []string{"files:read"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var cred *oauth.Credential // loaded from runtime/oauth/store
	refused := func(ctx context.Context, resp *http.Response) error {
		ch := oauth.ParseChallenge(resp.Header.Get("WWW-Authenticate"))
		var next *oauth.Credential
		var err error
		switch {
		case resp.StatusCode == http.StatusForbidden && !ch.InsufficientScope():
			return nil // refused for good
		case resp.StatusCode == http.StatusUnauthorized && cred != nil && cred.RefreshToken != "":
			next, err = flow.Refresh(ctx, cred)
		default: // 401 without a refresh token, or a step-up (bound it: oauth.MaxStepUps)
			next, err = flow.Authorize(ctx, ch, cred)
		}
		if err != nil {
			return err // kind auth; one line saying what to do
		}
		cred = next // save it, then send the request again with cred.AccessToken
		return nil
	}
	_ = refused
	fmt.Println(oauth.ParseChallenge(`Bearer error="insufficient_scope", scope="files:write"`).Scopes())
	// Output: [files:write]
}
