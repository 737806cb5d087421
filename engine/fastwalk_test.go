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

// TestPanicStepChanges: a frame that a panic unwinds in its last statement
// (fill's third s.push, which appends, then panics) has that statement's
// changes, read when the panic began: walked by walkFast and by Delve's
// Step, the last step shows s with its third item.
func TestPanicStepChanges(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/full\n\ngo 1.22\n",
		"main.go": `package main

type stack struct{ items []int }

func (s *stack) push(v int) {
	s.items = append(s.items, v)
	if len(s.items) > 2 {
		panic("stack full")
	}
}

func fill(s *stack, n int) {
	for i := 1; i <= n; i++ {
		s.push(i * 10)
	}
}

func main() {
	fill(&stack{}, 3)
}
`})
	s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Recording()
	f, err := rec.Frame(trace.FID{Func: "main.fill", Index: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f.Exit != trace.Panicked {
		t.Fatalf("%s ended %v, want panicked", f.FID, f.Exit)
	}
	for _, how := range []struct {
		name string
		s    stepping
	}{{"walkFast", stepAuto}, {"Delve's Step", stepSlow}} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		flt, err := traceFrame(ctx, s.prog, rec, f, Limits{}, how.s, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", how.name, err)
		}
		last := flt.Steps[len(flt.Steps)-1]
		c := changedVar(last, "s")
		if last.Line != 14 || last.Visit != 3 || c == nil || !strings.Contains(c.New.Text, "items: []int{10, 20, 30}") {
			t.Errorf("%s, the trace:\n%s", how.name, describeSteps(flt))
		}
	}
}

// changedVar returns the change of name in step st, or nil.
func changedVar(st trace.Step, name string) *trace.Change {
	for i := range st.Changes {
		if st.Changes[i].Var == name {
			return &st.Changes[i]
		}
	}
	return nil
}
