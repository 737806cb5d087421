package agent

import (
	"errors"
	"fmt"

	"github.com/adi-go/adi/agent/report"
)

// ErrPassed is returned by Diagnose when the recorded run did not fail:
// there is nothing to diagnose.
var ErrPassed = errors.New("the target passed: nothing to diagnose")

// NotVerifiedError is returned by Apply for a fix whose verification did
// not pass: adi writes only fixes that passed.
type NotVerifiedError struct {
	Status report.Status
}

// Error says why the fix was not applied.
func (e *NotVerifiedError) Error() string {
	if e.Status == "" || e.Status == report.NotRun {
		return "the fix was not verified; adi applies only fixes that passed verification"
	}
	return fmt.Sprintf("the fix's verification %s; adi applies only fixes that passed", statusPhrase(e.Status))
}

// statusPhrase says a verification status in words.
func statusPhrase(s report.Status) string {
	switch s {
	case report.Passed:
		return "passed"
	case report.Failed:
		return "failed"
	case report.DoesNotApply:
		return "found that the diff does not apply"
	case report.DoesNotBuild:
		return "found that the fixed code does not build"
	}
	return "was not run"
}
