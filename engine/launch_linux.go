package engine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// startStopped starts prog in a process group of its own with the given
// standard streams and returns its pid once it is stopped (SIGSTOP) right
// after its exec, before its first instruction, and not traced: Delve
// attaches to it then (see launch).
//
// Delve's own launch waits for the exec by polling, and the first poll
// comes before the exec has ended most of the time on a slow machine:
// 200 ms lost on each launch. Attaching to a process already stopped does
// not wait: the kernel has it stopped for its tracer before PTRACE_ATTACH
// returns.
func startStopped(prog *Program, stdin, stdout, stderr *os.File) (int, error) {
	// The path and the environment as os/exec makes them: a bare name is
	// looked up in $PATH, the overrides win, PWD follows the directory.
	cmd := exec.Command(prog.Path)
	if cmd.Err != nil {
		return 0, cmd.Err
	}
	cmd.Dir = prog.Dir
	cmd.Env = append(os.Environ(), prog.Env...)
	env := cmd.Environ()

	// The thread that forks is the tracer until the exec has stopped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, err := syscall.ForkExec(cmd.Path, append([]string{prog.Path}, prog.Args...), &syscall.ProcAttr{
		Dir:   prog.Dir,
		Env:   env,
		Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys:   &syscall.SysProcAttr{Ptrace: true, Setpgid: true},
	})
	if err != nil {
		return 0, err
	}
	fail := func(err error) (int, error) {
		syscall.Kill(-pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		wait4(pid, &ws, unix.WALL)
		return 0, err
	}
	var ws syscall.WaitStatus
	if _, err := wait4(pid, &ws, unix.WALL); err != nil {
		return fail(err)
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return fail(fmt.Errorf("the process did not stop at its exec (status %#x)", uint32(ws)))
	}
	// Detached with SIGSTOP, it stops for good (a group stop) before it
	// runs an instruction of its own.
	if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, uintptr(syscall.SIGSTOP), 0, 0); e != 0 {
		return fail(fmt.Errorf("detaching from the process: %w", e))
	}
	if _, err := wait4(pid, &ws, syscall.WUNTRACED); err != nil {
		return fail(err)
	}
	if !ws.Stopped() {
		return fail(fmt.Errorf("the process did not stop after its exec (status %#x)", uint32(ws)))
	}
	return pid, nil
}

// wait4 is syscall.Wait4 for one process, again when a signal interrupts it.
func wait4(pid int, ws *syscall.WaitStatus, options int) (int, error) {
	for {
		wpid, err := syscall.Wait4(pid, ws, options, nil)
		if !errors.Is(err, syscall.EINTR) {
			return wpid, err
		}
	}
}

// killGroup ends the process group of pid, which startStopped started,
// and reaps pid, unless pid was reaped already (by Delve, when the process
// exited under it): its number may then be another process's.
func killGroup(pid int) {
	var info unix.Siginfo
	// WNOWAIT: a zombie stays one, and its number stays taken.
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
		return
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	wait4(pid, &ws, 0)
}
