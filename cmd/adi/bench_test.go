package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine"
)

// runBench runs adi bench -n 1 on testdata/fib 10 (179 frames: the Delve
// recorder records it in full in about a second).
func runBench(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("records a program under Delve")
	}
	args := append([]string{"bench", "-n", "1", "-C", repoRoot(t)}, extra...)
	args = append(args, "--", "go", "run", "./testdata/fib", "10")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if code := run(ctx, args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("adi %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestBenchJSON(t *testing.T) {
	out, errOut := runBench(t, "-json")
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("adi bench -json: %v\n%s", err, out)
	}
	if len(rs) != 1 {
		t.Fatalf("got %d results, want 1:\n%s", len(rs), out)
	}
	r := rs[0]
	if r.Program != "target" || r.Target != "go run ./testdata/fib 10" || r.Runs != 1 {
		t.Errorf("program %q target %q runs %d, want target, go run ./testdata/fib 10, 1", r.Program, r.Target, r.Runs)
	}
	// fib(10) makes 177 calls of fib, plus main and parseN.
	if r.Frames != 179 {
		t.Errorf("frames = %d, want 179", r.Frames)
	}
	if r.NativeMS <= 0 || r.NativeDebugMS <= 0 || r.BuildPlainMS <= 0 || r.BuildDebugMS <= 0 {
		t.Errorf("native %v, -N -l %v, builds %v and %v: want all positive", r.NativeMS, r.NativeDebugMS, r.BuildPlainMS, r.BuildDebugMS)
	}
	if r.DelveMS == nil || r.DelveX == nil || r.DelveExtrapolated {
		t.Fatalf("the Delve recorder should record 179 frames in full: %+v\nstderr:\n%s", r, errOut)
	}
	// With one run, each ratio is the ratio of the two medians.
	if !near(*r.DelveX, *r.DelveMS/r.NativeMS) {
		t.Errorf("delve ×native = %v, want %v / %v", *r.DelveX, *r.DelveMS, r.NativeMS)
	}
	if *r.DelveMS < r.NativeMS {
		t.Errorf("Delve recording (%vms) faster than the native run (%vms)", *r.DelveMS, r.NativeMS)
	}
	if r.InstrumentMS == nil {
		if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			t.Fatalf("no instrumented figure on linux/amd64: %s", r.InstrumentNote)
		}
		if !strings.HasPrefix(r.InstrumentNote, "instrument") || r.InstrumentX != nil || r.DelveOverInstrument != nil {
			t.Errorf("no instrumented figure: note %q, ratios %v %v", r.InstrumentNote, r.InstrumentX, r.DelveOverInstrument)
		}
	} else {
		if r.BuildInstrumentMS == nil || *r.BuildInstrumentMS <= 0 {
			t.Errorf("instrumented build time %v, want positive", r.BuildInstrumentMS)
		}
		// The index's row, callee and function lists (56 bytes a
		// frame) and the few tables around them; the program's values:
		// copied out of the chunks of the record file handed back, or
		// the pages of the record file that hold them (with the records
		// around them). fib's argument and result take two bytes each
		// at least (a type and a varint).
		if r.IndexBytes == nil || r.ArgBytes == nil || *r.IndexBytes < 40 || *r.IndexBytes > 120 || *r.ArgBytes < 3.9 || *r.ArgBytes > 200 {
			t.Errorf("bytes per frame: index %v, arguments %v", deref(r.IndexBytes), deref(r.ArgBytes))
		}
		// adi's time in the kernel meanwhile, on the machine's CPUs at
		// most.
		if r.KernelMS == nil || *r.KernelMS < 0 || *r.KernelMS > float64(runtime.NumCPU())**r.InstrumentMS {
			t.Errorf("time in the kernel %v during a recording of %v", deref(r.KernelMS), *r.InstrumentMS)
		}
		// The first recording is one of those the median is of (one
		// run here).
		if r.FirstMS == nil || r.FirstX == nil || !near(*r.FirstMS, *r.InstrumentMS) || !near(*r.FirstX, *r.FirstMS/r.NativeMS) {
			t.Errorf("first recording %v (%v× native), want the only one, %v", deref(r.FirstMS), deref(r.FirstX), *r.InstrumentMS)
		}
		// The run and the index are parts of the recording.
		if r.RunMS == nil || r.IndexMS == nil || *r.RunMS <= 0 || *r.IndexMS <= 0 || *r.RunMS+*r.IndexMS > *r.InstrumentMS {
			t.Errorf("run %v + index %v, want positive parts of the recording's %v", deref(r.RunMS), deref(r.IndexMS), *r.InstrumentMS)
		}
		// At least a record a frame; those read after the run are some
		// of them.
		if r.Records < r.Frames || r.AfterRunPct == nil || *r.AfterRunPct < 0 || *r.AfterRunPct > 100 {
			t.Errorf("%d records for %d frames, %v%% of them after the run", r.Records, r.Frames, deref(r.AfterRunPct))
		}
		if r.RunX == nil || !near(*r.RunX, *r.RunMS/r.NativeMS) {
			t.Errorf("run ×native = %v, want %v / %v", r.RunX, *r.RunMS, r.NativeMS)
		}
		if r.InstrumentX == nil || !near(*r.InstrumentX, *r.InstrumentMS/r.NativeMS) {
			t.Errorf("instrument ×native = %v, want %v / %v", r.InstrumentX, *r.InstrumentMS, r.NativeMS)
		}
		if r.DelveOverInstrument == nil || !near(*r.DelveOverInstrument, *r.DelveMS / *r.InstrumentMS) {
			t.Errorf("delve/instr = %v, want %v / %v", r.DelveOverInstrument, *r.DelveMS, *r.InstrumentMS)
		}
	}
	if r.DlvTraceMS == nil && r.DlvTraceNote == "" {
		t.Error("no dlv trace figure and no note saying why")
	}
}

