package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests here run the adi binary as a user does, to send it signals.

// buildAdi builds the adi command into a temporary directory.
func buildAdi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "adi")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/adi")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/adi: %v\n%s", err, out)
	}
	return bin
}

// adiProc is a running adi process with its standard input a pipe.
type adiProc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *lockedBuffer
	tmp            string // its TMPDIR
	done           chan struct{}
}

// startAdi starts bin with args in the repository root, with its own TMPDIR.
func startAdi(t *testing.T, bin string, args ...string) *adiProc {
	t.Helper()
	tmp := t.TempDir()
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	p := &adiProc{t: t, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, tmp: tmp, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir = repoRoot(t)
	p.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.WaitDelay = 2 * time.Second
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting adi: %v", err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.killAll()
			<-p.done
		}
		checkNoTargets(t, tmp, "after adi ended")
	})
	return p
}

// killAll ends the adi process and the targets it started.
func (p *adiProc) killAll() {
	for _, tp := range targetProcs(p.t, p.tmp) {
		syscall.Kill(tp.pid, syscall.SIGKILL)
	}
	p.cmd.Process.Kill()
}

// waitOutput waits until the stream holds want.
func (p *adiProc) waitOutput(stream *lockedBuffer, want string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(stream.String(), want) {
		if time.Now().After(deadline) {
			p.t.Fatalf("adi did not write %q within %s; stdout:\n%s\nstderr:\n%s", want, timeout, clip(p.stdout.String()), clip(p.stderr.String()))
		}
		select {
		case <-p.done:
			if !strings.Contains(stream.String(), want) {
				p.t.Fatalf("adi ended without writing %q; stdout:\n%s\nstderr:\n%s", want, clip(p.stdout.String()), clip(p.stderr.String()))
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitTarget waits until adi has a target process running.
func (p *adiProc) waitTarget(timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for len(targetProcs(p.t, p.tmp)) == 0 {
		if time.Now().After(deadline) {
			p.t.Fatalf("no adi-target process under %s within %s; stderr:\n%s", p.tmp, timeout, clip(p.stderr.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// interrupt sends SIGINT and waits up to timeout for adi to exit; it
// reports whether it did (else it kills it and its targets).
func (p *adiProc) interrupt(timeout time.Duration) bool {
	p.t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		p.t.Fatalf("SIGINT: %v", err)
	}
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		p.t.Errorf("adi did not exit within %s of SIGINT; stdout:\n%s\nstderr:\n%s", timeout, clip(p.stdout.String()), clip(p.stderr.String()))
		p.killAll()
		<-p.done
		return false
	}
}

func TestInterrupt(t *testing.T) {
	adi := buildAdi(t)
	fib := buildFib(t)

	t.Run("while recording", func(t *testing.T) {
		p := startAdi(t, adi, "repl", "--", "go", "run", "./testdata/spin")
		p.waitOutput(p.stderr, "adi: recording go run", 2*time.Minute)
		p.waitTarget(10 * time.Second)
		time.Sleep(300 * time.Millisecond)
		if !p.interrupt(5 * time.Second) {
			return
		}
		if code := p.cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit code %d, want 130; stderr:\n%s", code, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "adi: interrupted") {
			t.Errorf("stderr does not say it was interrupted:\n%s", p.stderr.String())
		}
		checkNoTargets(t, p.tmp, "after SIGINT while recording")

		t.Run("not called a timeout", func(t *testing.T) {
			// A recording stopped by Ctrl-C does not say it hit the timeout.
			if strings.Contains(p.stderr.String(), "after the timeout") {
				t.Errorf("stderr blames the timeout for an interrupt:\n%s", p.stderr.String())
			}
		})
	})

	t.Run("at the prompt", func(t *testing.T) {
		p := startAdi(t, adi, "repl", "--", fib, "5")
		p.waitOutput(p.stdout, "inspecting main.main#1", 2*time.Minute)
		// A command first, to see the session answer before the interrupt.
		io.WriteString(p.stdin, "frames main.parseN\n")
		p.waitOutput(p.stdout, "main.parseN: 1 invocation", 30*time.Second)
		if !p.interrupt(5 * time.Second) {
			return
		}
		if code := p.cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(p.stderr.String(), "adi: interrupted") {
			t.Errorf("exit code %d, stderr:\n%s\nwant 130 and adi: interrupted", code, p.stderr.String())
		}
	})

	t.Run("while building a trace", func(t *testing.T) {
		// Ctrl-C ends a trace that is being built.
		p := startAdi(t, adi, "repl", "--timeout", "1s", "--", "go", "run", "./testdata/spin")
		io.WriteString(p.stdin, "frame\n")
		p.waitOutput(p.stdout, "inspecting main.main#1", 2*time.Minute)
		p.waitTarget(10 * time.Second)
		time.Sleep(time.Second)
		if !p.interrupt(5 * time.Second) {
			return
		}
		if code := p.cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit code %d, want 130; stderr:\n%s", code, p.stderr.String())
		}
	})
}

func TestNoOrphans(t *testing.T) {
	// runAdi checks after every session that no adi-target is left; this
	// test names the cases: a normal end by quit, by EOF, a failed build
	// and a session whose target outlives its --timeout.
	fib := buildFib(t)
	for _, c := range []struct {
		name   string
		script string
		args   []string
	}{
		{"quit", "frames main.fib\nquit\n", []string{"--", fib, "4"}},
		{"EOF", "frame main.fib#2\n", []string{"--", fib, "4"}},
		{"go test", "outcome\n", []string{"--", "go", "test", "./testdata/nilptr"}},
		{"timeout", "frames main.ready\n", []string{"--timeout", "1s", "--", "go", "run", "./testdata/spin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runRepl(t, c.script, c.args...)
			if r.Code != 0 {
				t.Errorf("exit code %d; stderr:\n%s", r.Code, r.Stderr)
			}
			if dirs, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "adi-*")); len(dirs) > 0 {
				t.Errorf("build directories left: %v", dirs)
			}
		})
	}
}
