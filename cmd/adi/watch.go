package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/adi-go/adi/agent"
	"github.com/adi-go/adi/engine"
)

// watchMain is "adi watch": record and diagnose the target, then again each
// time a .go file of its module is saved, saying when it passes. It runs
// until interrupted (exit code 0), or exits 2 on usage errors and 1 when
// the module cannot be watched.
func watchMain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	debounce := fs.Duration("debounce", agent.DefaultDebounce, "wait this long after a save for the burst of saves to end")
	noVerify := fs.Bool("no-verify", false, "propose fixes without re-running the tests with them")
	opts := engineFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: adi watch [flags] -- TARGET

Records TARGET and diagnoses its failure as adi diagnose does, then watches
the .go files of its module: each time one is saved, TARGET is built and
recorded again and re-diagnosed if it still fails, or reported as passing.
Ctrl-C stops watching. TARGET is a go test or go run command.

flags:
`)
		fs.PrintDefaults()
	}
	targetArgs, code, ok := parseWithTarget(fs, args, stderr)
	if !ok {
		return code
	}
	if targetArgs[0] != "go" {
		fmt.Fprintf(stderr, "adi: adi watch rebuilds the target after each save: write the go test or go run command, not the binary %q\n", targetArgs[0])
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	target := agent.Target{Argv: targetArgs, Dir: dir, Env: opts.Env}
	root, err := agent.TargetRoot(ctx, target)
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	w, err := agent.Watch(root, agent.WatchOptions{Debounce: *debounce, Log: logf})
	if err != nil {
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	defer w.Close()
	dirs := fmt.Sprintf("%d directories", w.Dirs())
	if w.Dirs() == 1 {
		dirs = "1 directory"
	}
	fmt.Fprintf(stderr, "adi: watching the .go files of %s (%s); Ctrl-C to stop\n", root, dirs)

	wr := &watchRun{stdout: stdout, stderr: stderr, logf: logf, target: target, opts: *opts, noVerify: *noVerify,
		command: strings.Join(targetArgs, " ")}
	wr.opts.Log = logf
	for {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			wr.cycle(cctx)
		}()
		var change agent.Change
		var ok, running = true, true
		select {
		case <-ctx.Done():
		case <-done:
			running = false
			fmt.Fprintln(stderr, "adi: waiting for a save; Ctrl-C to stop")
			select {
			case <-ctx.Done():
			case change, ok = <-w.Changes():
			}
		case change, ok = <-w.Changes():
		}
		// A save during a run makes it stale: stop it and start again.
		cancel()
		<-done
		if ctx.Err() != nil || !ok {
			fmt.Fprintln(stderr, "adi: stopped watching")
			return 0
		}
		what := "files changed"
		if len(change.Files) > 0 {
			what = "saved " + strings.Join(relPaths(root, change.Files), ", ")
		}
		if running {
			what += " during the run: starting again"
		}
		fmt.Fprintf(stdout, "\nadi watch: %s; running %s again\n", what, wr.command)
	}
}

// watchRun is what each cycle of adi watch does.
type watchRun struct {
	stdout, stderr io.Writer
	logf           func(string, ...any)
	target         agent.Target
	opts           engine.Options
	noVerify       bool
	command        string
}

// cycle builds, records and diagnoses the target once. A cancelled cycle
// (a newer save, Ctrl-C) prints nothing more; its processes are ended and
// its build removed before it returns.
func (wr *watchRun) cycle(ctx context.Context) {
	sess, err := engine.Open(ctx, wr.target.Argv, wr.target.Dir, wr.opts)
	if ctx.Err() != nil {
		if sess != nil {
			sess.Close()
		}
		return
	}
	if err != nil {
		// A build failure is what the user wants to see after a save.
		fmt.Fprintf(wr.stdout, "adi watch: %s cannot be recorded:\n%s\n", wr.command, strings.TrimRight(err.Error(), "\n"))
		return
	}
	defer sess.Close()
	diag, err := agent.Diagnose(ctx, sess, agent.Options{
		Target: wr.target, NoVerify: wr.noVerify, CommandTimeout: wr.opts.ExecTimeout, Log: wr.logf,
	})
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, agent.ErrPassed):
		fmt.Fprintf(wr.stdout, "adi watch: %s passes\n", wr.command)
	case err != nil:
		fmt.Fprintf(wr.stdout, "adi watch: %s fails; diagnosing it failed: %v\n", wr.command, err)
	default:
		fmt.Fprintf(wr.stdout, "adi watch: %s fails\n%s", wr.command, diag.Text())
	}
}

// relPaths shows files relative to the watched root.
func relPaths(root string, files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		if r, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(r, "..") {
			f = filepath.ToSlash(r)
		}
		out[i] = f
	}
	return out
}
