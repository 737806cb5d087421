package agent

import (
	"context"

	"github.com/adi-go/adi/agent/gocmd"
)

// Target is the command line that was recorded and the directory it was
// given in; see package gocmd.
type Target = gocmd.Target

// TargetRoot returns the module root of a target's package: the directory
// adi watch and the DAP server watch.
func TargetRoot(ctx context.Context, t Target) (string, error) { return gocmd.TargetRoot(ctx, t) }

// ModuleRoot returns the directory of the go.mod that governs dir.
func ModuleRoot(dir string) (string, error) { return gocmd.ModuleRoot(dir) }
