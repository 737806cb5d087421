package engine

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// navFrames is the size of the synthetic recording of the navigation
// benchmarks.
const navFrames = 1_000_000

// synth builds recordings frame by frame in order of entry, the way the
// instrumenting recorder does.
type synth struct {
	rec    *trace.Recording
	counts map[string]int
	seq    uint64
	n, r0  trace.Str
	int    trace.Str
}

func (s *synth) next() uint64 { s.seq++; return s.seq }

// sframe is a frame of the synthetic recording.
type sframe struct {
	seq       int
	decl      int
	Goroutine int64
}

// enter appends the entry of fn called by caller (nil for a root) on
// goroutine g with the int argument n.
func (s *synth) enter(fn string, caller *sframe, g int64, n int) *sframe {
	s.counts[fn]++
	decl := 10 + len(fn)
	e := trace.Entry{
		Func: s.rec.FuncID(fn, trace.Pos{File: "/src/app/main.go", Line: decl}), Index: s.counts[fn],
		Parent: -1, Goroutine: g, EntrySeq: s.next(),
	}
	if caller != nil {
		e.Parent = caller.seq
		e.CallSite = s.rec.PosID(trace.Pos{File: "/src/app/main.go", Line: caller.decl + 2})
	}
	f := &sframe{seq: s.rec.Enter(&e), decl: decl, Goroutine: g}
	first := s.rec.Values()
	s.rec.AppendValue(s.n, s.int, trace.KindInt, strconv.AppendInt(nil, int64(n), 10), 0, 0, false, false)
	s.rec.AttachValues(f.seq, first, false)
	return f
}

func (s *synth) exit(f *sframe, r int) {
	s.rec.SetExit(f.seq, trace.Returned, s.next())
	first := s.rec.Values()
	s.rec.AppendValue(s.r0, s.int, trace.KindInt, strconv.AppendInt(nil, int64(r), 10), 0, 0, false, false)
	s.rec.AttachValues(f.seq, first, true)
}

func (s *synth) fib(caller *sframe, n int) int {
	f := s.enter("main.fib", caller, 1, n)
	r := n
	if n >= 2 {
		r = s.fib(f, n-1) + s.fib(f, n-2)
	}
	s.exit(f, r)
	return r
}

// syntheticRecording builds a recording of exactly frames frames shaped
// like a real run: main.main calls main.load in a wide loop (each load
// calling main.parseLine), runs a doubly recursive main.fib(25) (242,785
// frames, 25 deep), a linear recursion main.descend 5,000 deep, then
// spawns 16 worker goroutines whose loops call main.handle (calling
// main.decode and main.checksum), their frames interleaved in order of
// entry. main.rare is called three times: near the start, in the middle
// and at the very end.
func syntheticRecording(frames int) *trace.Recording {
	s := &synth{rec: &trace.Recording{}, counts: map[string]int{}}
	s.rec.Grow(frames, 2*frames)
	s.n, s.r0, s.int = s.rec.Intern("n"), s.rec.Intern("~r0"), s.rec.Intern("int")
	main := s.enter("main.main", nil, 1, 0)
	s.exit(s.enter("main.rare", main, 1, 1), 1)
	const workers, perItem = 16, 3
	fixed := 1 + 1 + 242_785 + 5_000 + 1 + 1 + workers // main, rare×3, fib, descend, worker roots
	loadFrames := 2 * 100_000
	items := (frames - fixed - loadFrames) / (workers * perItem)
	loadFrames = frames - fixed - items*workers*perItem
	for i := 0; i < loadFrames/2; i++ {
		l := s.enter("main.load", main, 1, i)
		s.exit(s.enter("main.parseLine", l, 1, i), i%80)
		s.exit(l, i)
	}
	if loadFrames%2 == 1 {
		s.exit(s.enter("main.load", main, 1, -1), -1)
	}
	s.fib(main, 25)
	s.exit(s.enter("main.rare", main, 1, 2), 2)
	var chain []*sframe
	for d, caller := 0, main; d < 5_000; d++ {
		caller = s.enter("main.descend", caller, 1, d)
		chain = append(chain, caller)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		s.exit(chain[i], i)
	}
	ws := make([]*sframe, workers)
	for w := range ws {
		s.counts["main.worker"]++
		seq := s.rec.Enter(&trace.Entry{
			Func: s.rec.FuncID("main.worker", trace.Pos{File: "/src/app/main.go", Line: 21}), Index: w + 1,
			Parent: main.seq, Goroutine: int64(w + 2), EntrySeq: s.next(), Spawn: true, SpawnSeq: s.seq,
			CallSite: s.rec.PosID(trace.Pos{File: "/src/app/main.go", Line: main.decl + 2}),
		})
		first := s.rec.Values()
		s.rec.AppendValue(s.n, s.int, trace.KindInt, strconv.AppendInt(nil, int64(w), 10), 0, 0, false, false)
		s.rec.AttachValues(seq, first, false)
		ws[w] = &sframe{seq: seq, decl: 21, Goroutine: int64(w + 2)}
	}
	for i := 0; i < items; i++ {
		for w, wf := range ws {
			h := s.enter("main.handle", wf, wf.Goroutine, i)
			s.exit(s.enter("main.decode", h, wf.Goroutine, i), i*w)
			s.exit(s.enter("main.checksum", h, wf.Goroutine, i), i^w)
			s.exit(h, i)
		}
	}
	for _, wf := range ws {
		s.exit(wf, 0)
	}
	s.exit(s.enter("main.rare", main, 1, 3), 3)
	s.exit(main, 0)
	s.rec.Index()
	return s.rec
}

