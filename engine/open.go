package engine

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// RecorderKind chooses how Open records the index of a run.
type RecorderKind string

const (
	// RecorderAuto is the instrumenting recorder when the target is built
	// from source, the Delve recorder for a prebuilt binary.
	RecorderAuto RecorderKind = ""
	// RecorderDelve stops at every entry and return of a user function
	// under Delve (slow, needs no source: the reference recorder).
	RecorderDelve RecorderKind = "delve"
	// RecorderInstrument builds the target with entry and exit hooks
	// inserted into a copy of its source and records at near-native speed.
	RecorderInstrument RecorderKind = "instrument"
)

// Options configure Open.
type Options struct {
	Limits Limits
	// Recorder chooses the recorder (RecorderAuto: the fastest available).
	Recorder RecorderKind
	// Trace adds library functions matching these patterns to the index.
	Trace []string
	// Timeout bounds the recorded run (0: none).
	Timeout time.Duration
	// ExecTimeout bounds each re-execution for an FLT or execute.
	ExecTimeout time.Duration
	// Env adds "K=V" variables to the target's environment.
	Env []string
	// Stdin is a file the target reads as standard input ("": empty).
	Stdin string
	// Output receives the target's output as it runs (nil: only captured).
	Output OutputFunc
	// Log receives progress lines for a person (nil: none).
	Log func(format string, args ...any)
}

// Open builds the target given as a command line (go test …, go run …, or
// a binary and its arguments, as after "--"), records one run of it and
// returns a session inspecting the frame where it failed. dir is the
// directory the command line is relative to. Close the session to remove
// the build.
func Open(ctx context.Context, argv []string, dir string, opts Options) (*Session, error) {
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	spec, err := target.Parse(argv, dir)
	if err != nil {
		return nil, err
	}
	for _, n := range spec.Notes {
		logf("adi: %s", n)
	}
	work, err := os.MkdirTemp("", "adi-")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(work)
		}
	}()
	if spec.Kind != target.Exec {
		logf("adi: building %s with -gcflags=all=-N -l", spec.Package)
	}
	pre, err := startInstrumentedBuild(ctx, spec, work, opts, logf)
	if err != nil {
		return nil, err
	}
	defer pre.wait()
	built, err := buildDebug(ctx, spec, work, pre, logf)
	if err != nil {
		return nil, err
	}
	prog := &Program{
		Path: built.Path, Args: built.Args, Dir: built.Dir,
		Env: opts.Env, Stdin: opts.Stdin, ModulePath: built.ModulePath,
	}
	var times RecordTimes
	ropts := RecordOptions{
		Limits: opts.Limits, Trace: opts.Trace, Timeout: opts.Timeout, Output: opts.Output,
		Progress: func(n int) { logf("adi: %d frames…", n) },
		Times:    &times,
	}
	recorded := func(rec *trace.Recording, start time.Time) {
		logf("adi: recorded %d frames of %d functions in %s; exit code %d", rec.Len(), len(rec.Funcs()), time.Since(start).Round(time.Millisecond), rec.Outcome.ExitCode)
		if times.Waited >= time.Second {
			logf("adi: the target's goroutines waited %s in all for adi to read their records (they wrote them faster than adi's index reads them; the record file stays below %d MB)",
				times.Waited.Round(time.Millisecond), waitRecordFile>>20)
		}
		times = RecordTimes{}
		if rec.Partial != "" {
			logf("adi: partial recording: %s", rec.Partial)
		}
	}
	start := time.Now()
	rec, err := recordTarget(ctx, spec, prog, work, pre, ropts, logf)
	if err != nil {
		return nil, err
	}
	recorded(rec, start)
	if args, run, ok := onlyFailed(spec, prog.Args, rec); ok {
		// The frames of the failed tests are the evidence, and a limit may
		// have left them out (the recorders keep the first frames): the
		// failed tests alone, recorded again, most often fit.
		logf("adi: recording the failed tests alone (-run %s), since the limit left frames out", run)
		again := *prog
		again.Args = args
		start := time.Now()
		// Quiet: the build's notes were said.
		rec2, err := recordTarget(ctx, spec, &again, work, pre, ropts, func(string, ...any) {})
		switch {
		case err != nil:
			logf("adi: recording the failed tests alone failed (%v): keeping the whole run", err)
		case !failsAgain(rec, rec2):
			logf("adi: the failed tests pass when run alone: keeping the whole run")
		default:
			recorded(rec2, start)
			rec, prog = rec2, &again
		}
	}
	s := NewSession(rec, prog, opts.Limits, opts.ExecTimeout)
	s.workDir = work
	if _, replace, err := target.SplitOverlay(spec.BuildFlags, spec.Dir); err == nil && replace != nil {
		// The lines shown are those the program was built from (the
		// builds read the same overlay, so it reads here too).
		s.src.Overlay(replace)
	}
	ok = true
	return s, nil
}

// Close removes the session's build.
func (s *Session) Close() error {
	if s.workDir == "" {
		return nil
	}
	return os.RemoveAll(s.workDir)
}

func describe(s *target.Spec) string {
	switch s.Kind {
	case target.Exec:
		return s.Binary
	default:
		return fmt.Sprintf("go %s %s", s.Kind, s.Package)
	}
}

// onlyFailed returns the arguments of a test binary that run the top-level
// tests that failed in rec, and the -run pattern that selects them, when a
// limit of the recorder left frames of rec out: ok is false when there is
// nothing to narrow (not a test, nothing left out, no test failed, or args
// run those tests only already).
func onlyFailed(spec *target.Spec, args []string, rec *trace.Recording) (_ []string, run string, ok bool) {
	if spec.Kind != target.Test || !rec.Dropped {
		return nil, "", false
	}
	var names []string
	for _, t := range rec.Outcome.FailedTests {
		name, _, _ := strings.Cut(t, "/")
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, "", false
	}
	for i := range names {
		names[i] = regexp.QuoteMeta(names[i])
	}
	run = "^(" + strings.Join(names, "|") + ")$"
	flag := "-test.run=" + run
	isRun := func(a string) bool { return strings.HasPrefix(a, "-test.run=") }
	if slices.Equal(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return !isRun(a) }), []string{flag}) {
		return nil, "", false
	}
	// In place of the first -run (the last one given would win), else
	// among the flags, before any argument that ends them (-args).
	at := slices.IndexFunc(args, isRun)
	if at < 0 {
		at = 0
		if len(args) > 0 && args[0] == "-test.paniconexit0" {
			at = 1
		}
	}
	out := slices.DeleteFunc(slices.Clone(args), isRun)
	return slices.Insert(out, min(at, len(out)), flag), run, true
}

// failsAgain reports whether a test that failed in rec failed in again too.
func failsAgain(rec, again *trace.Recording) bool {
	for _, t := range again.Outcome.FailedTests {
		if slices.Contains(rec.Outcome.FailedTests, t) {
			return true
		}
	}
	return false
}
