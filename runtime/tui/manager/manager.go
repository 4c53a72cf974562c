// Package manager is luagent chat's full-screen /mcp manager: a Bubble
// Tea model over the catalog's servers. The list shows each server's
// status (colour and word), transport, tool count and error, updated as
// the hub reports changes (StatusMsg); Enter inspects one (tools with
// their annotations and input schemas, prompts, resources,
// instructions); a adds an entry (a form, then a preview of exactly what
// is saved); r reads the catalog file again (an edit made outside the
// session shows and applies) and restarts the selected server; i, e, d
// and x authorize, enable, disable and remove. The model is a plain value: tests drive Update with key
// messages and read View, without a terminal. What it does to servers
// and the catalog goes through a Backend (the chat session).
package manager

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/render"
)

// Backend is what the manager changes and reads: a session's servers over
// its hub and the catalog file.
type Backend interface {
	Status() []hub.State
	Catalog() []*catalog.Server
	Details(ctx context.Context, name string) (chat.Details, error)
	Restart(name string) error
	SetEnabled(ctx context.Context, name string, on bool) error
	Remove(ctx context.Context, name string) error
	Add(ctx context.Context, e *catalog.Server) error
	// Reload reads the catalog file again and has the hub match it (r).
	Reload() (chat.Reloaded, error)
}

// Options configure a Model.
type Options struct {
	Backend Backend
	// Authorize returns the command that runs a server's OAuth login (the
	// host hands the terminal to it: the URL is printed, the login
	// waits) and ends with an AuthDoneMsg. Nil: i says it cannot.
	Authorize func(name string) tea.Cmd
	// Path is the catalog file, named in the add preview.
	Path string
	// Redact hides secrets in messages shown (nil: none).
	Redact func(string) string
	// Timeout bounds each request and catalog edit (default 30s).
	Timeout time.Duration
}

// StatusMsg says the hub's statuses changed: the list reads them again.
type StatusMsg struct{}

// AuthDoneMsg ends an authorization started by Options.Authorize.
type AuthDoneMsg struct {
	Name string
	Err  error
}

type mode int

const (
	modeList mode = iota
	modeInspect
	modeAdd
	modePreview
	modeConfirm
)

// Model is the manager's state.
type Model struct {
	o             Options
	width, height int
	mode          mode
	states        []hub.State
	transport     map[string]string
	cursor        int
	note          string
	noteErr       bool

	// inspect
	details  *chat.Details
	loading  string // the server whose details are being fetched
	tool     int    // the selected tool
	offset   int    // the first body line shown
	prevMode mode

	// add
	form    form
	formErr string
	entry   *catalog.Server
	preview string
	// pendingAuth is a server just added: when it answers that it needs
	// authorization, the login starts (as i does).
	pendingAuth string
	// log is every action's outcome, for the chat to print after.
	log []string
	// pend is a note that follows its server (settle.go).
	pend *pending
}

// Log is what the actions did (and which failed), one line each, in
// order: the chat prints it when the manager closes.
func (m Model) Log() []string { return m.log }

// detailsMsg carries a server's details, fetched in the background.
type detailsMsg struct {
	name string
	d    chat.Details
	err  error
}

// doneMsg is an action's outcome, shown on the note line.
type doneMsg struct {
	note string
	err  error
	// added is the server an add saved (its login may follow).
	added string
	// name and action: the note follows name (settle.go).
	name, action string
	// reloaded is what r's reload of the file did, logged before the
	// note and shown in front of it ("" for nothing to say).
	reloaded string
}

// New returns the manager over o.Backend, on its list.
func New(o Options) Model {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	m := Model{o: o, width: 80, height: 24}
	m.refresh()
	return m
}

// Init is tea.Model's: the list is read again once the program runs, as
// a change between New and the caller's subscription to the hub would
// otherwise show only at the next one.
func (m Model) Init() tea.Cmd { return func() tea.Msg { return StatusMsg{} } }

