package llm

import (
	"context"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
)

// Providers of a spec ("PROVIDER:MODEL") or of a ModelConfig.
const (
	ProviderOpenAI    = "openai"    // OpenAI Chat Completions, or any compatible server by BaseURL
	ProviderOllama    = "ollama"    // OpenAI-compatible at DefaultOllamaBaseURL, no key
	ProviderAnthropic = "anthropic" // Anthropic Messages
	ProviderMock      = "mock"      // the deterministic model of mock.go
)

// Default endpoints.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultOllamaBaseURL    = "http://127.0.0.1:11434/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	// DefaultAnthropicMaxTokens is max_tokens when a Request sets none
	// (the Messages API requires one).
	DefaultAnthropicMaxTokens = 4096
)

// ModelConfig is one named model of config.json's "models" member.
type ModelConfig struct {
	Provider string // "openai", "ollama", "anthropic" or "mock"
	BaseURL  string // "" is the provider's (or its *_BASE_URL variable's)
	// APIKeyEnv names the environment variable holding the key ("" is
	// OPENAI_API_KEY or ANTHROPIC_API_KEY).
	APIKeyEnv string
	// APIKey is the key itself, when it comes from somewhere other than
	// the environment (an agents-exe keys file). KeyFrom says where it
	// was looked up, for messages (never the key); when KeyFrom is set the
	// environment is not read, and an empty APIKey sends no key (as
	// agents-exe does for an id its keys file lacks).
	APIKey  string
	KeyFrom string
	Model   string // the provider's model name
	// Price is config.json's "price" of the model (nil: the built-in
	// list price of Model, runtime/cost). The providers do not read it;
	// the agent prices its requests with it.
	Price *cost.Price
	// ContextWindow is the model's context window in tokens (0: known
	// by name, KnownWindow, or unknown).
	ContextWindow int
}

// Config is what New needs besides the spec.
type Config struct {
	// Lookup reads an environment variable (nil: os.LookupEnv). Keys and
	// base URLs come only through it: the providers never read the process
	// environment themselves.
	Lookup func(string) (string, bool)
	// Models are the configured models by name; a spec naming one uses it.
	Models map[string]ModelConfig
	// HTTPClient sends the requests (nil: http.DefaultClient).
	HTTPClient *http.Client
	// MaxRetries is how many times a 429, a 5xx (529 too), a 408, a
	// 409, a stream's "overloaded" error before its output began or a
	// failed connection (at most twice) is retried, with exponential
	// backoff and full jitter or the server's retry-after (0:
	// DefaultMaxRetries; negative: never).
	MaxRetries int
	// MaxRetryWait is the longest retry-after honoured: a server asking
	// for a longer wait gets no retry, and the error says how long it
	// asked for (0: DefaultMaxRetryWait).
	MaxRetryWait time.Duration
	// MaxRetryTime bounds the time a request spends in retries, from its
	// first try: a wait that would end past it is not made (0:
	// DefaultMaxRetryTime).
	MaxRetryTime time.Duration
	// Sleep waits d or until ctx ends, returning ctx's error then (nil: a
	// timer); Now reads the clock (nil: time.Now). Tests pass a fake
	// clock so that retries do not sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

// Retry defaults: 4 retries (5 tries) in at most 2 minutes; a request
// that got no answer at all (the endpoint is down) is retried twice.
const (
	DefaultMaxRetries   = 4
	DefaultMaxRetryWait = 60 * time.Second
	DefaultMaxRetryTime = 120 * time.Second
)

func (c *Config) lookup(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	f := c.Lookup
	if f == nil {
		f = os.LookupEnv
	}
	v, ok := f(name)
	return v, ok && v != ""
}

func (c *Config) retries() int {
	switch {
	case c.MaxRetries < 0:
		return 0
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	}
	return c.MaxRetries
}

func (c *Config) retryTime() time.Duration {
	if c.MaxRetryTime <= 0 {
		return DefaultMaxRetryTime
	}
	return c.MaxRetryTime
}

func (c *Config) retryWait() time.Duration {
	if c.MaxRetryWait <= 0 {
		return DefaultMaxRetryWait
	}
	return c.MaxRetryWait
}

// New returns the model a spec names: a key of cfg.Models, or
// "openai:MODEL", "ollama:MODEL", "anthropic:MODEL", "mock" ("mock:NAME").
// Nothing is sent until the model's first Stream. A missing key is an
// auth error naming the variable to set.
func New(spec string, cfg Config) (Model, error) {
	mc, ok := cfg.Models[spec]
	if !ok {
		p, m, _ := strings.Cut(spec, ":")
		mc = ModelConfig{Provider: p, Model: m}
	}
	switch mc.Provider {
	case ProviderMock:
		return NewMock(spec), nil
	case ProviderOpenAI, ProviderOllama:
		return newOpenAI(spec, mc, &cfg)
	case ProviderAnthropic:
		return newAnthropic(spec, mc, &cfg)
	case "":
		return nil, errs.Errorf(errs.Invalid, "llm", "model %q: say PROVIDER:MODEL (openai:, ollama:, anthropic:, mock) or name a configured model", spec)
	}
	return nil, errs.Errorf(errs.Invalid, "llm", "model %q: unknown provider %q (openai, ollama, anthropic, mock)", spec, mc.Provider)
}

// endpoint resolves a provider's base URL and key. keyVar and baseVar
// are the provider's variables; needKey says a missing key is an error.
func endpoint(spec string, mc ModelConfig, cfg *Config, keyVar, baseVar, defBase string, needKey bool) (base, key string, err error) {
	if mc.Model == "" {
		return "", "", errs.Errorf(errs.Invalid, "llm", "model %q names no model: say %s:MODEL", spec, mc.Provider)
	}
	base = mc.BaseURL
	if base == "" && baseVar != "" {
		base, _ = cfg.lookup(baseVar)
	}
	custom := base != "" && base != defBase
	if base == "" {
		base = defBase
	}
	if mc.KeyFrom != "" || mc.APIKey != "" {
		return base, mc.APIKey, nil
	}
	v := keyVar
	if mc.APIKeyEnv != "" {
		v = mc.APIKeyEnv
	}
	key, ok := cfg.lookup(v)
	// A key is required by the provider's own endpoint and when the
	// configuration names its variable; a local compatible server
	// (llama.cpp, vLLM, LM Studio) may need none.
	if !ok && v != "" && (needKey && !custom || mc.APIKeyEnv != "") {
		return "", "", errs.Errorf(errs.Auth, spec, "no API key: set %s", v)
	}
	return base, key, nil
}
