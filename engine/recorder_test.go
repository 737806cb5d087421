package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// frameSummary is one line per frame: what the index says of it.
func frameSummary(f *trace.Frame) string {
	var args []string
	for _, a := range f.Args {
		args = append(args, a.Name+"="+a.Text)
	}
	s := fmt.Sprintf("%s(%s) caller=%s", f.FID, strings.Join(args, ", "), f.Caller)
	if f.Spawn {
		s += " spawn"
	}
	s += " exit=" + string(f.Exit)
	if f.Panic != "" {
		s += " panic=" + f.Panic
	}
	if f.CallSite.File != "" {
		s += fmt.Sprintf(" at %s:%d", filepath.Base(f.CallSite.File), f.CallSite.Line)
	}
	return s
}

// TestRecordIndex checks the whole index of a program that exercises init
// functions, a package-level initialiser, a method value, a goroutine, a
// deferred call and a recovered panic.
func TestRecordIndex(t *testing.T) {
	rec, _ := record(t, "go", "run", "./testdata/initgen")
	var got []string
	for f := range rec.All {
		got = append(got, frameSummary(f))
	}
	want := []string{
		"main.buildTable#1(n=3) caller= exit=returned",
		"main.init.0#1() caller= exit=returned",
		"main.init.1#1() caller= exit=returned",
		"main.main#1() caller= exit=returned",
		"main.work#1(add=func(int), vals=[]int{0, 1, 4, 100}, wg=&sync.WaitGroup{…}) caller=main.main#1 spawn exit=returned at main.go:73",
		"main.(*acc).add#1(a=&main.acc{total: 0}, v=0) caller=main.work#1 exit=returned at main.go:62",
		"main.(*acc).add#2(a=&main.acc{total: 0}, v=1) caller=main.work#1 exit=returned at main.go:62",
		"main.(*acc).add#3(a=&main.acc{total: 1}, v=4) caller=main.work#1 exit=returned at main.go:62",
		"main.(*acc).add#4(a=&main.acc{total: 5}, v=100) caller=main.work#1 exit=returned at main.go:62",
		"main.safe#1(v=-1) caller=main.main#1 exit=returned at main.go:76",
		"main.mustPositive#1(v=-1) caller=main.safe#1 exit=panicked panic=negative value -1 at main.go:56",
		"main.safe.func1#1() caller=main.safe#1 exit=returned at main.go:56", // run by the panic passing through line 56
		"main.safe#2(v=4) caller=main.main#1 exit=returned at main.go:79",
		"main.mustPositive#2(v=4) caller=main.safe#2 exit=returned at main.go:56",
		"main.safe.func1#2() caller=main.safe#2 exit=returned at main.go:57",
		"main.cleanup#1(name=\"main\") caller=main.main#1 exit=returned at main.go:81",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("index:\n%s\n\nwant:\n%s", g, w)
	}
	safe, _ := rec.Lookup(fid("main.safe", 1))
	if len(safe.Results) != 2 || safe.Results[1].Text != `&errors.errorString{s: "recovered: negative value -1"}` {
		t.Fatalf("safe#1 results: %+v", safe.Results)
	}
	if rec.Outcome.ExitCode != 0 || rec.Outcome.Panic != nil || rec.Partial != "" {
		t.Fatalf("outcome %+v partial %q", rec.Outcome, rec.Partial)
	}
	if !strings.Contains(rec.Outcome.Stdout, "recovered: negative value -1\nsafe 4\ncleanup main\n") {
		t.Fatalf("stdout not captured: %q", rec.Outcome.Stdout)
	}
}

// TestRecordEmptyFunctions records functions compiled to a single RET
// (noop, and the package initializer that the linker left with nothing to
// do), where a function's entry and its return are one address: the
// frames return, in order, and the package initializer, which no person
// wrote, is not a frame. A function with no RET (fail always panics) is
// recorded too.
func TestRecordEmptyFunctions(t *testing.T) {
	rec, _ := record(t, "go", "run", "./testdata/empty")
	var got []string
	for f := range rec.All {
		got = append(got, fmt.Sprintf("%s [%d,%d]", frameSummary(f), f.EntrySeq, f.ExitSeq))
	}
	want := []string{
		"main.main#1() caller= exit=returned [1,18]",
		"main.noop#1() caller=main.main#1 exit=returned at main.go:41 [2,3]",
		"main.square.isShape#1(~p0=main.square{side: 3}) caller=main.main#1 exit=returned at main.go:43 [4,5]",
		"main.area#1(s=main.square{side: 3}) caller=main.main#1 exit=returned at main.go:44 [6,9]",
		"main.noop#2() caller=main.area#1 exit=returned at main.go:36 [7,8]",
		// fail has no RET: it is entered all the same, and left by its
		// panic, which runs try's deferred recover.
		"main.try#1() caller=main.main#1 exit=returned at main.go:44 [10,15]",
		`main.fail#1(msg="no") caller=main.try#1 exit=panicked panic=no at main.go:31 [11,14]`,
		"main.try.func1#1() caller=main.try#1 exit=returned at main.go:31 [12,13]",
		"main.noop#3() caller=main.main#1 exit=returned at main.go:45 [16,17]",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("index:\n%s\n\nwant:\n%s", g, w)
	}
}