func (m *Model) refresh() {
	m.states = shownStates(m.o.Backend.Status())
	m.transport = map[string]string{}
	for _, e := range m.o.Backend.Catalog() {
		m.transport[e.Name] = e.Transport()
	}
	m.cursor = max(0, min(m.cursor, len(m.states)-1))
}

func (m Model) selected() (hub.State, bool) {
	if m.cursor < 0 || m.cursor >= len(m.states) {
		return hub.State{}, false
	}
	return m.states[m.cursor], true
}

func (m *Model) say(note string) { m.note, m.noteErr = m.o.Redact(note), false }

// fail shows an action's error and logs it; refuse only shows why a key
// did nothing.
func (m *Model) fail(err error) {
	m.refuse(err)
	m.log = append(m.log, m.note)
}
func (m *Model) refuse(err error) { m.note, m.noteErr = m.o.Redact(errLine(err)), true }

// done shows an action's outcome and logs it.
func (m *Model) done(note string) {
	m.say(note)
	m.log = append(m.log, m.note)
}

func errLine(err error) string {
	return fmt.Sprint(errs.KindOf(err)) + ": " + render.OneLine(err.Error(), 400)
}

// Update is tea.Model's.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case StatusMsg:
		m.refresh()
		m.settle()
		var cmds []tea.Cmd
		if m.pendingAuth != "" {
			for _, st := range m.states {
				if st.Name != m.pendingAuth {
					continue
				}
				switch st.Status {
				case hub.NeedsAuth:
					name := m.pendingAuth
					m.pendingAuth = ""
					m.say(name + " needs authorization: starting the login")
					cmds = append(cmds, m.authorize(name))
				case hub.Ready, hub.Failed, hub.Disabled, hub.Stopped:
					m.pendingAuth = ""
				}
			}
		}
		// The inspected server changed status: its details change too.
		if m.mode == modeInspect && m.details != nil && m.loading == "" {
			for _, st := range m.states {
				if st.Name == m.details.Name && st.Status != m.details.State.Status {
					cmds = append(cmds, m.fetch(st.Name))
				}
			}
		}
		return m, tea.Batch(cmds...)
	case detailsMsg:
		if m.mode != modeInspect || msg.name != m.loading {
			return m, nil
		}
		m.loading = ""
		if msg.err != nil {
			m.refuse(msg.err)
			m.mode = modeList
			return m, nil
		}
		keep := m.details != nil && m.details.Name == msg.name
		d := shownDetails(msg.d)
		m.details = &d
		if !keep {
			m.tool, m.offset = 0, 0
		}
		m.tool = max(0, min(m.tool, len(msg.d.Tools)-1))
		return m, nil
	case doneMsg:
		m.refresh()
		if msg.reloaded != "" {
			m.log = append(m.log, m.o.Redact(msg.reloaded))
		}
		if msg.err != nil {
			m.fail(msg.err)
			return m, nil
		}
		m.done(msg.note)
		prefix := ""
		if msg.reloaded != "" {
			prefix = m.o.Redact(msg.reloaded) + " · "
			m.note = prefix + m.note
		}
		if msg.added != "" {
			m.pendingAuth = msg.added
			for i, st := range m.states {
				if st.Name == msg.added {
					m.cursor = i
				}
			}
		}
		m.track(msg.name, msg.action, prefix)
		return m, nil
	case AuthDoneMsg:
		m.refresh()
		if msg.Err != nil {
			m.fail(msg.Err)
		} else {
			m.done(msg.Name + ": authorized, restarting")
			m.track(msg.Name, "authorized", "")
		}
		return m, nil
	case tea.PasteMsg:
		if m.mode == modeAdd {
			m.form.insert(strings.Join(strings.Fields(msg.Content), " "))
		}
		return m, nil
	case tea.KeyPressMsg:
		switch m.mode {
		case modeList:
			return m.listKey(msg)
		case modeInspect:
			return m.inspectKey(msg)
		case modeAdd:
			return m.addKey(msg)
		case modePreview:
			return m.previewKey(msg)
		case modeConfirm:
			return m.confirmKey(msg)
		}
	}
	return m, nil
}

