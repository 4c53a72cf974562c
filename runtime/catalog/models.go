package catalog

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/cost"
)

// ModelPrice is a models entry's "price": USD per million tokens of
// input (uncached), output, cachedInput (cache reads) and cacheWrite.
// It wins over the built-in table of runtime/cost.
type ModelPrice = cost.Price

// Model providers a "models" entry may name.
var modelProviders = []string{"openai", "ollama", "anthropic", "mock"}

// modelNameRE is the rule for a models entry's name: model names carry dots
// ("gpt-4.1"), so they are allowed, but no ':' (that makes a spec).
var modelNameRE = nameRule{max: 64, extra: "_.-"}

// Model is one entry of "models": a named model a command's --model, the
// file's "model" or LUAGENT_MODEL can name.
//
//	"models": { "fast": { "provider": "openai", "model": "gpt-4.1-mini" },
//	            "local": { "provider": "ollama", "baseUrl": "http://127.0.0.1:11434/v1", "model": "llama3.2" },
//	            "work": { "provider": "anthropic", "apiKeyEnv": "WORK_ANTHROPIC_KEY", "model": "claude-sonnet-4-5" } },
//	"model": "fast"
type Model struct {
	Name      string // the entry's key
	Provider  string // "openai", "ollama", "anthropic" or "mock"
	BaseURL   string // baseUrl: "" is the provider's (or OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
	APIKeyEnv string // apiKeyEnv: the variable holding the key ("" is the provider's)
	Model     string // the provider's model name
	// Price is "price": what the model costs, over the built-in table
	// (nil: the table's list price, or unknown).
	Price *ModelPrice
	// ContextWindow is the model's context window in tokens
	// (contextWindow; 0: known by name, else unknown).
	ContextWindow int

	extra members
	read  *Model
	raw   map[string]json.RawMessage
}

func modelPath(name string) string {
	if nameRE.MatchString(name) {
		return "models." + name
	}
	return "models." + quoteName(name)
}

func parseModels(raw json.RawMessage, p *problems) []*Model {
	if isNull(raw) {
		return nil
	}
	ents, ok := objectMembers(raw)
	if !ok {
		p.add("models", "must be an object of models by name")
		return nil
	}
	var out []*Model
	seen := map[string]bool{}
	for _, e := range ents {
		path := modelPath(e.name)
		if seen[e.name] {
			p.add(path, "appears twice; keep one")
			continue
		}
		seen[e.name] = true
		ms, ok := objectMembers(e.val)
		if !ok {
			p.add(path, "must be an object (provider, model, baseUrl, apiKeyEnv, contextWindow)")
			continue
		}
		m := &Model{Name: e.name, raw: map[string]json.RawMessage{}}
		eachField(ms, path, p, m.raw, &m.extra, func(f member, fp string) bool {
			switch f.name {
			case "provider":
				m.Provider = str(f.val, fp, p)
			case "baseUrl":
				m.BaseURL = str(f.val, fp, p)
			case "apiKeyEnv":
				m.APIKeyEnv = str(f.val, fp, p)
			case "model":
				m.Model = str(f.val, fp, p)
			case "price":
				m.Price = parsePrice(f.val, fp, p)
			case "contextWindow":
				switch v, ok := intValue(f.val); {
				case isNull(f.val):
				case !ok || v < 1 || v > math.MaxInt32:
					p.add(fp, contextWindowRule)
				default:
					m.ContextWindow = int(v)
				}
			default:
				return false
			}
			return true
		})
		m.read = m.fields()
		out = append(out, m)
	}
	return out
}

func (m *Model) fields() *Model {
	w := &Model{Name: m.Name, Provider: m.Provider, BaseURL: m.BaseURL, APIKeyEnv: m.APIKeyEnv, Model: m.Model, ContextWindow: m.ContextWindow}
	if m.Price != nil {
		pr := *m.Price
		w.Price = &pr
	}
	return w
}

// parsePrice reads a "price" object: input, output, cachedInput,
// cacheWrite, each a number of USD per million tokens, 0 or more (a
// member left out is 0).
func parsePrice(raw json.RawMessage, path string, p *problems) *ModelPrice {
	if isNull(raw) {
		return nil
	}
	ms, ok := objectMembers(raw)
	if !ok {
		p.add(path, `must be an object of USD per million tokens: {"input": 3, "output": 15, "cachedInput": 0.3, "cacheWrite": 3.75}`)
		return nil
	}
	pr := &ModelPrice{}
	for _, f := range ms {
		var dst *float64
		switch f.name {
		case "input":
			dst = &pr.Input
		case "output":
			dst = &pr.Output
		case "cachedInput":
			dst = &pr.CachedInput
		case "cacheWrite":
			dst = &pr.CacheWrite
		default:
			p.add(path+"."+f.name, "is not a price member (input, output, cachedInput, cacheWrite)")
			continue
		}
		var v float64
		if json.Unmarshal(f.val, &v) != nil || v < 0 {
			p.add(path+"."+f.name, "must be a number of USD per million tokens, 0 or more")
			continue
		}
		*dst = v
	}
	return pr
}

func priceNode(pr *ModelPrice) node {
	num := func(v float64) node { return node{raw: json.RawMessage(strconv.FormatFloat(v, 'g', -1, 64))} }
	return node{obj: true, members: []entry{{"input", num(pr.Input)}, {"output", num(pr.Output)},
		{"cachedInput", num(pr.CachedInput)}, {"cacheWrite", num(pr.CacheWrite)}}}
}

