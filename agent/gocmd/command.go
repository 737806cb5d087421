package gocmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/adi-go/adi/engine/target"
)

// Result is the outcome of one external command.
type Result struct {
	// Line is the command as a person would type it.
	Line string
	// Code is the exit code (-1 when it did not start or was killed).
	Code int
	// Output is what it wrote to stdout and stderr, interleaved; Stdout
	// what it wrote to stdout alone (for output to parse, such as go
	// list's JSON, which a warning on stderr would break).
	Output, Stdout string
	// TimedOut is set when the timeout (not the caller) stopped it.
	TimedOut bool
	Err      error
}

// OK reports whether the command ran and exited 0.
func (r *Result) OK() bool { return r.Err == nil && r.Code == 0 }

// Run runs argv in dir with env added to adi's environment, bounded by
// timeout, and collects its combined output. The command runs in its own
// process group, which is killed when ctx ends or the time is up, so no
// test binary outlives it.
func Run(ctx context.Context, dir string, env []string, timeout time.Duration, argv ...string) *Result {
	return RunStdin(ctx, dir, env, "", timeout, argv...)
}

// RunStdin is Run with standard input read from the file stdin ("":
// empty input).
func RunStdin(ctx context.Context, dir string, env []string, stdin string, timeout time.Duration, argv ...string) *Result {
	res := &Result{Line: JoinArgs(argv), Code: -1}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			res.Err = err
			return res
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var out, stdout bytes.Buffer
	both := &lockedWriter{w: &out}
	cmd.Stdout = io.MultiWriter(both, &stdout)
	cmd.Stderr = both
	cmd.WaitDelay = 5 * time.Second
	target.KillGroupOnCancel(cmd)
	err := cmd.Run()
	res.Output, res.Stdout = out.String(), stdout.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.Err = ctx.Err()
		res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		res.Err = err
	default:
		res.Code = 0
	}
	return res
}

// JoinArgs quotes a command line for display, as a shell would need it.
func JoinArgs(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// Tail returns the last n lines of s (all of it when shorter), capped at
// max bytes, with a marker when something was cut.
func Tail(s string, n, max int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	cut := false
	if len(lines) > n {
		lines = lines[len(lines)-n:]
		cut = true
	}
	out := strings.Join(lines, "\n")
	if len(out) > max {
		out = out[len(out)-max:]
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
		cut = true
	}
	if cut {
		out = "…\n" + out
	}
	return out
}

// lockedWriter is a writer for the two goroutines that copy a command's
// stdout and stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
