package engine

import (
	"context"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/trace"
)

// TestStepOverWithoutWatchpoints steps over calls with return breakpoints,
// as on a machine that does not stop at hardware watchpoints, and with
// whatever this machine does once it has found out: the traces are those
// of Delve's StepOut. fib#2 calls itself (returns of deeper invocations
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
		for _, state := range []int32{watchNone, watchUnknown} {
			watchpoints.Store(state)
			got, err := traceFrame(ctx, prog, rec, f, Limits{}, stepSlow, nil)
			if err != nil {
				cancel()
				t.Fatalf("%s, watchpoints %d: %v", tc.fid, state, err)
			}
			if a, b := describeSteps(got), describeSteps(want); a != b {
				t.Errorf("%s, watchpoints %d: made\n%s\nDelve's StepOut made\n%s", tc.fid, state, a, b)
			}
			if now := watchpoints.Load(); state == watchUnknown && now == watchUnknown {
				t.Errorf("%s: still unknown whether the machine stops at watchpoints after stepping over calls", tc.fid)
			}
		}
		cancel()
	}
}