func (m Model) listKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	st, ok := m.selected()
	switch k.String() {
	case "q", "esc", "ctrl+c":
		return m, tea.Quit
	case "up", "k":
		m.cursor = max(0, m.cursor-1)
	case "down", "j":
		m.cursor = max(0, min(len(m.states)-1, m.cursor+1))
	case "home", "g":
		m.cursor = 0
	case "end", "G":
		m.cursor = max(0, len(m.states)-1)
	case "a":
		m.mode, m.form, m.formErr, m.note = modeAdd, newForm(), "", ""
	case "enter":
		if ok {
			m.mode, m.details, m.note = modeInspect, nil, ""
			return m, m.fetch(st.Name)
		}
	case "r":
		name := ""
		if ok {
			name = st.Name
		}
		return m, m.reload(name, ok && st.Status == hub.Disabled)
	case "i":
		if ok {
			if m.transport[st.Name] != "http" {
				m.refuse(errs.Errorf(errs.Invalid, "chat", "%s is a stdio server: only HTTP servers authorize with OAuth", st.Name))
				return m, nil
			}
			m.say("authorizing " + st.Name + "…")
			return m, m.authorize(st.Name)
		}
	case "e", "d":
		if ok && (st.Status == hub.Disabled) != (k.String() == "e") {
			word := map[bool]string{true: "enabled", false: "disabled"}[k.String() == "e"]
			m.refuse(errs.Errorf(errs.Invalid, "chat", "%s is already %s", st.Name, word))
			return m, nil
		}
		if ok {
			name, on := st.Name, k.String() == "e"
			return m, m.doFollow(name, map[bool]string{true: "enabled (saved)"}[on], func(ctx context.Context) (string, error) {
				if on {
					return name + ": enabled (saved), starting", m.o.Backend.SetEnabled(ctx, name, true)
				}
				return name + ": disabled (saved), stopped", m.o.Backend.SetEnabled(ctx, name, false)
			})
		}
	case "x":
		if ok {
			m.mode, m.note = modeConfirm, ""
		}
	}
	return m, nil
}

// reload is r: the catalog file read again as it is on disk (an edit
// made outside the session too: new servers start, removed ones stop,
// changed ones restart), then the selected server (name, "" for none)
// restarted, unless the reload just did, or it is disabled. A file that
// does not load is its error, and nothing restarts.
func (m Model) reload(name string, disabled bool) tea.Cmd {
	b := m.o.Backend
	return func() tea.Msg {
		r, err := b.Reload()
		if err != nil {
			return doneMsg{err: err}
		}
		changed := len(r.Added)+len(r.Removed)+len(r.Changed) > 0
		msg := doneMsg{note: r.String()}
		switch {
		case name == "" || r.Touched(name):
		case disabled:
			msg.note += "; " + name + " is disabled: e enables it (and starts it)"
		default:
			if err := b.Restart(name); err != nil {
				return doneMsg{err: err, reloaded: r.String()}
			}
			msg.note = name + ": restarting (the conversation goes on)"
			msg.name, msg.action = name, "restarted"
			if changed {
				msg.reloaded = r.String()
			}
		}
		return msg
	}
}

func (m Model) authorize(name string) tea.Cmd {
	if m.o.Authorize == nil {
		return func() tea.Msg {
			return AuthDoneMsg{Name: name, Err: errs.New(errs.Invalid, "chat", "this session cannot run a login: use luagent mcp login "+name)}
		}
	}
	return m.o.Authorize(name)
}

// do runs an action in the background; its note or error comes back as
// a doneMsg.
func (m Model) do(fn func(ctx context.Context) (string, error)) tea.Cmd {
	timeout := m.o.Timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		note, err := fn(ctx)
		return doneMsg{note: note, err: err}
	}
}

func (m *Model) fetch(name string) tea.Cmd {
	m.loading = name
	b, timeout := m.o.Backend, m.o.Timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		d, err := b.Details(ctx, name)
		return detailsMsg{name: name, d: d, err: err}
	}
}

