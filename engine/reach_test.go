package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/proc"

	"github.com/adi-go/adi/engine/trace"
)

// TestRoute reaches route's main.leaf#502 (leaf(1001), the second call of
// leaf in target#1, after 500 calls in warm) through target#1's entry:
// 1 + 2 stops, not 502. The re-execution checks the argument there, so a
// wrong count is a divergence error.
func TestRoute(t *testing.T) {
	rec, prog := record(t, "go", "run", "./testdata/route")
	f, err := rec.Frame(trace.FID{Func: "main.leaf", Index: 502})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Args) != 1 || f.Args[0].Text != "1001" {
		t.Fatalf("main.leaf#502's arguments: %+v", f.Args)
	}
	want := []hop{{at: trace.FID{Func: "main.target", Index: 1}, hits: 1}, {at: f.FID, hits: 2, local: true}}
	if got := route(rec, f, false); !reflect.DeepEqual(got, want) {
		t.Fatalf("route to %s: %v, want %v", f.FID, got, want)
	}
	// The first frames of a function are reached directly.
	first, _ := rec.Frame(trace.FID{Func: "main.leaf", Index: 3})
	if got, want := route(rec, first, false), []hop{{at: first.FID, hits: 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("route to %s: %v, want %v", first.FID, got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, fr := range []*trace.Frame{f, first} {
		flt, err := BuildFLT(ctx, prog, rec, fr, Limits{})
		if err != nil {
			t.Fatalf("trace of %s: %v", fr.FID, err)
		}
		if len(flt.Steps) == 0 || flt.Steps[0].Line != 8 {
			t.Fatalf("trace of %s: %+v", fr.FID, flt.Steps)
		}
	}
	// A count off by one reaches leaf(1000) and says so.
	p, err := launch(prog, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	_, err = reachIn(ctx, p, f, []hop{{at: trace.FID{Func: "main.target", Index: 1}, hits: 1}, {at: f.FID, hits: 1, local: true}}, Limits{}.withDefaults())
	if err == nil || !reflect.DeepEqual(err.Error(), (&DivergenceError{FID: f.FID, Detail: "argument i is 1000, the recording has 1001"}).Error()) {
		t.Fatalf("reaching leaf(1000) for %s: %v, want a divergence", f.FID, err)
	}
	// A count past the calls that come says where it counted from.
	p2, err := launch(prog, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.kill()
	_, err = reachIn(ctx, p2, f, []hop{{at: trace.FID{Func: "main.target", Index: 1}, hits: 1}, {at: f.FID, hits: 3, local: true}}, Limits{}.withDefaults())
	want2 := "the program exited after only 2 invocation(s) of main.leaf since main.target#1 on its goroutine"
	if err == nil || !strings.Contains(err.Error(), want2) {
		t.Fatalf("reaching a third leaf after target#1: %v, want %q", err, want2)
	}
}

// TestCountedReach reaches route's main.leaf#502 in the debug build with
// the counting hook (Open makes it): the process counts leaf's first 501
// entries itself and stops twice, in adirt.Stop and at the entry of
// leaf(1001), instead of 502 times. A count on one goroutine is counted
// there too (see TestRouteOnGoroutines for goroutines of their own).
func TestCountedReach(t *testing.T) {
	rec, prog := record(t, "go", "run", "./testdata/route")
	f, err := rec.Frame(trace.FID{Func: "main.leaf", Index: 502})
	if err != nil {
		t.Fatal(err)
	}
	// With the counts free, the fewest hops.
	if got, want := route(rec, f, true), []hop{{at: f.FID, hits: 502}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("counted route to %s: %v, want %v", f.FID, got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lim := Limits{}.withDefaults()
	for _, c := range []struct {
		name    string
		counted bool
		hops    []hop
		stops   int
		err     string
	}{
		{"direct", true, []hop{{at: f.FID, hits: 502}}, 2, ""},
		{"on its goroutine", true, []hop{{at: trace.FID{Func: "main.target", Index: 1}, hits: 1}, {at: f.FID, hits: 2, local: true}}, 3, ""},
		{"by breakpoints", false, []hop{{at: f.FID, hits: 502}}, 502, ""},
		{"off by one", true, []hop{{at: f.FID, hits: 501}}, 2, "argument i is 1000, the recording has 1001"},
		{"past the end", true, []hop{{at: f.FID, hits: 600}}, 1, "the program exited after fewer than 600 invocation(s) of main.leaf since the start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := launch(prog, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.kill()
			if !c.counted {
				p.countOnce.Do(func() {}) // as a build without the hook
			} else if p.counter() == nil {
				t.Fatal("the debug build has no counting hook")
			}
			in, err := reachIn(ctx, p, f, c.hops, lim)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("reaching %s: %v", f.FID, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("reaching %s: %v, want an error with %q", f.FID, err, c.err)
			case c.err == "" && in.frame.Args[0].Text != "1001":
				t.Fatalf("reached %s with %v", f.FID, in.frame.Args)
			}
			if p.stops != c.stops {
				t.Errorf("%d stops on the way, want %d", p.stops, c.stops)
			}
		})
	}
}

// TestRouteRisk: four workers that library code started (no spawn edge
// from the program) each call handle, which calls decode, 50 times. Every
// way to decode#150 counts entries on several goroutines somewhere; the
// route counts the fewest of them: the 3rd entry of worker, then on its
// goroutine, not the 150th of decode, which the scheduler's interleaving
// of the workers decides (the counting hook makes both hops cheap, and
// the direct one took it).
func TestRouteRisk(t *testing.T) {
	s := &synth{rec: &trace.Recording{}, counts: map[string]int{}}
	s.n, s.r0, s.int = s.rec.Intern("n"), s.rec.Intern("~r0"), s.rec.Intern("int")
	var ws []*sframe
	for w := range 4 {
		ws = append(ws, s.enter("main.worker", nil, int64(w+2), w))
	}
	for i := range 50 {
		for _, wf := range ws {
			h := s.enter("main.handle", wf, wf.Goroutine, i)
			s.exit(s.enter("main.decode", h, wf.Goroutine, i), i)
			s.exit(h, i)
		}
	}
	for _, wf := range ws {
		s.exit(wf, 0)
	}
	s.rec.Index()
	f, err := s.rec.Frame(trace.FID{Func: "main.decode", Index: 150})
	if err != nil {
		t.Fatal(err)
	}
	want := []hop{{at: trace.FID{Func: "main.worker", Index: 2}, hits: 2}, {at: f.FID, hits: 38, local: true}}
	for _, counted := range []bool{true, false} {
		if got := route(s.rec, f, counted); !reflect.DeepEqual(got, want) {
			t.Errorf("route to %s (counted %v): %+v, want %+v", f.FID, counted, got, want)
		}
	}
}

// TestCountedReachFunctions reaches the 7th invocation of two functions
// in the counting build: one whose header line spills its arguments and
// zeroes its results (90 bytes of code) before it calls the hook, counted
// by the hook in 2 stops; and
// one that the instrumenter leaves out (//go:nosplit), which does not call
// the hook, counted with a breakpoint, one stop each.
func TestCountedReachFunctions(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module counted\n\ngo 1.22\n",
		"main.go": `package main

import "fmt"

type parsed struct{ a, b, c, d, e, f string }

func parse(i int, v, w string) (p parsed, ok bool) {
	p.a = fmt.Sprint(i) + v + w
	return p, i > 0
}

//go:nosplit
func leaf(i int) int { return i + 1 }

func main() {
	sum := 0
	for i := 0; i < 10; i++ {
		sum += leaf(i)
		if p, ok := parse(i, "v", "w"); ok {
			sum += len(p.a)
		}
	}
	fmt.Println(sum)
}
`,
	})
	s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Recorder: RecorderDelve})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		fn    string
		stops int
	}{{"main.parse", 2}, {"main.leaf", 7}} {
		f, err := s.Recording().Frame(trace.FID{Func: c.fn, Index: 7})
		if err != nil {
			t.Fatal(err)
		}
		p, err := launch(s.Program(), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer p.kill()
		if p.counter() == nil {
			t.Fatal("the debug build has no counting hook")
		}
		in, err := reachIn(context.Background(), p, f, route(s.Recording(), f, true), Limits{}.withDefaults())
		if err != nil {
			t.Fatalf("reaching %s: %v", f.FID, err)
		}
		if in.frame.Args[0].Text != "6" || p.stops != c.stops {
			t.Errorf("reached %s with %v in %d stops, want i=6 in %d", f.FID, in.frame.Args, p.stops, c.stops)
		}
	}
}

// BenchmarkReach re-executes to two frames of route: main.leaf#502, which
// route reaches through target#1 in 3 stops, and main.leaf#500, the last
// call in warm's loop, which takes 500 stops with breakpoints whichever
// the way. Each is reached along route's hops with breakpoints, counting
// from the start with a breakpoint, and with the counting hook, side by
// side; the time is from the process's first instruction to the frame.
//
//	go test ./engine -run xxx -bench Reach
func BenchmarkReach(b *testing.B) {
	rec, prog := record(b, "go", "run", "./testdata/route")
	for _, index := range []int{502, 500} {
		f, err := rec.Frame(trace.FID{Func: "main.leaf", Index: index})
		if err != nil {
			b.Fatal(err)
		}
		for _, bc := range []struct {
			name    string
			hops    []hop
			counted bool
		}{
			{"route", route(rec, f, false), false},
			{"direct", []hop{{at: f.FID, hits: index}}, false},
			{"counted", route(rec, f, true), true},
		} {
			b.Run(fmt.Sprintf("leaf#%d/%s", index, bc.name), func(b *testing.B) {
				stops := 0
				for range b.N {
					// The launch (Delve loading the binary) is timed apart.
					b.StopTimer()
					p, err := launch(prog, 0, nil)
					if err != nil {
						b.Fatal(err)
					}
					if !bc.counted {
						p.countOnce.Do(func() {})
					} else {
						p.counter()
					}
					b.StartTimer()
					_, err = reachIn(context.Background(), p, f, bc.hops, Limits{}.withDefaults())
					b.StopTimer()
					stops += p.stops
					p.kill()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(stops)/float64(b.N), "stops/op")
			})
		}
	}
}

// TestSameTempPath checks which differences of a string argument the
// divergence check puts down to the random names of a temporary directory.
func TestSameTempPath(t *testing.T) {
	for _, c := range []struct {
		want, got, tmp string
		same           bool
	}{
		{`"/tmp/TestX2761584080/001/notes.txt"`, `"/tmp/TestX4052667386/001/notes.txt"`, "/tmp", true},
		{`"/tmp/cobra-test2283722415/test"`, `"/tmp/cobra-test2949793501/test"`, "/tmp", true},
		{`"/scratch/go-build1234567/b001"`, `"/scratch/go-build7654321/b001"`, "/scratch", true},
		// Not in the temporary directory.
		{`"/home/u/run2761584080.log"`, `"/home/u/run4052667386.log"`, "/tmp", false},
		{`"/tmp/TestX2761584080/001"`, `"/tmp/TestX4052667386/001"`, "", false},
		// t.TempDir's numbered directories and short numbers are not random.
		{`"/tmp/TestX2761584080/001/notes.txt"`, `"/tmp/TestX4052667386/002/notes.txt"`, "/tmp", false},
		{`"/tmp/TestX2761584080/file1"`, `"/tmp/TestX4052667386/file2"`, "/tmp", false},
		// The rest of the path must be the same.
		{`"/tmp/TestX2761584080/a.txt"`, `"/tmp/TestY4052667386/a.txt"`, "/tmp", false},
		{`"/tmp/TestX2761584080/a.txt"`, `"/tmp/TestX4052667386/b.txt"`, "/tmp", false},
		// Cut at 64 bytes, a name one digit shorter moves the cut.
		{`"/tmp/go-test-script3789156000/script-exec_path_change/home/.cach"…+13 more`,
			`"/tmp/go-test-script319493454/script-exec_path_change/home/.cache"…+12 more`, "/tmp", true},
		{`"/tmp/go-test-script3789156000/script-exec_path_change/home/.cach"…+13 more`,
			`"/tmp/go-test-script319493454/script-exec_path_change/home/.conf"…+12 more`, "/tmp", false},
	} {
		if got := sameTempPath(c.want, c.got, c.tmp); got != c.same {
			t.Errorf("sameTempPath(%s, %s, %q) = %v, want %v", c.want, c.got, c.tmp, got, c.same)
		}
	}
}

// TestSameLoopback checks which differences of a string argument the
// divergence check puts down to the port the system gave a local server.
func TestSameLoopback(t *testing.T) {
	for _, c := range []struct {
		want, got string
		same      bool
	}{
		{`"http://127.0.0.1:41135/token"`, `"http://127.0.0.1:42531/token"`, true},
		{`"[::1]:8080"`, `"[::1]:39001"`, true},
		{`"ws://localhost:5000/a"`, `"ws://localhost:6000/a"`, true},
		{`"http://127.0.0.1:41135/token"`, `"http://127.0.0.1:42531/other"`, false},
		{`"http://example.com:41135/"`, `"http://example.com:42531/"`, false},
		{`"127.0.0.1"`, `"127.0.0.2"`, false},
	} {
		if got := sameLoopback(c.want, c.got); got != c.same {
			t.Errorf("sameLoopback(%s, %s) = %v, want %v", c.want, c.got, got, c.same)
		}
	}
}

// TestTempDirArgument builds the trace of a frame whose argument is a path
// in t.TempDir(), which has another random name in the re-execution than
// in the recording: the same invocation, not a divergence.
func TestTempDirArgument(t *testing.T) {
	s, f := openFrame(t, []string{"go", "test", "./testdata/tempdir"}, repoRoot(t), Options{Timeout: time.Minute},
		trace.FID{Func: "github.com/adi-go/adi/testdata/tempdir.CountLines", Index: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	flt, err := s.FLT(ctx, f)
	if err != nil {
		t.Fatalf("trace of %s: %v", f.FID, err)
	}
	if len(flt.Steps) == 0 || flt.Steps[0].Line != 12 || flt.Steps[len(flt.Steps)-1].Line != 20 {
		t.Fatalf("trace of %s: %+v", f.FID, flt.Steps)
	}
}

// TestDroppedWholeBefore records route with a frame limit, with both
// recorders: the recording left frames out, but is whole before its last
// kept frame, so counting entries (route) and walking alone (walkFast)
// still work for the frames that ran before it.
func TestDroppedWholeBefore(t *testing.T) {
	for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		t.Run(string(k), func(t *testing.T) {
			s, err := Open(context.Background(), []string{"go", "run", "./testdata/route"}, repoRoot(t),
				Options{Recorder: k, Limits: Limits{MaxFrames: 300}, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rec := s.Recording()
			// main#1, warm#1 and leaf#1 to leaf#298.
			last, ok := rec.Find(trace.FID{Func: "main.leaf", Index: 298})
			if !rec.Dropped || !ok || rec.CompleteBefore != rec.At(last).EntrySeq {
				t.Fatalf("dropped %v, whole before %d, leaf#298 (found %v) entered at %d", rec.Dropped, rec.CompleteBefore, ok, rec.At(last).EntrySeq)
			}
			warm, _ := rec.Find(trace.FID{Func: "main.warm", Index: 1})
			leaf, _ := rec.Find(trace.FID{Func: "main.leaf", Index: 200})
			if n, ok := rec.EntriesBetween(warm, leaf); n != 200 || !ok {
				t.Errorf("EntriesBetween(warm#1, leaf#200) = %d, %v, want 200, true", n, ok)
			}
			if _, ok := rec.EntriesBetween(warm, last); ok {
				t.Errorf("EntriesBetween(warm#1, leaf#298): the recording is not whole up to leaf#298")
			}
			if alone, _ := rec.RunsAlone(leaf); !alone {
				t.Errorf("leaf#200 does not run alone")
			}
			if alone, _ := rec.RunsAlone(warm); alone {
				t.Errorf("warm#1 runs alone in a recording that dropped some of its callees")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			flt, err := s.FLT(ctx, rec.At(leaf))
			if err != nil || len(flt.Steps) != 1 || flt.Steps[0].Line != 8 {
				t.Fatalf("trace of leaf#200: %+v, %v", flt, err)
			}
		})
	}
}

// TestRouteParallel re-executes frames of parallel tests and subtests,
// whose calls of partests.Score interleave differently on every run:
// counted from the start, Score's invocation numbers would reach other
// calls (a divergence, most runs); counted on the frame's goroutine from
// its test's entry, or from the creation of its subtest's goroutine, they
// reach the recorded call. The traces are built in the counting build.
func TestRouteParallel(t *testing.T) {
	s, err := Open(context.Background(), []string{"go", "test", "./testdata/partests"}, repoRoot(t), Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Recording()
	const score = "github.com/adi-go/adi/testdata/partests.Score"
	if !rec.OnGoroutines(score) {
		t.Fatalf("%s ran on one goroutine", score)
	}
	// The last call of Score on each goroutine, and a few in between.
	last := map[int64]int{}
	var seqs []int
	for seq := range rec.Len() {
		if rec.FuncOf(seq) == score {
			last[rec.GoroutineOf(seq)] = seq
			if rec.FIDOf(seq).Index%70 == 0 {
				seqs = append(seqs, seq)
			}
		}
	}
	for _, seq := range last {
		seqs = append(seqs, seq)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	subtests := 0
	for _, seq := range seqs {
		f := rec.At(seq)
		// Also when counts cost nothing (the counting hook): a count on
		// several goroutines is the worse the more entries it counts.
		for _, counted := range []bool{true, false} {
			if h := route(rec, f, counted); !h[len(h)-1].local || len(h) < 2 {
				t.Errorf("route to %s (counted %v): %+v, want a count on its goroutine", f.FID, counted, h)
			}
		}
		hops := route(rec, f, false)
		// A subtest's frame: the route counts the goroutines TestTable
		// created.
		if strings.Contains(rec.FuncOf(rec.ParentOf(rec.ParentOf(seq))), "TestTable") {
			subtests++
			if !slices.ContainsFunc(hops, func(h hop) bool { return h.spawns > 0 }) {
				t.Errorf("route to %s in a subtest: %+v, want a count of the goroutines created", f.FID, hops)
			}
		}
		if _, err := s.FLT(ctx, f); err != nil {
			t.Errorf("trace of %s (%s): %v", f.FID, f.Args[0].Text, err)
		}
	}
	if subtests < 3 {
		t.Errorf("%d frames of subtests traced, want 3 or more", subtests)
	}
}

// TestSameArgUnreadable: an argument Delve cannot read at the frame's
// entry refutes nothing; one it reads must match.
func TestSameArgUnreadable(t *testing.T) {
	want := trace.Value{Name: "v", Type: "interface {}", Kind: trace.KindInterface, Text: "interface {}(…)", Cut: true}
	unreadable := trace.Value{Name: "v", Kind: trace.KindOther, Error: "error loading module data", Text: "<unreadable: error loading module data>"}
	if !sameArg(&want, &unreadable, "/tmp") {
		t.Errorf("an unreadable argument is a divergence")
	}
	other := trace.Value{Name: "v", Type: "int", Kind: trace.KindInt, Text: "3"}
	if sameArg(&want, &other, "/tmp") {
		t.Errorf("an int matches a recorded interface")
	}
}

// TestConfigFor: the variables of a statement are read without following
// pointers only when every one read is a pointer to a plumbing type.
func TestConfigFor(t *testing.T) {
	v := func(name, typ string, kind reflect.Kind) *proc.Variable {
		var dt godwarf.Type = &godwarf.StructType{CommonType: godwarf.CommonType{Name: typ}}
		if kind == reflect.Ptr {
			dt = &godwarf.PtrType{CommonType: godwarf.CommonType{Name: typ}}
		}
		return &proc.Variable{Name: name, Kind: kind, DwarfType: dt}
	}
	tArg := v("t", "*testing.T", reflect.Ptr)
	tArg.Flags = proc.VariableArgument
	wg := v("wg", "*sync.WaitGroup", reflect.Ptr)
	user := v("p", "*main.point", reflect.Ptr)
	value := v("mu", "sync.Mutex", reflect.Struct)
	result := v("err", "*main.Error", reflect.Ptr)
	result.Flags = proc.VariableReturnArgument
	isArg := func(v *proc.Variable) bool {
		return v.Flags&(proc.VariableArgument|proc.VariableReturnArgument) != 0
	}
	notArg := func(v *proc.Variable) bool { return !isArg(v) }
	deep := DefaultLimits.loadConfig()
	for _, c := range []struct {
		name   string
		vars   []*proc.Variable
		in     func(*proc.Variable) bool
		follow bool
	}{
		{"a test's arguments", []*proc.Variable{tArg, user}, isArg, false},
		{"a result", []*proc.Variable{tArg, result}, isArg, true},
		{"plumbing locals", []*proc.Variable{tArg, wg}, notArg, false},
		{"a user pointer", []*proc.Variable{wg, user}, notArg, true},
		{"a plumbing value", []*proc.Variable{value}, notArg, true},
	} {
		got := configFor(c.vars, c.in, deep)
		if got.FollowPointers != c.follow {
			t.Errorf("%s: FollowPointers = %v, want %v", c.name, got.FollowPointers, c.follow)
		}
		got.FollowPointers = deep.FollowPointers
		if got != deep {
			t.Errorf("%s: %+v, want %+v but for FollowPointers", c.name, got, deep)
		}
	}
}

// TestInterfaceArgs: an interface argument still in registers at its
// function's entry is read, by the Delve recorder and when a trace fills in
// the argument the instrumenting recorder kept shallowly. Delve read the
// runtime's module data through the argument's registers and failed
// ("error loading module data: read out of bounds"). An error result is
// read at the return too.
func TestInterfaceArgs(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/ifmod\n\ngo 1.26\n",
		"show.go": `package ifmod

import "fmt"

type point struct{ X, Y int }

// Show formats a value.
func Show(a any) string { return fmt.Sprint(a) }

// Check refuses a positive x.
func Check(x int) error {
	if x > 0 {
		return fmt.Errorf("bad %d", x)
	}
	return nil
}
`,
		"show_test.go": `package ifmod

import "testing"

func TestShow(t *testing.T) {
	if got := Show(point{1, 2}); got != "{1 2}" {
		t.Errorf("Show = %q", got)
	}
	if Check(3) == nil {
		t.Error("Check(3) passed")
	}
}
`,
	})
	const want = "ifmod.point{X: 1, Y: 2}"
	fid := trace.FID{Func: "example.com/ifmod.Show", Index: 1}
	for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		s, f := openFrame(t, []string{"go", "test", "."}, dir, Options{Recorder: k}, fid)
		if k == RecorderDelve && f.Args[0].Text != want {
			t.Errorf("the Delve recorder's argument: %+v, want %s", f.Args[0], want)
		}
		flt, err := s.FLT(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if got := flt.Frame.Args[0].Text; got != want {
			t.Errorf("%s recorder: the trace's argument %s, want %s", k, got, want)
		}
		// An error result.
		const wantErr = `&errors.errorString{s: "bad 3"}`
		c, err := s.Recording().Frame(trace.FID{Func: "example.com/ifmod.Check", Index: 1})
		if err != nil {
			t.Fatal(err)
		}
		if k == RecorderDelve && c.Results[0].Text != wantErr {
			t.Errorf("the Delve recorder's result: %+v, want %s", c.Results[0], wantErr)
		}
		if flt, err = s.FLT(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if got := flt.Frame.Results[0].Text; got != wantErr {
			t.Errorf("%s recorder: the trace's result %s, want %s", k, got, wantErr)
		}
	}
}
