// Package cost prices model requests: a table of the providers' list
// prices for known models, prices configured in config.json over it, and
// the cost in USD of one request's token usage.
//
//	usd, known := cost.Of("claude-sonnet-4-20250514", cost.Usage{InputTokens: 1200, OutputTokens: 300})
//
// An unknown model is known=false, never $0: whoever shows a cost says
// "unknown" for it.
package cost

import (
	"fmt"
	"math"
	"strings"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input       float64 `json:"input"`       // uncached prompt tokens
	Output      float64 `json:"output"`      // answer tokens (reasoning too)
	CachedInput float64 `json:"cachedInput"` // prompt tokens read from the provider's cache
	CacheWrite  float64 `json:"cacheWrite"`  // prompt tokens written to it (Anthropic)
}

// Usage is one request's tokens, as llm.Usage counts them (the same
// fields, so cost.Usage(u) converts): InputTokens is every prompt token,
// CacheReadTokens and CacheWriteTokens are parts of it.
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
}

// Of is what u costs at p, in USD: the uncached part of the prompt at
// Input, cache reads at CachedInput, cache writes at CacheWrite, the
// answer at Output. A negative uncached part (a provider counting its
// cache tokens apart from its input) is taken as zero.
func (p Price) Of(u Usage) float64 {
	plain := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	if plain < 0 {
		plain = 0
	}
	return (float64(plain)*p.Input + float64(u.CacheReadTokens)*p.CachedInput +
		float64(u.CacheWriteTokens)*p.CacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
}

// Check says what is wrong with p (a negative or non-finite figure), or
// nil.
func (p Price) Check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"input", p.Input}, {"output", p.Output}, {"cachedInput", p.CachedInput}, {"cacheWrite", p.CacheWrite}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s must be a number of USD per million tokens, 0 or more, not %v", f.name, f.v)
		}
	}
	return nil
}

// Lookup is the list price of a model of the built-in table. model may
// be a spec ("anthropic:claude-sonnet-4-5"), a dated snapshot
// ("claude-sonnet-4-20250514", "gpt-4.1-2025-04-14"), an alias
// ("claude-sonnet-4-0", "claude-3-5-haiku-latest") or a router's
// "vendor/model"; matching is exact after those are taken off, so a
// model the table lacks ("o3-mini") is unknown rather than priced as
// another.
func Lookup(model string) (Price, bool) {
	p, ok := builtin[Normalize(model)]
	return p, ok
}

// Of is what u costs with model, by the built-in table.
func Of(model string, u Usage) (usd float64, known bool) {
	p, ok := Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Of(u), true
}

// Normalize takes off what does not change a model's price (or window): case, a
// "provider:" spec prefix, a "vendor/" prefix, a date snapshot suffix
// (-20250514, -2025-04-14), "-latest" and Anthropic's "-0" alias suffix.
func Normalize(model string) string {
	m := asciiLower(strings.TrimSpace(model))
	if _, rest, ok := strings.Cut(m, ":"); ok {
		m = rest
	}
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimSuffix(m, "-latest")
	if i := strings.LastIndexByte(m, '-'); i >= 0 && len(m)-i-1 == 8 && digits(m[i+1:]) {
		m = m[:i] // -YYYYMMDD
	} else if len(m) > 11 && m[len(m)-11] == '-' && m[len(m)-6] == '-' && m[len(m)-3] == '-' &&
		digits(m[len(m)-10:len(m)-6]) && digits(m[len(m)-5:len(m)-3]) && digits(m[len(m)-2:]) {
		m = m[:len(m)-11] // -YYYY-MM-DD
	}
	if strings.HasPrefix(m, "claude-") {
		m = strings.TrimSuffix(m, "-0") // claude-sonnet-4-0 is claude-sonnet-4
	}
	return m
}

// asciiLower lowers A-Z only: model names are ASCII, and strings.ToLower
// would turn a stray invalid byte into U+FFFD (three bytes).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Table is the built-in prices with configured ones over them, by the
// name a model is asked by (a configured model's name, or a spec). The
// nil *Table is the built-in table alone.
type Table struct {
	prices map[string]Price
}

// Set prices the model asked by name (config.json's models.NAME.price, or
// the list price of the provider's model a configured name stands for).
func (t *Table) Set(name string, p Price) {
	if t.prices == nil {
		t.prices = map[string]Price{}
	}
	t.prices[name] = p
}

// Lookup is model's price: the one Set for it, else the built-in table's.
func (t *Table) Lookup(model string) (Price, bool) {
	if t != nil {
		if p, ok := t.prices[model]; ok {
			return p, true
		}
	}
	return Lookup(model)
}

// Of is what u costs with model, by t.
func (t *Table) Of(model string, u Usage) (usd float64, known bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Of(u), true
}

// Format shows an amount of USD for people: "$0.0123", "<$0.0001" for
// a fraction of that, or "unknown" when it is not known.
func Format(usd float64, known bool) string {
	if !known {
		return "unknown"
	}
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.00005: // "$0.0000" would read as nothing spent
		return "<$0.0001"
	case usd < 1:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