func (m Model) confirmKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	st, ok := m.selected()
	m.mode = modeList
	if k.String() != "y" || !ok {
		m.say("nothing removed")
		return m, nil
	}
	name := st.Name
	return m, m.do(func(ctx context.Context) (string, error) {
		return name + ": removed from the catalog (saved), stopped", m.o.Backend.Remove(ctx, name)
	})
}

func (m Model) inspectKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	page := max(1, m.bodyHeight()-1)
	n := 0
	if m.details != nil {
		n = len(m.details.Tools)
	}
	switch k.String() {
	case "q", "esc", "left", "backspace", "ctrl+c":
		m.mode, m.details, m.loading = modeList, nil, ""
		return m, nil
	case "up", "k":
		if n > 0 {
			m.tool = max(0, m.tool-1)
			m.follow()
		} else {
			m.offset--
		}
	case "down", "j":
		if n > 0 {
			m.tool = min(n-1, m.tool+1)
			m.follow()
		} else {
			m.offset++
		}
	case "pgdown", "space", "f", "ctrl+d":
		m.offset += page
	case "pgup", "b", "ctrl+u":
		m.offset -= page
	case "home", "g":
		m.offset, m.tool = 0, 0
	case "end", "G":
		m.offset = 1 << 30
		m.tool = max(0, n-1)
	}
	m.offset = max(0, min(m.offset, len(m.inspectLines())-m.bodyHeight()))
	return m, nil
}

// follow scrolls so that the selected tool and its schema are in view.
func (m *Model) follow() {
	lines := m.inspectLines()
	first, last := -1, -1
	for i, l := range lines {
		if l.tool == m.tool && l.sel {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return
	}
	h := m.bodyHeight()
	if last >= m.offset+h {
		m.offset = last - h + 1
	}
	if first < m.offset || last-first >= h {
		m.offset = first
	}
}

func (m Model) addKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc", "ctrl+c":
		m.mode = modeList
		m.say("nothing added")
		return m, nil
	case "tab", "down":
		m.form.focus = (m.form.focus + 1) % len(m.form.fields)
	case "shift+tab", "up":
		m.form.focus = (m.form.focus + len(m.form.fields) - 1) % len(m.form.fields)
	case "enter":
		if m.form.focus < len(m.form.fields)-1 {
			m.form.focus++
			return m, nil
		}
		e, err := chat.NewEntry(m.form.value(0), m.form.value(1), m.form.value(2))
		if err == nil {
			for _, st := range m.states {
				if e.Name == st.Name {
					err = errs.Errorf(errs.Invalid, "chat", "a server named %s is already in the catalog: pick another name", e.Name)
				}
			}
		}
		var p string
		if err == nil {
			p, err = chat.Preview(e)
		}
		if err != nil {
			m.formErr = m.o.Redact(errLine(err))
			return m, nil
		}
		m.mode, m.entry, m.preview, m.formErr = modePreview, e, p, ""
	default:
		m.form.key(k)
	}
	m.formErr = ""
	return m, nil
}

func (m Model) previewKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "y", "enter":
		e := m.entry
		m.mode = modeList
		m.say("saving " + e.Name + "…")
		timeout := m.o.Timeout
		return m, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := m.o.Backend.Add(ctx, e); err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{note: e.Name + ": added (saved), connecting", added: e.Name, name: e.Name, action: "added (saved)"}
		}
	case "e", "backspace":
		m.mode = modeAdd
	case "esc", "n", "ctrl+c":
		m.mode = modeList
		m.say("nothing added")
	}
	return m, nil
}

func (m Model) bodyHeight() int { return max(1, m.height-4) }

// Counts sums the statuses up for the title ("2/3 ready, 1 failed").
func counts(states []hub.State) string {
	if len(states) == 0 {
		return "no servers"
	}
	return chat.StatusLine(states)
}

// statusWord is a status as shown: "needs auth".
func statusWord(st hub.Status) string { return chat.StatusWord(st) }

func toolCount(st hub.State) string {
	if st.Status != hub.Ready {
		return "-"
	}
	return fmt.Sprint(st.Tools)
}
