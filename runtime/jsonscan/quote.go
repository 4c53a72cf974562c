package jsonscan

import "encoding/json"

// AppendString appends s as a JSON string, exactly as json.Marshal writes
// it: control characters as \u00XX (or \n, \t, ...), <, > and & as \u003c,
// \u003e, \u0026, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd. Every
// message luagent builds by hand quotes its strings here: strconv.Quote's
// \x01 and \xd0 are not JSON, and a peer that cannot parse a line waits for
// its answer forever.
//
// Names, methods and tokens are almost always printable ASCII, appended as
// they are; anything else goes through encoding/json.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// Quote returns s as a JSON string (see AppendString).
func Quote(s string) string {
	return string(AppendString(make([]byte, 0, len(s)+2), s))
}
