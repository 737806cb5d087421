package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/target"
)

// benchProgram is one program adi bench measures: a target command line
// relative to the module root.
type benchProgram struct {
	Name string
	Argv []string
}

// benchPrograms are the programs of testdata/bench (see testdata/README.md).
var benchPrograms = []benchProgram{
	{"fib", []string{"go", "run", "./testdata/bench/fib"}},
	{"parser", []string{"go", "test", "./testdata/bench/parser"}},
	{"pipeline", []string{"go", "run", "./testdata/bench/pipeline"}},
	{"alloc", []string{"go", "run", "./testdata/bench/alloc"}},
}

// benchConfig holds the flags of adi bench.
type benchConfig struct {
	runs      int
	timeout   time.Duration // one run of any kind
	delveMax  int           // frames the Delve recorder records per run
	delveTime time.Duration // bound of one Delve recorder or dlv trace run
	maxFrames int           // frame limit of the instrumented recording
	dlv       string        // path of dlv, "" when not installed
	logf      func(format string, args ...any)
}

// benchResult is the JSON form of one program's figures. Times are in
// milliseconds, medians over the runs; ratios are medians of the ratios
// computed within each run (both measurements of a pair back to back).
// A nil figure was not measured; its *Note says why.
type benchResult struct {
	Program string `json:"program"`
	Target  string `json:"target"`
	Runs    int    `json:"runs"`
	// Frames is the number of frames of the whole run (from the
	// instrumented recording, or from a complete Delve recording).
	Frames int `json:"frames,omitempty"`

	BuildPlainMS float64 `json:"build_plain_ms"`
	BuildDebugMS float64 `json:"build_debug_ms"`
	// BuildInstrumentMS is the build with hooks; nil when it failed.
	BuildInstrumentMS *float64 `json:"build_instrument_ms,omitempty"`

	NativeMS      float64 `json:"native_ms"`
	NativeDebugMS float64 `json:"native_debug_ms"`

	InstrumentMS   *float64 `json:"instrument_ms,omitempty"`
	InstrumentNote string   `json:"instrument_note,omitempty"`
	// RunMS and IndexMS split InstrumentMS: the target's process writing
	// its records (while the index is built from them), then the rest of
	// the index; RunX is the run over the native run.
	RunMS   *float64 `json:"instrument_run_ms,omitempty"`
	IndexMS *float64 `json:"instrument_index_ms,omitempty"`
	RunX    *float64 `json:"instrument_run_x_native,omitempty"`
	// FirstMS is the first instrumented recording after the build, FirstX
	// its ratio to the native run of its round: the later ones find the
	// memory of their index made ready as large as the one before took
	// (see trace.Prepare), the first what the build asked for.
	FirstMS *float64 `json:"instrument_first_ms,omitempty"`
	FirstX  *float64 `json:"instrument_first_x_native,omitempty"`
	// Records is the number of records the target wrote, AfterRunPct the
	// share of them the index read after the target ended (it fell
	// behind the target by that much).
	Records     int      `json:"instrument_records,omitempty"`
	AfterRunPct *float64 `json:"instrument_records_after_run_pct,omitempty"`
	// Reused is the median number of chunks of the record file that the
	// index handed back to the target, once read, to be written again.
	Reused *float64 `json:"instrument_chunks_reused,omitempty"`
	// FileMB is the median size the record file grew to, in MB; WaitedMS
	// the median time the target waited for the index to hand chunks
	// back, once its file had grown to the size where it waits.
	FileMB   *float64 `json:"instrument_file_mb,omitempty"`
	WaitedMS *float64 `json:"instrument_waited_ms,omitempty"`
	// KernelMS is the time adi's process spent in the kernel during the
	// instrumented recording, all its threads: mostly making fresh pages
	// for the index, whose cost varies with what the machine did before
	// (see README).
	KernelMS *float64 `json:"instrument_kernel_ms,omitempty"`
	// IndexBytes is the memory the instrumented recording's index takes
	// per frame without its argument and result values, ArgBytes what
	// those take (value rows and their text, and the pages of the record
	// file kept for the values left there), from the first run (see
	// trace.Recording.IndexBytes and ValueBytes).
	IndexBytes *float64 `json:"index_bytes_per_frame,omitempty"`
	ArgBytes   *float64 `json:"arg_bytes_per_frame,omitempty"`

	DelveMS *float64 `json:"delve_ms,omitempty"`
	// DelveExtrapolated: DelveMS is extrapolated from bounded runs of
	// DelveFrames frames (median DelveBoundedMS) and of one frame (the fixed
	// cost, DelveFixedMS).
	DelveExtrapolated bool     `json:"delve_extrapolated"`
	DelveFrames       int      `json:"delve_frames,omitempty"`
	DelveBoundedMS    *float64 `json:"delve_bounded_ms,omitempty"`
	DelveFixedMS      *float64 `json:"delve_fixed_ms,omitempty"`
	DelveNote         string   `json:"delve_note,omitempty"`

	DlvTraceMS           *float64 `json:"dlv_trace_ms,omitempty"`
	DlvTraceExtrapolated bool     `json:"dlv_trace_extrapolated"`
	DlvTraceNote         string   `json:"dlv_trace_note,omitempty"`

	InstrumentX         *float64 `json:"instrument_x_native,omitempty"`
	DelveX              *float64 `json:"delve_x_native,omitempty"`
	DelveOverInstrument *float64 `json:"delve_over_instrument,omitempty"`
	DlvTraceX           *float64 `json:"dlv_trace_x_native,omitempty"`
}