func (m *Model) node() node {
	w := m.read
	if w == nil {
		w = &Model{}
	}
	var ms []entry
	add := func(name, was, is string) {
		if was == is && m.read != nil {
			if raw, ok := m.raw[name]; ok {
				ms = append(ms, entry{name, node{raw: raw}})
			}
			return
		}
		if is != "" {
			ms = append(ms, entry{name, quote(is)})
		}
	}
	add("provider", w.Provider, m.Provider)
	add("baseUrl", w.BaseURL, m.BaseURL)
	add("apiKeyEnv", w.APIKeyEnv, m.APIKeyEnv)
	add("model", w.Model, m.Model)
	switch raw, read := m.raw["price"]; {
	case read && m.read != nil && samePrice(w.Price, m.Price):
		ms = append(ms, entry{"price", node{raw: raw}})
	case m.Price != nil:
		ms = append(ms, entry{"price", priceNode(m.Price)})
	}
	switch raw, read := m.raw["contextWindow"]; {
	case read && m.read != nil && w.ContextWindow == m.ContextWindow:
		ms = append(ms, entry{"contextWindow", node{raw: raw}})
	case m.ContextWindow > 0:
		ms = append(ms, entry{"contextWindow", gen(strconv.Itoa(m.ContextWindow))})
	}
	return node{obj: true, members: appendExtra(ms, m.extra)}
}

func samePrice(a, b *ModelPrice) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// modelEntries are the top-level "model" and "models" members, when the
// file had them or the catalog has them now.
func (c *Config) modelEntries() []entry {
	var out []entry
	wasDefault := ""
	if c.read != nil {
		wasDefault = c.read.DefaultModel
	}
	switch raw, read := c.raw["model"]; {
	case read && wasDefault == c.DefaultModel:
		out = append(out, entry{"model", node{raw: raw}})
	case c.DefaultModel != "":
		out = append(out, entry{"model", quote(c.DefaultModel)})
	}
	raw, read := c.raw["models"]
	if read && isNull(raw) && len(c.Models) == 0 {
		return append(out, entry{"models", node{raw: raw}})
	}
	if read || len(c.Models) > 0 {
		n := node{obj: true, members: []entry{}}
		for _, m := range c.Models {
			if m != nil {
				n.members = append(n.members, entry{m.Name, m.node()})
			}
		}
		out = append(out, entry{"models", n})
	}
	return out
}

func (c *Config) validateModels(p *problems) {
	seen := map[string]bool{}
	for _, m := range c.Models {
		if m == nil {
			continue
		}
		path := modelPath(m.Name)
		if !modelNameRE.MatchString(m.Name) {
			p.add(path, "the name must match ^[A-Za-z0-9_.-]{1,64}$ (no ':', which makes a spec)")
		}
		if seen[m.Name] {
			p.add(path, "appears twice; keep one")
		}
		seen[m.Name] = true
		known := false
		for _, k := range modelProviders {
			known = known || m.Provider == k
		}
		if !known {
			p.add(path+".provider", fmt.Sprintf("must be one of %s, not %q", strings.Join(modelProviders, ", "), m.Provider))
		}
		if m.Model == "" && m.Provider != "mock" {
			p.add(path+".model", "is required: the provider's model name (\"gpt-4.1-mini\", \"llama3.2\")")
		}
		if m.BaseURL != "" {
			if u, err := url.Parse(m.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.add(path+".baseUrl", "must be an http or https URL (\"http://127.0.0.1:11434/v1\")")
			}
		}
		if m.Price != nil {
			if err := m.Price.Check(); err != nil {
				p.add(path+".price", err.Error())
			}
		}
		if m.ContextWindow < 0 {
			p.add(path+".contextWindow", contextWindowRule)
		}
		if m.APIKeyEnv != "" && !envNameRE().MatchString(m.APIKeyEnv) {
			p.add(path+".apiKeyEnv", "must be an environment variable's name (\"OPENAI_API_KEY\"), not the key itself")
		}
	}
	if d := c.DefaultModel; d != "" && !seen[d] && !strings.Contains(d, ":") && d != "mock" {
		p.add("model", fmt.Sprintf("%q is neither a name under models nor a spec (\"openai:gpt-4.1-mini\")", d))
	}
	for i, d := range c.FallbackModels {
		if !seen[d] && !strings.Contains(d, ":") && d != "mock" {
			p.add(fmt.Sprintf("fallbackModels[%d]", i), fmt.Sprintf("%q is neither a name under models nor a spec (\"anthropic:claude-haiku-4-5\")", d))
		}
	}
}

// contextWindowRule is what contextWindow takes.
const contextWindowRule = `must be a whole number of tokens, 1 or more: the model's context window (leave it out for a known model's, e.g. 200000 for claude-*)`

// KeyVars are the environment variables the configured models read their
// keys from (apiKeyEnv): luagent's own credentials, which its servers do
// not inherit unless an entry names them.
func (c *Config) KeyVars() []string {
	var out []string
	for _, m := range c.Models {
		if m != nil && m.APIKeyEnv != "" {
			out = append(out, m.APIKeyEnv)
		}
	}
	return out
}
