package engine

import (
	"context"
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// openInstrumented records argv (relative to dir) with the instrumenting
// recorder and fails the test if it fell back to Delve.
func openInstrumented(t *testing.T, argv []string, dir string, lim Limits, timeout time.Duration) (*Session, []string) {
	t.Helper()
	var log []string
	s, err := Open(context.Background(), argv, dir, Options{
		Recorder: RecorderInstrument, Limits: lim, Timeout: timeout,
		Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, l := range log {
		if strings.Contains(l, "instead") {
			t.Fatalf("fell back: %s", l)
		}
	}
	return s, log
}

// TestInstrumentFLTAddressArgs builds the trace of a frame whose argument
// is a PC: the instrumented build that recorded it and the debug build
// that runs it again have their code at other addresses, and the
// re-execution is the same run all the same (it was taken for one that
// went another way).
func TestInstrumentFLTAddressArgs(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/pcs\n\ngo 1.26\n",
		"main.go": `package main

import (
	"fmt"
	"runtime"
)

// Frame is a program counter, as github.com/pkg/errors has it.
type Frame uintptr

func where() Frame {
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:])
	return Frame(pcs[0])
}

func line(f Frame) int {
	pc := uintptr(f) - 1
	_, n := runtime.FuncForPC(pc).FileLine(pc)
	return n
}

func main() {
	f := where()
	fmt.Println("line", line(f))
}
`,
	})
	s, _ := openInstrumented(t, []string{"go", "run", "."}, dir, Limits{}, time.Minute)
	if out := s.Recording().Outcome.Stdout; out != "line 24\n" {
		t.Fatalf("output %q, want the line of the call of where", out)
	}
	flt, err := s.Frame(context.Background(), fid("main.line", 1))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, st := range flt.Steps {
		lines = append(lines, st.Line)
	}
	if fmt.Sprint(lines) != "[18 19 20]" {
		t.Fatalf("trace of main.line#1: the lines %v, want 18 to 20", lines)
	}
}

// TestInstrumentFLT builds a frame's trace from an instrumented index: the
// re-execution under Delve reaches the same invocation, and the composite
// arguments kept shallowly are filled in.
func TestInstrumentFLT(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/nilmap"}, repoRoot(t), Limits{}, time.Minute)
	rec := s.Recording()
	p := rec.Outcome.Panic
	if p == nil || p.Value != "assignment to entry in nil map" || p.Frame.String() != "main.(*Registry).Add#1" {
		t.Fatalf("panic: %+v", p)
	}
	f, err := rec.Frame(p.Frame)
	if err != nil {
		t.Fatal(err)
	}
	if f.Exit != trace.Panicked || f.Panic != p.Value || len(f.Args) == 0 || f.Args[0].Text != "&main.Registry{…}" {
		t.Fatalf("frame before the trace: %s %q %+v", f.Exit, f.Panic, f.Args)
	}
	flt, err := s.Frame(context.Background(), p.Frame)
	if err != nil {
		t.Fatal(err)
	}
	if len(flt.Steps) == 0 || flt.Steps[len(flt.Steps)-1].Line != 24 {
		t.Fatalf("trace: %+v", flt.Steps)
	}
	// The values Delve read are the recording's now.
	if f, err = rec.Frame(p.Frame); err != nil {
		t.Fatal(err)
	}
	if got := f.Args[0].Text; !strings.Contains(got, "ports: nil") {
		t.Fatalf("receiver after the trace: %s, want Delve's full value", got)
	}
	if _, err := s.Frame(context.Background(), fid("main.NewRegistry", 1)); err != nil {
		t.Fatal(err)
	}
	if nr, _ := rec.Frame(fid("main.NewRegistry", 1)); nr.Results[0].Text != "&main.Registry{ports: nil, order: nil}" {
		t.Fatalf("result after the trace: %s, want Delve's full value", nr.Results[0].Text)
	}
}

func TestInstrumentDivergence(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/nondet"}, repoRoot(t), Limits{}, time.Minute)
	_, err := s.Frame(context.Background(), fid("main.throw", 1))
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "argument seed is ") {
		t.Fatalf("trace of a frame whose arguments come from the clock: %v, want ErrDiverged", err)
	}
}

func TestInstrumentTimeout(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/spin"}, repoRoot(t), Limits{}, 2*time.Second)
	rec := s.Recording()
	if !rec.Outcome.Killed || !strings.Contains(rec.Partial, "timeout of 2s") {
		t.Fatalf("killed=%v partial=%q", rec.Outcome.Killed, rec.Partial)
	}
	if !rec.HasFunc("main.(*poller).tick") {
		t.Fatalf("the frames recorded before the kill are lost: %v", rec.Funcs())
	}
}

// TestInstrumentMaxFrames: the first MaxFrames frames are kept, plus the
// frames on the failing path, and the recording says what was dropped.
func TestInstrumentMaxFrames(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/fib", "10"}, repoRoot(t), Limits{MaxFrames: 20}, time.Minute)
	rec := s.Recording()
	if rec.Len() != 20 || !strings.Contains(rec.Partial, "only the first 20 frames") || !strings.Contains(rec.Partial, "159 of 179 frames dropped") {
		t.Fatalf("%d frames, partial %q", rec.Len(), rec.Partial)
	}
	if !strings.Contains(rec.Outcome.Stdout, "fib(10) = 55") {
		t.Fatalf("output %q", rec.Outcome.Stdout)
	}

	s, _ = openInstrumented(t, []string{"go", "run", "./testdata/nilmap"}, repoRoot(t), Limits{MaxFrames: 1}, time.Minute)
	rec = s.Recording()
	var got []string
	for f := range rec.All {
		got = append(got, f.FID.String())
	}
	if strings.Join(got, " ") != "main.main#1 main.load#1 main.(*Registry).Add#1" || rec.At(2).Caller != rec.At(1).FID {
		t.Fatalf("frames kept: %v, want main.main#1 and the failing path", got)
	}
	if p := rec.Outcome.Panic; p == nil || p.Frame.String() != "main.(*Registry).Add#1" {
		t.Fatalf("panic %+v", p)
	}
}

// TestInstrumentEntriesWithinPastLimit: with a frame limit, the frames
// kept whose recursive calls were dropped past it still say how many
// there were (a trace steps over such a call with the count), as many as
// a recording of the whole run says; the last of them is not known.
func TestInstrumentEntriesWithinPastLimit(t *testing.T) {
	argv := []string{"go", "run", "./testdata/fib", "15"}
	whole, _ := openInstrumented(t, argv, repoRoot(t), Limits{}, time.Minute)
	part, _ := openInstrumented(t, argv, repoRoot(t), Limits{MaxFrames: 40}, time.Minute)
	all, rec := whole.Recording(), part.Recording()
	if !rec.Dropped || rec.Len() >= all.Len() {
		t.Fatalf("the recording with a limit of 40 frames has %d frames of %d, dropped %v", rec.Len(), all.Len(), rec.Dropped)
	}
	counted := 0
	for seq := range rec.Len() {
		fid := rec.FIDOf(seq)
		n, last, ok := rec.EntriesWithin(seq)
		w, ok2 := all.Find(fid)
		if !ok2 {
			t.Fatalf("%s is not in the whole run's recording", fid)
		}
		wn, _, _ := all.EntriesWithin(w)
		switch {
		case !ok:
			// Every frame of the run returned.
			t.Errorf("EntriesWithin(%s) cannot say, want %d", fid, wn)
		case n != wn:
			t.Errorf("EntriesWithin(%s) = %d, the whole run's %d", fid, n, wn)
		case n > 0 && last < 0:
			counted++
		}
	}
	// fib(15)'s first frames, whose calls run past the limit.
	if counted == 0 {
		t.Error("no frame kept counts recursive calls dropped past the limit")
	}
}

