package offline

import (
	"errors"
)

// ErrPassed is returned by Diagnose when the recorded run did not fail:
// there is nothing to diagnose.
var ErrPassed = errors.New("the target passed: nothing to diagnose")
