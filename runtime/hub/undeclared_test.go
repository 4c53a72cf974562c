package hub

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/testkit"
)

// fakeServer is the scripted server (runtime/testkit/servers/fake) as an
// entry, with its flags.
func fakeServer(t testing.TB, name string, args ...string) *catalog.Server {
	return &catalog.Server{Name: name, Enabled: true, Command: testkit.Build(t, "runtime/testkit/servers/fake"), Args: args, StartupTimeout: 30 * time.Second}
}

// Tools are listed whatever the server declared, as the seed's clients do:
// a server that declares "capabilities": {} yet answers tools/list has its
// tools; one that declares nothing and answers tools/list with "method
// not found" (or not at all) is ready with none and no error. A server that declares
// tools and then has no tools/list is broken: that stays an error.
func TestToolsListedWithoutTheCapability(t *testing.T) {
	defer func(d time.Duration) { undeclaredToolsWait = d }(undeclaredToolsWait)
	undeclaredToolsWait = 300 * time.Millisecond // the silent one's wait
	for _, tc := range []struct {
		name, era, quirk string
		want             Status
		tools            bool // its echo is listed
	}{
		{"undeclared", "legacy", "no-capabilities", Ready, true},
		{"undeclared-modern", "modern", "no-capabilities", Ready, true},
		{"none", "legacy", "no-capabilities,no-tools-list", Ready, false},
		{"none-modern", "modern", "no-capabilities,no-tools-list", Ready, false},
		{"silent", "legacy", "no-capabilities,silent-tools-list", Ready, false},
		{"declared-broken", "legacy", "no-tools-list", Failed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New([]*catalog.Server{fakeServer(t, "x", "-era", tc.era, "-quirk", tc.quirk)}, Options{})
			defer h.Close()
			h.Start()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := h.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			st := byName(h.Status())["x"]
			if st.Status != tc.want {
				t.Fatalf("status %s (%v), want %s", st.Status, st.Err, tc.want)
			}
			if tc.want == Ready && st.Err != nil {
				t.Errorf("ready with an error: %v", st.Err)
			}
			if st.Info.Capabilities.Tools != nil {
				t.Errorf("the quirk did not take: tools capability %+v", st.Info.Capabilities.Tools)
			}
			tools, partial := h.Tools()
			if partial {
				t.Error("partial after Wait")
			}
			if got := slices.Contains(names(tools), "x__echo"); got != tc.tools {
				t.Errorf("tools %v, want echo listed: %v", names(tools), tc.tools)
			}
			if tc.want == Ready && !tc.tools && (len(tools) != 0 || st.Tools != 0) {
				t.Errorf("%d tools (state says %d), want none", len(tools), st.Tools)
			}
			if tc.tools {
				r, err := h.Call(ctx, "x__echo", []byte(`{"message":"hi"}`), CallOptions{})
				if err != nil || r.Text() != "hi" {
					t.Errorf("call: %v %v", r, err)
				}
			}
		})
	}
}
