//go:build !unix

package target

import "os/exec"

// killGroupOnCancel leaves cmd as it is: exec.CommandContext already kills
// the go command when the context is cancelled.
func killGroupOnCancel(cmd *exec.Cmd) {}
