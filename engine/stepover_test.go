package engine

import (
	"context"
	"testing"
	"time"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// TestStepOverWithoutWatchpoints steps over calls with return breakpoints,
// as on a machine that does not stop at hardware watchpoints (with and
// without skipping the callee's recursive calls), and with whatever this
// machine does once it has found out: the traces are those of Delve's
// StepOut. fib#2 calls itself (returns of deeper invocations
// pass the same return address); in index's main.main#1 a callee panics
// and the frame recovers (the frame's lines are watched, the return
// address among them).
func TestStepOverWithoutWatchpoints(t *testing.T) {
	before := watchpoints.Load()
	t.Cleanup(func() { watchpoints.Store(before) })
	for _, tc := range []struct {
		argv []string
		fid  trace.FID
	}{
		{[]string{"go", "run", "./testdata/fib"}, trace.FID{Func: "main.fib", Index: 2}},
		{[]string{"go", "run", "./testdata/index"}, trace.FID{Func: "main.main", Index: 1}},
	} {
		rec, prog := record(t, tc.argv...)
		f, err := rec.Frame(tc.fid)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		want, err := traceFrame(ctx, prog, rec, f, Limits{}, stepDelveOut, nil)
		if err != nil {
			cancel()
			t.Fatalf("%s, Delve's StepOut: %v", tc.fid, err)
		}
		for _, c := range []struct {
			state  int32
			noSkip bool
		}{{watchNone, false}, {watchNone, true}, {watchUnknown, false}} {
			watchpoints.Store(c.state)
			got, err := traceOnce(ctx, prog, rec, f, Limits{}, stepSlow, nil, c.noSkip)
			if err != nil {
				cancel()
				t.Fatalf("%s, watchpoints %d, no skip %v: %v", tc.fid, c.state, c.noSkip, err)
			}
			if a, b := describeSteps(got), describeSteps(want); a != b {
				t.Errorf("%s, watchpoints %d, no skip %v: made\n%s\nDelve's StepOut made\n%s", tc.fid, c.state, c.noSkip, a, b)
			}
			if now := watchpoints.Load(); c.state == watchUnknown && now == watchUnknown {
				t.Errorf("%s: still unknown whether the machine stops at watchpoints after stepping over calls", tc.fid)
			}
		}
		cancel()
	}
}

// TestStepOverPastLimit steps over fib#2's calls with return breakpoints
// in a recording that kept its first 40 frames: its first callee's
// recursive calls, most of them dropped past the limit, and its second
// callee's, dropped whole, are counted from the recording and skipped, and
// the trace is Delve's StepOut's.
func TestStepOverPastLimit(t *testing.T) {
	before := watchpoints.Load()
	t.Cleanup(func() { watchpoints.Store(before) })
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/fib", "15"}, repoRoot(t), Limits{MaxFrames: 40}, time.Minute)
	rec, prog := s.Recording(), s.Program()
	f, err := rec.Frame(trace.FID{Func: "main.fib", Index: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n, last, ok := rec.EntriesWithin(f.Seq + 1); !ok || last >= 0 || n == 0 {
		t.Fatalf("fib#2's first callee: EntriesWithin = %d, %d, %v; want a count with frames dropped", n, last, ok)
	}
	if d, cut := rec.DroppedCallees(f.Seq); len(d) != 1 || d[0].At != 1 || d[0].N != 1 || d[0].Within == 0 || cut >= 0 {
		t.Fatalf("fib#2's callees dropped past the limit: %+v, cut at %d; want its second, with its recursive calls", d, cut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want, err := traceFrame(ctx, prog, rec, f, Limits{}, stepDelveOut, nil)
	if err != nil {
		t.Fatalf("Delve's StepOut: %v", err)
	}
	watchpoints.Store(watchNone)
	got, err := traceOnce(ctx, prog, rec, f, Limits{}, stepSlow, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := describeSteps(got), describeSteps(want); a != b {
		t.Errorf("made\n%s\nDelve's StepOut made\n%s", a, b)
	}
}

// TestSkipAhead: stepping over fib#2's first call (fib#3), the counting
// hook runs fib#3 to the entry of its last recursive call, whose arguments
// are the recording's. Told that the callee is another frame, whose
// subtree is larger (fib#2's) or smaller (fib#4's), it counts to another
// entry, or past the run's end: the trace must then be made again
// without skipping (errSkipAhead). Told that the callee was dropped with
// its recursive calls not known, it does not skip.
func TestSkipAhead(t *testing.T) {
	before := watchpoints.Load()
	t.Cleanup(func() { watchpoints.Store(before) })
	watchpoints.Store(watchNone)
	rec, prog := record(t, "go", "run", "./testdata/fib")
	f, err := rec.Frame(trace.FID{Func: "main.fib", Index: 2})
	if err != nil {
		t.Fatal(err)
	}
	seq := func(i int) int {
		s, ok := rec.Find(trace.FID{Func: "main.fib", Index: i})
		if !ok {
			t.Fatalf("main.fib#%d not found", i)
		}
		return s
	}
	for _, tc := range []struct {
		recorded, within int
		want             error
	}{{seq(3), 0, nil}, {seq(2), 0, errSkipAhead}, {seq(4), 0, errSkipAhead}, {-1, -1, nil}} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		in, err := reach(ctx, prog, rec, f, Limits{}.withDefaults())
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		// Step to fib#3's entry, over the counting hook's call.
		var callee *proc.Stackframe
		for callee == nil {
			if _, _, err := in.command(api.Step); err != nil {
				t.Fatal(err)
			}
			w, fr, _, err := in.locate()
			if err != nil || w == gone {
				t.Fatalf("stepping to fib#2's first call: %v, %v", w, err)
			}
			if w == inCallee {
				if in.isUser(fr) {
					callee = fr
				} else if _, _, err := in.command(api.StepOut); err != nil {
					t.Fatal(err)
				}
			}
		}
		told := "dropped, its calls not known"
		if tc.recorded >= 0 {
			told = rec.FIDOf(tc.recorded).String()
		}
		before, _ := in.p.d.Stacktrace(in.goid, 50, 0)
		if err := in.skipAhead(ctx, callee, &recordedCallee{seq: tc.recorded, fn: "main.fib", within: tc.within}); err != tc.want {
			t.Errorf("skipAhead told the callee is %s: %v, want %v", told, err, tc.want)
		}
		if after, _ := in.p.d.Stacktrace(in.goid, 50, 0); tc.recorded < 0 && len(after) != len(before) {
			t.Errorf("skipAhead told the callee is %s ran it from %d frames deep to %d", told, len(before), len(after))
		}
		in.p.kill()
		cancel()
	}
}

// TestRecordedCallees: the callees a trace steps over are the frame's
// direct callees kept, with those dropped past the frame limit in their
// places (the kept ones alone if the places do not fit), up to the first
// place the recording does not know; a call of another function than the
// next one's loses them for the rest of the trace.
func TestRecordedCallees(t *testing.T) {
	walk := trace.FID{Func: "main.walk", Index: 1}
	build := func(maxRuns int, dropped ...trace.DroppedCallee) *inFrame {
		r := trace.NewRecording(
			&trace.Frame{FID: walk, Goroutine: 1, EntrySeq: 1, ExitSeq: 20, Exit: trace.Returned},
			&trace.Frame{FID: trace.FID{Func: "main.a", Index: 1}, Caller: walk, Goroutine: 1, EntrySeq: 2, ExitSeq: 3, Exit: trace.Returned},
			&trace.Frame{FID: trace.FID{Func: "main.b", Index: 1}, Caller: walk, Goroutine: 1, EntrySeq: 8, ExitSeq: 9, Exit: trace.Returned},
			&trace.Frame{FID: trace.FID{Func: "main.c", Index: 1}, Caller: walk, Goroutine: 2, EntrySeq: 10, ExitSeq: 11, Exit: trace.Returned, Spawn: true},
		)
		r.LimitDroppedCallees(maxRuns)
		for _, d := range dropped {
			fn := r.FuncID(d.Func, trace.Pos{})
			r.AddDroppedCallee(0, d.At, d.N, fn, d.Within)
		}
		r.Index()
		f, _ := r.Frame(walk)
		return &inFrame{rec: r, frame: f}
	}
	enter := func(in *inFrame, fn string) *recordedCallee {
		return in.directCallee(&proc.Stackframe{Current: proc.Location{Fn: &proc.Function{Name: fn}}})
	}
	calls := func(name string, in *inFrame, want ...recordedCallee) {
		t.Helper()
		for i, w := range want {
			if got := enter(in, w.fn); got == nil || *got != w {
				t.Fatalf("%s: call %d, of %s: callee %+v, want %+v", name, i, w.fn, got, w)
			}
		}
		if got := enter(in, "main.walk"); got != nil {
			t.Errorf("%s: call %d: callee %+v, want none", name, len(want), got)
		}
	}
	a, b := recordedCallee{seq: 1, fn: "main.a"}, recordedCallee{seq: 2, fn: "main.b"}
	calls("places fit", build(0, trace.DroppedCallee{At: 1, N: 1, Func: "main.walk", Within: 5}, trace.DroppedCallee{At: 3, N: 2, Func: "main.walk"}),
		a, recordedCallee{seq: -1, fn: "main.walk", within: 5}, b, recordedCallee{seq: -1, fn: "main.walk"}, recordedCallee{seq: -1, fn: "main.walk"})
	calls("places past the callees", build(0, trace.DroppedCallee{At: 7, N: 1, Func: "main.walk", Within: 5}), a, b)
	// One run allowed: the callees from the second's place are not known.
	calls("places cut", build(1, trace.DroppedCallee{At: 1, N: 1, Func: "main.walk", Within: 5}, trace.DroppedCallee{At: 3, N: 1, Func: "main.walk", Within: 2}),
		a, recordedCallee{seq: -1, fn: "main.walk", within: 5}, b)

	// Another function called than the recording's next callee.
	in := build(0, trace.DroppedCallee{At: 0, N: 1, Func: "main.walk", Within: 5})
	if got := enter(in, "main.a"); got != nil {
		t.Fatalf("main.a called where the recording has main.walk dropped: callee %+v", got)
	}
	if got := enter(in, "main.walk"); got != nil {
		t.Errorf("after the walk left the recorded callees: callee %+v, want none", got)
	}
}
