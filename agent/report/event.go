package report

import "encoding/json"

// EventKind names what an Event carries. They are the kinds of the DAP
// adapter's adi/agent events.
type EventKind string

const (
	EventText       EventKind = "text"       // a delta of the agent's prose
	EventToolCall   EventKind = "toolCall"   // the agent calls an ADI command
	EventToolResult EventKind = "toolResult" // the command's (capped) answer
	EventDiagnosis  EventKind = "diagnosis"  // the final diagnosis
	EventError      EventKind = "error"      // what went wrong; the stream ends
	EventUsage      EventKind = "usage"      // rounds and tokens, at the end
)

// Event is one piece of a diagnosis as it is produced, for a terminal or an
// editor to show while the agent works. Nothing secret is ever put in one.
type Event struct {
	Kind EventKind `json:"kind"`
	// Text is the delta (text), the progress line, or the error message.
	Text string `json:"text,omitempty"`
	// Tool, Args and ID describe a tool call; Result is its answer.
	Tool   string          `json:"tool,omitempty"`
	ID     string          `json:"id,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Result string          `json:"result,omitempty"`
	// Diagnosis is set on the diagnosis event.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
	// Usage is set on the usage event.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is what a diagnosis cost.
type Usage struct {
	Rounds           int `json:"rounds"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Emit receives events; nil discards them.
type Emit func(Event)