// benchRound is one run of every measurement of a program, back to back.
type benchRound struct {
	native, nativeDebug time.Duration
	instrument          *time.Duration
	instrumentTimes     engine.RecordTimes
	instrumentKernel    time.Duration
	indexBytes          *float64
	argBytes            *float64
	instrumentFrames    int // frames of a complete instrumented recording, else 0
	delve               *time.Duration
	delveExtrapolated   bool
	delveBounded        *time.Duration
	delveFixed          *time.Duration
	delveFrames         int
	delveComplete       bool
	dlvTrace            *time.Duration
	dlvExtrapolated     bool
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := benchConfig{}
	fs.IntVar(&cfg.runs, "n", 3, "runs of each measurement; times are medians, ratios medians of per-run ratios")
	runRE := fs.String("run", "", "only the benchmark programs whose name matches this regular expression (fib, parser, pipeline, alloc)")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on each run (native, instrumented recording); a run that takes longer is reported as timed out")
	fs.IntVar(&cfg.delveMax, "delve-max", 5000, "frames the Delve recorder records per run; a longer run is extrapolated from this bounded run (labelled)")
	fs.DurationVar(&cfg.delveTime, "delve-time", 2*time.Minute, "bound on each Delve recorder and dlv trace run; a longer run is extrapolated (labelled)")
	fs.IntVar(&cfg.maxFrames, "max-frames", 5_000_000, "frame limit of the instrumented recording")
	asJSON := fs.Bool("json", false, "print the figures as one JSON array")
	dir := fs.String("C", "", "the adi module root holding testdata/bench (default: found above the current directory)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: adi bench [flags] [-- TARGET]

Measures, for each program of testdata/bench (or for TARGET), the native
run time (the binary built without adi's flags, run directly; build time
excluded), the instrumented recording, the Delve recording and, when dlv is
installed, dlv trace of the same program. Build times are reported apart.

flags:
`)
		fs.PrintDefaults()
	}
	own, targetArgs, err := splitTarget(args)
	if err != nil {
		own, targetArgs = args, nil
	}
	if err := fs.Parse(own); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "adi bench: unexpected argument %q (a target goes after \"--\")\n", fs.Arg(0))
		return 2
	}
	if cfg.runs < 1 || cfg.delveMax < 2 || cfg.timeout <= 0 || cfg.delveTime <= 0 || cfg.maxFrames < 1 {
		fmt.Fprintln(stderr, "adi bench: -n and -max-frames must be at least 1, -delve-max at least 2, -timeout and -delve-time positive")
		return 2
	}
	re, err := regexp.Compile(*runRE)
	if err != nil {
		fmt.Fprintf(stderr, "adi bench: -run: %v\n", err)
		return 2
	}
	root := *dir
	var progs []benchProgram
	if targetArgs != nil {
		if root == "" {
			if root, err = os.Getwd(); err != nil {
				fmt.Fprintln(stderr, "adi bench:", err)
				return 1
			}
		}
		progs = []benchProgram{{Name: "target", Argv: targetArgs}}
	} else {
		if root == "" {
			if root, err = findBenchRoot(); err != nil {
				fmt.Fprintln(stderr, "adi bench:", err)
				return 1
			}
		}
		for _, p := range benchPrograms {
			if re.MatchString(p.Name) {
				progs = append(progs, p)
			}
		}
		if len(progs) == 0 {
			fmt.Fprintf(stderr, "adi bench: -run %q matches no benchmark program (fib, parser, pipeline, alloc)\n", *runRE)
			return 2
		}
	}
	cfg.dlv = findDlv()
	cfg.logf = func(format string, a ...any) { fmt.Fprintf(stderr, "adi bench: "+format+"\n", a...) }
	if cfg.dlv == "" {
		cfg.logf("dlv not found on PATH or in $GOPATH/bin: no dlv trace column (go install github.com/go-delve/delve/cmd/dlv@v1.27.2 to add it)")
	}

	var results []*benchResult
	for _, p := range progs {
		r, err := benchOne(ctx, cfg, root, p)
		if err != nil {
			fmt.Fprintf(stderr, "adi bench: %s: %v\n", p.Name, err)
			return 1
		}
		results = append(results, r)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			fmt.Fprintln(stderr, "adi bench:", err)
			return 1
		}
		return 0
	}
	writeBenchTable(stdout, cfg, results)
	return 0
}

// findBenchRoot looks for testdata/bench in the current directory and its
// parents.
func findBenchRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "testdata", "bench", "fib", "main.go")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("testdata/bench not found in %s or above: run adi bench in a clone of adi, give -C DIR, or name a program after \"--\"", wd)
		}
	}
}

// findDlv returns the path of dlv on PATH or in $GOPATH/bin, "" if absent.
// adi never installs it.
func findDlv() string {
	if p, err := exec.LookPath("dlv"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		p := filepath.Join(d, "bin", "dlv")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// benchOne builds p twice (plain and debug), then measures it cfg.runs
// times.
func benchOne(ctx context.Context, cfg benchConfig, root string, p benchProgram) (*benchResult, error) {
	spec, err := target.Parse(p.Argv, root)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "adi-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	res := &benchResult{Program: p.Name, Target: strings.Join(p.Argv, " "), Runs: cfg.runs}

	cfg.logf("%s: building", p.Name)
	start := time.Now()
	debug, err := spec.Build(ctx, filepath.Join(work, "debug"))
	if err != nil {
		return nil, err
	}
	res.BuildDebugMS = ms(time.Since(start))
	prog := &engine.Program{Path: debug.Path, Args: debug.Args, Dir: debug.Dir, ModulePath: debug.ModulePath}
	plain := debug.Path
	if spec.Kind != target.Exec {
		start = time.Now()
		plain, err = buildPlain(ctx, spec, filepath.Join(work, "plain"))
		if err != nil {
			return nil, err
		}
		res.BuildPlainMS = ms(time.Since(start))
	}

	var rounds []benchRound
	var notes struct{ instrument, delve, dlv string }
	var inst *engine.InstrumentedBuild
	if spec.Kind == target.Exec {
		notes.instrument = "instrumenting recorder unavailable: a prebuilt binary has no source to instrument"
	} else {
		start = time.Now()
		inst, err = engine.BuildInstrumented(ctx, spec, filepath.Join(work, "instrument"), cfg.maxFrames)
		if err != nil {
			notes.instrument = "instrumenting recorder unavailable: " + firstLine(err.Error())
		} else {
			b := ms(time.Since(start))
			res.BuildInstrumentMS = &b
		}
	}
	for i := range cfg.runs {
		cfg.logf("%s: run %d of %d", p.Name, i+1, cfg.runs)
		var rd benchRound
		if rd.native, err = runNative(ctx, cfg, plain, prog); err != nil {
			return nil, fmt.Errorf("native run: %w", err)
		}
		if rd.nativeDebug, err = runNative(ctx, cfg, debug.Path, prog); err != nil {
			return nil, fmt.Errorf("native run of the -N -l build: %w", err)
		}
		if inst != nil {
			if n := benchInstrument(ctx, cfg, inst, prog, &rd); n != "" {
				notes.instrument = n
			}
		}
		if n := benchDelve(ctx, cfg, prog, &rd); n != "" {
			notes.delve = n
		}
		if cfg.dlv == "" {
			notes.dlv = "dlv not installed"
		} else if n := benchDlvTrace(ctx, cfg, prog, &rd); n != "" {
			notes.dlv = n
		}
		rounds = append(rounds, rd)
	}
	summarize(res, rounds)
	res.InstrumentNote, res.DlvTraceNote = notes.instrument, notes.dlv
	if res.DelveNote == "" {
		res.DelveNote = notes.delve
	}
	return res, nil
}

// buildPlain builds the target as go build / go test -c would, without
// adi's -gcflags: the native program.
func buildPlain(ctx context.Context, spec *target.Spec, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "native")
	args := []string{"build", "-o", out}
	if spec.Kind == target.Test {
		args = []string{"test", "-c", "-o", out}
	}
	args = append(append(append(args, spec.BuildFlags...), spec.VetFlags()...), spec.Targets()...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = spec.Dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out, nil
}

// runNative runs a binary directly with the program's arguments and
// returns its wall time. A benchmark program must exit 0.
func runNative(ctx context.Context, cfg benchConfig, path string, prog *engine.Program) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, prog.Args...)
	cmd.Dir = prog.Dir
	var tail tailBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &tail
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 0, fmt.Errorf("%s took longer than -timeout %s", path, cfg.timeout)
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("%s failed (a benchmark program must exit 0): %v\n%s", path, err, tail.String())
	}
	return d, nil
}

// tailBuffer keeps the last 4 KB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// benchInstrument records the program with the instrumenting recorder,
// built beforehand. It returns a note when there is no figure.
func benchInstrument(ctx context.Context, cfg benchConfig, inst *engine.InstrumentedBuild, prog *engine.Program, rd *benchRound) string {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout+time.Minute)
	defer cancel()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	rec, err := inst.Record(ctx, prog, engine.RecordOptions{Limits: engine.Limits{MaxFrames: cfg.maxFrames}, Timeout: cfg.timeout, Times: &rd.instrumentTimes})
	d := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	rd.instrumentKernel = time.Duration(after.Stime.Nano() - before.Stime.Nano())
	if err != nil {
		return "instrumented recording failed: " + firstLine(err.Error())
	}
	if rec.Partial != "" {
		return "instrumented recording incomplete: " + rec.Partial
	}
	rd.instrument = &d
	rd.instrumentFrames = rec.Len()
	if n := float64(rec.Len()); n > 0 {
		args := engine.ValueBytes(rec) / n
		index := float64(rec.IndexBytes()) / n
		rd.indexBytes, rd.argBytes = &index, &args
	}
	return ""
}

// benchDelve records the program with the engine's Delve recorder, bounded
// to cfg.delveMax frames and cfg.delveTime. When the bound cuts the run,
// the time of the whole run is extrapolated from it and from a run
// recording one frame only (the fixed cost: starting Delve, setting the
// breakpoints, running the rest of the program under ptrace):
// fixed + (bounded − fixed) × (frames − 1) / (recorded − 1), with frames
// from the instrumented recording of the same round.
func benchDelve(ctx context.Context, cfg benchConfig, prog *engine.Program, rd *benchRound) string {
	record := func(maxFrames int) (time.Duration, int, bool, error) {
		start := time.Now()
		rec, err := engine.Record(ctx, prog, engine.RecordOptions{Limits: engine.Limits{MaxFrames: maxFrames}, Timeout: cfg.delveTime})
		d := time.Since(start)
		if err != nil {
			return 0, 0, false, err
		}
		return d, rec.Len(), rec.Partial == "", nil
	}
	d, n, complete, err := record(cfg.delveMax)
	if err != nil {
		return "Delve recorder failed: " + firstLine(err.Error())
	}
	rd.delveFrames, rd.delveComplete = n, complete
	if complete {
		rd.delve = &d
		return ""
	}
	rd.delveBounded = &d
	fixed, _, _, err := record(1)
	if err != nil {
		return "Delve recorder failed: " + firstLine(err.Error())
	}
	rd.delveFixed = &fixed
	full, note := delveEstimate(fixed, d, n, rd.instrumentFrames)
	if note != "" {
		return note
	}
	rd.delve, rd.delveExtrapolated = &full, true
	return ""
}

// delveEstimate extrapolates a Delve recording cut after recorded frames
// (bounded) to total frames, or says why it cannot.
func delveEstimate(fixed, bounded time.Duration, recorded, total int) (time.Duration, string) {
	if total == 0 || recorded < 2 {
		return 0, fmt.Sprintf("%d frames recorded in %s (bound reached); the whole run is not extrapolated without the instrumented frame count",
			recorded, bounded.Round(time.Millisecond))
	}
	if bounded <= fixed {
		// The frames cost less than the noise of starting Delve: a line
		// through two such points says nothing.
		return 0, fmt.Sprintf("%d frames recorded in %s, no slower than 1 frame (%s): too few to extrapolate from (raise -delve-max)",
			recorded, bounded.Round(time.Millisecond), fixed.Round(time.Millisecond))
	}
	return extrapolate(fixed, bounded, recorded, total), ""
}

// extrapolate estimates the time of a run of total frames from a run cut
// after recorded frames (bounded) and a run of one frame (fixed): the fixed
// cost plus the cost per further frame times the further frames.
func extrapolate(fixed, bounded time.Duration, recorded, total int) time.Duration {
	if recorded < 2 || total <= recorded {
		return bounded
	}
	per := float64(bounded-fixed) / float64(recorded-1)
	return fixed + time.Duration(per*float64(total-1))
}

// benchDlvTrace runs dlv trace on the debug build with a tracepoint on
// every function of the program's module (and package main), bounded by
// cfg.delveTime; a cut run is extrapolated linearly from the calls it
// traced.
func benchDlvTrace(ctx context.Context, cfg benchConfig, prog *engine.Program, rd *benchRound) string {
	ctx, cancel := context.WithTimeout(ctx, cfg.delveTime)
	defer cancel()
	pattern := `^main\.`
	if prog.ModulePath != "" {
		pattern = `^(main\.|` + regexp.QuoteMeta(prog.ModulePath) + `[/.])`
	}
	args := append([]string{"trace", "--exec", prog.Path, pattern, "--"}, prog.Args...)
	cmd := exec.CommandContext(ctx, cfg.dlv, args...)
	cmd.Dir = prog.Dir
	// dlv starts the program in a process group of its own, and leaves
	// it stopped if dlv is killed while it traces it.
	cmd.Cancel = func() error { return killTree(cmd.Process.Pid) }
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	calls := make(chan int, 1)
	go func() {
		n := 0
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "> ") {
				n++
			}
		}
		io.Copy(io.Discard, pr)
		calls <- n
	}()
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	pw.Close()
	n := <-calls
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return "dlv trace interrupted"
	case ctx.Err() != nil:
		if rd.instrumentFrames == 0 || n == 0 {
			return fmt.Sprintf("dlv trace cut at %s after %d calls; not extrapolated without the instrumented frame count", cfg.delveTime, n)
		}
		full := time.Duration(float64(d) * float64(rd.instrumentFrames) / float64(n))
		rd.dlvTrace, rd.dlvExtrapolated = &full, true
	case err != nil && n == 0:
		return "dlv trace failed: " + err.Error()
	default:
		// The program's own exit status passes through dlv; a run that
		// traced calls is measured either way.
		rd.dlvTrace = &d
	}
	return ""
}

// killTree kills process pid and the processes it started, found through
// /proc (where there is none, pid only): stopped first, so that it starts
// no other.
func killTree(pid int) error {
	syscall.Kill(pid, syscall.SIGSTOP)
	for _, c := range childrenOf(pid) {
		killTree(c)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// childrenOf lists the children of process pid, from each of its threads'
// /proc children file.
func childrenOf(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var kids []int
	for _, t := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// summarize fills res from the rounds: medians of the times, and medians
// of the ratios computed within each round.
func summarize(res *benchResult, rounds []benchRound) {
	var native, nativeDebug []float64
	var instr, run, index, delve, bounded, fixed, dlv []float64
	var rInstr, rRun, rDelve, rDelveInstr, rDlv, after, reused, kernel, fileMB, waited []float64
	for _, rd := range rounds {
		nat := ms(rd.native)
		native = append(native, nat)
		nativeDebug = append(nativeDebug, ms(rd.nativeDebug))
		if rd.indexBytes != nil && res.IndexBytes == nil {
			res.IndexBytes, res.ArgBytes = rd.indexBytes, rd.argBytes
		}
		if rd.instrument != nil {
			if res.FirstMS == nil {
				first, firstX := ms(*rd.instrument), ms(*rd.instrument)/nat
				res.FirstMS, res.FirstX = &first, &firstX
			}
			instr = append(instr, ms(*rd.instrument))
			rInstr = append(rInstr, ms(*rd.instrument)/nat)
			t := rd.instrumentTimes
			run = append(run, ms(t.Run))
			index = append(index, ms(t.Index))
			kernel = append(kernel, ms(rd.instrumentKernel))
			rRun = append(rRun, ms(t.Run)/nat)
			if t.Records > 0 {
				res.Records = t.Records
				after = append(after, 100*float64(t.AfterRun)/float64(t.Records))
				reused = append(reused, float64(t.Reused))
				fileMB = append(fileMB, float64(t.FileBytes)/(1<<20))
				waited = append(waited, ms(t.Waited))
			}
			res.Frames = rd.instrumentFrames
		}
		if rd.delveComplete && res.Frames == 0 {
			res.Frames = rd.delveFrames
		}
		res.DelveFrames = rd.delveFrames
		if rd.delveBounded != nil {
			bounded = append(bounded, ms(*rd.delveBounded))
		}
		if rd.delveFixed != nil {
			fixed = append(fixed, ms(*rd.delveFixed))
		}
		if rd.delve != nil {
			delve = append(delve, ms(*rd.delve))
			rDelve = append(rDelve, ms(*rd.delve)/nat)
			res.DelveExtrapolated = res.DelveExtrapolated || rd.delveExtrapolated
			if rd.instrument != nil {
				rDelveInstr = append(rDelveInstr, ms(*rd.delve)/ms(*rd.instrument))
			}
		}
		if rd.dlvTrace != nil {
			dlv = append(dlv, ms(*rd.dlvTrace))
			rDlv = append(rDlv, ms(*rd.dlvTrace)/nat)
			res.DlvTraceExtrapolated = res.DlvTraceExtrapolated || rd.dlvExtrapolated
		}
	}
	res.NativeMS = *median(native)
	res.NativeDebugMS = *median(nativeDebug)
	res.InstrumentMS = median(instr)
	res.RunMS, res.IndexMS, res.RunX = median(run), median(index), median(rRun)
	res.AfterRunPct, res.Reused, res.KernelMS = median(after), median(reused), median(kernel)
	res.FileMB, res.WaitedMS = median(fileMB), median(waited)
	res.DelveMS, res.DelveBoundedMS, res.DelveFixedMS = median(delve), median(bounded), median(fixed)
	res.DlvTraceMS = median(dlv)
	res.InstrumentX, res.DelveX, res.DelveOverInstrument, res.DlvTraceX = median(rInstr), median(rDelve), median(rDelveInstr), median(rDlv)
	if len(delve) > 0 && len(delve) < len(rounds) {
		res.DelveNote = fmt.Sprintf("the Delve figure is the median of %d of %d runs", len(delve), len(rounds))
	}
}

// median returns the median of xs (the mean of the middle two for an even
// count), nil for none.
func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// benchColumns are the columns of adi bench's table.
var benchColumns = []string{"program", "frames", "native", "native -N -l", "instrument", "×native", "delve", "×native", "delve/instr", "dlv trace", "×native", "bytes/frame"}

func writeBenchTable(w io.Writer, cfg benchConfig, results []*benchResult) {
	fmt.Fprintf(w, "adi bench: %d run(s) of each; times are medians; ratios are medians of the ratios within each run; bytes/frame: the instrumented index's memory per frame + its argument and result values\n", cfg.runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(benchColumns, "\t"))
	var notes []string
	for _, r := range results {
		frames := "?"
		if r.Frames > 0 {
			frames = fmt.Sprint(r.Frames)
		}
		delve := fmtMS(r.DelveMS)
		if r.DelveExtrapolated {
			delve = "~" + delve + "*"
		}
		dlv := fmtMS(r.DlvTraceMS)
		if r.DlvTraceExtrapolated {
			dlv = "~" + dlv + "*"
		}
		mem := "-"
		if r.IndexBytes != nil {
			mem = fmt.Sprintf("%.0f + %.0f args", *r.IndexBytes, *r.ArgBytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Program, frames,
			fmtMS(&r.NativeMS), fmtMS(&r.NativeDebugMS),
			fmtMS(r.InstrumentMS), fmtX(r.InstrumentX),
			delve, fmtX(r.DelveX), fmtX(r.DelveOverInstrument),
			dlv, fmtX(r.DlvTraceX), mem)
		build := fmt.Sprintf("%s: build %s plain, %s with -N -l", r.Program, fmtMS(&r.BuildPlainMS), fmtMS(&r.BuildDebugMS))
		if r.BuildInstrumentMS != nil {
			build += fmt.Sprintf(", %s instrumented", fmtMS(r.BuildInstrumentMS))
		}
		notes = append(notes, build)
		if r.RunMS != nil {
			note := fmt.Sprintf("%s: instrumented recording: the first %s (%s native), the target's run %s (%s native), the index after it %s", r.Program, fmtMS(r.FirstMS), fmtX(r.FirstX), fmtMS(r.RunMS), fmtX(r.RunX), fmtMS(r.IndexMS))
			if r.AfterRunPct != nil {
				note += fmt.Sprintf(", with %.0f%% of the %d records read after the run", *r.AfterRunPct, r.Records)
			}
			if r.Reused != nil {
				note += fmt.Sprintf("; %.0f chunks (64 KB) of the record file handed back to be written again", *r.Reused)
			}
			if r.FileMB != nil {
				note += fmt.Sprintf("; the record file grew to %.1f MB", *r.FileMB)
			}
			if r.WaitedMS != nil && *r.WaitedMS > 0 {
				note += fmt.Sprintf(", and the target waited %s for the index to read it", fmtMS(r.WaitedMS))
			}
			if r.KernelMS != nil {
				note += fmt.Sprintf("; adi's process spent %s in the kernel meanwhile", fmtMS(r.KernelMS))
			}
			notes = append(notes, note)
		}
		if r.DelveExtrapolated {
			notes = append(notes, fmt.Sprintf("%s: * Delve extrapolated from bounded runs: %d frames in %s, 1 frame in %s (fixed cost), to %d frames", r.Program, r.DelveFrames, fmtMS(r.DelveBoundedMS), fmtMS(r.DelveFixedMS), r.Frames))
		}
		if r.DlvTraceExtrapolated {
			notes = append(notes, fmt.Sprintf("%s: * dlv trace extrapolated linearly from a run cut at -delve-time %s", r.Program, cfg.delveTime))
		}
		for _, n := range []struct{ what, note string }{{"instrument", r.InstrumentNote}, {"delve", r.DelveNote}, {"dlv trace", r.DlvTraceNote}} {
			if n.note != "" {
				notes = append(notes, fmt.Sprintf("%s: %s: %s", r.Program, n.what, n.note))
			}
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// fmtMS renders milliseconds with three significant digits, "-" for none.
func fmtMS(v *float64) string {
	if v == nil {
		return "-"
	}
	d := *v
	switch {
	case d >= 10_000:
		return fmt.Sprintf("%.0fs", d/1000)
	case d >= 1000:
		return fmt.Sprintf("%.2fs", d/1000)
	case d >= 100:
		return fmt.Sprintf("%.0fms", d)
	case d >= 10:
		return fmt.Sprintf("%.1fms", d)
	}
	return fmt.Sprintf("%.2fms", d)
}

// fmtX renders a ratio, "-" for none.
func fmtX(v *float64) string {
	if v == nil {
		return "-"
	}
	switch {
	case *v >= 100:
		return fmt.Sprintf("%.0f×", *v)
	case *v >= 10:
		return fmt.Sprintf("%.1f×", *v)
	}
	return fmt.Sprintf("%.2f×", *v)
}
