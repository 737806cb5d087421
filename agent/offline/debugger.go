package offline

import (
	"context"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// Debugger is what the offline diagnoser uses of an engine session: the
// recording, Frame Lifetime Traces and re-execution. It never reaches
// around it (DESIGN.md §4).
type Debugger interface {
	// Recording returns T, the recorded frames and the run's outcome.
	Recording() *trace.Recording
	// Program returns the recorded program (its environment is reused for
	// coverage and verification runs).
	Program() *engine.Program
	// FLT returns the trace of frame f, built on first use.
	FLT(ctx context.Context, f *trace.Frame) (*trace.FLT, error)
	// FLTUntil returns the trace of frame f up to and with the first
	// statement until accepts (all of it if none is).
	FLTUntil(ctx context.Context, f *trace.Frame, until engine.Until) (*trace.FLT, error)
	// FLTAll returns the trace of frame f with every loop iteration kept,
	// built anew.
	FLTAll(ctx context.Context, f *trace.Frame) (*trace.FLT, error)
	// Execute evaluates stmt at the k-th visit of line in frame fid.
	Execute(ctx context.Context, fid trace.FID, line, k int, stmt string) (*engine.ExecResult, error)
}

// The engine's session is the Debugger.
var _ Debugger = (*engine.Session)(nil)