func TestRecordPanicOutcome(t *testing.T) {
	rec, _ := record(t, "go", "run", "./testdata/nilmap")
	p := rec.Outcome.Panic
	if rec.Outcome.ExitCode != 2 || p == nil {
		t.Fatalf("outcome: %+v", rec.Outcome)
	}
	if p.Value != "assignment to entry in nil map" || p.Frame.String() != "main.(*Registry).Add#1" {
		t.Fatalf("panic %q in %s", p.Value, p.Frame)
	}
	var user []string
	for _, e := range p.Stack {
		if !e.FID.IsZero() {
			user = append(user, fmt.Sprintf("%s %s:%d", e.FID, filepath.Base(e.Pos.File), e.Pos.Line))
		}
	}
	// The lines are those of the panic's own traceback.
	if got := strings.Join(user, ", "); got != "main.(*Registry).Add#1 main.go:24, main.load#1 main.go:34, main.main#1 main.go:41" {
		t.Fatalf("panic stack: %s", got)
	}
	for seq := 1; seq < rec.Len(); seq++ {
		f := rec.At(seq)
		if f.FID.Func != "main.NewRegistry" && (f.Exit != trace.Panicked || f.Panic != p.Value) {
			t.Errorf("%s: exit %s panic %q, want unwound by the panic", f.FID, f.Exit, f.Panic)
		}
	}
}

func TestRecordFailedTests(t *testing.T) {
	rec, _ := record(t, "go", "test", "./testdata/tabletest")
	got := strings.Join(rec.Outcome.FailedTests, ",")
	if got != "TestFormatSize,TestFormatSize/exactly_1KiB" {
		t.Fatalf("failed tests: %s", got)
	}
	if rec.Outcome.ExitCode != 1 {
		t.Fatalf("exit code %d", rec.Outcome.ExitCode)
	}
}

func TestRecordGenerics(t *testing.T) {
	rec, _ := record(t, "go", "test", "./testdata/generics")
	const pkg = "github.com/adi-go/adi/testdata/generics."
	for _, fn := range []string{pkg + "Reverse[...]", pkg + "(*Stack[...]).Pop", pkg + "(*Stack[...]).Push"} {
		if !rec.HasFunc(fn) {
			t.Errorf("%s not recorded; have %v", fn, rec.Funcs())
		}
	}
}

