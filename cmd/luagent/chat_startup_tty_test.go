package main

import (
	"os"
	"strings"
	"testing"
)

// On a terminal the servers' status line is one line that keeps count:
// each change redraws it in place while nothing was printed after it.
func TestTTYChatStatusLineInPlace(t *testing.T) {
	home, gate, _ := chatHome(t)
	tt := &mgrTTY{tty: startTTY(t, home, "chat"), vt: newVT(120, 40)}
	tt.wait(0, "[1/2 servers ready, 1 connecting]")
	tt.waitScreen("[1/2 servers ready, 1 connecting]", "> ")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := tt.waitScreen("[2/2 servers ready]")
	if n := strings.Count(s, "servers ready"); n != 1 {
		t.Errorf("the screen shows %d status lines, want 1:\n%s", n, s)
	}
	// After a line was typed, a change is a new line below it.
	tt.send("hello\r")
	tt.waitScreen("The tool returned: ")
	tt.send("\x04")
	tt.exited()
}
