package oauth

// OpenURL opens u in the desktop's browser, when there is one (see
// openURL): for hosts that ask a person's consent first, as luagent chat
// does for a server's URL elicitation.
func OpenURL(u string) error { return openURL(u) }