// navSession is a session on the synthetic recording where the FLTs of
// the frames of fns are given, not built (there is no program to
// re-execute): navigation's cost is finding the frame. Moving to a frame
// of another function fails (its FLT cannot be built).
func navSession(tb testing.TB, rec *trace.Recording, fns ...string) *Session {
	tb.Helper()
	if rec.Len() != navFrames {
		tb.Fatalf("the synthetic recording has %d frames, want %d", rec.Len(), navFrames)
	}
	s := NewSession(rec, &Program{Path: "/nonexistent/app"}, Limits{}, time.Minute)
	for _, fn := range append(fns, "main.main") {
		for _, f := range rec.Invocations(fn) {
			s.flts[f.FID] = &trace.FLT{Frame: f}
		}
	}
	return s
}

var navRec *trace.Recording

func navRecording(tb testing.TB) *trace.Recording {
	if navRec == nil {
		navRec = syntheticRecording(navFrames)
	}
	return navRec
}

// BenchmarkNav measures the navigation commands on a 1,000,000-frame
// recording (target: under 1 ms each). continue and prev alternate between
// two frames 750,000 frames apart (main.rare#2 and #3); step-out and step-into go up from and back down to
// the 5,000th frame of a recursion; call-tree renders depth 3 below
// main.main, whose children include a 100,000-iteration loop.
func BenchmarkNav(b *testing.B) {
	rec := navRecording(b)
	ctx := context.Background()
	b.Run("continue-prev-far", func(b *testing.B) {
		s := navSession(b, rec, "main.rare")
		if _, err := s.Break("main.rare", "n >= 2"); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Continue(ctx); err != nil { // to main.rare#2
			b.Fatal(err)
		}
		for b.Loop() {
			nav, err := s.Continue(ctx)
			if err != nil || !nav.Moved {
				b.Fatalf("continue: %v %+v", err, nav)
			}
			if nav, err = s.Prev(ctx); err != nil || !nav.Moved {
				b.Fatalf("prev: %v %+v", err, nav)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/command")
	})
	b.Run("continue-prev-busy", func(b *testing.B) {
		// main.decode matches every third frame of the workers: many
		// matching frames, several breakpoints.
		s := navSession(b, rec, "main.decode", "main.checksum", "main.fib")
		for _, bp := range [][2]string{{"main.decode", "n % 1000 == 7"}, {"main.checksum", "r0 == 12345"}, {"main.fib", "n == 25"}} {
			if _, err := s.Break(bp[0], bp[1]); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			if _, err := s.Continue(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Prev(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/command")
	})
	b.Run("step-out-step-into", func(b *testing.B) {
		s := navSession(b, rec, "main.descend")
		deep := trace.FID{Func: "main.descend", Index: 5000}
		if _, err := s.StepInto(ctx, deep); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if nav, err := s.StepOut(ctx); err != nil || !nav.Moved {
				b.Fatalf("step-out: %v %+v", err, nav)
			}
			if _, err := s.StepInto(ctx, deep); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/command")
	})
	for _, cmd := range []string{"call-tree main.main#1 3", "call-tree main.fib#1 3", "step-into main.descend#2500", "step-out", "continue", "prev"} {
		b.Run("exec "+cmd, func(b *testing.B) {
			s := navSession(b, rec, "main.rare", "main.descend")
			if _, err := s.Break("main.rare", ""); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Exec(ctx, "step-into main.descend#2500"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Exec(ctx, cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNavSynthetic checks the synthetic recording's shape, where each
// navigation command goes on it, and that none looks at every frame: each
// answers in less time than one pass over the frames that reads a field of
// each (the least a command that looked at them all would take), measured
// side by side: the fastest of 21 runs against the fastest of 5 passes, so
// that a loaded machine or the race detector, which slow both, do not fail
// it, while a search through the frames does. BenchmarkNav gives the
// figures against the 1 ms target.
func TestNavSynthetic(t *testing.T) {
	// Built here, not kept for the rest of the test binary (half a GB).
	rec := syntheticRecording(navFrames)
	main, _ := rec.Lookup(trace.FID{Func: "main.main", Index: 1})
	if got := len(rec.Invocations("main.fib")); got != 242_785 {
		t.Errorf("%d frames of main.fib, want 242,785", got)
	}
	if main == nil || len(rec.Children(main.Seq)) < 100_000 {
		t.Fatalf("main.main should have over 100,000 children")
	}
	last := rec.At(rec.Len() - 1)
	if last.FID != (trace.FID{Func: "main.rare", Index: 3}) || last.Parent != 0 {
		t.Fatalf("the last frame is %s (parent %d), want main.rare#3 called by main.main", last.FID, last.Parent)
	}
	ctx := context.Background()
	s := navSession(t, rec, "main.rare", "main.descend")
	if n, err := s.Break("main.rare", "n >= 2"); err != nil || n != 2 {
		t.Fatalf("break main.rare n >= 2 = %d, %v; want 2", n, err)
	}
	// The garbage of building the recording is not the commands' cost.
	runtime.GC()
	steps := []struct {
		cmd, want string
	}{
		{"continue", "main.rare#2"},
		{"continue", "main.rare#3"},
		{"continue", "main.rare#3"}, // no later match
		{"prev", "main.rare#2"},
		{"prev", "main.rare#2"}, // rare#1 does not satisfy n >= 2
		{"step-into main.descend#5000", "main.descend#5000"},
		{"step-out", "main.descend#4999"},
		{"call-tree main.main#1 3", "main.descend#4999"},
	}
	var passes []time.Duration
	for range 5 {
		start := time.Now()
		n := 0
		for seq := range rec.Len() {
			if rec.ParentOf(seq) == 0 {
				n++
			}
		}
		passes = append(passes, time.Since(start))
		if n < 100_000 {
			t.Fatalf("a pass over the frames found %d called by main.main", n)
		}
	}
	pass := slices.Min(passes)
	t.Logf("%-30s fastest %s", "a pass over the frames", pass)
	for _, st := range steps {
		var times []time.Duration
		for range 21 {
			before := s.i
			start := time.Now()
			if _, err := s.Exec(ctx, st.cmd); err != nil {
				t.Fatalf("%s: %v", st.cmd, err)
			}
			times = append(times, time.Since(start))
			if got := s.Current().FID.String(); got != st.want {
				t.Fatalf("%s: inspecting %s, want %s", st.cmd, got, st.want)
			}
			if len(times) < 21 {
				s.i = before
			}
		}
		fastest, med := slices.Min(times), medianDuration(times)
		t.Logf("%-30s fastest %s, median %s", st.cmd, fastest, med)
		if fastest > pass {
			t.Errorf("%s: %s at best on %d frames (median %s), want less than a pass over them (%s)", st.cmd, fastest, navFrames, med, pass)
		}
	}
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Index memory, measured by the two benchmarks below (go test ./engine
// -run '^$' -bench IndexMemory -benchtime 1x), against a target of 64
// bytes a frame plus argument bytes. The Recording is a column store
// (engine/trace/store.go): a pointer-free 48-byte row per frame, 4 bytes
// in the callee lists and 4 in the per-function lists, interned function
// names, positions and value names and types; each value a 40-byte row
// plus its text. A *trace.Frame is made only for the frames asked for.

// BenchmarkIndexMemory measures the heap of a 1,000,000-frame recording,
// frames and index (runtime.MemStats after a GC, before and after building
// it), per frame, against the target of 64 bytes per frame plus argument
// bytes. Argument bytes are the trace.Values of Args and Results and the
// text they hold. The synthetic frames have one argument and one result.
func BenchmarkIndexMemory(b *testing.B) {
	var perFrame, perArgs float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rec := syntheticRecording(navFrames)
		runtime.GC()
		runtime.ReadMemStats(&after)
		n := float64(rec.Len())
		perFrame = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
		perArgs = ValueBytes(rec) / n
		runtime.KeepAlive(rec)
	}
	b.ReportMetric(perFrame, "B/frame")
	b.ReportMetric(perArgs, "arg-B/frame")
	b.ReportMetric(perFrame-perArgs, "index-B/frame")
	b.ReportMetric(float64(unsafe.Sizeof(trace.Frame{})), "B/trace.Frame")
}

// buildFib builds testdata/bench/fib twice: the debug build (for the
// traces) and the instrumented one, each recording of which is a run.
func buildFib(tb testing.TB) (*InstrumentedBuild, *Program) {
	tb.Helper()
	spec, err := target.Parse([]string{"go", "run", "./testdata/bench/fib"}, repoRoot(tb))
	if err != nil {
		tb.Fatal(err)
	}
	work := tb.TempDir()
	ctx := context.Background()
	built, err := spec.Build(ctx, work)
	if err != nil {
		tb.Fatal(err)
	}
	inst, err := BuildInstrumented(ctx, spec, work, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return inst, &Program{Path: built.Path, Args: built.Args, Dir: built.Dir, ModulePath: built.ModulePath}
}

// BenchmarkIndexMemoryInstrumented measures the memory of a real
// recording per frame: the instrumenting recorder's index of
// testdata/bench/fib (635,623 frames, one int argument and one int result
// each). The index and its values are mostly outside the Go heap (rows in
// anonymous memory, values in the record file): index-B/frame and
// arg-B/frame are what the recording says they take (IndexBytes,
// ValueBytes: the pages it wrote or keeps), heap-B/frame what the heap
// grew by, from before the recording to after it, both after a GC (the
// recorder's own garbage is not counted, what the recording keeps is).
func BenchmarkIndexMemoryInstrumented(b *testing.B) {
	ctx := context.Background()
	inst, prog := buildFib(b)
	var perHeap, perIndex, perArgs float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rec, err := inst.Record(ctx, prog, RecordOptions{Limits: Limits{MaxFrames: 2_000_000}})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if rec.Partial != "" || rec.Len() < 600_000 {
			b.Fatalf("%d frames, partial %q", rec.Len(), rec.Partial)
		}
		n := float64(rec.Len())
		perHeap = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
		perIndex = float64(rec.IndexBytes()) / n
		perArgs = ValueBytes(rec) / n
		runtime.KeepAlive(rec)
	}
	b.ReportMetric(perHeap, "heap-B/frame")
	b.ReportMetric(perIndex, "index-B/frame")
	b.ReportMetric(perArgs, "arg-B/frame")
}

// BenchmarkNavInstrumented measures navigation on a real recording: the
// instrumenting recorder's index of testdata/bench/fib (635,623 frames).
// The FLTs of the frames visited are built (under Delve) before the
// timing starts, so the figures are the cost of finding the frame and of
// rendering the answer (text and JSON).
func BenchmarkNavInstrumented(b *testing.B) {
	s, err := Open(context.Background(), []string{"go", "run", "./testdata/bench/fib"}, repoRoot(b),
		Options{Recorder: RecorderInstrument, Limits: Limits{MaxFrames: 2_000_000}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if n := s.Recording().Len(); n < 600_000 {
		b.Fatalf("%d frames, want fib(27)'s 635,623 (%s)", n, s.Recording().Partial)
	}
	ctx := context.Background()
	// fib(27) calls fib(20) 21 times, the first and the last about
	// 600,000 frames apart.
	if n, err := s.Break("main.fib", "n == 20"); err != nil || n != 21 {
		b.Fatalf("break main.fib n == 20: %d, %v; want 21", n, err)
	}
	// Build the FLTs of the first two matches (the second takes long:
	// re-execution stops at each of the 20,000 calls of fib before it).
	var first, second int
	for _, step := range []struct {
		cmd string
		at  *int
	}{{"continue", &first}, {"continue", &second}} {
		if _, err := s.Exec(ctx, step.cmd); err != nil {
			b.Fatalf("%s: %v", step.cmd, err)
		}
		*step.at = s.i
	}
	for _, bc := range []struct {
		cmd  string
		from int
	}{
		{"continue", first}, {"prev", second},
		{"step-out", first}, {"step-into main.fib#1", first},
		{"call-tree main.main#1 3", first}, {"call-tree main.fib#1 3", first},
	} {
		s.i = bc.from
		if _, err := s.Exec(ctx, bc.cmd); err != nil { // builds the FLT
			b.Fatalf("%s: %v", bc.cmd, err)
		}
		b.Run(bc.cmd, func(b *testing.B) {
			for b.Loop() {
				s.i = bc.from
				if _, err := s.Exec(ctx, bc.cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFLTStatementByRecorder builds the FLT of loop's main.simulate
// on an index made by each recorder: FLTs are built by re-executing the
// plain -N -l build under Delve whichever recorder made the index, so the
// cost per statement should not depend on it.
func BenchmarkFLTStatementByRecorder(b *testing.B) {
	for _, kind := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		b.Run(string(kind), func(b *testing.B) {
			s, f := openFrame(b, []string{"go", "run", "./testdata/loop"}, repoRoot(b), Options{Recorder: kind}, trace.FID{Func: "main.simulate", Index: 1})
			steps := 0
			for b.Loop() {
				flt, err := BuildFLT(context.Background(), s.Program(), s.Recording(), f, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				steps += len(flt.Steps)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/stmt")
		})
	}
}

// BenchmarkFLTStatementByBuild builds the FLT of loop's main.simulate on
// the debug build that Open makes (with the counting hook at every
// function's entry) and on the plain -N -l build, side by side: the hook
// should not make a statement dearer.
//
//	go test ./engine -run xxx -bench FLTStatementByBuild
func BenchmarkFLTStatementByBuild(b *testing.B) {
	argv := []string{"go", "run", "./testdata/loop"}
	s, f := openFrame(b, argv, repoRoot(b), Options{}, trace.FID{Func: "main.simulate", Index: 1})
	spec, err := target.Parse(argv, repoRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	built, err := spec.Build(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	plain := *s.Program()
	plain.Path = built.Path
	for _, bc := range []struct {
		name string
		prog *Program
	}{{"counting", s.Program()}, {"plain", &plain}} {
		b.Run(bc.name, func(b *testing.B) {
			steps := 0
			for b.Loop() {
				flt, err := BuildFLT(context.Background(), bc.prog, s.Recording(), f, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				steps += len(flt.Steps)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/stmt")
		})
	}
}
