package llm

import (
	"context"

	"github.com/adi-go/adi/agent/offline"
	"github.com/adi-go/adi/engine"
)

// Debugger is what the LLM agent uses of an engine session: what the
// offline diagnoser uses (for the hints), and the command language its
// tools speak. It never reaches around it (DESIGN.md §4).
type Debugger interface {
	offline.Debugger
	// Exec runs one line of the command language ("frame main.fib#3").
	Exec(ctx context.Context, line string) (*engine.Answer, error)
}

// The engine's session is the Debugger.
var _ Debugger = (*engine.Session)(nil)
