package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/trace"
)

// TestWalkFastAgrees builds the trace of frames that run alone with
// walkFast (stepAuto) and with Delve's Step at every statement (stepSlow),
// and requires the same steps: positions, visits, changes and callees.
// The frames are the first frame of each function of the testdata programs
// that runs alone (initgen's have deferred calls, a go statement and a
// call through a method value; index's, nilmap's and nilptr's failing
// paths end with the run's panic), and the walks stop nowhere early but at the step limit.
// (Not the pipeline's: the last statement of its workers' goroutines races
// with the process's exit, whichever way they are stepped.) traceFrame
// does not start again with Delve's Step when walkFast gives up
// (errFastAbort), so walkFast must walk each of them to its return.
func TestWalkFastAgrees(t *testing.T) {
	progs := [][]string{
		{"go", "run", "./testdata/loop"},
		{"go", "run", "./testdata/closure"},
		{"go", "run", "./testdata/index"},
		{"go", "run", "./testdata/initgen"},
		{"go", "run", "./testdata/nilmap"},
		{"go", "test", "./testdata/nilptr"},
		{"go", "test", "./testdata/methods"},
		{"go", "test", "./testdata/tabletest"},
		{"go", "test", "./testdata/droppederr"},
		{"go", "test", "./testdata/deferrecover"},
		{"go", "test", "./testdata/generics"},
		{"go", "test", "./testdata/offbyone"},
		{"go", "test", "./testdata/search"},
	}
	alone, panicking := 0, 0
	for _, argv := range progs {
		t.Run(argv[2], func(t *testing.T) {
			rec, prog := record(t, argv...)
			for _, fn := range rec.Funcs() {
				seq := -1
				for _, s := range rec.InvocationSeqs(fn) {
					if ok, p := rec.RunsAlone(int(s)); ok {
						seq = int(s)
						if p {
							panicking++
						}
						break
					}
				}
				if seq < 0 {
					continue
				}
				alone++
				f := rec.At(seq)
				lim := Limits{MaxSteps: 300}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				fast, err := traceFrame(ctx, prog, rec, f, lim, stepAuto, nil)
				if err != nil {
					cancel()
					t.Fatalf("%s, walkFast: %v", f.FID, err)
				}
				slow, err := traceFrame(ctx, prog, rec, f, lim, stepSlow, nil)
				cancel()
				if err != nil {
					t.Fatalf("%s, Delve's Step: %v", f.FID, err)
				}
				if got, want := describeSteps(fast), describeSteps(slow); got != want {
					t.Errorf("%s: walkFast made\n%s\nDelve's Step made\n%s", f.FID, got, want)
				}
			}
		})
	}
	t.Logf("%d frames compared, %d of them ended by the run's panic", alone, panicking)
	if alone < 20 || panicking < 4 {
		t.Errorf("only %d frames run alone, %d of them panicking: the test compares too little", alone, panicking)
	}
}

// describeSteps prints a trace's steps, one a line, with what the tests
// compare.
func describeSteps(flt *trace.FLT) string {
	var b strings.Builder
	for _, s := range flt.Steps {
		fmt.Fprintf(&b, "%s:%d #%d calls %v", s.File, s.Line, s.Visit, s.Callees)
		for _, c := range s.Changes {
			fmt.Fprintf(&b, " %s=%s", c.Var, c.New.Text)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "note %q truncated %v results %v\n", flt.Note, flt.Truncated, flt.Frame.Results)
	return b.String()
}

// TestWalkFastGivesUp: encode#2's json.Marshal panics and recovers inside
// encoding/json, a panic the recording cannot have (no frame of the
// program panics). walkFast gives up at it, and buildFLT builds the trace
// again with Delve's Step: the same trace as Step alone.
func TestWalkFastGivesUp(t *testing.T) {
	rec, prog := record(t, "go", "run", "./testdata/libpanic")
	f, err := rec.Frame(trace.FID{Func: "main.encode", Index: 2})
	if err != nil {
		t.Fatal(err)
	}
	if alone, _ := rec.RunsAlone(f.Seq); !alone {
		t.Fatalf("%s does not run alone", f.FID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := traceFrame(ctx, prog, rec, f, Limits{}, stepAuto, nil); !errors.Is(err, errFastAbort) {
		t.Fatalf("walkFast over a panic inside the library: %v, want errFastAbort", err)
	}
	got, err := buildFLT(ctx, prog, rec, f, Limits{}, stepAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := traceFrame(ctx, prog, rec, f, Limits{}, stepSlow, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := describeSteps(got), describeSteps(want); a != b || len(got.Steps) < 3 {
		t.Errorf("after giving up:\n%s\nDelve's Step:\n%s", a, b)
	}
}
