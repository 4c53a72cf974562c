package main

import "testing"

func TestServesStdio(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"serve", "echo.lua"}, true},
		{[]string{"serve", "--sandbox", "echo.lua", "a"}, true},
		{[]string{"serve", "--http", "echo.lua"}, false},
		{[]string{"serve", "--http=:0", "echo.lua"}, false},
		{[]string{"serve", "echo.lua", "--", "--http"}, true},
		{[]string{"run", "echo.lua"}, false},
		{[]string{"ask", "serve"}, false},
	} {
		if got := servesStdio(tc.args); got != tc.want {
			t.Errorf("servesStdio(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