// TestInstrumentDroppedCallees: with a frame limit, a frame always kept
// lists its direct callees dropped past the limit, each at its place among
// its direct callees, with as many recursive calls as a recording of the
// whole run says that callee made; so does a frame whose callee the limit
// dropped at the end of the run (Keep: a callee that returned after its
// goroutine created another, whose first frame came after it), and a frame
// past the limit that the limit keeps (the panic's), and a frame whose
// callee ended before a later frame of another goroutine (dropped after
// it); and a frame kept counts as many recursive calls as in the whole
// run.
func TestInstrumentDroppedCallees(t *testing.T) {
	t.Run("fib", func(t *testing.T) {
		checkDroppedCallees(t, []string{"go", "run", "./testdata/fib", "15"}, repoRoot(t), "")
	})
	t.Run("keep", func(t *testing.T) {
		dir := writeModule(t, map[string]string{"go.mod": "module example.com/spawner\n\ngo 1.22\n", "main.go": `package main

import (
	"fmt"
	"runtime"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func worker(started chan bool) { started <- true }

// spawner's frames end before its goroutine's first: they stay until
// the end of the run.
func spawner(d int) int {
	if d > 0 {
		return spawner(d-1) + 1
	}
	started := make(chan bool)
	go worker(started)
	<-started
	return 1
}

func run() int {
	s := fib(10)
	s += spawner(6)
	return s + fib(12)
}

func main() {
	s := run()
	// Until the worker's goroutine is gone, its frame's exit included: a
	// frame still running at the end is kept with its callers (the
	// spawner's, listed among their callers' dropped callees).
	for runtime.NumGoroutine() > 1 {
		runtime.Gosched()
	}
	fmt.Println(s)
}
`})
		checkDroppedCallees(t, []string{"go", "run", "."}, dir, "main.spawner")
	})
	t.Run("failing", func(t *testing.T) {
		dir := writeModule(t, map[string]string{"go.mod": "module example.com/failing\n\ngo 1.22\n", "main.go": `package main

func step(i int) int { return i + 1 }

func walk(n int) int {
	if n == 0 {
		return 0
	}
	return walk(n-1) + 1
}

// check, past the frame limit, is kept: the panic ends it.
func check(n int) {
	if walk(n) + walk(n+1) != 2*n {
		panic("walked too far")
	}
}

func main() {
	for i := range 50 {
		step(i)
	}
	check(5)
}
`})
		checkDroppedCallees(t, []string{"go", "run", "."}, dir, "main.walk")
	})
	t.Run("interleaved", func(t *testing.T) {
		dir := writeModule(t, map[string]string{"go.mod": "module example.com/interleaved\n\ngo 1.22\n", "main.go": `package main

import "fmt"

// The channels are globals: a frame whose arguments are channels keeps
// values in the index, and stays until the end of the run.
var (
	ready, start, entered = make(chan bool), make(chan bool), make(chan bool)
	done                  = make(chan int)
)

func pad(i int) int { return i + 1 }

// hold is entered after step, on another goroutine, and ends after it:
// step, which returns first, cannot be dropped until hold is.
func hold() int {
	entered <- true
	return <-done
}

// waiter's frame comes before step's, and stays to the end (a goroutine's
// first frame): hold's is dropped as it ends.
func waiter() {
	ready <- true
	<-start
	hold()
}

func step(d int) int {
	if d > 0 {
		return step(d-1) + 1
	}
	start <- true
	<-entered
	return 1
}

func main() {
	go waiter()
	<-ready
	for i := range 50 {
		pad(i)
	}
	s := step(4)
	done <- 1
	fmt.Println(s)
}
`})
		checkDroppedCallees(t, []string{"go", "run", "."}, dir, "main.step")
	})
}

// checkDroppedCallees records argv in dir whole and kept to 40 frames,
// and checks the callees dropped and the recursive calls of the frames
// kept against the whole run's, and that a callee of function fn is
// among those listed (if fn is not empty).
func checkDroppedCallees(t *testing.T, argv []string, dir, fn string) {
	whole, _ := openInstrumented(t, argv, dir, Limits{}, time.Minute)
	part, _ := openInstrumented(t, argv, dir, Limits{MaxFrames: 40}, time.Minute)
	all, rec := whole.Recording(), part.Recording()
	direct := func(r *trace.Recording, seq int) []int {
		var ks []int
		for _, k := range r.Children(seq) {
			if !r.SpawnOf(int(k)) && !r.IndirectOf(int(k)) {
				ks = append(ks, int(k))
			}
		}
		return ks
	}
	listed, counted, fnListed := 0, 0, false
	for seq := range rec.Len() {
		fid := rec.FIDOf(seq)
		w, ok := all.Find(fid)
		if !ok {
			t.Fatalf("%s is not in the whole run's recording", fid)
		}
		if n, _, ok := rec.EntriesWithin(seq); ok {
			counted++
			if m, _, _ := all.EntriesWithin(w); n != m {
				t.Errorf("%s: %d recursive calls, the whole run's %d", fid, n, m)
			}
		}
		runs, cut := rec.DroppedCallees(seq)
		if len(runs) == 0 && cut < 0 {
			continue
		}
		if cut >= 0 {
			t.Errorf("%s: the callees from place %d are not listed (far fewer are dropped than the limit's quarter)", fid, cut)
		}
		want := direct(all, w)
		n := len(direct(rec, seq))
		for _, d := range runs {
			n += d.N
			fnListed = fnListed || d.Func == fn
			for at := d.At; at < d.At+d.N; at++ {
				listed++
				if at < 0 || at >= len(want) {
					t.Errorf("%s: a dropped callee at place %d of %d", fid, at, len(want))
					continue
				}
				k := want[at]
				within, _, _ := all.EntriesWithin(k)
				if f := all.FuncOf(k); f != d.Func || within != d.Within {
					t.Errorf("%s: dropped callee at place %d: %s with %d recursive calls, the whole run's %s: %d", fid, at, d.Func, d.Within, all.FIDOf(k), within)
				}
			}
		}
		if n != len(want) {
			t.Errorf("%s: %d direct callees kept or dropped, the whole run's %d", fid, n, len(want))
		}
	}
	// The first frames call past the limit.
	if listed == 0 || counted == 0 {
		t.Errorf("%d callees dropped past the limit listed, %d frames kept counting their recursive calls", listed, counted)
	}
	if fn != "" && !fnListed {
		t.Errorf("no callee of %s listed", fn)
	}
}

