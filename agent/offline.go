package agent

import (
	"context"

	"github.com/adi-go/adi/agent/offline"
)

// Options configure Diagnose and the LLM agent (see offline.Options).
type Options = offline.Options

// ErrPassed is returned by Diagnose and the LLM agent when the recorded
// run did not fail: there is nothing to diagnose.
var ErrPassed = offline.ErrPassed

// Diagnose runs the offline diagnoser on a recorded failing run (see
// offline.Diagnose). It returns ErrPassed when the run did not fail.
func Diagnose(ctx context.Context, dbg Debugger, opts Options) (*Diagnosis, error) {
	return offline.Diagnose(ctx, dbg, opts)
}
