package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout is a command hook's time when its "timeout" is left out
// (Claude Code's: 60 seconds). MaxTimeout bounds what one may ask for.
const (
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = 24 * time.Hour
)

// Config is a "hooks" member: the groups of each event, in the file's
// order within an event.
type Config struct {
	Groups []Group
}

// Group is one {"matcher": ..., "hooks": [...]} of an event.
type Group struct {
	Event   string
	Matcher string
	Hooks   []Command
	// Source is the file the group was read from (hooks list shows it).
	Source string
	// Path is the group's JSON path in that file (hooks.PreToolUse[0]).
	Path string
	m    matcher
}

// Command is one {"type": "command", "command": ..., "timeout": ...}.
type Command struct {
	// Type is "command": the only type luagent runs. Claude Code's other
	// types (prompt, http, ...) are kept and listed, never run.
	Type    string
	Command string
	Timeout time.Duration // DefaultTimeout when left out
}

// Runs reports whether luagent runs the command (its type is "command").
func (c Command) Runs() bool { return c.Type == "command" }

// Problem is what is wrong with one field: its JSON path (as the file's
// errors name fields: hooks.PreToolUse[0].matcher) and what to do.
type Problem struct {
	Path string
	Msg  string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Parse reads a "hooks" member (raw is its JSON value) of the file
// source, Claude Code's settings format:
//
//	{"PreToolUse": [{"matcher": "fs__write|Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}]}
//
// It returns what it could read and every problem, each one line with its
// path; a group with a problem is left out. null is no hooks. Events
// luagent does not fire are kept (Fired says so). Parse never panics.
func Parse(raw []byte, source string) (Config, []Problem) {
	var cfg Config
	var ps []Problem
	add := func(path, format string, a ...any) { ps = append(ps, Problem{path, fmt.Sprintf(format, a...)}) }
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return cfg, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil || events == nil {
		add("hooks", `must be an object of events: {"PreToolUse": [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]}`)
		return cfg, ps
	}
	names := make([]string, 0, len(events))
	for ev := range events {
		names = append(names, ev)
	}
	sort.Slice(names, func(i, j int) bool {
		return eventOrder(names[i]) < eventOrder(names[j]) || eventOrder(names[i]) == eventOrder(names[j]) && names[i] < names[j]
	})
	for _, ev := range names {
		path := "hooks." + ev
		if !eventName(ev) {
			add(path, "is not an event name (PreToolUse, PostToolUse, Stop, ...)")
			continue
		}
		var groups []json.RawMessage
		if v := bytes.TrimSpace(events[ev]); string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(events[ev], &groups); err != nil {
			add(path, `must be a list of {"matcher": "...", "hooks": [...]}`)
			continue
		}
		for i, g := range groups {
			gp := fmt.Sprintf("%s[%d]", path, i)
			if grp, ok := parseGroup(ev, g, gp, source, add); ok {
				cfg.Groups = append(cfg.Groups, grp)
			}
		}
	}
	return cfg, ps
}

// eventName: ^[A-Z][A-Za-z]{0,63}$, without a regexp (a bounded repeat
// compiles into copies, at every start: see catalog's nameRule).
func eventName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func eventOrder(ev string) int {
	if i := slices.Index(Events, ev); i >= 0 {
		return i
	}
	return len(Events)
}

func parseGroup(ev string, raw json.RawMessage, path, source string, add func(string, string, ...any)) (Group, bool) {
	var g struct {
		Matcher *json.RawMessage  `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil || probe == nil {
		add(path, `must be an object {"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}`)
		return Group{}, false
	}
	if err := json.Unmarshal(probe["hooks"], &g.Hooks); err != nil || len(g.Hooks) == 0 {
		add(path+".hooks", `must be a list of one or more {"type": "command", "command": "..."}`)
		return Group{}, false
	}
	grp := Group{Event: ev, Source: source, Path: path}
	ok := true
	if m, has := probe["matcher"]; has && string(bytes.TrimSpace(m)) != "null" {
		if err := json.Unmarshal(m, &grp.Matcher); err != nil {
			add(path+".matcher", "must be a string: a tool name, names separated by |, or a regular expression")
			ok = false
		} else if grp.m, err = compileMatcher(grp.Matcher); err != nil {
			add(path+".matcher", "%v", err)
			ok = false
		}
	}
	for j, h := range g.Hooks {
		c, good := parseCommand(h, fmt.Sprintf("%s.hooks[%d]", path, j), add)
		ok = ok && good
		grp.Hooks = append(grp.Hooks, c)
	}
	return grp, ok
}

func parseCommand(raw json.RawMessage, path string, add func(string, string, ...any)) (Command, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		add(path, `must be an object {"type": "command", "command": "..."}`)
		return Command{}, false
	}
	c := Command{Timeout: DefaultTimeout}
	if err := json.Unmarshal(m["type"], &c.Type); err != nil || c.Type == "" {
		add(path+".type", `must be "command"`)
		return c, false
	}
	if !c.Runs() {
		return c, true // Claude Code's prompt, http, ... hooks: listed, never run
	}
	if err := json.Unmarshal(m["command"], &c.Command); err != nil || strings.TrimSpace(c.Command) == "" {
		add(path+".command", "must be a shell command (run with sh -c)")
		return c, false
	}
	if t, has := m["timeout"]; has && string(bytes.TrimSpace(t)) != "null" {
		var secs float64
		if err := json.Unmarshal(t, &secs); err != nil || secs <= 0 || math.IsNaN(secs) || time.Duration(secs*float64(time.Second)) > MaxTimeout {
			add(path+".timeout", "must be a number of seconds, more than 0 and at most %d", int(MaxTimeout/time.Second))
			return c, false
		}
		c.Timeout = time.Duration(secs * float64(time.Second))
	}
	return c, true
}

// matcher is a compiled "matcher": "" and "*" match everything; letters,
// digits, _ and | alone are exact names separated by |; anything else is
// a regular expression, searched in the name (Claude Code's rules).
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// plainMatcher: letters, digits, _ and | alone (^[A-Za-z0-9_|]+$).
func plainMatcher(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return s != ""
}

func compileMatcher(s string) (matcher, error) {
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case plainMatcher(s):
		return matcher{names: strings.Split(s, "|")}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*syntax.Error); ok {
			msg = string(e.Code)
		}
		return matcher{}, fmt.Errorf("is not a regular expression Go reads (%s); write tool names separated by |, or a simpler pattern", msg)
	}
	return matcher{re: re}, nil
}

// match reports whether any of names matches (no names: the event has
// nothing to match, and every group runs).
func (m matcher) match(names []string) bool {
	if m.all || (m.names == nil && m.re == nil) || len(names) == 0 {
		return true
	}
	for _, n := range names {
		if m.re != nil && m.re.MatchString(n) || slices.Contains(m.names, n) {
			return true
		}
	}
	return false
}

// Matches reports whether the group's matcher matches any of names.
func (g Group) Matches(names ...string) bool { return g.m.match(names) }

// Merge is c's groups then o's: every group of both runs (as Claude
// Code runs the user's and the project's hooks alike).
func (c Config) Merge(o Config) Config {
	return Config{Groups: append(slices.Clone(c.Groups), o.Groups...)}
}
