// Package notify rings the terminal when a chat needs the person: an
// approval or a server's form waits, or a long turn ended. It writes BEL,
// or OSC 9 (ESC ] 9 ; text BEL: a desktop notification) on terminals
// known to show one; the chat writes the sequence through its own output.
// Whether the terminal has the focus is not known (that would need focus
// reports read from the terminal's input, which the line editor owns), so
// it rings whether or not the person looks at it.
package notify

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Modes (config.json's "notifications").
const (
	Auto = "auto"
	Bell = "bell"
	OSC9 = "osc9"
	Off  = "off"
)

// LongTurn is how long a turn runs before its end rings.
const LongTurn = 10 * time.Second

// Kinds of notice: Claude Code's notification_type values, which the
// Notification hook's matcher sees.
const (
	PermissionPrompt  = "permission_prompt"  // an approval waits
	ElicitationDialog = "elicitation_dialog" // a server's form or URL waits
	IdlePrompt        = "idle_prompt"        // a long turn ended: the prompt waits
)

// Notice is one notification: its kind and a line of text saying what
// waits.
type Notice struct {
	Type    string
	Message string
}

// maxText bounds an OSC 9 text, in characters.
const maxText = 200

// Resolve is the mode to use: mode as set (""is Auto), with Auto decided
// from the terminal's variables (getenv: TERM_PROGRAM, TERM).
func Resolve(mode string, getenv func(string) string) string {
	switch mode {
	case Bell, OSC9, Off:
		return mode
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return OSC9
	}
	if strings.Contains(getenv("TERM"), "kitty") {
		return OSC9
	}
	return Bell
}

// Sequence is what to write for n in mode (a resolved one): "\a", an OSC
// 9 sequence with n's text made safe, or "" for Off.
func Sequence(mode string, n Notice) string {
	switch mode {
	case Bell:
		return "\a"
	case OSC9:
		return "\x1b]9;" + Safe("luagent: "+n.Message) + "\a"
	}
	return ""
}

// Safe is s fit for an OSC string: control characters (C0, DEL, C1),
// bidirectional controls and bad UTF-8 dropped, spaces collapsed, at most
// maxText characters. It cannot end the sequence early or start another.
func Safe(s string) string {
	var b strings.Builder
	n, space := 0, false
	for i := 0; i < len(s) && n < maxText; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		case bidi(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
