package engine

import (
	"context"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/trace"
)

// BenchmarkRecord measures the Delve index: the cost of recording one frame
// (two ptrace stops: entry and return), on fib(12)'s 465 frames.
func BenchmarkRecord(b *testing.B) {
	_, prog := record(b, "go", "run", "./testdata/fib", "12")
	frames := 0
	b.ResetTimer()
	for b.Loop() {
		rec, err := Record(context.Background(), prog, RecordOptions{})
		if err != nil {
			b.Fatal(err)
		}
		frames += rec.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
}

// BenchmarkLaunch measures starting a target under Delve, stopped at its
// first instruction, and killing it: what every trace (FLT) and every
// re-execution pays before its first breakpoint.
//
//	go test ./engine -run xxx -bench 'Launch$' -benchtime 10x
func BenchmarkLaunch(b *testing.B) {
	_, prog := record(b, "go", "run", "./testdata/fib", "12")
	for b.Loop() {
		p, err := launch(prog, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		p.kill()
	}
}

// BenchmarkFLTStatement measures the deep tier per executed statement, on
// loop's simulate (a 100-iteration loop calling a function each time),
// which runs alone: walked with breakpoints set once (walkFast), and with
// Delve's Step at every statement, side by side.
//
//	go test ./engine -run xxx -bench 'FLTStatement$'
func BenchmarkFLTStatement(b *testing.B) {
	rec, prog := record(b, "go", "run", "./testdata/loop")
	f, err := rec.Frame(trace.FID{Func: "main.simulate", Index: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		how  stepping
	}{{"alone", stepAuto}, {"delve-step", stepSlow}} {
		b.Run(bc.name, func(b *testing.B) {
			steps := 0
			for b.Loop() {
				flt, err := buildFLT(context.Background(), prog, rec, f, Limits{}, bc.how, nil)
				if err != nil {
					b.Fatal(err)
				}
				steps += len(flt.Steps)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/stmt")
		})
	}
}

// BenchmarkFLTTest measures the deep tier per statement on a table-driven
// test's frame, whose *testing.T is one of the variables read at every
// statement: 200 iterations of three statements each.
//
//	go test ./engine -run xxx -bench 'FLTTest$'
func BenchmarkFLTTest(b *testing.B) {
	dir := writeModule(b, map[string]string{
		"go.mod": "module table\n\ngo 1.22\n",
		"table.go": `package table

func double(x int) int { return 2 * x }
`,
		"table_test.go": `package table

import "testing"

func TestDouble(t *testing.T) {
	for i := 0; i < 200; i++ {
		got := double(i)
		if got != 2*i {
			t.Errorf("double(%d) = %d", i, got)
		}
	}
}
`,
	})
	s, f := openFrame(b, []string{"go", "test", "."}, dir, Options{}, trace.FID{Func: "table.TestDouble", Index: 1})
	steps := 0
	for b.Loop() {
		flt, err := buildFLT(context.Background(), s.Program(), s.Recording(), f, Limits{}, stepAuto, nil)
		if err != nil {
			b.Fatal(err)
		}
		steps += len(flt.Steps)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/stmt")
}

// BenchmarkFLTRecursion builds the FLT of fib(20)'s top frame, whose two
// calls run 21,890 invocations below it, and of a leaf frame, side by side;
// and the same with Delve's StepOut stepping over the calls, for comparison.
// The recording keeps the first 64 frames only: enough to name the frames.
func BenchmarkFLTRecursion(b *testing.B) {
	s, err := Open(context.Background(), []string{"go", "run", "./testdata/fib", "20"}, repoRoot(b), Options{Limits: Limits{MaxFrames: 64}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rec := s.Recording()
	top, _ := rec.Frame(trace.FID{Func: "main.fib", Index: 1})   // n=20
	leaf, _ := rec.Frame(trace.FID{Func: "main.fib", Index: 20}) // n=1
	for _, bc := range []struct {
		name string
		f    *trace.Frame
		how  stepping
	}{{"top", top, stepAuto}, {"leaf", leaf, stepAuto}, {"top-delve-stepout", top, stepDelveOut}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				_, err := buildFLT(ctx, s.Program(), rec, bc.f, Limits{}, bc.how, nil)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
