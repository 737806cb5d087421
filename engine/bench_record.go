package engine

import (
	"context"
	"fmt"

	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// InstrumentedBuild is a target built with the instrumenting recorder's
// entry and exit hooks, kept apart from recording it so that adi bench can
// time the build and each recording separately (Open does both).
type InstrumentedBuild struct {
	in   *instrumented
	work string
	// Notes list what the instrumenter left uninstrumented.
	Notes []string
}

// BuildInstrumented rewrites the sources of spec's target into work (a
// directory the caller removes) and builds it with hooks, for recordings
// that keep up to maxFrames frames (0: the default limit). It returns once
// the binary's symbols and inline trees are read too (every recording of
// the build uses them): their time is the build's, not a recording's.
func BuildInstrumented(ctx context.Context, spec *target.Spec, work string, maxFrames int) (*InstrumentedBuild, error) {
	in, err := buildInstrumented(ctx, spec, work, maxFrames)
	if err != nil {
		return nil, err
	}
	if _, err := in.symbols(); err != nil {
		return nil, fmt.Errorf("reading the instrumented binary's symbols: %w", err)
	}
	in.inlineTrees()
	return &InstrumentedBuild{in: in, work: work, Notes: in.notes}, nil
}

// Record runs the instrumented binary natively, with the arguments,
// directory and environment of prog, and indexes the run.
func (b *InstrumentedBuild) Record(ctx context.Context, prog *Program, opts RecordOptions) (*trace.Recording, error) {
	return recordInstrumented(ctx, b.in, prog, b.work, opts)
}

// ValueBytes is what the argument and result values of rec take in memory
// (adi bench and the index memory benchmark report it apart from the index
// itself).
func ValueBytes(rec *trace.Recording) float64 { return float64(rec.ValueBytes()) }
