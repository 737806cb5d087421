//go:build !unix

package target

import "os/exec"

// KillGroupOnCancel leaves cmd as it is: exec.CommandContext already kills
// the go command when the context is cancelled.
func KillGroupOnCancel(cmd *exec.Cmd) {}