func TestRecordTimeout(t *testing.T) {
	start := time.Now()
	s, err := Open(context.Background(), []string{"go", "run", "./testdata/spin"}, repoRoot(t), Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Recording()
	if !rec.Outcome.Killed || !strings.Contains(rec.Partial, "timeout of 2s") {
		t.Fatalf("killed=%v partial=%q", rec.Outcome.Killed, rec.Partial)
	}
	if rec.Len() == 0 || !rec.HasFunc("main.(*poller).tick") {
		t.Fatalf("the frames recorded before the timeout are lost: %d", rec.Len())
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Fatalf("a 2s timeout took %s", d)
	}
	assertNoTarget(t, s.Program().Path)
}

func TestRecordMaxFrames(t *testing.T) {
	s, err := Open(context.Background(), []string{"go", "run", "./testdata/fib", "10"}, repoRoot(t), Options{Limits: Limits{MaxFrames: 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Recording()
	if rec.Len() != 20 || !strings.Contains(rec.Partial, "only the first 20 frames") {
		t.Fatalf("%d frames, partial %q", rec.Len(), rec.Partial)
	}
	if rec.Outcome.ExitCode != 0 || !strings.Contains(rec.Outcome.Stdout, "fib(10) = 55") {
		t.Fatalf("the run did not go on to its end: %+v", rec.Outcome)
	}
}

func TestBuildFailure(t *testing.T) {
	_, err := Open(context.Background(), []string{"go", "test", "./testdata/broken"}, repoRoot(t), Options{})
	var be *target.BuildError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *target.BuildError", err)
	}
	if !strings.HasPrefix(err.Error(), "build failed: ") || !strings.Contains(be.Output, "undefined: suffix") {
		t.Fatalf("build error does not carry the compiler's message:\n%v", err)
	}
}

func TestDivergence(t *testing.T) {
	s := newSession(t, "go", "run", "./testdata/nondet")
	_, err := s.Frame(context.Background(), fid("main.throw", 1))
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("FLT of a frame whose arguments come from the clock: %v, want ErrDiverged", err)
	}
	if !strings.Contains(err.Error(), "argument seed is ") {
		t.Fatalf("divergence error does not say what differed: %v", err)
	}
	// A frame before the non-determinism still has its trace.
	if _, err := s.Frame(context.Background(), fid("main.main", 1)); err != nil && !errors.Is(err, ErrDiverged) {
		t.Fatal(err)
	}
}

func TestLoopSummary(t *testing.T) {
	s := newSession(t, "go", "run", "./testdata/loop")
	flt, err := s.Frame(context.Background(), fid("main.simulate", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(flt.Skipped) != 1 {
		t.Fatalf("skips: %+v", flt.Skipped)
	}
	sk := flt.Skipped[0]
	calls := s.Recording().Invocations("main.step")
	if sk.Iterations != 98 || len(sk.Callees) != 98 || sk.Callees[0] != calls[1].FID || sk.Callees[97] != calls[98].FID {
		t.Fatalf("skip %+v: want 98 iterations with main.step#2 … main.step#99", sk)
	}
	var kept []trace.FID
	for _, st := range flt.Steps {
		kept = append(kept, st.Callees...)
	}
	if len(kept) != 2 || kept[0] != calls[0].FID || kept[1] != calls[99].FID {
		t.Fatalf("kept callees %v, want main.step#1 and main.step#100", kept)
	}
}

// TestFLTAll: the trace with every iteration kept has no summary, the
// calls of all 100 iterations in order, and the loop header's step once
// an iteration; the summarized trace stays the cached one.
func TestFLTAll(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, "go", "run", "./testdata/loop")
	f := s.Recording().Invocations("main.simulate")[0]
	all, err := s.FLTAll(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Skipped) != 0 || all.Truncated {
		t.Fatalf("skips %+v (truncated %v), want none", all.Skipped, all.Truncated)
	}
	calls := s.Recording().Invocations("main.step")
	var seen []trace.FID
	for _, st := range all.Steps {
		seen = append(seen, st.Callees...)
	}
	if len(seen) != 100 || seen[0] != calls[0].FID || seen[57] != calls[57].FID || seen[99] != calls[99].FID {
		t.Fatalf("the trace's calls: %v, want main.step#1 … #100 in order", seen)
	}
	summarized, err := s.FLT(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(summarized.Skipped) != 1 || len(summarized.Steps) >= len(all.Steps) {
		t.Fatalf("the cached trace: %d steps, skips %+v; want it summarized, shorter than %d", len(summarized.Steps), summarized.Skipped, len(all.Steps))
	}
}

// TestFLTUntil builds the beginning of a trace: up to the fifth run of
// the loop's if (line 19), which until finds by the value of i there, the
// loop's first iteration kept and the next three summarized, with the
// calls made so far only. It is not cached: the whole trace is built
// afterwards. With no statement accepted it is the whole trace, which is
// cached.
func TestFLTUntil(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, "go", "run", "./testdata/loop")
	f := s.Recording().Invocations("main.simulate")[0]
	flt, err := s.FLTUntil(ctx, f, func(p trace.Pos, vars map[string]trace.Value) bool {
		return p.Line == 19 && vars["i"].Text == "4"
	})
	if err != nil {
		t.Fatal(err)
	}
	last := flt.Steps[len(flt.Steps)-1]
	if flt.Truncated || last.Line != 19 || !strings.Contains(flt.Note, "main.go:19") {
		t.Fatalf("the trace ends at line %d (truncated %v, %q):\n%+v", last.Line, flt.Truncated, flt.Note, flt.Steps)
	}
	calls := s.Recording().Invocations("main.step")
	if len(flt.Skipped) != 1 || flt.Skipped[0].Iterations != 3 || len(last.Callees) != 0 || len(flt.Steps[len(flt.Steps)-2].Callees) != 1 || flt.Steps[len(flt.Steps)-2].Callees[0] != calls[4].FID {
		t.Fatalf("skips %+v, steps %+v: want 3 iterations skipped and the fifth's main.step#5", flt.Skipped, flt.Steps)
	}
	// The calls of step the trace saw, not the 95 after it.
	var seen []trace.FID
	for _, st := range flt.Steps {
		seen = append(seen, st.Callees...)
	}
	for _, sk := range flt.Skipped {
		seen = append(seen, sk.Callees...)
	}
	if len(seen) != 5 {
		t.Fatalf("the trace's calls: %v, want main.step#1 … #5", seen)
	}
	full, err := s.Frame(ctx, f.FID)
	if err != nil {
		t.Fatal(err)
	}
	if full == flt || full.Note != "" || full.Skipped[0].Iterations != 98 {
		t.Fatalf("the whole trace: %q, skips %+v", full.Note, full.Skipped)
	}
	if again, err := s.FLTUntil(ctx, f, func(trace.Pos, map[string]trace.Value) bool { return true }); err != nil || again != full {
		t.Fatalf("once built, the whole trace is the answer: %v", err)
	}

	report := s.Recording().Invocations("main.report")[0]
	whole, err := s.FLTUntil(ctx, report, func(trace.Pos, map[string]trace.Value) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.Frame(ctx, report.FID); err != nil || again != whole || whole.Note != "" {
		t.Fatalf("a trace no statement of which was accepted is the whole one, cached: %q, %v", whole.Note, err)
	}
}

// assertNoTarget fails if a process runs the binary at path.
func assertNoTarget(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := processesOf(path)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of %s still running: %v", path, pids)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func processesOf(path string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.TrimSuffix(exe, " (deleted)") == path {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestNoOrphanAfterFLT(t *testing.T) {
	s := newSession(t, fib4...)
	if _, err := s.Frame(context.Background(), fid("main.fib", 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(context.Background(), fid("main.fib", 3), 16, 1, "n"); err != nil {
		t.Fatal(err)
	}
	assertNoTarget(t, s.Program().Path)
}

// TestFailedStatus reads the exit status a Delve recording lost from the
// run's outcome: 2 after an unrecovered panic, 1 after a test binary's
// final FAIL, else 0 (finish asks only when Delve reported 0).
func TestFailedStatus(t *testing.T) {
	failing := "=== RUN   TestTotal\n    x_test.go:9: Total = 10, want 15\n--- FAIL: TestTotal (0.00s)\nFAIL\n"
	for _, c := range []struct {
		name string
		out  trace.Outcome
		want int
	}{
		{"panic", trace.Outcome{Panic: &trace.PanicInfo{Value: "boom"}}, 2},
		{"failed test", trace.Outcome{Stdout: failing, FailedTests: []string{"TestTotal"}}, 1},
		{"passing tests", trace.Outcome{Stdout: "PASS\n"}, 0},
		{"FAIL printed by the program, no failed test", trace.Outcome{Stdout: "status: FAIL\nFAIL\n"}, 0},
		{"a failed test, then more output", trace.Outcome{Stdout: failing + "cleanup done\n", FailedTests: []string{"TestTotal"}}, 0},
		{"no output", trace.Outcome{}, 0},
	} {
		if got := failedStatus(&c.out); got != c.want {
			t.Errorf("%s: failedStatus = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestRecordRangeFunc: the body of a range-over-func loop, which the
// compiler makes a closure (main.main-range1), is not a frame in either
// recorder, and the two agree on the rest: the calls in the body are the
// iterator's.
func TestRecordRangeFunc(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/rangefunc\n\ngo 1.23\n",
		"main.go": `package main

import (
	"fmt"
	"iter"
)

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func square(x int) int { return x * x }

func main() {
	total := 0
	for x := range count(3) {
		total += square(x)
	}
	fmt.Println(total)
}
`,
	})
	recs := map[RecorderKind]*trace.Recording{}
	for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Recorder: k})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		recs[k] = s.Recording()
		for f := range recs[k].All {
			if strings.Contains(f.FID.Func, "-range") {
				t.Errorf("%s recorder: a loop body is a frame: %s", k, f.FID)
			}
		}
	}
	if n := len(recs[RecorderDelve].InvocationSeqs("main.square")); n != 3 {
		t.Errorf("%d frames of main.square, want 3", n)
	}
	for _, d := range compareRecordings(recs[RecorderDelve], recs[RecorderInstrument], false) {
		t.Error(d.text)
	}
}
