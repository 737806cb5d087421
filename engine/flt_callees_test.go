package engine

import (
	"slices"
	"testing"

	"github.com/adi-go/adi/engine/trace"
)

// TestAssignCallees: each visit takes the recorded callees of its line,
// as many as the stepper counted, in run order; a call the stepper
// counted as direct that the recorder marked indirect (an interface's
// call of a generic method, through a wrapper the stepper sees as library
// code) is still taken, even by a trace that stops before the frame ends.
func TestAssignCallees(t *testing.T) {
	check := trace.FID{Func: "main.check", Index: 1}
	site := func(line int) trace.Pos { return trace.Pos{File: "/m/check.go", Line: line} }
	child := func(fn string, entry uint64, line int, indirect bool) *trace.Frame {
		return &trace.Frame{FID: trace.FID{Func: fn, Index: 1}, Caller: check, Goroutine: 1,
			EntrySeq: entry, ExitSeq: entry + 1, Exit: trace.Returned, CallSite: site(line), Indirect: indirect}
	}
	rec := trace.NewRecording(
		&trace.Frame{FID: check, Goroutine: 1, EntrySeq: 1, ExitSeq: 20, Exit: trace.Returned},
		child("main.add", 2, 7, false),
		child("main.over", 4, 8, true),
		child("main.sub", 6, 9, false),
	)
	rec.Index()
	f, err := rec.Frame(check)
	if err != nil {
		t.Fatal(err)
	}
	// The trace stops at line 9, before sub is called.
	visits := []*visit{{pos: site(7), calls: 1}, {pos: site(8), calls: 1}, {pos: site(9)}}
	steps := make([]trace.Step, len(visits))
	for i, v := range visits {
		steps[i].Pos = v.pos
	}
	assignCallees(rec, f, visits, steps, false)
	want := [][]string{{"main.add#1"}, {"main.over#1"}, nil}
	for i := range steps {
		var got []string
		for _, c := range steps[i].Callees {
			got = append(got, c.String())
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("line %d: callees %v, want %v", steps[i].Line, got, want[i])
		}
	}
}
