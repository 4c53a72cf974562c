package main

import (
	"fmt"
	"strconv"
)

// contextWindowFlag declares --context-window TOKENS (ask and chat): the
// model's context window, over the catalog's models.NAME.contextWindow
// and a known model's; at 80% of it the conversation is compacted.
func contextWindowFlag(d flagDecl, verb string, p *int) {
	d.fn("context-window", "TOKENS", `the model's context window in tokens (default: config.json's models.NAME.contextWindow, else the known model's, e.g. 200000 for claude-*); at 80% of it the older turns are summarised (stdlib/doc/context.md)`,
		"--context-window needs a value: luagent "+verb+" --context-window 200000", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("--context-window must be a whole number of tokens, 1 or more, not %q", v)
			}
			*p = n
			return nil
		})
}
