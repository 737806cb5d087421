package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/report"
)

// Config configures the LLM agent: the OpenAI-compatible endpoint, the
// model, and the budgets of one answer. The zero values of the budgets
// take the defaults below. APIKey is sent only in the Authorization header
// of the requests to BaseURL; it is never logged, put in an event, an error
// or a diagnosis, and String and GoString mask it.
type Config struct {
	// Model is the model name the endpoint knows ("gpt-4.1",
	// "qwen2.5-coder:14b", …).
	Model string
	// BaseURL is the endpoint up to and including its version path
	// ("https://api.openai.com/v1", "http://localhost:11434/v1"); a URL
	// with no path gets "/v1".
	BaseURL string
	// APIKey may be "" for a local server that wants none.
	APIKey string `json:"-"`

	// MaxRounds bounds the model's turns (requests) per question
	// (default 20).
	MaxRounds int
	// MaxTokens bounds the prompt plus completion tokens per question
	// (default 300,000), as the endpoint reports them (estimated at 4 bytes
	// a token when it reports none).
	MaxTokens int
	// Timeout bounds the wall time of one question, tools included, but not
	// the verification of the fix (default 10m).
	Timeout time.Duration
	// MaxToolResult caps each tool result sent to the model, in bytes
	// (default 8 KiB); what is cut is replaced by a marker saying so.
	MaxToolResult int
	// AllowCalls lets the model's execute call functions; without it an
	// expression may call only len and cap (and convert types).
	AllowCalls bool
	// MaxRetries bounds the retries of one request after a 429, a 5xx or a
	// dropped stream (default 4; negative: none). RetryDelay is the first
	// backoff (default 1s), doubled on each retry; a Retry-After header is
	// honoured up to 30s.
	MaxRetries int
	RetryDelay time.Duration
	// MaxFixAttempts bounds how often the model may call finish again after
	// its fix failed verification (default 2 attempts in all).
	MaxFixAttempts int
	// RedactPatterns are extra regular expressions whose matches are
	// replaced by [REDACTED] in everything sent to the model; NoDefaultRedaction
	// drops the built-in ones (API keys, bearer tokens, passwords, private
	// key blocks). The API key itself is always redacted.
	RedactPatterns     []string
	NoDefaultRedaction bool
	// Hints is the offline diagnosis to seed the first message with; nil
	// runs offline.Diagnose first.
	Hints *report.Diagnosis `json:"-"`
	// HTTPClient sends the requests (default: a client without timeout; the
	// budgets bound the time).
	HTTPClient *http.Client `json:"-"`
}

// The defaults of Config's budgets.
const (
	DefaultMaxRounds     = 20
	DefaultMaxTokens     = 300_000
	DefaultTimeout       = 10 * time.Minute
	DefaultMaxToolResult = 8 << 10
	defaultMaxRetries    = 4
	defaultRetryDelay    = time.Second
	defaultFixAttempts   = 2
	// OpenAIBaseURL is the endpoint used when only a model and a key are
	// configured.
	OpenAIBaseURL = "https://api.openai.com/v1"
)

// withDefaults fills the zero budgets.
func (c Config) withDefaults() Config {
	if c.MaxRounds <= 0 {
		c.MaxRounds = DefaultMaxRounds
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxToolResult <= 0 {
		c.MaxToolResult = DefaultMaxToolResult
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = defaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = defaultRetryDelay
	}
	if c.MaxFixAttempts <= 0 {
		c.MaxFixAttempts = defaultFixAttempts
	}
	if c.BaseURL == "" {
		c.BaseURL = OpenAIBaseURL
	}
	c.BaseURL = normalizeBaseURL(c.BaseURL)
	return c
}

// String describes the configuration with the key masked.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model %s at %s (API key %s)", c.Model, chat.SafeURL(c.BaseURL), key)
}

// GoString is String, so that %#v does not print the key either.
func (c Config) GoString() string { return "agent.LLMConfig{" + c.String() + "}" }

// ErrNoModel is returned by ConfigFromEnv when no model is configured: the
// caller uses the offline diagnoser.
var ErrNoModel = errors.New("no LLM configured (set ADI_LLM_MODEL or --model, and ADI_LLM_API_KEY or OPENAI_API_KEY, or ADI_LLM_BASE_URL for a local server)")

// ConfigFromEnv builds the endpoint configuration from flags and the
// environment: model and baseURL are the flags ("" when not given), which
// win over ADI_LLM_MODEL and ADI_LLM_BASE_URL; the key is ADI_LLM_API_KEY,
// else OPENAI_API_KEY. Without a model it returns ErrNoModel. A model with
// neither a key nor a base URL is an error (OpenAI needs a key); a base URL
// without a key is allowed (Ollama, llama.cpp and LM Studio want none). The
// budgets are left zero (the defaults).
func ConfigFromEnv(model, baseURL string) (Config, error) {
	if model == "" {
		model = strings.TrimSpace(os.Getenv("ADI_LLM_MODEL"))
	}
	if baseURL == "" {
		baseURL = strings.TrimSpace(os.Getenv("ADI_LLM_BASE_URL"))
	}
	key := strings.TrimSpace(os.Getenv("ADI_LLM_API_KEY"))
	if key == "" {
		key = strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
	}
	if model == "" {
		return Config{}, ErrNoModel
	}
	if key == "" && baseURL == "" {
		return Config{}, fmt.Errorf("the model %q is asked for but there is no API key (set ADI_LLM_API_KEY or OPENAI_API_KEY) and no base URL of a local server (set --base-url or ADI_LLM_BASE_URL, e.g. http://localhost:11434/v1 for Ollama)", model)
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Config{}, fmt.Errorf("the base URL %q is not an http:// or https:// URL", chat.SafeURL(baseURL))
		}
	} else {
		baseURL = OpenAIBaseURL
	}
	return Config{Model: model, BaseURL: normalizeBaseURL(baseURL), APIKey: key}, nil
}

// normalizeBaseURL adds "/v1" to a URL without a path (the OpenAI-compatible
// servers all serve under it) and drops a trailing slash.
func normalizeBaseURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	return strings.TrimRight(u.String(), "/")
}