// TestInstrumentDroppedCalleesBounded: a frame kept that makes thousands
// of calls past the frame limit lists them in runs of one function, and
// only up to a bound, past which it says from what place its callees are
// not known: the memory they take stays a few bytes a frame kept.
func TestInstrumentDroppedCalleesBounded(t *testing.T) {
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/loops\n\ngo 1.22\n", "main.go": `package main

import "fmt"

func h(i int) int { return i + 1 }
func f(i int) int { return i * 3 }
func g(i int) int { return i - 1 }

func main() {
	s := 0
	for i := range 5000 {
		s += h(i)
	}
	for i := range 30000 {
		if i%3 == 2 {
			s += g(i)
		} else {
			s += f(i)
		}
	}
	fmt.Println(s)
}
`})
	s, _ := openInstrumented(t, []string{"go", "run", "."}, dir, Limits{MaxFrames: 100}, time.Minute)
	rec := s.Recording()
	main, err := rec.Frame(trace.FID{Func: "main.main", Index: 1})
	if err != nil {
		t.Fatal(err)
	}
	kept := len(rec.Children(main.Seq))
	runs, cut := rec.DroppedCallees(main.Seq)
	if len(runs) == 0 || runs[0] != (trace.DroppedCallee{At: kept, N: 5000 - kept, Func: "main.h"}) {
		t.Fatalf("main's callees dropped: %+v…; want main.h's %d calls past the %d kept first", runs[:min(len(runs), 1)], 5000-kept, kept)
	}
	// f, f, g, f, f, g…: two runs for three calls, far more than the
	// bound of 1,024 runs for a limit of 100 frames.
	if n := len(runs); n > 1024 || cut < 0 || cut != runs[n-1].At+runs[n-1].N {
		t.Fatalf("%d runs, cut at place %d: want at most 1,024, cut after the last", n, cut)
	}
	for _, d := range runs[1:] {
		for at := d.At; at < d.At+d.N; at++ {
			want := "main.f"
			if (at-5000)%3 == 2 {
				want = "main.g"
			}
			if d.Func != want || d.Within != 0 {
				t.Fatalf("the callee at place %d: %s with %d recursive calls, want %s with none", at, d.Func, d.Within, want)
			}
		}
	}
}

// TestInstrumentMaxFramesValues: the values of the frames kept past the
// frame limit stay readable in the record file while the file is trimmed
// of the others' (the trim ran while the limit chose the frames kept, and
// freed values that were still needed: go test -race catches it).
func TestInstrumentMaxFramesValues(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/bench/fib", "22"}, repoRoot(t), Limits{MaxFrames: 10000}, time.Minute)
	rec := s.Recording()
	if rec.Len() != 10000 || !rec.Dropped {
		t.Fatalf("%d frames, dropped %v", rec.Len(), rec.Dropped)
	}
	for f := range rec.All {
		if f.FID.Func != "main.fib" {
			continue
		}
		if len(f.Args) != 1 || f.Args[0].Text == "" || f.Args[0].Error != "" || len(f.Results) != 1 || f.Results[0].Text == "" || f.Results[0].Error != "" {
			t.Fatalf("%s: arguments %+v, results %+v", f.FID, f.Args, f.Results)
		}
	}
}

// runIndexed runs the instrumented binary in dir, with the environment
// variables env besides the hooks', writing its records to a file in work,
// and indexes them with the limits lim as a recording would, once it has
// ended. It returns the run's output, the index's builder, the record
// file and the run's error.
func runIndexed(t *testing.T, in *instrumented, dir, work string, lim Limits, env ...string) (string, *builder, *instrument.File, error) {
	t.Helper()
	recPath := filepath.Join(work, "records")
	cmd := exec.Command(in.path)
	cmd.Dir = dir
	cmd.Env = append(append(append(os.Environ(), in.env...), "ADI_TRACE_FILE="+recPath), env...)
	out, runErr := cmd.CombinedOutput()
	records, err := os.Open(recPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { records.Close() })
	tab, err := loadSymbols(in.path)
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	close(exited)
	b, tf, err := indexLive(records, in, lim, func() (*gosym.Table, error) { return tab, nil }, exited, -1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tf.Close() })
	return string(out), b, tf, runErr
}

// TestInstrumentFullOfGoroutines: goroutines that run at once, each past
// its first records, take a chunk of the record file each, and so fill a
// small one with few records; the recording says so.
func TestInstrumentFullOfGoroutines(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/many\n\ngo 1.21\n",
		"main.go": `package main

import "sync"

func sq(n int) int { return n * n }

func main() {
	var started, done sync.WaitGroup
	release := make(chan struct{})
	total := make([]int, 40)
	for i := range total {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			for k := 0; k < 1000; k++ {
				total[i] += sq(k)
			}
			started.Done()
			<-release
		}()
	}
	started.Wait()
	close(release)
	done.Wait()
	println(len(total))
}
`,
	}
	in, dir, work := buildModule(t, files, []string{"go", "run", "."})
	// 1 MB: 16 chunks, the control chunk's and the types' among them.
	out, b, tf, err := runIndexed(t, in, dir, work, Limits{}.withDefaults(), "ADI_TRACE_MAXFILE=1048576")
	if err != nil || !strings.Contains(out, "40") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b.rec.SetValueSource(newFileValues(tf))
	b.finish(0, nil, 0, out, "", tf)
	if !tf.Stopped || !b.rec.Dropped {
		t.Fatalf("stopped %v, dropped %v: 40 goroutines at once did not fill 16 chunks", tf.Stopped, b.rec.Dropped)
	}
	for _, want := range []string{"the record file reached its size limit (1 MB)", "goroutines, each of which takes 64 KB of the file while it runs once past its first records"} {
		if !strings.Contains(b.rec.Partial, want) {
			t.Errorf("the recording says %q, want it to say %q", b.rec.Partial, want)
		}
	}
}

// TestInstrumentWaitsForIndex: goroutines writing records on both cores
// outrun an index made slow; once the record file has grown to
// waitRecordFile they wait for the index to hand chunks back, so that the
// file stays that small and the whole run is recorded, its failing end
// too.
func TestInstrumentWaitsForIndex(t *testing.T) {
	in, dir, work := buildModule(t, map[string]string{
		"go.mod": "module example.com/wait\n\ngo 1.22\n",
		"main.go": `package main

import "sync"

func sq(n int) int { return n * n }

func fail(sum int) { panic(sum) }

