package manager

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/mcp"
)

// fakeBackend records what the manager asked and answers from fields.
type fakeBackend struct {
	mu      sync.Mutex
	states  []hub.State
	entries []*catalog.Server
	details map[string]chat.Details
	calls   []string
	added   *catalog.Server
	err     error // every action's answer
	// reloaded and reloadErr are Reload's answer; onReload runs first (a
	// file edited outside: the states and entries change).
	reloaded  chat.Reloaded
	reloadErr error
	onReload  func()
	// instant: a restart, an enable or a login leaves the status as it
	// was (a server that got there before the note came); else it is
	// connecting, as the hub's is.
	instant bool
}

func (b *fakeBackend) Status() []hub.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]hub.State(nil), b.states...)
}
func (b *fakeBackend) Catalog() []*catalog.Server { return b.entries }
func (b *fakeBackend) Details(_ context.Context, name string) (chat.Details, error) {
	d, ok := b.details[name]
	if !ok {
		return d, errs.Errorf(errs.NotFound, "chat", "no server %q", name)
	}
	return d, nil
}
func (b *fakeBackend) record(s string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, s)
	return b.err
}
func (b *fakeBackend) Restart(name string) error {
	b.starting(name)
	return b.record("restart " + name)
}
func (b *fakeBackend) starting(name string) {
	if !b.instant && b.err == nil {
		b.set(name, hub.Connecting)
	}
}
func (b *fakeBackend) SetEnabled(_ context.Context, name string, on bool) error {
	if on {
		b.starting(name)
		return b.record("enable " + name)
	}
	return b.record("disable " + name)
}
func (b *fakeBackend) Remove(_ context.Context, name string) error { return b.record("remove " + name) }
func (b *fakeBackend) Add(_ context.Context, e *catalog.Server) error {
	b.added = e
	return b.record("add " + e.Name)
}

func (b *fakeBackend) Reload() (chat.Reloaded, error) {
	if b.reloadErr != nil {
		b.record("reload")
		return chat.Reloaded{}, b.reloadErr
	}
	if b.onReload != nil {
		b.onReload()
	}
	return b.reloaded, b.record("reload")
}

func (b *fakeBackend) set(name string, st hub.Status) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.states {
		if b.states[i].Name == name {
			b.states[i].Status = st
			return
		}
	}
	b.states = append(b.states, hub.State{Name: name, Status: st})
}

