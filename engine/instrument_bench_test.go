package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/target"
)

// BenchmarkRecorders compares, in one run, on the call-heavy fib fixture:
// the native run (an optimized build, no recorder), the instrumented run
// alone (the target writing its records), the whole instrumenting
// recording (run, read, index) and the Delve recording. Delve records
// fib(15) (1,973 calls) rather than fib(22) (57,313 calls), which would take
// minutes; its figures are per call, and the ratios are of per-call costs.
//
//	go test ./engine -run '^$' -bench Recorders -benchtime 5x
func BenchmarkRecorders(b *testing.B) {
	root := repoRoot(b)
	const n, nDelve = 22, 15
	calls := func(n int) float64 { return float64(2*fibN(n+1) - 1) }
	work := b.TempDir()
	native := filepath.Join(work, "fib-native")
	cmd := exec.Command("go", "build", "-o", native, "./testdata/fib")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	spec, err := target.Parse([]string{"go", "run", "./testdata/fib", strconv.Itoa(n)}, root)
	if err != nil {
		b.Fatal(err)
	}
	built, err := spec.Build(context.Background(), work)
	if err != nil {
		b.Fatal(err)
	}
	prog := &Program{Path: built.Path, Args: built.Args, Dir: built.Dir, ModulePath: built.ModulePath}
	in, err := buildInstrumented(context.Background(), spec, work, 0)
	if err != nil {
		b.Fatal(err)
	}
	records := filepath.Join(work, "records")
	var tNative, tRun, tRecord, tDelve time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if out, err := exec.Command(native, strconv.Itoa(n)).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		tNative += time.Since(start)

		start = time.Now()
		run := exec.Command(in.path, strconv.Itoa(n))
		run.Env = append(append(os.Environ(), in.env...), "ADI_TRACE_FILE="+records)
		if out, err := run.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		tRun += time.Since(start)

		start = time.Now()
		rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{})
		if err != nil {
			b.Fatal(err)
		}
		tRecord += time.Since(start)
		if float64(rec.Len()) != calls(n)+2 { // + main, parseN
			b.Fatalf("%d frames, want %.0f", rec.Len(), calls(n)+2)
		}

		start = time.Now()
		dprog := *prog
		dprog.Args = []string{strconv.Itoa(nDelve)}
		if _, err := Record(context.Background(), &dprog, RecordOptions{}); err != nil {
			b.Fatal(err)
		}
		tDelve += time.Since(start)
	}
	per := func(d time.Duration, c float64) float64 { return float64(d.Nanoseconds()) / float64(b.N) / c }
	nat, run, recd, dlv := per(tNative, calls(n)), per(tRun, calls(n)), per(tRecord, calls(n)), per(tDelve, calls(nDelve))
	b.ReportMetric(nat, "native-ns/call")
	b.ReportMetric(run, "instrumented-run-ns/call")
	b.ReportMetric(recd, "instrumented-record-ns/call")
	b.ReportMetric(dlv, "delve-ns/call")
	b.ReportMetric(run/nat, "run/native")
	b.ReportMetric(recd/nat, "record/native")
	b.ReportMetric(dlv/recd, "delve/record")
}

func fibN(n int) int {
	a, b := 0, 1
	for ; n > 0; n-- {
		a, b = b, a+b
	}
	return a
}

// BenchmarkIndexRecords times the instrumenting recorder's index alone:
// the records of one run of testdata/bench/fib (fib(27), 1,271,245
// records) are written beforehand, outside the timer, and each iteration
// builds the index from the whole file, with every frame kept (as adi
// bench records) and at the default frame limit (435,622 frames dropped
// as they end). In a recording the index is built while the target
// writes, on the other core: what it cannot read meanwhile is left for
// after the run, so its cost a record decides how much is left.
//
//	go test ./engine -run '^$' -bench IndexRecords -benchtime 10x
func BenchmarkIndexRecords(b *testing.B) {
	root := repoRoot(b)
	spec, err := target.Parse([]string{"go", "run", "./testdata/bench/fib"}, root)
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	built, err := spec.Build(context.Background(), filepath.Join(work, "debug"))
	if err != nil {
		b.Fatal(err)
	}
	in, err := buildInstrumented(context.Background(), spec, filepath.Join(work, "instrument"), 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := in.symbols(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	close(exited)
	for _, bc := range []struct {
		name string
		lim  Limits
	}{
		{"all", Limits{MaxFrames: 5_000_000}},
		{"limit", Limits{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			lim := bc.lim.withDefaults()
			var records int
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				f := writeRecords(b, in, built.Args, built.Dir, work)
				b.StartTimer()
				bld, t, err := indexLive(f, in, lim, in.symbols, exited, DefaultSpillAbove, true, nil)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if bld == nil {
					b.Fatal("the index was spilled")
				}
				records = bld.records
				t.Close()
				bld.copied.free()
				f.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(records), "ns/record")
		})
	}
}

// writeRecords runs the instrumented binary of in to its end, with args in
// dir, its records to a new record file in work, which it returns.
func writeRecords(tb testing.TB, in *instrumented, args []string, dir, work string) *os.File {
	tb.Helper()
	f, err := recordFile(work)
	if err != nil {
		tb.Fatal(err)
	}
	run := exec.Command(in.path, args...)
	run.Dir = dir
	run.Env = append(append(os.Environ(), in.env...), "ADI_TRACE_FD=3")
	run.ExtraFiles = []*os.File{f}
	if out, err := run.CombinedOutput(); err != nil {
		f.Close()
		tb.Fatalf("%v: %s", err, out)
	}
	return f
}
