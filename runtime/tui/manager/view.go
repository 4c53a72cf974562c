package manager

import (
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/render"
)

// Styles: the terminal's own 16 colours, so every theme keeps them
// readable. Made on first use: every luagent command links this package,
// and building them at init cost each start (serve included) 0.1 ms.
type styles struct {
	title, dim, sel, key, err, ok, head, cursor lipgloss.Style
	status                                      map[hub.Status]lipgloss.Style
}

var sty = sync.OnceValue(func() *styles {
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	return &styles{
		title: lipgloss.NewStyle().Bold(true), dim: fg("8"), sel: lipgloss.NewStyle().Bold(true),
		key: lipgloss.NewStyle().Bold(true), err: fg("1"), ok: fg("2"),
		head: lipgloss.NewStyle().Bold(true).Underline(true), cursor: lipgloss.NewStyle().Reverse(true),
		status: map[hub.Status]lipgloss.Style{hub.Ready: fg("2"), hub.Connecting: fg("3"), hub.NeedsAuth: fg("5"),
			hub.Failed: fg("1"), hub.Disabled: fg("8"), hub.Stopped: fg("8")},
	}
})

func status(st hub.Status) string {
	return sty().status[st].Render("● " + statusWord(st))
}

func truncate(s string, w int) string { return ansi.Truncate(s, max(0, w), "…") }

func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// View is tea.Model's: the whole screen, in the alternate buffer.
func (m Model) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the view's text (ANSI styled), one string of height lines.
func (m Model) Screen() string {
	var title, keys string
	var body []string
	switch m.mode {
	case modeList, modeConfirm:
		title = "MCP servers — " + counts(m.states)
		body = m.listLines()
		keys = "↑/↓ move · enter inspect · a add · r reload · i authorize · e/d enable/disable · x remove · q back"
		if m.mode == modeConfirm {
			if st, ok := m.selected(); ok {
				keys = "remove " + st.Name + " from the catalog? y = remove, n = keep"
			}
		}
	case modeInspect:
		title = "MCP server "
		if m.details != nil {
			title += m.details.Name
		} else {
			title += m.loading
		}
		lines := m.inspectLines()
		end := min(len(lines), m.offset+m.bodyHeight())
		for _, l := range lines[min(m.offset, end):end] {
			body = append(body, l.text)
		}
		if len(lines) > m.bodyHeight() {
			title += sty().dim.Render(fmt.Sprintf("  (lines %d–%d of %d)", m.offset+1, end, len(lines)))
		}
		keys = "↑/↓ select a tool (its schema opens) · pgup/pgdn scroll · esc back to the list"
	case modeAdd:
		title = "Add an MCP server"
		body = m.addLines()
		keys = "tab/↓ next field · shift+tab/↑ previous · enter next, then preview · esc cancel"
	case modePreview:
		title = "Add an MCP server — preview"
		body = m.previewLines()
		keys = "enter/y save · e edit · esc cancel"
	}
	w, h := max(20, m.width), max(5, m.height)
	out := []string{sty().title.Render(truncate(title, w)), ""}
	for _, l := range body[:min(len(body), h-4)] {
		out = append(out, truncate(l, w))
	}
	for len(out) < h-2 {
		out = append(out, "")
	}
	note := ""
	if m.note != "" {
		note = sty().ok.Render(truncate(m.note, w))
		if m.noteErr {
			note = sty().err.Render(truncate(m.note, w))
		}
	}
	out = append(out, note, sty().dim.Render(truncate(keys, w)))
	return strings.Join(out, "\n")
}

