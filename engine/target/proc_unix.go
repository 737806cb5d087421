//go:build unix

package target

import (
	"os/exec"
	"syscall"
)

// KillGroupOnCancel makes cmd run in its own process group and makes the
// cancellation of its context kill the whole group: the go command and the
// compilers and linkers it started.
func KillGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