func main() {
	var wg sync.WaitGroup
	sums := make([]int, 2)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 1000000; k++ {
				sums[i] += sq(k & 7)
			}
		}()
	}
	wg.Wait()
	fail(sums[0] + sums[1])
}
`}, []string{"go", "run", "."})
	defer func(n int64) { waitRecordFile = n }(waitRecordFile)
	// Segments of 256 KB, 256 KB, 512 KB, 1 MB and 2 MB make 4 MB (what
	// the target writes before the index's first poll fits); one more
	// doubles it.
	waitRecordFile = 4 << 20
	// The index reads ~4M records a second at most while the target runs;
	// the target writes 4M records (~40 MB) in a few hundred ms.
	testHookLive = func(int) { time.Sleep(time.Millisecond) }
	defer func() { testHookLive = nil }()
	// A recording this long reports its progress.
	defer func(d time.Duration) { progressPeriod = d }(progressPeriod)
	progressPeriod = 50 * time.Millisecond
	var reported []int
	var times RecordTimes
	rec, err := recordInstrumented(context.Background(), in, &Program{Dir: dir}, work,
		RecordOptions{Limits: Limits{MaxFrames: 3_000_000}, Times: &times, Progress: func(n int) { reported = append(reported, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reported) < 2 || !slices.IsSorted(reported) || reported[0] <= 0 || reported[len(reported)-1] > rec.Len() {
		t.Errorf("progress reported %v frames, want several counts, growing, up to %d", reported, rec.Len())
	}
	if times.Waited == 0 || times.FileBytes > 8<<20 {
		t.Errorf("the record file grew to %d bytes (%d records), the target waiting %v for the index; want it within 8 MB",
			times.FileBytes, times.Records, times.Waited)
	}
	const frames = 1 + 2 + 2000000 + 1 // main, the goroutines, sq, fail
	if rec.Len() != frames || rec.Partial != "" {
		t.Fatalf("%d frames, want %d; partial %q", rec.Len(), frames, rec.Partial)
	}
	p := rec.Outcome.Panic
	if p == nil || p.Value != "35000000" || rec.FIDOf(rec.Len()-1).String() != "main.fail#1" {
		t.Errorf("the run's end: panic %+v, last frame %s; want main.fail#1 panicking with 35000000", p, rec.FIDOf(rec.Len()-1))
	}
	t.Logf("%d records in a file of %d KB; the target waited %v, %d chunks handed back; progress %v", times.Records, times.FileBytes>>10, times.Waited, times.Reused, reported)

	// Open says how long the target waited, past a second in all.
	var log []string
	s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{
		Limits: Limits{MaxFrames: 3_000_000}, Recorder: RecorderInstrument,
		Log: func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	said := regexp.MustCompile(`^adi: the target's goroutines waited ([0-9.]+m?s) in all for adi to read their records \(they wrote them faster than adi's index reads them; the record file stays below 4 MB\)$`)
	for _, l := range log {
		if m := said.FindStringSubmatch(l); m != nil {
			if d, err := time.ParseDuration(m[1]); err != nil || d < time.Second {
				t.Errorf("Open said %q", l)
			}
			t.Log(l)
			return
		}
	}
	t.Errorf("Open did not say how long the target waited:\n%s", strings.Join(log, "\n"))
}

// TestStopOrder puts the runtime's number of the last record before it
// stopped in run order: the order of the first record numbered after it,
// exits (which take no number) counted in the run order only.
func TestStopOrder(t *testing.T) {
	b := &builder{}
	// Records numbered 1 to 6 read in order, each followed by two exits
	// (orders 1, 4, 7, …): the record numbered n has order 3n-2.
	for n := uint64(1); n <= 6; n++ {
		b.numbered[b.numberedN] = numberedAt{n, b.seq + 1}
		b.numberedN++
		b.seq += 3
	}
	for stop, want := range map[uint64]uint64{0: 1, 1: 4, 4: 13, 5: 16, 6: 19, 9: 19} {
		if got := b.stopOrder(stop); got != want {
			t.Errorf("stopped after record %d: whole before %d, want %d", stop, got, want)
		}
	}
	// The ring holds the last numbered records only: a stop before them
	// has no known order.
	for n := uint64(7); b.numberedN < len(b.numbered)+10; n++ {
		b.numbered[b.numberedN%len(b.numbered)] = numberedAt{n, b.seq + 1}
		b.numberedN++
		b.seq++
	}
	if got := b.stopOrder(5); got != 0 {
		t.Errorf("stopped after record 5, out of the ring: whole before %d, want 0 (unknown)", got)
	}
	last := b.numbered[(b.numberedN-1)%len(b.numbered)]
	if got := b.stopOrder(last.num - 1); got != last.order {
		t.Errorf("stopped before the last record: whole before %d, want %d", got, last.order)
	}
}

// TestInstrumentStoppedWholeBefore: a run whose record file filled up
// left out the frames entered after, but the recording is whole before
// the stop (the stop record says where), so re-executions still count
// entries and walk frames alone there.
func TestInstrumentStoppedWholeBefore(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/stop\n\ngo 1.21\n",
		"main.go": `package main

func sq(n int) int { return n * n }

func main() {
	t := 0
	for i := 0; i < 100000; i++ {
		t += sq(i % 10)
	}
	println(t)
}
`,
	}
	in, dir, work := buildModule(t, files, []string{"go", "run", "."})
	// 100,001 frames, some 2 MB of records.
	out, b, tf, err := runIndexed(t, in, dir, work, Limits{}.withDefaults(), "ADI_TRACE_MAXFILE=1048576")
	if err != nil || !strings.Contains(out, "2850000") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b.rec.SetValueSource(newFileValues(tf))
	b.finish(0, nil, 0, "2850000\n", "", tf)
	rec := b.rec
	// One goroutine: every record read was numbered before the stop, and
	// the recording is whole up to the last event read (a frame's exit,
	// or the last frame's entry).
	var read uint64
	for i := range rec.Len() {
		f := rec.At(i)
		read = max(read, f.EntrySeq)
		if f.Exit == trace.Returned {
			read = max(read, f.ExitSeq)
		}
	}
	if !tf.Stopped || !rec.Dropped || rec.CompleteBefore != read+1 || rec.Len() >= 100001 {
		t.Fatalf("stopped %v at %d; dropped %v, whole before %d (want %d), %d frames", tf.Stopped, tf.StopSeq, rec.Dropped, rec.CompleteBefore, read+1, rec.Len())
	}
	if strings.Contains(rec.Partial, "goroutines") || !strings.Contains(rec.Partial, "the record file reached its size limit (1 MB)") {
		t.Errorf("one goroutine filled the file, which the recording says as %q", rec.Partial)
	}
	// sq#10 returned long before the stop; main#1 was still running.
	sq10, ok := rec.Find(fid("main.sq", 10))
	if !ok {
		t.Fatal("no main.sq#10")
	}
	if alone, _ := rec.RunsAlone(sq10); !alone {
		t.Errorf("main.sq#10 does not run alone")
	}
	if n, ok := rec.EntriesBetween(0, sq10); !ok || n != 10 {
		t.Errorf("EntriesBetween(main.main#1, main.sq#10) = %d, %v; want 10, true", n, ok)
	}
	// The last frame entered before the stop is counted too.
	last := rec.Len() - 1
	if n, ok := rec.EntriesBetween(0, last); !ok || n != last {
		t.Errorf("EntriesBetween(main.main#1, %s) = %d, %v; want %d, true", rec.FIDOf(last), n, ok, last)
	}
	if alone, _ := rec.RunsAlone(0); alone {
		t.Errorf("main.main#1 runs alone, in a recording that left out frames it called")
	}
}

// TestInstrumentEdgeCases compares the two recorders on programs that end
// by log.Fatal (no deferred call runs) or a deadlock (a fatal error), that
// stop a test with t.Fatal
// (runtime.Goexit) inside a subtest, recover a runtime error in a deferred
// closure, spawn goroutines from a loop and call a generic function.
func TestInstrumentEdgeCases(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/edge\n\ngo 1.21\n",
		"cmd/fatal/main.go": `package main

