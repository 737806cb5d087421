package agent

import (
	"context"

	"github.com/adi-go/adi/agent/llm"
)

// LLMConfig is the model endpoint and the budgets of the LLM agent (see
// llm.Config).
type LLMConfig = llm.Config

// ErrNoLLM is returned when no model is configured: use Diagnose.
var ErrNoLLM = llm.ErrNoModel

// The defaults of LLMConfig's budgets.
const (
	DefaultMaxRounds  = llm.DefaultMaxRounds
	DefaultMaxTokens  = llm.DefaultMaxTokens
	DefaultLLMTimeout = llm.DefaultTimeout
)

// ConfigFromEnv builds the LLM configuration from flags and the
// environment (see llm.ConfigFromEnv).
func ConfigFromEnv(model, baseURL string) (LLMConfig, error) {
	return llm.ConfigFromEnv(model, baseURL)
}

// Conversation is a dialogue between the model and adi about one
// recording (see llm.Conversation).
type Conversation = llm.Conversation

// Converse starts the LLM agent on a recorded failing run and returns
// after its first diagnosis (see llm.Converse).
func Converse(ctx context.Context, dbg Debugger, cfg LLMConfig, opts Options, emit Emit) (*Conversation, error) {
	return llm.Converse(ctx, dbg, cfg, opts, emit)
}

// NewConversation prepares a conversation without calling the model (see
// llm.NewConversation).
func NewConversation(ctx context.Context, dbg Debugger, cfg LLMConfig, opts Options) (*Conversation, error) {
	return llm.NewConversation(ctx, dbg, cfg, opts)
}
