//go:build unix

package gocmd

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs cmd in its own process group and makes the end of
// its context kill the whole group (the go command and what it started).
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
