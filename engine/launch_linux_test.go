package engine

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildSource writes a main package (and its go.mod) to a new directory,
// builds it, and returns the binary's path.
func buildSource(t *testing.T, src string) string {
	t.Helper()
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/launch\n\ngo 1.22\n", "main.go": src})
	bin := filepath.Join(dir, "prog")
	cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runToExit continues p until its process exits, and returns the status.
func runToExit(t *testing.T, p *process) int {
	t.Helper()
	grp, unlock := p.d.LockTargetGroup()
	err := grp.Continue()
	unlock()
	status, ok := exited(err)
	if !ok {
		t.Fatalf("continuing to the end: %v", err)
	}
	return status
}

// TestLaunchStreams: the target gets the program's arguments, directory,
// environment (an override wins over adi's own) and standard input, and
// its output is captured.
func TestLaunchStreams(t *testing.T) {
	bin := buildSource(t, `package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	in, _ := io.ReadAll(os.Stdin)
	wd, _ := os.Getwd()
	fmt.Printf("args %q env %q stdin %q\n", os.Args[1:], os.Getenv("ADI_LAUNCH_TEST"), in)
	fmt.Fprintf(os.Stderr, "wd %s\n", wd)
	os.Exit(3)
}
`)
	t.Setenv("ADI_LAUNCH_TEST", "adi's own")
	dir := t.TempDir()
	stdin := filepath.Join(dir, "stdin")
	if err := os.WriteFile(stdin, []byte("some input"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := &Program{Path: bin, Args: []string{"a b", "c"}, Dir: dir, Env: []string{"ADI_LAUNCH_TEST=the program's"}, Stdin: stdin}
	p, err := launch(prog, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	if status := runToExit(t, p); status != 3 {
		t.Errorf("exit status %d, want 3", status)
	}
	p.kill()
	if got, want := p.stdout.String(), `args ["a b" "c"] env "the program's" stdin "some input"`+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got, want := p.stderr.String(), "wd "+dir+"\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}

	// Without Stdin the target reads nothing.
	prog.Stdin = ""
	p, err = launch(prog, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	runToExit(t, p)
	p.kill()
	if got := p.stdout.String(); !strings.Contains(got, `stdin ""`) {
		t.Errorf("stdout %q without Stdin, want an empty standard input", got)
	}
}

// TestLaunchKillEndsGroup: killing a target stopped under Delve ends it and
// the processes it started, and reaps it; a missing binary is an error
// that leaves nothing behind.
func TestLaunchKillEndsGroup(t *testing.T) {
	bin := buildSource(t, `package main

import (
	"os"
	"os/exec"
	"strconv"
)

//go:noinline
func started(pid int) {}

func main() {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	os.WriteFile(os.Args[1], []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	started(cmd.Process.Pid)
	cmd.Wait()
}
`)
	pidFile := filepath.Join(t.TempDir(), "pid")
	p, err := launch(&Program{Path: bin, Args: []string{pidFile}}, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	if _, err := p.setFuncBreakpoint("main.started"); err != nil {
		t.Fatal(err)
	}
	grp, unlock := p.d.LockTargetGroup()
	err = grp.Continue()
	unlock()
	if err != nil {
		t.Fatalf("continuing to main.started: %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !running(child) {
		t.Fatalf("the target's child %d is not running before the kill", child)
	}
	p.kill()
	if _, err := syscall.Wait4(p.pid, nil, syscall.WNOHANG, nil); !errors.Is(err, syscall.ECHILD) {
		t.Errorf("the target %d is not reaped after the kill: wait4 says %v", p.pid, err)
	}
	// The child, killed with its group, is reaped by whoever adopted it.
	for deadline := time.Now().Add(10 * time.Second); running(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the target's child %d still runs 10 s after the kill", child)
		}
	}

	if _, err := launch(&Program{Path: filepath.Join(t.TempDir(), "missing")}, 1<<20, nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("launching a missing binary: %v, want no such file", err)
	}
}

// TestLaunchEndsWithAdi: a target stopped under Delve does not outlive an
// adi killed outright. Its process group, orphaned then with a process
// stopped in it (the stop startStopped began it with), gets SIGHUP and
// SIGCONT from the kernel.
func TestLaunchEndsWithAdi(t *testing.T) {
	if bin := os.Getenv("ADI_TEST_LAUNCH_HOLD"); bin != "" {
		// The adi side, in a process of its own: launch, say the pid,
		// wait to be killed.
		p, err := launch(&Program{Path: bin}, 1<<20, nil)
		if err != nil {
			os.Stdout.WriteString("ERROR " + err.Error() + "\n")
			return
		}
		os.Stdout.WriteString("PID " + strconv.Itoa(p.pid) + "\n")
		time.Sleep(time.Minute)
		return
	}
	bin := buildSource(t, "package main\n\nimport \"time\"\n\nfunc main() {\n\tfor {\n\t\ttime.Sleep(time.Second)\n\t}\n}\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLaunchEndsWithAdi$")
	cmd.Env = append(os.Environ(), "ADI_TEST_LAUNCH_HOLD="+bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := 0
	for sc := bufio.NewScanner(out); pid == 0 && sc.Scan(); {
		if s, ok := strings.CutPrefix(sc.Text(), "PID "); ok {
			pid, _ = strconv.Atoi(s)
		} else if strings.HasPrefix(sc.Text(), "ERROR ") {
			t.Fatal(sc.Text())
		}
	}
	if pid == 0 || !running(pid) {
		t.Fatalf("no target running under the helper (pid %d)", pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the target %d still runs 10 s after adi was killed", pid)
		}
	}
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
