// Package secret masks secret values (parameters marked secret, API keys,
// a server's env values) in what luagent shows: output, errors, traces,
// transcripts, a server's stderr.
package secret

import (
	"encoding/json"
	"slices"
	"strings"
)

// Mask stands for a secret value wherever luagent would show it.
const Mask = "<secret>"

// Masker replaces secret values with Mask. The nil *Masker masks nothing.
type Masker struct{ r *strings.Replacer }

// NewMasker masks each value as written and as a JSON string holds it (a
// secret inside JSON arguments or results), the longest first so that a
// secret holding another is masked whole. Empty values are skipped; nil
// when nothing is left.
func NewMasker(values []string) *Masker {
	sorted := slices.Clone(values)
	slices.SortStableFunc(sorted, func(x, y string) int { return len(y) - len(x) })
	var pairs []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			pairs = append(pairs, s, Mask)
		}
	}
	for _, s := range sorted {
		add(s)
		q, _ := json.Marshal(s)
		add(string(q[1 : len(q)-1]))
	}
	if len(pairs) == 0 {
		return nil
	}
	return &Masker{r: strings.NewReplacer(pairs...)}
}

// String is s with the secrets masked.
func (m *Masker) String(s string) string {
	if m == nil || s == "" {
		return s
	}
	return m.r.Replace(s)
}

// Bytes is b with the secrets masked (b itself when there are none).
func (m *Masker) Bytes(b []byte) []byte {
	if m == nil || len(b) == 0 {
		return b
	}
	return []byte(m.r.Replace(string(b)))
}
