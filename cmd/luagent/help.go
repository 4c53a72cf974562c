package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpText is a command's --help, made from its declaration: the usage
// line(s), Long, its subcommands, its flags by section, the environment
// it reads and Example.
func helpText(c *cobra.Command) string {
	var b strings.Builder
	if u := c.Annotations["usage"]; u != "" {
		b.WriteString(u)
	} else {
		fmt.Fprintf(&b, "usage: %s\n", c.UseLine())
	}
	if c.Long != "" {
		b.WriteString("\n" + strings.Trim(c.Long, "\n") + "\n")
	}
	if c.HasAvailableSubCommands() {
		writeCommands(&b, c)
	}
	writeFlags(&b, c)
	if env := c.Annotations["env"]; env != "" {
		b.WriteString("\nenvironment:\n" + strings.Trim(env, "\n") + "\n")
	}
	if c.Example != "" {
		b.WriteString("\nexamples:\n" + strings.Trim(c.Example, "\n") + "\n")
	}
	if foot := c.Annotations["footer"]; foot != "" {
		b.WriteString("\n" + strings.Trim(foot, "\n") + "\n")
	}
	return b.String()
}

// writeCommands lists the subcommands, by group when they have one.
func writeCommands(b *strings.Builder, c *cobra.Command) {
	line := func(s *cobra.Command) {
		use := s.Use
		if !c.HasParent() {
			use = "luagent " + use
		}
		short := wrap(s.Short, 48, "\n"+strings.Repeat(" ", 31))
		if len(use) > 28 {
			fmt.Fprintf(b, "  %s\n  %-28s %s\n", use, "", short)
		} else {
			fmt.Fprintf(b, "  %-28s %s\n", use, short)
		}
	}
	groups := c.Groups()
	if len(groups) == 0 {
		b.WriteString("\ncommands:\n")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() && s.Name() != "help" {
				line(s)
			}
		}
		return
	}
	for _, g := range groups {
		b.WriteString("\n" + g.Title + "\n")
		for _, s := range c.Commands() {
			if s.GroupID == g.ID && s.IsAvailableCommand() {
				line(s)
			}
		}
	}
}

// flagName is "-v, --verbose" or "    --trace FILE".
func flagName(f *pflag.Flag) string {
	name := "    --" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + ", --" + f.Name
	}
	if v := f.Annotations[annValue]; len(v) > 0 {
		name += " " + v[0]
	}
	return name
}

// writeFlags lists the command's own flags by section, then (below the
// root) the global ones in one line.
func writeFlags(b *strings.Builder, c *cobra.Command) {
	var order []string
	sections := map[string][]*pflag.Flag{}
	var global []string
	add := func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" && c.HasParent() {
			return
		}
		g := "options:"
		if v := f.Annotations[annGroup]; len(v) > 0 && v[0] != "global" {
			g = v[0]
		}
		if _, ok := sections[g]; !ok {
			order = append(order, g)
		}
		sections[g] = append(sections[g], f)
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			global = append(global, strings.TrimSpace(flagName(f)))
		}
	})
	for _, g := range order {
		b.WriteString("\n" + g + "\n")
		for _, f := range sections[g] {
			name := flagName(f)
			usage := wrap(f.Usage, 50, "\n"+strings.Repeat(" ", 29))
			if len(name) > 26 {
				fmt.Fprintf(b, "  %s\n  %-26s %s\n", name, "", usage)
			} else {
				fmt.Fprintf(b, "  %-26s %s\n", name, usage)
			}
		}
	}
	if len(global) > 0 {
		fmt.Fprintf(b, "\nglobal options (before or after the command; luagent --help says what they do):\n  %s\n",
			wrap(strings.Join(global, ", "), 76, "\n  "))
	}
}

// wrap breaks s at spaces into lines of at most width, starting each
// following line with newline (a newline and its indent).
func wrap(s string, width int, newline string) string {
	var out strings.Builder
	n := 0
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			if n+1+len(w) > width {
				out.WriteString(newline)
				n = 0
			} else {
				out.WriteString(" ")
				n++
			}
		}
		out.WriteString(w)
		n += len(w)
	}
	return out.String()
}