func newBackend() *fakeBackend {
	schema := json.RawMessage(`{"type":"object","properties":{
		"message":{"type":"string","description":"what to echo"},
		"opts":{"type":"object","properties":{"loud":{"type":"boolean","default":false}}},
		"mode":{"type":"string","enum":["a","b"]}},"required":["message"]}`)
	return &fakeBackend{
		states: []hub.State{
			{Name: "srv", Status: hub.Ready, Tools: 2, Info: mcp.Info{Era: mcp.EraModern, ServerInfo: mcp.Implementation{Name: "srv", Version: "1.0.0"}}},
			{Name: "web", Status: hub.Failed, Err: errs.New(errs.Process, "hub", "connection refused\nat line two")},
			{Name: "off", Status: hub.Disabled},
		},
		entries: []*catalog.Server{
			{Name: "srv", Command: "luagent", Args: []string{"serve", "srv.lua"}, Env: map[string]catalog.EnvValue{"TOKEN": {Value: "tok-SECRET"}}},
			{Name: "web", URL: "https://example.com/mcp"},
			{Name: "off", Command: "x"},
		},
		details: map[string]chat.Details{"srv": {
			Name: "srv", Transport: "stdio", Target: "luagent serve srv.lua", EnvKeys: []string{"TOKEN"},
			State: hub.State{Name: "srv", Status: hub.Ready, Info: mcp.Info{Era: mcp.EraModern, Instructions: "Use echo.",
				ServerInfo: mcp.Implementation{Name: "srv", Version: "1.0.0"}}},
			Tools: []chat.ToolDetail{
				{Name: "echo", Title: "Echo", Description: "Echo a message", Hints: []string{"read-only"}, Fields: chat.SchemaFields(schema)},
				{Name: "write", Description: "Write a note", Fields: chat.SchemaFields(json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`))},
			},
			HasPrompts: true, Prompts: []chat.PromptDetail{{Name: "greet", Args: []chat.PromptArg{{Name: "who", Required: true}, {Name: "tone"}}}},
			HasResources: true, Resources: []chat.ResourceDetail{{URI: "file:///a.txt", Name: "a", MimeType: "text/plain"}},
		}},
	}
}

// driver runs a model as a program would: keys in, commands run and
// their messages fed back.
type driver struct {
	t    *testing.T
	m    Model
	quit bool
	auth []string
}

func newDriver(t *testing.T, b *fakeBackend) *driver {
	d := &driver{t: t}
	d.m = New(Options{Backend: b, Path: "/home/u/.luagent/config.json", Authorize: func(name string) tea.Cmd {
		d.auth = append(d.auth, name)
		b.starting(name)
		return func() tea.Msg { return AuthDoneMsg{Name: name} }
	}})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 40})
	return d
}

func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	m, cmd := d.m.Update(msg)
	d.m = m.(Model)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		d.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case nil:
	default:
		d.send(msg)
	}
}

var named = map[string]tea.Key{
	"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
	"tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift}, "backspace": {Code: tea.KeyBackspace},
	"space": {Code: tea.KeySpace, Text: " "}, "pgdown": {Code: tea.KeyPgDown}, "ctrl+c": {Code: 'c', Mod: tea.ModCtrl},
}

// keys presses each key: a name of named, else each rune typed.
func (d *driver) keys(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		if key, ok := named[k]; ok {
			d.send(tea.KeyPressMsg(key))
			continue
		}
		for _, r := range k {
			d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
}

func (d *driver) screen() string { return ansi.Strip(d.m.Screen()) }

func (d *driver) shows(want ...string) {
	d.t.Helper()
	s := d.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			d.t.Errorf("the screen lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, "SECRET") {
		d.t.Errorf("the screen shows an env value:\n%s", s)
	}
}

func (d *driver) lacks(not ...string) {
	d.t.Helper()
	s := d.screen()
	for _, w := range not {
		if strings.Contains(s, w) {
			d.t.Errorf("the screen shows %q:\n%s", w, s)
		}
	}
}

// row is the list's line for a server, its columns' spacing folded.
func (d *driver) row(name string) string {
	for _, l := range strings.Split(d.screen(), "\n") {
		if f := strings.Fields(strings.TrimPrefix(l, "›")); len(f) > 0 && f[0] == name {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

func (d *driver) rows(want map[string]string) {
	d.t.Helper()
	for name, w := range want {
		if got := d.row(name); got != w {
			d.t.Errorf("the row of %s is %q, want %q:\n%s", name, got, w, d.screen())
		}
	}
}

func TestListShowsEveryServer(t *testing.T) {
	d := newDriver(t, newBackend())
	d.shows("MCP servers — 1/2 servers ready, 1 failed", "enter inspect · a add · r reload")
	d.rows(map[string]string{"NAME": "NAME STATUS TRANSPORT TOOLS",
		"srv": "› srv ● ready stdio 2",
		"web": "web ● failed http - hub: connection refused at line two",
		"off": "off ● disabled stdio -"})
	if lines := strings.Split(d.m.Screen(), "\n"); len(lines) != 40 {
		t.Errorf("the screen has %d lines, want the terminal's 40", len(lines))
	}
	// Colour: ready is green, failed red (the terminal's palette).
	if s := d.m.Screen(); !strings.Contains(s, "\x1b[32m● ready") || !strings.Contains(s, "\x1b[31m● failed") {
		t.Errorf("statuses are not coloured:\n%q", s)
	}
}

func TestListFollowsTheHub(t *testing.T) {
	b := newBackend()
	d := newDriver(t, b)
	b.set("srv", hub.Connecting)
	d.rows(map[string]string{"srv": "› srv ● ready stdio 2"}) // not read until the hub says so
	d.send(StatusMsg{})
	d.rows(map[string]string{"srv": "› srv ● connecting stdio -"})
	d.shows("0/2 servers ready, 1 connecting, 1 failed")
	b.set("srv", hub.Ready)
	d.send(StatusMsg{})
	d.rows(map[string]string{"srv": "› srv ● ready stdio 2"})
}

func TestListKeys(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		call string // what the backend was asked ("" nothing)
		note string
	}{
		{[]string{"r"}, "reload;restart srv", "srv: restarting (the conversation goes on)"},
		{[]string{"j", "r"}, "reload;restart web", "web: restarting"},
		{[]string{"down", "down", "e"}, "enable off", "off: enabled (saved), starting"},
		{[]string{"down", "down", "k", "up", "d"}, "disable srv", "srv: disabled (saved), stopped"},
		{[]string{"x", "y"}, "remove srv", "srv: removed from the catalog (saved), stopped"},
		{[]string{"x", "n"}, "", "nothing removed"},
		{[]string{"x", "esc"}, "", "nothing removed"},
		{[]string{"i"}, "", "invalid: chat: srv is a stdio server: only HTTP servers authorize with OAuth"},
		{[]string{"e"}, "", "invalid: chat: srv is already enabled"},
		{[]string{"G", "d"}, "", "invalid: chat: off is already disabled"},
		{[]string{"G", "r"}, "reload", "config.json re-read: no change; off is disabled: e enables it (and starts it)"},
	} {
		b := newBackend()
		d := newDriver(t, b)
		d.keys(tc.keys...)
		got := strings.Join(b.calls, ";")
		if got != tc.call {
			t.Errorf("%v: the backend was asked %q, want %q", tc.keys, got, tc.call)
		}
		d.shows(tc.note)
		if log := strings.Join(d.m.Log(), ";"); (tc.call != "") != strings.Contains(log, tc.note) {
			t.Errorf("%v: the log is %q", tc.keys, log)
		}
		if d.quit {
			t.Errorf("%v quit the manager", tc.keys)
		}
	}
}

func TestActionErrorsShow(t *testing.T) {
	b := newBackend()
	b.err = errs.New(errs.Invalid, "catalog", "config.json: broken tok-SECRET")
	d := newDriver(t, b)
	d.m.o.Redact = func(s string) string { return strings.ReplaceAll(s, "tok-SECRET", "***") }
	d.keys("d")
	d.shows("invalid: catalog: config.json: broken ***")
}

func TestConfirmRemoveNamesTheServer(t *testing.T) {
	d := newDriver(t, newBackend())
	d.keys("j", "x")
	d.shows("remove web from the catalog? y = remove, n = keep")
}

func TestAuthorize(t *testing.T) {
	d := newDriver(t, newBackend())
	d.keys("j", "i")
	if strings.Join(d.auth, ",") != "web" {
		t.Errorf("authorize ran for %q, want web", d.auth)
	}
	d.shows("web: authorized, restarting")
	d.m.o.Authorize = func(name string) tea.Cmd {
		return func() tea.Msg {
			return AuthDoneMsg{Name: name, Err: errs.New(errs.Auth, "oauth", "the login was refused")}
		}
	}
	d.keys("i")
	d.shows("auth: oauth: the login was refused")
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "esc", "ctrl+c"} {
		d := newDriver(t, newBackend())
		d.keys(k)
		if !d.quit {
			t.Errorf("%s did not leave the manager", k)
		}
	}
}

func TestInspect(t *testing.T) {
	d := newDriver(t, newBackend())
	d.keys("enter")
	d.shows("MCP server srv", "● ready  stdio · modern era · server srv 1.0.0",
		"command  luagent serve srv.lua", "env      TOKEN (values hidden)",
		"Instructions", "Use echo.",
		"Tools (2)", "› echo  Echo  [read-only]", "Echo a message", "input schema:",
		"message  string   required  what to echo",
		"opts     object\n",
		"  loud   boolean            default false",
		`mode     string             one of "a", "b"`,
		"  write",
		"Prompts (1)", "greet(who*, tone)",
		"Resources (1)", "file:///a.txt  a  text/plain")
	d.lacks("Write a note", "text  string") // only the selected tool opens
	d.keys("down")
	d.shows("› write", "Write a note", "text  string")
	d.lacks("what to echo")
	d.keys("esc")
	d.shows("NAME", "› srv")
	if d.quit {
		t.Error("esc in the inspect view left the manager")
	}
	// A server not connected says so, with its error.
	d.keys("j", "enter")
	d.shows(`not_found: chat: no server "web"`) // web has no details in the fake: the error shows, back on the list
	d.shows("NAME")
}

func TestInspectScrolls(t *testing.T) {
	b := newBackend()
	d0 := b.details["srv"]
	for i := 0; i < 60; i++ {
		d0.Resources = append(d0.Resources, chat.ResourceDetail{URI: fmt.Sprintf("file:///r%02d.txt", i)})
	}
	b.details["srv"] = d0
	d := newDriver(t, b)
	d.keys("enter")
	d.shows("(lines 1–36 of ")
	d.lacks("file:///r55.txt")
	d.keys("pgdown", "pgdown")
	d.shows("file:///r55.txt")
	d.lacks("Tools (2)")
	d.keys("up") // selecting a tool brings it back into view
	d.shows("› echo")
}

func TestAdd(t *testing.T) {
	b := newBackend()
	d := newDriver(t, b)
	d.keys("a")
	d.shows("Add an MCP server", "› Name", "URL or command", "Arguments")
	d.keys("files", "tab", "npx", "tab", "-y", "space", "@modelcontextprotocol/server-filesystem", "space", "'my dir'", "enter")
	d.shows("This entry will be saved in /home/u/.luagent/config.json (mcpServers):",
		`  "files": {`,
		`    "command": "npx",`,
		`    "args": ["-y", "@modelcontextprotocol/server-filesystem", "my dir"],`,
		`    "enabled": true`,
		"enter/y save · e edit · esc cancel")
	d.keys("e")
	d.shows("› Arguments")
	d.keys("enter", "y")
	if b.added == nil || b.added.Command != "npx" || len(b.added.Args) != 3 || b.added.Args[2] != "my dir" {
		t.Fatalf("added %+v", b.added)
	}
	d.shows("files: added (saved), connecting")
	// It answers that it needs authorization: the login starts by itself.
	b.set("files", hub.Connecting)
	d.send(StatusMsg{})
	if len(d.auth) != 0 {
		t.Fatalf("authorize ran while connecting: %q", d.auth)
	}
	b.set("files", hub.NeedsAuth)
	d.send(StatusMsg{})
	if strings.Join(d.auth, ",") != "files" {
		t.Errorf("authorize ran for %q, want files", d.auth)
	}
	d.send(StatusMsg{})
	if len(d.auth) != 1 {
		t.Errorf("authorize ran again: %q", d.auth)
	}
}

func TestAddRefusesBeforeThePreview(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"enter", "enter", "enter"}, "the server needs a name"},
		{[]string{"bad name", "tab", "x", "enter", "enter"}, "the name must be 1 to 64 letters"},
		{[]string{"srv", "tab", "x", "enter", "enter"}, "a server named srv is already in the catalog"},
		{[]string{"r", "tab", "https://example.com/mcp", "tab", "extra", "enter"}, "a remote server takes no arguments"},
		{[]string{"r", "tab", "ftp://x", "enter", "enter"}, ""}, // a command named ftp://x is the catalog's to refuse or not
		{[]string{"r", "tab", "x", "tab", `"open`, "enter"}, "end inside a quote"},
	} {
		b := newBackend()
		d := newDriver(t, b)
		d.keys("a")
		d.keys(tc.keys...)
		if tc.want == "" {
			continue
		}
		d.shows(tc.want, "Add an MCP server")
		d.lacks("will be saved")
		if b.added != nil {
			t.Errorf("%v saved %+v", tc.keys, b.added)
		}
	}
	d := newDriver(t, newBackend())
	d.keys("a", "esc")
	d.shows("nothing added", "NAME")
}

func TestFormEditing(t *testing.T) {
	d := newDriver(t, newBackend())
	d.keys("a", "fils")
	d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	d.keys("e")
	d.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	d.keys("backspace", "s")
	d.send(tea.PasteMsg{Content: "-x\n"})
	if got := d.m.form.value(0); got != "files-x" {
		t.Errorf("the name field holds %q, want files-x", got)
	}
}

// A preview shows every character of the entry: long lines continue on
// the next rather than being cut.
func TestPreviewWrapsLongLines(t *testing.T) {
	d := newDriver(t, newBackend())
	d.send(tea.WindowSizeMsg{Width: 40, Height: 30})
	long := "/opt/servers/a-rather-long-folder-name/and-a-longer-one/server.js"
	d.keys("a", "long", "tab", "node", "tab", long, "enter")
	joined := strings.ReplaceAll(d.screen(), "\n  ", "")
	if !strings.Contains(joined, `"args": ["`+long+`"],`) {
		t.Errorf("the preview cuts the entry:\n%s", d.screen())
	}
}

func TestInspectAServerNotConnected(t *testing.T) {
	b := newBackend()
	b.details["web"] = chat.Details{Name: "web", Transport: "http", Target: "https://example.com/mcp", HeaderKeys: []string{"Authorization"},
		State: hub.State{Name: "web", Status: hub.Failed, Err: errs.New(errs.Process, "hub", "exited with status 3"),
			Stderr: []string{"fatal: no config", "fatal: no config", "fatal: no config", "bye"}}}
	d := newDriver(t, b)
	d.keys("j", "enter")
	d.shows("● failed  http", "url      https://example.com/mcp", "headers  Authorization (values hidden)",
		"error: hub: exited with status 3", "stderr: fatal: no config (×3)\nstderr: bye",
		"not connected: its tools, prompts and resources show when it is ready")
}

// A change between New and the program's start (before the caller has
// subscribed to the hub) shows at once: Init reads the list again.
func TestInitReadsTheListAgain(t *testing.T) {
	b := newBackend()
	d := newDriver(t, b)
	b.set("srv", hub.Connecting)
	d.run(d.m.Init())
	d.rows(map[string]string{"srv": "› srv ● connecting stdio -"})
}

// What a server says reaches the screen with its control characters
// visible: its name and version, instructions, tool names, titles,
// descriptions and schema words, prompts, resources, stderr and errors.
// (d.screen() strips escapes: the raw screen is checked.)
func TestInspectShowsControls(t *testing.T) {
	const h = "Z\x1b]0;pwned\x07\u009b2J\u202e"
	b := newBackend()
	b.states = append(b.states, hub.State{Name: "evil", Status: hub.Failed, Err: errs.New(errs.Process, "hub", "died"+h),
		Stderr: []string{"stderr" + h}})
	d0 := b.details["srv"]
	d0.State.Info.ServerInfo.Name, d0.State.Info.Instructions = "srv"+h, "Use echo."+h+"\nsecond"
	d0.Tools = []chat.ToolDetail{{Name: "echo" + h, Title: "title" + h, Description: "description" + h,
		Fields: chat.SchemaFields(json.RawMessage(`{"type":"object","properties":{"m\u202e":{"type":"string","description":"field\u009b","enum":["a\u202e"]}}}`))}}
	d0.Prompts = []chat.PromptDetail{{Name: "p" + h, Description: "prompt" + h, Args: []chat.PromptArg{{Name: "a" + h, Description: "arg" + h}}}}
	d0.Resources = []chat.ResourceDetail{{URI: "file:///x" + h, Name: "res" + h, MimeType: "text/" + h}}
	b.details["srv"] = d0
	b.details["evil"] = chat.Details{Name: "evil", Transport: "stdio", State: b.states[len(b.states)-1]}
	d := newDriver(t, b)
	raw := d.m.Screen()
	d.keys("enter")
	raw += d.m.Screen()
	d.keys("esc", "j", "j", "j", "enter")
	raw += d.m.Screen()
	for _, c := range []string{"Z\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(raw, c) {
			t.Errorf("the screen holds the server's %q raw:\n%q", c, raw)
		}
	}
	for _, w := range []string{`srv`, `Use echo.Z\x1b]0;pwned\x07\u009b2J\u202e`, `echoZ\x1b]0;pwned`, `descriptionZ\x1b`, `m\u202e`,
		`field\u009b`, `pZ\x1b]0;pwned`, `file:///xZ\x1b`, `stderrZ\x1b]0;pwned`, `diedZ\x1b]0;pwned`} {
		if !strings.Contains(ansi.Strip(raw), w) {
			t.Errorf("the screen lacks %q:\n%s", w, ansi.Strip(raw))
		}
	}
}

// r reads config.json again: a server added outside the session shows
// (and starts), the selected one restarts; a file broken since is its
// error on the note line, and nothing restarts.
func TestReloadShowsAnOutsideEdit(t *testing.T) {
	b := newBackend()
	b.reloaded = chat.Reloaded{Added: []string{"new"}}
	b.onReload = func() {
		b.entries = append(b.entries, &catalog.Server{Name: "new", URL: "https://example.com/new"})
		b.set("new", hub.Connecting)
	}
	d := newDriver(t, b)
	d.keys("r")
	if got := strings.Join(b.calls, ";"); got != "reload;restart srv" {
		t.Errorf("the backend was asked %q", got)
	}
	d.rows(map[string]string{"new": "new ● connecting http -"})
	d.shows("config.json re-read: added new · srv: restarting")
	b.set("srv", hub.Ready)
	b.set("new", hub.Ready)
	d.send(StatusMsg{})
	d.shows("config.json re-read: added new · srv: restarted, ready (2 tools)")
	d.rows(map[string]string{"new": "new ● ready http 0"})
	if got, want := d.m.Log(), []string{"config.json re-read: added new", "srv: restarted, ready (2 tools)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the log is %q, want %q", got, want)
	}

	// The selected server changed in the file: the reload restarted it.
	b = newBackend()
	b.reloaded = chat.Reloaded{Changed: []string{"srv"}}
	d = newDriver(t, b)
	d.keys("r")
	if got := strings.Join(b.calls, ";"); got != "reload" {
		t.Errorf("the backend was asked %q, want only the reload", got)
	}
	d.shows("config.json re-read: changed srv (restarting)")

	// Broken: its one line, no restart.
	b = newBackend()
	b.reloadErr = errs.New(errs.Invalid, "catalog", "/home/u/.luagent/config.json: invalid JSON at line 3")
	d = newDriver(t, b)
	d.keys("r")
	if got := strings.Join(b.calls, ";"); got != "reload" {
		t.Errorf("the backend was asked %q, want only the reload", got)
	}
	d.shows("invalid: catalog: /home/u/.luagent/config.json: invalid JSON at line 3")
	d.rows(map[string]string{"srv": "› srv ● ready stdio 2"})

	// No server listed yet: r still reads the file.
	b = &fakeBackend{reloaded: chat.Reloaded{Added: []string{"first"}}}
	b.onReload = func() { b.set("first", hub.Connecting) }
	d = newDriver(t, b)
	d.keys("r")
	d.shows("config.json re-read: added first")
	d.rows(map[string]string{"first": "› first ● connecting - -"})
}
