//go:build !unix

package gocmd

import "os/exec"

// killGroupOnCancel leaves exec's default: the command itself is killed.
func killGroupOnCancel(cmd *exec.Cmd) {}