import "log"

func check(n int) error {
	if n > 2 {
		return errTooBig
	}
	return nil
}

var errTooBig = errorString("too big")

type errorString string

func (e errorString) Error() string { return string(e) }

func main() {
	for i := 0; i < 5; i++ {
		if err := check(i); err != nil {
			log.Fatalf("check(%d): %v", i, err)
		}
	}
}
`,
		"cmd/deadlock/main.go": `package main

func wait(c chan int) int { return <-c }

func main() {
	c := make(chan int)
	println(wait(c))
}
`,
		"edge.go": `package edge

import "sync"

func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func at(xs []int, i int) int { return xs[i] }

func Safe(xs []int, i int) (v int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return at(xs, i), true
}

func square(x int) int { return x * x }

func Squares(n int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = square(i)
		}(i)
	}
	wg.Wait()
	return out
}
`,
		"edge_test.go": `package edge

import "testing"

func need(t *testing.T, ok bool, what string) {
	t.Helper()
	if !ok {
		t.Fatal(what)
	}
}

func TestEdge(t *testing.T) {
	t.Run("max", func(t *testing.T) {
		need(t, Max(2, 3) == 3, "Max int")
		need(t, Max(2.5, 1.5) == 2.5, "Max float")
	})
	t.Run("safe", func(t *testing.T) {
		_, ok := Safe([]int{1, 2}, 5)
		need(t, ok, "Safe out of range")
	})
	t.Run("squares", func(t *testing.T) {
		sq := Squares(4)
		need(t, sq[3] == 9, "Squares")
	})
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, argv := range [][]string{{"go", "run", "./cmd/fatal"}, {"go", "run", "./cmd/deadlock"}, {"go", "test", "."}} {
		t.Run(strings.Join(argv[1:], " "), func(t *testing.T) {
			d, err := Open(context.Background(), argv, dir, Options{Recorder: RecorderDelve, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			i, _ := openInstrumented(t, argv, dir, Limits{}, time.Minute)
			if i.Recording().Len() < 2 {
				t.Fatalf("instrumented: %d frames", i.Recording().Len())
			}
			for _, diff := range timingOnly(t, compareRecordings(d.Recording(), i.Recording(), false)) {
				t.Error(diff.text)
			}
		})
	}
}

// TestInstrumentFallback: a program the instrumented build breaks (it
// declares the name the hooks import their runtime under) is recorded by
// Delve, and the log says so.
func TestInstrumentFallback(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/clash\n\ngo 1.21\n",
		"main.go": "package main\n\nvar __adirt = 1\n\nfunc f() int { return __adirt }\n\nfunc main() { println(f()) }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log []string
	s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{
		Timeout: time.Minute, Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all := strings.Join(log, "\n")
	if !strings.Contains(all, "the instrumented build failed") || !strings.Contains(all, "recording with the Delve recorder instead") {
		t.Fatalf("log does not say that it fell back:\n%s", all)
	}
	// Why, in the compiler's words, at the place in the user's file.
	if !regexp.MustCompile(`the instrumented build failed: [^ ]*/main\.go:3:5: __adirt already declared`).MatchString(all) {
		t.Errorf("log does not say why the build failed:\n%s", all)
	}
	if !s.Recording().HasFunc("main.f") {
		t.Fatalf("Delve's recording lacks main.f: %v", s.Recording().Funcs())
	}
}

func TestInstrumentNeedsSource(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fib")
	cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, "./testdata/fib")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err := Open(context.Background(), []string{bin, "3"}, dir, Options{Recorder: RecorderInstrument})
	if err == nil || !strings.Contains(err.Error(), "prebuilt binary") {
		t.Fatalf("instrumenting a binary: %v", err)
	}
	if _, err := ParseRecorder("fast"); err == nil || !strings.Contains(err.Error(), "use auto") {
		t.Fatalf("ParseRecorder(fast): %v", err)
	}
}

// TestInstrumentFilesTarget: go run of .go files (package
// command-line-arguments) and go test with -run.
func TestInstrumentFilesTarget(t *testing.T) {
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/fib/main.go", "5"}, repoRoot(t), Limits{}, time.Minute)
	if rec := s.Recording(); len(rec.Invocations("main.fib")) != 15 || !strings.Contains(rec.Outcome.Stdout, "fib(5) = 5") {
		t.Fatalf("%d calls of main.fib, output %q", len(rec.Invocations("main.fib")), rec.Outcome.Stdout)
	}
	s, _ = openInstrumented(t, []string{"go", "test", "./testdata/search", "-run", "TestIndex"}, repoRoot(t), Limits{}, time.Minute)
	rec := s.Recording()
	const pkg = "github.com/adi-go/adi/testdata/search."
	if !rec.HasFunc(pkg+"TestIndex") || rec.HasFunc(pkg+"TestPrimes") || strings.Join(rec.Outcome.FailedTests, ",") != "TestIndex" {
		t.Fatalf("functions %v, failed %v", rec.Funcs(), rec.Outcome.FailedTests)
	}
}

// TestIndexLiveSpillsAtEnd: the records of a target that ended before the
// index read any (read in the poll after its end) are spilled as well when
// they grow past the bound, and kept in memory below it.
func TestIndexLiveSpillsAtEnd(t *testing.T) {
	inst, prog := buildFib(t)
	in := inst.in
	exited := make(chan struct{})
	close(exited)
	for _, c := range []struct {
		above int64
		spill bool
	}{{1, true}, {-1, false}} {
		f := writeRecords(t, in, prog.Args, prog.Dir, t.TempDir())
		b, tf, err := indexLive(f, in, Limits{MaxFrames: 2_000_000}.withDefaults(), in.symbols, exited, c.above, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (b == nil) != c.spill {
			t.Errorf("above %d: spilled %v, want %v", c.above, b == nil, c.spill)
		}
		if b != nil {
			if b.records < 1_000_000 {
				t.Errorf("above %d: %d records read, want all of fib(27)'s", c.above, b.records)
			}
			tf.Close()
			b.copied.free()
		}
		f.Close()
	}
}

// TestIndexLiveStopsCopying reads fib's records as if its run ended
// during a long poll (the index far behind): the values of the records
// read before are copied out of the chunks going back, those read after
// stay in the file, and no chunk goes back after the end.
func TestIndexLiveStopsCopying(t *testing.T) {
	inst, prog := buildFib(t)
	in := inst.in
	f := writeRecords(t, in, prog.Args, prog.Dir, t.TempDir())
	defer f.Close()
	exited := make(chan struct{})
	end := sync.OnceFunc(func() { close(exited) })
	const endAt = 100 * 4096 // the hook's calls come every 4096 records
	testHookLive = func(records int) {
		if records == endAt {
			end()
		}
	}
	defer func() { testHookLive = nil }()
	// Should the hook not end it, the index would wait for the end.
	defer time.AfterFunc(time.Minute, end).Stop()
	b, tf, err := indexLive(f, in, Limits{MaxFrames: 2_000_000}.withDefaults(), in.symbols, exited, -1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	defer b.copied.free()
	if b.atExit != endAt || b.records < 1_000_000 {
		t.Fatalf("%d records read, the end seen after %d, want all of fib(27)'s and %d", b.records, b.atExit, endAt)
	}
	// A frame's arguments and results are attached as its records are
	// read: some of the frames entered before the end have results after.
	copied, inFile := b.sourced-b.inFile, b.inFile
	if copied < endAt/2 || copied > endAt || inFile < (b.records-endAt)/2 || inFile > b.records-endAt+endAt/2 {
		t.Errorf("values of %d records copied, %d left in the file, the end seen after %d of %d records",
			copied, inFile, endAt, b.records)
	}
	// A chunk (64 KB) holds more than 4096 of fib's records (8 to 16
	// bytes each).
	if handed := tf.Recycled; handed == 0 || handed > endAt/4096 {
		t.Errorf("%d chunks handed back, want some, before the end only (%d records)", handed, endAt)
	}
	t.Logf("%d chunks handed back; values of %d records copied, %d left in the file", tf.Recycled, copied, inFile)
}

// TestInstrumentSpill records testdata/bench/fib (635,623 frames) with
// its index in anonymous memory (a large index that is not spilled) and in
// a mapped file (as an index over RecordOptions.SpillAbove is): the two
// hold the same frames, and neither leaves much on the heap.
func TestInstrumentSpill(t *testing.T) {
	ctx := context.Background()
	inst, prog := buildFib(t)
	record := func(spillAbove int64) (*trace.Recording, float64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rec, err := inst.Record(ctx, prog, RecordOptions{Limits: Limits{MaxFrames: 2_000_000}, SpillAbove: spillAbove})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		return rec, (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(rec.Len())
	}
	heap, heapBytes := record(-1)
	spilled, spilledBytes := record(1)
	if heap.Spilled() || !heap.IsOffHeap() || !spilled.Spilled() {
		t.Fatalf("Spilled(), IsOffHeap(): %v, %v with SpillAbove -1, %v, %v with 1",
			heap.Spilled(), heap.IsOffHeap(), spilled.Spilled(), spilled.IsOffHeap())
	}
	if heap.Len() < 600_000 || heap.Len() != spilled.Len() {
		t.Fatalf("%d frames off the heap, %d spilled", heap.Len(), spilled.Len())
	}
	for i := 0; i < heap.Len(); i++ {
		a, b := heap.At(i), spilled.At(i)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("frame %d: off the heap %+v, spilled %+v", i, a, b)
		}
	}
	t.Logf("heap per frame: %.1f bytes with the index in anonymous memory, %.1f spilled", heapBytes, spilledBytes)
	// What stays on the heap is the per-function lists (4 bytes a frame).
	if spilledBytes > 16 || heapBytes > 16 {
		t.Errorf("an index outside the heap keeps %.1f bytes a frame on the heap (%.1f spilled), want under 16", heapBytes, spilledBytes)
	}
	runtime.KeepAlive(heap)
	runtime.KeepAlive(spilled)
}

// TestInstrumentWithoutMemfd records through a file of the work directory,
// as where the kernel has no memfd: the same recording, and nothing left
// in the directory.
func TestInstrumentWithoutMemfd(t *testing.T) {
	old := memfdCreate
	memfdCreate = func(string, int) (int, error) { return -1, errors.New("no memfd") }
	defer func() { memfdCreate = old }()
	if memAvailable() <= 0 {
		t.Error("MemAvailable of /proc/meminfo not read")
	}
	work := t.TempDir()
	f, err := recordFile(work)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("the record file is left in the work directory: %v", left)
	}
	s, _ := openInstrumented(t, []string{"go", "run", "./testdata/fib", "10"}, repoRoot(t), Limits{}, 0)
	// fib(10) makes 177 calls of fib, plus main and parseN.
	if n := s.Recording().Len(); n != 179 {
		t.Fatalf("%d frames, want 179", n)
	}
}

// buildPlain builds src, a main package, without hooks: a stand-in for a
// target that writes its record file itself. It returns the binary and its
// directory.
func buildPlain(t *testing.T, src string) (bin, dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "target")
	cmd := exec.Command("go", "build", "-o", bin, "main.go")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return bin, dir
}

// TestInstrumentDamagedRecords runs a target that writes a damaged record
// file (a record of a kind no chunk of records holds) and then sleeps for
// an hour: the recording fails at once with an error that names the file
// and the offset, and the target is killed, not left running.
func TestInstrumentDamagedRecords(t *testing.T) {
	src := `package main

import (
	"encoding/binary"
	"os"
	"time"
)

func main() {
	b := make([]byte, 2<<16)
	// The control chunk (used, control, done; its state: the end of
	// its header; the counter).
	b[8] = 1 | 32 | 8
	binary.LittleEndian.PutUint64(b[16:], 32<<1)
	binary.LittleEndian.PutUint64(b[64:], 1)
	// A chunk of records with one record, number 1, of kind 6 (a type
	// record's: not in a chunk of records).
	c := b[1<<16:]
	c[8] = 1
	binary.LittleEndian.PutUint64(c[16:], 1<<18|33<<1)
	c[32] = (1<<3|6)<<1 | 1
	os.NewFile(3, "records").WriteAt(b, 0)
	time.Sleep(time.Hour)
}
`
	bin, dir := buildPlain(t, src)
	start := time.Now()
	_, err := recordInstrumented(context.Background(), &instrumented{path: bin}, &Program{Path: bin, Dir: dir}, dir, RecordOptions{})
	if err == nil || !strings.Contains(err.Error(), "record file") || !strings.Contains(err.Error(), "offset") || !strings.Contains(err.Error(), "unknown record kind 6") {
		t.Fatalf("recording a damaged record file: %v", err)
	}
	// recordInstrumented waits for the target it killed.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the damaged recording took %v", d)
	}
}

// TestInstrumentTruncatedRecords runs a target that truncates the record
// file adi passed it (its descriptor 3) while adi reads the file through
// a mapping. The memfd is sealed against it: the truncation fails and the
// recording goes on. A file cannot be sealed: the recording fails with an
// error that says what happened, adi does not crash on the fault, and the
// target is killed.
func TestInstrumentTruncatedRecords(t *testing.T) {
	src := `package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	b := make([]byte, 1<<16)
	// The control chunk (used, control, done; its state: the end of
	// its header; the counter, 0).
	b[8] = 1 | 32 | 8
	binary.LittleEndian.PutUint64(b[16:], 32<<1)
	f := os.NewFile(3, "records")
	// Write the file, let adi see it (it polls every 5 ms at most), cut
	// it off, again: until adi reads a page that is gone and kills this
	// process, for 30 s at most.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		f.WriteAt(b, 0)
		time.Sleep(20 * time.Millisecond)
		if err := syscall.Ftruncate(3, 0); err != nil {
			fmt.Println("truncate:", err)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
`
	bin, dir := buildPlain(t, src)
	record := func() (*trace.Recording, error) {
		return recordInstrumented(context.Background(), &instrumented{path: bin}, &Program{Path: bin, Dir: dir}, dir, RecordOptions{})
	}
	t.Run("memfd", func(t *testing.T) {
		if memAvailable() < 4*maxRecordFile {
			t.Skipf("MemAvailable %d bytes: adi records to a file on this machine (the file case runs below)", memAvailable())
		}
		rec, err := record()
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Outcome.Stdout; !strings.Contains(got, "truncate: operation not permitted") {
			t.Errorf("the target truncated its sealed record file; it printed %q", got)
		}
	})
	t.Run("file", func(t *testing.T) {
		old := memfdCreate
		memfdCreate = func(string, int) (int, error) { return -1, errors.New("no memfd") }
		defer func() { memfdCreate = old }()
		start := time.Now()
		_, err := record()
		if err == nil || !strings.Contains(err.Error(), "lost pages") || !strings.Contains(err.Error(), "descriptor 3") {
			t.Fatalf("recording a target that truncated its record file: %v", err)
		}
		if d := time.Since(start); d > time.Minute {
			t.Errorf("the recording took %v", d)
		}
	})
}

// TestInstrumentLdflags checks the instrumented build's link flags: no
// DWARF (adi reads the line table only), but the target's own -ldflags
// when it gives some, which the build then keeps as they are.
func TestInstrumentLdflags(t *testing.T) {
	if setsLdflags([]string{"-tags=x", "-gcflags=-N"}) || !setsLdflags([]string{"-ldflags=-X main.v=1"}) || !setsLdflags([]string{"--ldflags=-X=main.v=1"}) {
		t.Error("setsLdflags")
	}
	files := map[string]string{
		"go.mod":  "module example.com/ld\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nvar v = \"unset\"\n\nfunc show() string { return v }\n\nfunc main() { fmt.Println(show()) }\n",
	}
	for _, tc := range []struct {
		argv  []string
		out   string
		dwarf bool
	}{
		{[]string{"go", "run", "."}, "unset\n", false},
		{[]string{"go", "run", "-ldflags=-X main.v=set", "."}, "set\n", true},
	} {
		in, dir, work := buildModule(t, files, tc.argv)
		f, err := elf.Open(in.path)
		if err != nil {
			t.Fatal(err)
		}
		if dwarf := f.Section(".debug_info") != nil; dwarf != tc.dwarf {
			t.Errorf("%v: DWARF %v, want %v", tc.argv, dwarf, tc.dwarf)
		}
		f.Close()
		rec, err := recordInstrumented(context.Background(), in, &Program{Path: in.path, Dir: dir}, work, RecordOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Outcome.Stdout; got != tc.out {
			t.Errorf("%v: output %q, want %q", tc.argv, got, tc.out)
		}
		if fr, err := rec.Frame(fid("main.show", 1)); err != nil || len(fr.Results) != 1 || fr.Results[0].Text != strconv.Quote(strings.TrimSpace(tc.out)) {
			t.Errorf("%v: main.show#1 %+v, %v", tc.argv, fr, err)
		}
	}
}

// TestInstrumentOldGoLine records modules whose go.mod says less than go
// 1.21, as many libraries' do. The runtime's module is compiled at a go
// line below 1.21 too: one of 1.21 or more would make the go command
// refuse the build ("updates to go.mod needed"), and adi would fall back to
// the Delve recorder for every such module. The target's own go line is
// left as it is: its language version is the user's.
func TestInstrumentOldGoLine(t *testing.T) {
	src := "package old\n\nfunc Double(n int) int { return 2 * n }\n"
	test := "package old\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(3) != 7 {\n\t\tt.Fatal(\"Double(3) =\", Double(3))\n\t}\n}\n"
	for _, goLine := range []string{"1.12", "1.18", "1.20"} {
		files := map[string]string{
			"go.mod":      "module example.com/old\n\ngo " + goLine + "\n",
			"old.go":      src,
			"old_test.go": test,
		}
		in, dir, work := buildModule(t, files, []string{"go", "test", "."})
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err != nil || string(mod) != files["go.mod"] {
			t.Errorf("go %s: the module's go.mod is now %q (%v)", goLine, mod, err)
		}
		rec, err := recordInstrumented(context.Background(), in, &Program{Path: in.path, Dir: dir}, work, RecordOptions{})
		if err != nil {
			t.Fatalf("go %s: %v", goLine, err)
		}
		if got := rec.Outcome.FailedTests; len(got) != 1 || got[0] != "TestDouble" {
			t.Errorf("go %s: failed tests %q, want [TestDouble]", goLine, got)
		}
		fr, err := rec.Frame(fid("example.com/old.Double", 2))
		if err != nil || len(fr.Args) != 1 || fr.Args[0].Text != "3" || len(fr.Results) != 1 || fr.Results[0].Text != "6" {
			t.Errorf("go %s: example.com/old.Double#2 %+v, %v", goLine, fr, err)
		}
	}
}

// TestInstrumentLimitBounded runs a program of some 35,000 frames, the
// last of which panic, under a limit of 100 frames; before that, a panic
// unwinds 51 frames and is recovered. The builder holds no more than the
// limit and the frames still open while it reads the run: the frames past
// the limit that returned, or that the recovered panic unwound, go as they
// end. The recording is the same as with all frames kept first: the first
// 100 frames, the failing path with its FIDs counted over the whole run,
// and what was dropped. The record file keeps the values of the frames
// kept only.
func TestInstrumentLimitBounded(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/long\n\ngo 1.21\n",
		"main.go": `package main

import "errors"

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func boom(n int) int {
	if n == 0 {
		var m map[string]int
		m["x"] = fib(3)
	}
	return boom(n-1) + 1
}

func deep(n int) int {
	if n == 0 {
		panic("too deep")
	}
	return deep(n-1) + 1
}

func safe() (err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("recovered")
		}
	}()
	deep(50)
	return nil
}

func main() {
	total := 0
	for i := 0; i < 200; i++ {
		total += fib(10)
	}
	println(total, safe().Error())
	boom(2)
}
`,
	}
	in, dir, work := buildModule(t, files, []string{"go", "run", "."})
	// fib(10) is 177 frames; then safe's, deep's 51 and the deferred
	// closure's, boom#1..#3 and fib(3)'s 5.
	const all = 1 + 200*177 + 1 + 51 + 1 + 3 + 5
	lim := Limits{MaxFrames: 100}.withDefaults()

	out, b, tf, err := runIndexed(t, in, dir, work, lim)
	if err == nil || !strings.Contains(out, "assignment to entry in nil map") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	// Past the limit, boom's three frames (the failing path) are kept;
	// the five of fib(3), which returned before the panic, are not, nor
	// those the recovered panic unwound.
	if n := b.rec.Len(); n > lim.MaxFrames+8 || n+b.dropped != all {
		t.Fatalf("the builder holds %d frames and dropped %d, want at most %d of %d", n, b.dropped, lim.MaxFrames+8, all)
	}
	b.rec.SetValueSource(newFileValues(tf))
	b.finish(2, nil, 0, "", "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.boom(...)\n", tf)
	rec := b.rec
	if !strings.Contains(rec.Partial, fmt.Sprintf("%d of %d frames dropped", all-rec.Len(), all)) {
		t.Errorf("partial %q, want %d frames in all", rec.Partial, all)
	}
	var fids []string
	for seq := lim.MaxFrames; seq < rec.Len(); seq++ {
		fids = append(fids, rec.FIDOf(seq).String())
	}
	if got := strings.Join(fids, " "); got != "main.boom#1 main.boom#2 main.boom#3" {
		t.Errorf("frames past the limit %s, want boom's", got)
	}
	if rec.At(0).FID.String() != "main.main#1" || rec.At(rec.Len()-1).Exit != trace.Panicked {
		t.Errorf("first frame %s, last %+v", rec.At(0).FID, rec.At(rec.Len()-1))
	}
	if a := rec.At(rec.Len() - 1).Args; len(a) != 1 || a[0].Text != "0" {
		t.Errorf("main.boom#3's arguments %+v", a)
	}
	// The values kept are in the first chunk of records and the last
	// one or two, of the many the run wrote.
	with := 0
	for _, end := range b.valuesEnd {
		if end > 0 {
			with++
		}
	}
	if chunks := int(tf.Bytes / instrument.ChunkSize); with > 3 || chunks < 8 {
		t.Errorf("%d of the file's %d chunks keep values", with, chunks)
	}
}

// TestInstrumentKeepsAllocations: a function with a defer statement, and
// one of floating-point arguments and results, allocate under the
// instrumenting recorder what they allocate natively (nothing here), so
// that a test of their allocations passes as it does without adi. (A defer
// in a loop, which would also keep the compiler from open-coding the
// function's defers, puts the deferred call's closure and the variables it
// uses on the heap; and the hooks must not allocate, writing a float's
// text either.)
func TestInstrumentKeepsAllocations(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/allocs\n\ngo 1.21\n",
		"allocs.go": `package allocs

import "sync"

type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Inc(by int) (n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() { n += by - by }()
	c.n += by
	return c.n
}

func Scale(x float64, k float32) (float64, complex64) {
	return x * float64(k), complex(k, -k)
}
`,
		"allocs_test.go": `package allocs

import "testing"

func TestIncAllocs(t *testing.T) {
	c := &Counter{}
	if n := testing.AllocsPerRun(100, func() { c.Inc(2) }); n != 0 {
		t.Fatalf("%v allocations per Inc", n)
	}
}

func TestScaleAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Scale(1.5, 0.25) }); n != 0 {
		t.Fatalf("%v allocations per Scale", n)
	}
}
`,
	}
	in, dir, work := buildModule(t, files, []string{"go", "test", "."})
	rec, err := recordInstrumented(context.Background(), in, &Program{Path: in.path, Dir: dir}, work, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome.ExitCode != 0 {
		t.Fatalf("exit code %d:\n%s", rec.Outcome.ExitCode, rec.Outcome.Output())
	}
	fr, err := rec.Frame(fid("example.com/allocs.(*Counter).Inc", 101))
	if err != nil || len(fr.Args) != 2 || fr.Args[1].Text != "2" || len(fr.Results) != 1 || fr.Results[0].Text != "202" {
		t.Errorf("example.com/allocs.(*Counter).Inc#101 %+v, %v", fr, err)
	}
	fr, err = rec.Frame(fid("example.com/allocs.Scale", 1))
	if err != nil || len(fr.Args) != 2 || fr.Args[0].Text != "1.5" || fr.Args[1].Text != "0.25" ||
		len(fr.Results) != 2 || fr.Results[0].Text != "0.375" || fr.Results[1].Text != "(0.25 + -0.25i)" {
		t.Errorf("example.com/allocs.Scale#1 %+v, %v", fr, err)
	}
}

// TestPreparedSize: what is made ready for the next recording stays within
// an eighth of the memory available and maxPrepared, blocks first.
func TestPreparedSize(t *testing.T) {
	frame := indexSize(1, 0)
	for _, c := range []struct {
		frames, blocks int
		avail          int64
		wantF, wantB   int
	}{
		{100_000, 3, 0, 100_000, 3},
		{100_000, 3, 64 << 30, 100_000, 3},
		{10_000_000, 0, 0, int(maxPrepared / frame), 0},
		{10_000_000, 4, 64 << 30, int((maxPrepared - 4*copiedBlock) / frame), 4},
		// 10 MB to spend: five blocks, no rows.
		{100_000, 8, 80 << 20, 0, 5},
		{1_000_000, 1, 80 << 20, int((10<<20 - copiedBlock) / frame), 1},
	} {
		f, b := preparedSize(c.frames, c.blocks, c.avail)
		if f != c.wantF || b != c.wantB {
			t.Errorf("preparedSize(%d, %d, %d) = %d, %d; want %d, %d", c.frames, c.blocks, c.avail, f, b, c.wantF, c.wantB)
		}
	}
}

// TestFirstFrames: the build makes ready what a recording at the default
// frame limit takes, and more for a higher limit, up to firstFramesMax.
func TestFirstFrames(t *testing.T) {
	for _, c := range []struct{ limit, want int }{
		{0, prepareFrames},
		{DefaultLimits.MaxFrames, prepareFrames},
		{100, prepareFrames},
		{600_000, 600_000},
		{5_000_000, firstFramesMax},
	} {
		if got := firstFrames(c.limit); got != c.want {
			t.Errorf("firstFrames(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestBuildPreparesForLimit: the instrumented build asks for the memory
// of its first recording's index by the frame limit of its recordings.
func TestBuildPreparesForLimit(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/prep\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc f(n int) int { return n + 1 }\n\nfunc main() { println(f(1)) }\n",
	})
	spec, err := target.Parse([]string{"go", "run", "."}, dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []int
	testHookPrepare = func(frames, blocks int) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, frames)
	}
	defer func() { testHookPrepare = nil }()
	for _, limit := range []int{0, 3_000_000} {
		mu.Lock()
		asked = nil
		mu.Unlock()
		b, err := startInstrumentedBuild(context.Background(), spec, t.TempDir(),
			Options{Recorder: RecorderInstrument, Limits: Limits{MaxFrames: limit}}, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		b.wait()
		if b.err != nil {
			t.Fatal(b.err)
		}
		want, _ := preparedSize(firstFrames(limit), prepareBlocks, memAvailable())
		mu.Lock()
		got := slices.Clone(asked)
		mu.Unlock()
		if !slices.Contains(got, want) {
			t.Errorf("frame limit %d: the build asked for %v frames made ready, want %d", limit, got, want)
		}
	}
}

// TestNextPoll: the index polls a starting target every pollIdle until its
// first record, then less and less often while it writes none.
func TestNextPoll(t *testing.T) {
	for _, c := range []struct {
		idle    time.Duration
		started bool
		since   time.Duration
		want    time.Duration
	}{
		{pollIdle, false, time.Millisecond, pollIdle},
		{pollIdle, false, startPolls, pollIdle},
		{pollIdle, false, startPolls + time.Millisecond, 2 * pollIdle},
		{pollIdle, true, time.Millisecond, 2 * pollIdle},
		{3 * time.Millisecond, true, time.Second, maxPollIdle},
		{maxPollIdle, false, time.Second, maxPollIdle},
	} {
		if got := nextPoll(c.idle, c.started, c.since); got != c.want {
			t.Errorf("nextPoll(%v, %v, %v) = %v, want %v", c.idle, c.started, c.since, got, c.want)
		}
	}
}