func (m Model) listLines() []string {
	if len(m.states) == 0 {
		return []string{"no MCP servers in the catalog: a adds one"}
	}
	nameW := len("NAME")
	for _, st := range m.states {
		nameW = max(nameW, lipgloss.Width(st.Name))
	}
	const statusW, transW, toolsW = 14, 11, 7
	out := []string{sty().dim.Render("  " + pad("NAME", nameW+2) + pad("STATUS", statusW) + pad("TRANSPORT", transW) + "TOOLS")}
	for i, st := range m.states {
		tr := m.transport[st.Name]
		if tr == "" {
			tr = "-"
		}
		mark, name := "  ", pad(st.Name, nameW+2)
		if i == m.cursor {
			mark, name = "› ", sty().sel.Render(name)
		}
		line := mark + name + pad(status(st.Status), statusW) + pad(tr, transW) + pad(toolCount(st), toolsW)
		if st.Err != nil && (st.Status == hub.Failed || st.Status == hub.NeedsAuth) {
			line += sty().err.Render(m.o.Redact(render.OneLine(st.Err.Error(), 300)))
		}
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}

// line is one line of the inspect view; tool is the tool it belongs to
// (-1: none), sel marks the selected tool's lines.
type line struct {
	text string
	tool int
	sel  bool
}

func (m Model) inspectLines() []line {
	d := m.details
	if d == nil {
		return []line{{text: sty().dim.Render("asking " + m.loading + " for its tools, prompts and resources…"), tool: -1}}
	}
	w := max(20, m.width)
	var out []line
	add := func(s string) { out = append(out, line{text: s, tool: -1}) }
	wrapped := func(indent, s string) {
		for _, l := range wrap(s, w-len(indent)) {
			add(indent + l)
		}
	}
	st := d.State
	head := status(st.Status) + "  " + d.Transport
	if st.Status == hub.Ready {
		head += fmt.Sprintf(" · %s era · server %s %s", st.Info.Era, st.Info.ServerInfo.Name, st.Info.ServerInfo.Version)
	}
	add(head)
	if d.Target != "" {
		label := "command  "
		if d.Transport == "http" {
			label = "url      "
		}
		add(sty().dim.Render(label) + m.o.Redact(d.Target))
	}
	if len(d.EnvKeys) > 0 {
		add(sty().dim.Render("env      ") + strings.Join(d.EnvKeys, ", ") + sty().dim.Render(" (values hidden)"))
	}
	if len(d.HeaderKeys) > 0 {
		add(sty().dim.Render("headers  ") + strings.Join(d.HeaderKeys, ", ") + sty().dim.Render(" (values hidden)"))
	}
	if st.Err != nil && st.Status != hub.Ready {
		wrapped("", sty().err.Render("error: ")+m.o.Redact(render.OneLine(st.Err.Error(), 2000)))
	}
	// A server restarted a few times says the same thing each time: a
	// line repeated shows once, with its count.
	for i := 0; i < len(st.Stderr); {
		j := i + 1
		for j < len(st.Stderr) && st.Stderr[j] == st.Stderr[i] {
			j++
		}
		l := sty().dim.Render("stderr: ") + m.o.Redact(render.OneLine(st.Stderr[i], 300))
		if j-i > 1 {
			l += sty().dim.Render(fmt.Sprintf(" (×%d)", j-i))
		}
		add(l)
		i = j
	}
	if st.Status != hub.Ready {
		add("")
		add(sty().dim.Render("not connected: its tools, prompts and resources show when it is ready"))
		return out
	}
	add("")
	add(sty().head.Render(fmt.Sprintf("Tools (%d)", len(d.Tools))))
	for i, t := range d.Tools {
		sel := i == m.tool
		mark, name := "  ", t.Name
		if sel {
			mark, name = "› ", sty().sel.Render(t.Name)
		}
		l := mark + name
		if t.Title != "" {
			l += "  " + t.Title
		}
		if len(t.Hints) > 0 {
			l += "  " + sty().dim.Render("["+strings.Join(t.Hints, ", ")+"]")
		}
		out = append(out, line{text: l, tool: i, sel: sel})
		if !sel {
			continue
		}
		for _, dl := range wrap(t.Description, w-4) {
			out = append(out, line{text: "    " + dl, tool: i, sel: true})
		}
		for _, sl := range schemaLines(t) {
			out = append(out, line{text: sl, tool: i, sel: true})
		}
	}
	if d.HasPrompts {
		add("")
		add(sty().head.Render(fmt.Sprintf("Prompts (%d)", len(d.Prompts))))
		for _, p := range d.Prompts {
			l := "  " + p.Name + "(" + strings.Join(p.ArgNames(), ", ") + ")"
			if p.Description != "" {
				l += sty().dim.Render(" — " + render.OneLine(p.Description, 200))
			}
			add(l)
			for _, a := range p.Args {
				if a.Description != "" {
					add(sty().dim.Render("      " + a.Name + ": " + render.OneLine(a.Description, 200)))
				}
			}
		}
		if d.PromptsErr != nil {
			add(sty().err.Render("  listing failed: " + m.o.Redact(render.OneLine(d.PromptsErr.Error(), 300))))
		}
	}
	if d.HasResources {
		add("")
		add(sty().head.Render(fmt.Sprintf("Resources (%d)", len(d.Resources))))
		for _, r := range d.Resources {
			l := "  " + r.URI
			if r.Name != "" {
				l += "  " + r.Name
			}
			if r.MimeType != "" {
				l += sty().dim.Render("  " + r.MimeType)
			}
			add(l)
		}
		if d.ResourcesErr != nil {
			add(sty().err.Render("  listing failed: " + m.o.Redact(render.OneLine(d.ResourcesErr.Error(), 300))))
		}
	}
	if ins := strings.TrimSpace(st.Info.Instructions); ins != "" {
		add("")
		add(sty().head.Render("Instructions"))
		for _, p := range strings.Split(ins, "\n") {
			wrapped("  ", p)
		}
	}
	return out
}

// schemaLines are a tool's input schema as a table: each property (nested
// ones indented) with its type, whether it is required, its enum or
// default and its description.
func schemaLines(t chat.ToolDetail) []string {
	if len(t.Fields) == 0 {
		return []string{sty().dim.Render("    input: no arguments")}
	}
	nameW, typeW := 0, 0
	for _, f := range t.Fields {
		nameW = max(nameW, 2*f.Depth+lipgloss.Width(f.Name))
		typeW = max(typeW, lipgloss.Width(f.Type))
	}
	out := []string{sty().dim.Render("    input schema:")}
	for _, f := range t.Fields {
		l := "      " + pad(strings.Repeat("  ", f.Depth)+f.Name, nameW+2) + pad(f.Type, typeW+2)
		if f.Required {
			l += "required"
		} else {
			l += "        "
		}
		var extra []string
		if f.Format != "" {
			extra = append(extra, "format "+f.Format)
		}
		if len(f.Enum) > 0 {
			extra = append(extra, "one of "+strings.Join(f.Enum, ", "))
		}
		if f.Default != "" {
			extra = append(extra, "default "+f.Default)
		}
		if f.Description != "" {
			extra = append(extra, render.OneLine(f.Description, 200))
		}
		if len(extra) > 0 {
			l += "  " + sty().dim.Render(strings.Join(extra, " · "))
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

func (m Model) addLines() []string {
	labelW := 0
	for _, f := range m.form.fields {
		labelW = max(labelW, len(f.label))
	}
	boxW := max(10, min(72, m.width-labelW-8))
	out := []string{"A remote server: its URL. A local one: its command and arguments.", ""}
	for i, f := range m.form.fields {
		mark := "  "
		if i == m.form.focus {
			mark = "› "
		}
		out = append(out, mark+pad(f.label, labelW+2)+"["+pad(f.render(i == m.form.focus, boxW), boxW)+"]")
		out = append(out, sty().dim.Render(strings.Repeat(" ", labelW+5)+f.hint))
	}
	if m.formErr != "" {
		out = append(out, "")
		for _, l := range wrap(m.formErr, max(20, m.width-2)) {
			out = append(out, sty().err.Render(l))
		}
	}
	return out
}

func (m Model) previewLines() []string {
	out := []string{"This entry will be saved in " + m.o.Path + " (mcpServers):", ""}
	// Every character of the entry shows: long lines continue below
	// rather than being cut.
	w := max(20, m.width) - 4
	for _, l := range strings.Split(m.preview, "\n") {
		r := []rune(l)
		for len(r) > w {
			out, r = append(out, "  "+string(r[:w])), r[w:]
		}
		out = append(out, "  "+string(r))
	}
	out = append(out, "", sty().dim.Render("after saving, the server starts; if it asks for authorization, the login starts"))
	return out
}

// wrap breaks plain text at spaces into lines of at most w cells (a
// longer word is cut).
func wrap(s string, w int) []string {
	w = max(10, w)
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		for lipgloss.Width(word) > w {
			if cur != "" {
				out, cur = append(out, cur), ""
			}
			out = append(out, ansi.Truncate(word, w, ""))
			word = ansi.TruncateLeft(word, w, "")
		}
		switch {
		case cur == "":
			cur = word
		case lipgloss.Width(cur)+1+lipgloss.Width(word) <= w:
			cur += " " + word
		default:
			out, cur = append(out, cur), word
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
