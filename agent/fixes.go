package agent

import (
	"context"

	"github.com/adi-go/adi/agent/verify"
)

// VerifyOptions configure Verify.
type VerifyOptions = verify.Options

// Verify checks a fix by applying diff to overlay copies of the files and
// re-running the target and its package's tests (see verify.Fix).
func Verify(ctx context.Context, t Target, diff string, o VerifyOptions) (*Verification, error) {
	return verify.Fix(ctx, t, diff, o)
}

// Apply writes the verified fix of diag to the user's files and returns
// the files it changed (see verify.Apply).
func Apply(ctx context.Context, t Target, diag *Diagnosis) ([]string, error) {
	return verify.Apply(ctx, t, diag)
}
