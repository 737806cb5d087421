//go:build !unix

package agent

import "os/exec"

// killGroupOnCancel leaves exec's default: the command itself is killed.
func killGroupOnCancel(cmd *exec.Cmd) {}