// splitCells splits a tabwriter row (cells padded with at least two
// spaces; "native -N -l" has single spaces).
var cellSep = regexp.MustCompile(`\s{2,}`)

func TestBenchTable(t *testing.T) {
	out, _ := runBench(t)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 4 {
		t.Fatalf("want a title, a header, a row and notes:\n%s", out)
	}
	header := cellSep.Split(strings.TrimSpace(lines[1]), -1)
	if strings.Join(header, "|") != strings.Join(benchColumns, "|") {
		t.Fatalf("header %q, want %q", header, benchColumns)
	}
	row := cellSep.Split(strings.TrimSpace(lines[2]), -1)
	if len(row) != len(benchColumns) {
		t.Fatalf("row %q has %d cells, want %d", lines[2], len(row), len(benchColumns))
	}
	if row[0] != "target" || row[1] != "179" {
		t.Errorf("row %q: want program target, 179 frames", row)
	}
	native, delve, ratio := parseMS(t, row[2]), parseMS(t, row[6]), parseX(t, row[7])
	// The cells are rounded to three digits: the ratio agrees to 2%.
	if math.Abs(ratio-delve/native) > 0.02*ratio {
		t.Errorf("delve ×native %v, but delve %v / native %v = %v", ratio, delve, native, delve/native)
	}
	if !strings.Contains(out, "target: build ") {
		t.Errorf("no build times:\n%s", out)
	}
	if row[4] == "-" && !strings.Contains(out, "target: instrument: ") {
		t.Errorf("no instrumented figure and no note saying why:\n%s", out)
	}
}

func parseMS(t *testing.T, cell string) float64 {
	t.Helper()
	scale := 1.0
	switch {
	case strings.HasSuffix(cell, "ms"):
		cell = strings.TrimSuffix(cell, "ms")
	case strings.HasSuffix(cell, "s"):
		cell, scale = strings.TrimSuffix(cell, "s"), 1000
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		t.Fatalf("cell %q is not a time: %v", cell, err)
	}
	return v * scale
}

