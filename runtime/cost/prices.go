package cost

// builtin is the providers' list prices (standard tier, not batch, USD
// per million tokens) by the normalized model name. Where each came from:
//
// Anthropic: the pricing page, platform.claude.com/docs/en/about-claude/pricing
// ("Model pricing": base input, 5m cache writes, cache hits, output), as
// stored on 2026-12-04; Opus 4.5 to 4.8 and 5 at 5/25, Opus 4 and 4.1 at
// 15/75, Sonnet 4 and 3.7 at 3/15, Haiku 3.5 at 0.80/4, Haiku 3 at
// 0.25/1.25, each with its 5-minute cache write (1.25x input) and cache
// hit (0.1x input) from the same table. Sonnet 4.5 and 4.6 (3/15) and
// Haiku 4.5 (1/5): deploybase.ai/articles/claude-api-pricing (checked
// 2026-03-21), with the page's cache multipliers. CacheWrite is the
// 5-minute write, the default; a 1-hour write (2x input) is billed higher
// than this counts.
//
// OpenAI: developers.openai.com/api/docs/pricing, as quoted with dates by
// hex.pm openai_responses' pricing.ex (gpt-4.1, -mini, -nano, gpt-4o,
// gpt-4o-mini with cached input; "last updated 2025-06-03"), by
// codeswap.net/models/o3 and calcis.dev/models/o3 (o3 after the June 2025
// cut: 2/8, cached 0.50; verified 2026-04-06), by Roo-Code PR 2691 (o4-mini
// 1.10/4.40, cached 0.275; 2025-04-17) and by api-evangelist's reading of
// the page on 2026-11-05 (GPT-5 family: cached input a tenth of input;
// gpt-5 1.25/10, gpt-5-mini 0.25/2, gpt-5-nano 0.05/0.40, gpt-5.1 1.25/10).
// OpenAI has no cache-write charge.
var builtin = map[string]Price{
	// Anthropic
	"claude-opus-5":     {Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25},
	"claude-opus-4-8":   {Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25},
	"claude-opus-4-7":   {Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25},
	"claude-opus-4-6":   {Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25},
	"claude-opus-4-5":   {Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25},
	"claude-opus-4-1":   {Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75},
	"claude-opus-4":     {Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75},
	"claude-sonnet-4-6": {Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15},
	"claude-sonnet-4-5": {Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15},
	"claude-sonnet-4":   {Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15},
	"claude-3-7-sonnet": {Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15},
	"claude-haiku-4-5":  {Input: 1, CacheWrite: 1.25, CachedInput: 0.10, Output: 5},
	"claude-3-5-haiku":  {Input: 0.80, CacheWrite: 1, CachedInput: 0.08, Output: 4},
	"claude-3-haiku":    {Input: 0.25, CacheWrite: 0.30, CachedInput: 0.03, Output: 1.25},

	// OpenAI
	"gpt-5.1":      {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5":        {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5-mini":   {Input: 0.25, CachedInput: 0.025, Output: 2},
	"gpt-5-nano":   {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-4.1":      {Input: 2, CachedInput: 0.50, Output: 8},
	"gpt-4.1-mini": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-4o":       {Input: 2.50, CachedInput: 1.25, Output: 10},
	"gpt-4o-mini":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"o3":           {Input: 2, CachedInput: 0.50, Output: 8},
	"o4-mini":      {Input: 1.10, CachedInput: 0.275, Output: 4.40},
}
