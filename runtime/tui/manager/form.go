package manager

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// form is the add form: three one-line fields, one focused.
type form struct {
	fields []field
	focus  int
}

type field struct {
	label, hint string
	value       []rune
	pos         int // the cursor, in runes
}

func newForm() form {
	return form{fields: []field{
		{label: "Name", hint: "letters, digits, _ and -"},
		{label: "URL or command", hint: "https://example.com/mcp, or npx, uvx, a program"},
		{label: "Arguments", hint: "for a command; quotes keep spaces together"},
	}}
}

func (f *form) value(i int) string { return string(f.fields[i].value) }

func (f *form) insert(s string) {
	fd := &f.fields[f.focus]
	r := []rune(s)
	fd.value = append(fd.value[:fd.pos], append(r, fd.value[fd.pos:]...)...)
	fd.pos += len(r)
}

// key edits the focused field: text, cursor moves, deletions.
func (f *form) key(k tea.KeyPressMsg) {
	fd := &f.fields[f.focus]
	switch k.String() {
	case "left", "ctrl+b":
		fd.pos = max(0, fd.pos-1)
	case "right", "ctrl+f":
		fd.pos = min(len(fd.value), fd.pos+1)
	case "home", "ctrl+a":
		fd.pos = 0
	case "end", "ctrl+e":
		fd.pos = len(fd.value)
	case "backspace", "ctrl+h":
		if fd.pos > 0 {
			fd.value = append(fd.value[:fd.pos-1], fd.value[fd.pos:]...)
			fd.pos--
		}
	case "delete", "ctrl+d":
		if fd.pos < len(fd.value) {
			fd.value = append(fd.value[:fd.pos], fd.value[fd.pos+1:]...)
		}
	case "ctrl+u":
		fd.value, fd.pos = fd.value[fd.pos:], 0
	case "ctrl+k":
		fd.value = fd.value[:fd.pos]
	case "space":
		f.insert(" ")
	default:
		key := k.Key()
		if key.Text != "" && key.Mod&^tea.ModShift == 0 {
			f.insert(key.Text)
		}
	}
}

// render shows a field's value with the cursor as a reversed cell when
// focused.
func (fd field) render(focused bool, width int) string {
	v := fd.value
	if !focused {
		return truncate(string(v), width)
	}
	// Keep the cursor in view when the value is wider than the box.
	start := max(0, fd.pos-width+1)
	var b strings.Builder
	for i := start; i <= len(v) && i-start < width; i++ {
		c := " "
		if i < len(v) {
			c = string(v[i])
		}
		if i == fd.pos {
			b.WriteString(sty().cursor.Render(c))
		} else {
			b.WriteString(c)
		}
	}
	return b.String()
}
