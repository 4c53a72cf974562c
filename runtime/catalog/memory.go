package catalog

import (
	"fmt"
	"strings"
	"unicode"
)

// The top-level memoryFiles and notifications: what project memory reads
// (runtime/memory) and how a chat rings the terminal (runtime/notify).

// Notification settings (notifications).
const (
	NotifyAuto = "auto" // OSC 9 on terminals known to show it, else the bell (the default)
	NotifyBell = "bell" // the bell (BEL)
	NotifyOSC9 = "osc9" // a desktop notification: ESC ] 9 ; text BEL
	NotifyOff  = "off"  // nothing
)

// maxMemoryFiles bounds memoryFiles' names.
const maxMemoryFiles = 16

// memoryFilesRule is what memoryFiles takes.
const memoryFilesRule = `must be an array of file names (["CLAUDE.md"]), each a name and not a path, at most 16; AGENTS.md is always read`

// NotificationsSetting is "notifications" with its default: NotifyAuto when
// left out.
func (c *Config) NotificationsSetting() string {
	if c.Notifications == "" {
		return NotifyAuto
	}
	return c.Notifications
}

func parseMemoryFiles(raw []byte, p *problems) []string {
	if isNull(raw) {
		return nil
	}
	return strList(raw, "memoryFiles", p)
}

func (c *Config) validateMemory(p *problems) {
	if len(c.MemoryFiles) > maxMemoryFiles {
		p.add("memoryFiles", memoryFilesRule)
	}
	for i, n := range c.MemoryFiles {
		if !memoryFileName(n) {
			p.add(fmt.Sprintf("memoryFiles[%d]", i), fmt.Sprintf("%q %s", n, memoryFilesRule))
		}
	}
	switch c.Notifications {
	case "", NotifyAuto, NotifyBell, NotifyOSC9, NotifyOff:
	default:
		p.add("notifications", fmt.Sprintf("must be %q, %q, %q or %q, not %q", NotifyAuto, NotifyBell, NotifyOSC9, NotifyOff, c.Notifications))
	}
}

// memoryFileName: a file's name alone (no folder, not . or ..), no
// control characters, at most 255 bytes.
func memoryFileName(n string) bool {
	if n == "" || n == "." || n == ".." || len(n) > 255 || strings.ContainsAny(n, `/\`) {
		return false
	}
	return !strings.ContainsFunc(n, unicode.IsControl)
}

// memoryEntries are memoryFiles and notifications, as read when unchanged.
func (c *Config) memoryEntries() []entry {
	var out []entry
	raw, read := c.raw["memoryFiles"]
	var p problems
	switch {
	case read && listEqual(parseMemoryFiles(raw, &p), c.MemoryFiles):
		out = append(out, entry{"memoryFiles", node{raw: raw}})
	case c.MemoryFiles != nil:
		out = append(out, entry{"memoryFiles", list(c.MemoryFiles)})
	}
	raw, read = c.raw["notifications"]
	switch {
	case read && str(raw, "notifications", &p) == c.Notifications:
		out = append(out, entry{"notifications", node{raw: raw}})
	case c.Notifications != "":
		out = append(out, entry{"notifications", quote(c.Notifications)})
	}
	return out
}
