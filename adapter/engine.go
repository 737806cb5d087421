package adapter

import (
	"context"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// Debuggee is what the adapter needs of a recorded run: the engine's
// session, seen through the methods the handlers use.
type Debuggee interface {
	Recording() *trace.Recording
	Current() *trace.Frame
	Breakpoints() []engine.Breakpoint
	Break(fn, cond string) (int, error)
	Clear(fn, cond string) (int, error)
	FirstMatch() (*trace.Frame, bool)
	Continue(ctx context.Context) (*engine.Nav, error)
	Prev(ctx context.Context) (*engine.Nav, error)
	StepInto(ctx context.Context, fid trace.FID) (*engine.Nav, error)
	StepOut(ctx context.Context) (*engine.Nav, error)
	FLT(ctx context.Context, f *trace.Frame) (*trace.FLT, error)
	Frame(ctx context.Context, fid trace.FID) (*trace.FLT, error)
	Frames(fn string) ([]*trace.Frame, error)
	CallTree(fid trace.FID) (*trace.Frame, error)
	Execute(ctx context.Context, fid trace.FID, line, k int, stmt string) (*engine.ExecResult, error)
	ResolveFunc(fn string) string
	// Exec runs a line of the engine's command language (the ADI
	// commands as custom requests).
	Exec(ctx context.Context, line string) (*engine.Answer, error)
	Close() error
}

var _ Debuggee = (*engine.Session)(nil)

// Opener builds and records a target given as a command line and returns
// the session over it; engine.Open is the real one.
type Opener func(ctx context.Context, argv []string, dir string, opts engine.Options) (Debuggee, error)

// OpenEngine is the Opener that records with the engine.
func OpenEngine(ctx context.Context, argv []string, dir string, opts engine.Options) (Debuggee, error) {
	s, err := engine.Open(ctx, argv, dir, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}