func parseX(t *testing.T, cell string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(cell, "×"), 64)
	if err != nil {
		t.Fatalf("cell %q is not a ratio: %v", cell, err)
	}
	return v
}

// TestBenchSummarize checks that ratios are medians of the ratios within
// each run, not ratios of the medians: the machine is noisy, and a pair
// measured back to back shares its noise.
func TestBenchSummarize(t *testing.T) {
	d := func(ms float64) *time.Duration { v := time.Duration(ms * float64(time.Millisecond)); return &v }
	times := func(run, index float64, after int) engine.RecordTimes {
		return engine.RecordTimes{Run: *d(run), Index: *d(index), Records: 2000, AfterRun: after, Reused: 2000 / after}
	}
	rounds := []benchRound{
		{native: *d(10), nativeDebug: *d(20), instrument: d(30), instrumentTimes: times(20, 9, 500), instrumentFrames: 1000, delve: d(1000)},
		{native: *d(20), nativeDebug: *d(30), instrument: d(40), instrumentTimes: times(30, 9, 1000), instrumentFrames: 1000, delve: d(3000)},
		{native: *d(40), nativeDebug: *d(50), instrument: d(80), instrumentTimes: times(60, 19, 100), instrumentFrames: 1000, delve: d(2000)},
	}
	var r benchResult
	summarize(&r, rounds)
	check := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || !near(*got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("native", &r.NativeMS, 20)
	check("native -N -l", &r.NativeDebugMS, 30)
	check("instrument", r.InstrumentMS, 40)
	check("delve", r.DelveMS, 2000)
	// per-run ratios 3, 2, 2 (median 2; the ratio of the medians is 2 too)
	check("instrument ×native", r.InstrumentX, 2)
	// the first round's, not a median
	check("first", r.FirstMS, 30)
	check("first ×native", r.FirstX, 3)
	// per-run 100, 150, 50: median 100, while the medians give 2000/20 = 100
	check("delve ×native", r.DelveX, 100)
	check("run", r.RunMS, 30)
	check("index", r.IndexMS, 9)
	// per-run 2, 1.5, 1.5
	check("run ×native", r.RunX, 1.5)
	// 25%, 50%, 5% of 2000 records read after the run
	check("after the run", r.AfterRunPct, 25)
	// 4, 2, 20 chunks written again
	check("reused", r.Reused, 4)
	if r.Records != 2000 {
		t.Errorf("%d records, want 2000", r.Records)
	}
	// per-run 33.3, 75, 25: median 33.3; the ratio of the medians is 50
	check("delve/instr", r.DelveOverInstrument, 1000.0/30)
	if r.Frames != 1000 || r.DlvTraceMS != nil || r.DlvTraceX != nil {
		t.Errorf("frames %d, dlv trace %v %v: want 1000, none", r.Frames, r.DlvTraceMS, r.DlvTraceX)
	}
	if m := median([]float64{4, 1, 3, 2}); m == nil || *m != 2.5 {
		t.Errorf("median of 4 1 3 2 = %v, want 2.5", m)
	}
}

func TestBenchExtrapolate(t *testing.T) {
	// 1 frame in 500ms, 1,001 frames in 1.5s: 1ms a frame after the fixed
	// cost, so 100,001 frames take 100.5s.
	got := extrapolate(500*time.Millisecond, 1500*time.Millisecond, 1001, 100_001)
	if want := 100500 * time.Millisecond; got != want {
		t.Errorf("extrapolate = %s, want %s", got, want)
	}
	if got := extrapolate(time.Second, 2*time.Second, 10, 5); got != 2*time.Second {
		t.Errorf("a run that was not cut is its own figure: got %s", got)
	}
	if got, note := delveEstimate(500*time.Millisecond, 1500*time.Millisecond, 1001, 100_001); got != 100500*time.Millisecond || note != "" {
		t.Errorf("delveEstimate = %s, %q; want 100.5s", got, note)
	}
	// A bounded run no slower than the 1-frame run (noise): no figure,
	// never a negative one.
	if got, note := delveEstimate(400*time.Millisecond, 380*time.Millisecond, 2, 600_000); got != 0 || !strings.Contains(note, "too few to extrapolate from (raise -delve-max)") {
		t.Errorf("delveEstimate of a noisy bounded run = %s, %q; want no figure and a note", got, note)
	}
	if _, note := delveEstimate(time.Second, 2*time.Second, 100, 0); !strings.Contains(note, "without the instrumented frame count") {
		t.Errorf("delveEstimate without a frame count: note %q", note)
	}
}

func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-run", "nomatch"}, "matches no benchmark program"},
		{[]string{"bench", "-n", "0"}, "-n and -max-frames must be at least 1"},
		{[]string{"bench", "-run", "("}, "-run:"},
		{[]string{"bench", "stray"}, `unexpected argument "stray"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(c.args, "-C", repoRoot(t)), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("adi %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
	}
}

// fakeDlv puts a script named dlv first on PATH: it starts a process in a
// session of its own, as dlv starts the program it traces, prints the
// entry lines of calls traced as dlv trace does ("> goroutine(1):
// main.fib(10)") to stderr, sleeps for sleep seconds and ends the process
// it started, as dlv does. A stand-in,
// since the tests must not need Delve's command (adi never installs it).
// It returns the file the started process's id is written to.
func fakeDlv(t *testing.T, calls int, sleep int) (pidFile string) {
	t.Helper()
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "target.pid")
	script := fmt.Sprintf("#!/bin/sh\nsetsid sleep 300 &\necho $! > %s\nfor i in $(seq %d); do echo '> goroutine(1): main.fib(10)' >&2; echo '>> goroutine(1): => (55)' >&2; done\nsleep %d\nkill $(cat %[1]s)\n", pidFile, calls, sleep)
	if err := os.WriteFile(filepath.Join(dir, "dlv"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return pidFile
}

// running reports whether the process whose id is in pidFile still runs
// (a zombie does not).
func running(t *testing.T, pidFile string) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
	if err != nil {
		return false // gone
	}
	// "pid (comm) state …"
	rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

func TestBenchDlvTrace(t *testing.T) {
	t.Run("complete", func(t *testing.T) {
		fakeDlv(t, 179, 0)
		out, _ := runBench(t, "-json")
		var rs []benchResult
		if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
			t.Fatalf("adi bench -json: %v\n%s", err, out)
		}
		r := rs[0]
		if r.DlvTraceMS == nil || r.DlvTraceExtrapolated || r.DlvTraceX == nil || !near(*r.DlvTraceX, *r.DlvTraceMS/r.NativeMS) {
			t.Fatalf("dlv trace %v (extrapolated %v), ×native %v; native %v; note %q", r.DlvTraceMS, r.DlvTraceExtrapolated, r.DlvTraceX, r.NativeMS, r.DlvTraceNote)
		}
	})
	t.Run("cut", func(t *testing.T) {
		// 50 calls, then the run hangs: cut at -delve-time and
		// extrapolated to the 179 frames of the instrumented recording.
		pidFile := fakeDlv(t, 50, 60)
		start := time.Now()
		out, _ := runBench(t, "-json", "-delve-time", "3s")
		if running(t, pidFile) {
			t.Errorf("the process dlv started still runs after dlv was cut")
		}
		var rs []benchResult
		if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
			t.Fatalf("adi bench -json: %v\n%s", err, out)
		}
		r := rs[0]
		if r.DlvTraceMS == nil || !r.DlvTraceExtrapolated {
			t.Fatalf("dlv trace %v, extrapolated %v, note %q: want an extrapolated figure", r.DlvTraceMS, r.DlvTraceExtrapolated, r.DlvTraceNote)
		}
		// About 3s × 179/50.
		if *r.DlvTraceMS < 3000*179/50 || *r.DlvTraceMS > 20000*179/50 {
			t.Errorf("dlv trace extrapolated to %vms, want about %dms", *r.DlvTraceMS, 3000*179/50)
		}
		if d := time.Since(start); d > 50*time.Second {
			t.Errorf("adi bench waited %s for a hanging dlv cut at 3s", d)
		}
	})
}

// TestBenchRealDlv fills the dlv trace column with the real dlv: the
// version adi's go.mod pins, installed from the module proxy into a
// temporary GOBIN (adi bench never installs it itself).
func TestBenchRealDlv(t *testing.T) {
	if testing.Short() {
		t.Skip("installs dlv and records a program under it")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", "github.com/go-delve/delve/cmd/dlv@"+delveVersion(t))
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install dlv: %v\n%s", err, out)
	}
	t.Setenv("PATH", gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, _ := runBench(t, "-json", "-delve-time", "2m")
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("adi bench -json: %v\n%s", err, out)
	}
	r := rs[0]
	if r.DlvTraceMS == nil || r.DlvTraceExtrapolated || r.DlvTraceX == nil || r.InstrumentMS == nil {
		t.Fatalf("dlv trace %v (extrapolated %v), ×native %v, note %q; instrumented %v: want a whole dlv trace run",
			r.DlvTraceMS, r.DlvTraceExtrapolated, r.DlvTraceX, r.DlvTraceNote, r.InstrumentMS)
	}
	// 177 calls of fib and main's: dlv stops at each entry and return.
	if *r.DlvTraceMS <= *r.InstrumentMS {
		t.Errorf("dlv trace took %vms, the instrumented recording %vms: want dlv trace slower", *r.DlvTraceMS, *r.InstrumentMS)
	}
}

// delveVersion is the version of github.com/go-delve/delve in adi's go.mod.
func delveVersion(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/go-delve/delve" {
			return f[1]
		}
	}
	t.Fatal("go.mod does not require github.com/go-delve/delve")
	return ""
}

// TestBenchProgram runs adi bench on one program of testdata/bench with
// the Delve recorder bounded to 100 frames: its figure is extrapolated
// from the bounded run and the one-frame run to the instrumented
// recording's frame count.
func TestBenchProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program under Delve")
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{"bench", "-C", repoRoot(t), "-run", "^alloc$", "-n", "1", "-delve-max", "100", "-json"}
	if code := run(ctx, args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("adi %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	var rs []benchResult
	if err := json.Unmarshal(stdout.Bytes(), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("adi bench -json: %v\n%s", err, stdout.String())
	}
	r := rs[0]
	if r.Program != "alloc" || r.Target != "go run ./testdata/bench/alloc" {
		t.Fatalf("program %q, target %q; want alloc", r.Program, r.Target)
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the instrumenting recorder runs on linux/amd64 only: no frame count to extrapolate to")
	}
	// 4,000 documents indexed one call each, plus the sort's comparisons.
	if r.Frames < 8000 || r.InstrumentMS == nil {
		t.Fatalf("%d frames, instrumented %v (%s): want a complete instrumented recording of over 8,000 frames", r.Frames, r.InstrumentMS, r.InstrumentNote)
	}
	if !r.DelveExtrapolated || r.DelveFrames != 100 || r.DelveMS == nil || r.DelveBoundedMS == nil || r.DelveFixedMS == nil {
		t.Fatalf("Delve: extrapolated %v from %d frames, %v (bounded %v, fixed %v): want an extrapolation from 100 frames", r.DelveExtrapolated, r.DelveFrames, r.DelveMS, r.DelveBoundedMS, r.DelveFixedMS)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	want := extrapolate(ms(*r.DelveFixedMS), ms(*r.DelveBoundedMS), 100, r.Frames)
	if got := ms(*r.DelveMS); got < want-time.Millisecond || got > want+time.Millisecond {
		t.Errorf("Delve extrapolated to %s, want %s from the bounded and fixed runs", got, want)
	}
	if *r.DelveMS <= *r.DelveBoundedMS {
		t.Errorf("the whole run (%vms) extrapolated below the bounded run (%vms)", *r.DelveMS, *r.DelveBoundedMS)
	}
}

// deref shows a figure that may be missing.
func deref(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
