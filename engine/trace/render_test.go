package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The recording below is of this program (/src/app/main.go), run to its
// panic:
//
//	 7  func fib(n int) int {
//	 8  	if n < 2 {
//	 9  		return n
//	10  	}
//	11  	a := fib(n - 1)
//	12  	b := fib(n - 2)
//	13  	return a + b
//	14  }
//	...
//	19  func main() {
//	20  	xs := []int{1, 2, 3, 4, 5, 6, 7}
//	21  	f := fib(3) + fib(1)
//	22  	go worker(1)
//	23  	go serve(nil, strings.Repeat("a", 100), ch)
//	24  	total, err := sum(xs)
//	25  	f = f + total
//	26  	fmt.Println(f, err, pick(xs, 9))
//	27  }
//	...
//	30  func sum(xs []int) (total int, err error) {
//	31  	for _, x := range xs {
//	32  		total = add(total, x)
//	33  	}
//	34  	return total, nil
//	35  }
//	...
//	40  func worker(id int) {
//	41  	log("start")
//	42  	runtime.Goexit() // mapped to zz_generated.go:12 by a //line directive
//	43  }
//	...
//	46  func serve(cfg *Config, buf string, ch chan int) {
//	47  	n := 0
//	48  	for {
//	49  		n++
//	50  	}
//	51  }
//	52  func pick(xs []int, i int) int {
//	53  	return xs[i]
//	54  }
const mainGo = "/src/app/main.go"

func at(line int) Pos { return Pos{File: mainGo, Line: line} }

func fid(fn string, i int) FID { return FID{Func: fn, Index: i} }

func intv(name string, n int) Value {
	return Value{Name: name, Type: "int", Kind: KindInt, Text: strconv.Itoa(n)}
}

func ptr(v Value) *Value { return &v }

func xsValue(name string) Value {
	v := Value{Name: name, Type: "[]int", Kind: KindSlice, Text: "[]int{1, 2, 3, 4, 5, 6, 7}", Len: 7, Cap: 7}
	for i := range 7 {
		v.Children = append(v.Children, intv("["+strconv.Itoa(i)+"]", i+1))
	}
	return v
}

const indexPanic = "runtime error: index out of range [9] with length 7"

func testRecording() *Recording {
	fib := func(i, n, res int, caller FID, site int) *Frame {
		return &Frame{
			FID: fid("main.fib", i), Caller: caller, Goroutine: 1, CallSite: at(site), Decl: at(7),
			Args: []Value{intv("n", n)}, Results: []Value{intv("~r0", res)}, Exit: Returned,
		}
	}
	mainF := fid("main.main", 1)
	frames := []*Frame{
		{FID: mainF, Goroutine: 1, Decl: at(19), Exit: Panicked, Panic: indexPanic},
		fib(1, 3, 2, mainF, 21),
		fib(2, 2, 1, fid("main.fib", 1), 11),
		fib(3, 1, 1, fid("main.fib", 2), 11),
		fib(4, 0, 0, fid("main.fib", 2), 12),
		fib(5, 1, 1, fid("main.fib", 1), 12),
		fib(6, 1, 1, mainF, 21),
		{
			FID: fid("main.worker", 1), Caller: mainF, Spawn: true, Goroutine: 7, CallSite: at(22), Decl: at(40),
			Args: []Value{intv("id", 1)}, Exit: Goexited,
		},
		{
			FID: fid("main.log", 1), Caller: fid("main.worker", 1), Goroutine: 7, CallSite: at(41),
			Decl: Pos{File: "/src/app/log.go", Line: 3},
			Args: []Value{{Name: "msg", Type: "string", Kind: KindString, Text: `"start"`, Len: 5}}, Exit: Returned,
		},
		{
			FID: fid("main.serve", 1), Caller: mainF, Spawn: true, Goroutine: 8, CallSite: at(23), Decl: at(46),
			Args: []Value{
				{Name: "cfg", Type: "*main.Config", Kind: KindPointer, Text: "nil", Nil: true},
				{Name: "buf", Type: "string", Kind: KindString, Text: `"aaaaaaaaaaaaaaaa"…+84 more`, Len: 100, Cut: true},
				{Name: "ch", Type: "chan int", Kind: KindChan, Error: "optimized away"},
			},
			Exit: Running,
		},
		{
			FID: fid("main.sum", 1), Caller: mainF, Goroutine: 1, CallSite: at(24), Decl: at(30),
			Args: []Value{xsValue("xs")},
			Results: []Value{
				intv("total", 28),
				{Name: "err", Type: "error", Kind: KindInterface, Text: "nil", Nil: true},
			},
			Exit: Returned,
		},
	}
	for i, total := 1, 0; i <= 7; i++ {
		frames = append(frames, &Frame{
			FID: fid("main.add", i), Caller: fid("main.sum", 1), Goroutine: 1, CallSite: at(32),
			Args: []Value{intv("a", total), intv("b", i)}, Results: []Value{intv("~r0", total+i)}, Exit: Returned,
		})
		total += i
	}
	frames = append(frames, &Frame{
		FID: fid("main.pick", 1), Caller: mainF, Goroutine: 1, CallSite: at(26), Decl: at(52),
		Args: []Value{xsValue("xs"), intv("i", 9)}, Exit: Panicked, Panic: indexPanic,
	})
	r := NewRecording(frames...)
	var out strings.Builder
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&out, "tick %d\n", i)
	}
	r.Outcome = Outcome{
		ExitCode: 2,
		Panic: &PanicInfo{
			Value: indexPanic, Goroutine: 1, Frame: fid("main.pick", 1),
			Stack: []StackEntry{
				{Func: "runtime.goPanicIndex", Pos: Pos{File: "/usr/local/go/src/runtime/panic.go", Line: 115}},
				{Func: "main.pick", Pos: at(53), FID: fid("main.pick", 1)},
				{Func: "main.main", Pos: at(26), FID: mainF},
			},
		},
		Stdout: out.String(),
		Stderr: "panic: " + indexPanic + "\n\ngoroutine 1 [running]:\nmain.pick(...)\n\t/src/app/main.go:53\nexit status 2\n",
	}
	return r
}

// testFLTs are the traces of some frames of testRecording.
func testFLTs(r *Recording) map[string]*FLT {
	frame := func(s string) *Frame {
		f, err := ParseFID(s)
		if err != nil {
			panic(err)
		}
		fr, ok := r.Lookup(f)
		if !ok {
			panic("no frame " + s)
		}
		return fr
	}
	return map[string]*FLT{
		"fib": {
			Frame: frame("main.fib#1"),
			Steps: []Step{
				{Pos: at(8), Stmt: "if n < 2 {"},
				{Pos: at(11), Stmt: "a := fib(n - 1)", Changes: []Change{{Var: "a", New: intv("a", 1)}}, Callees: []FID{fid("main.fib", 2)}},
				{Pos: at(12), Stmt: "b := fib(n - 2)", Changes: []Change{{Var: "b", New: intv("b", 1)}}, Callees: []FID{fid("main.fib", 5)}},
				{Pos: at(13), Stmt: "return a + b"},
			},
		},
		"main": {
			Frame: frame("main.main#1"),
			Steps: []Step{
				{Pos: at(20), Stmt: "xs := []int{1, 2, 3, 4, 5, 6, 7}", Changes: []Change{{Var: "xs", New: xsValue("xs")}}},
				{
					Pos: at(21), Stmt: "f := fib(3) + fib(1)",
					Changes: []Change{{Var: "f", New: intv("f", 3)}},
					Callees: []FID{fid("main.fib", 1), fid("main.fib", 6)},
				},
				{Pos: at(22), Stmt: "go worker(1)", Callees: []FID{fid("main.worker", 1)}},
				{Pos: at(23), Stmt: `go serve(nil, strings.Repeat("a", 100), ch)`, Callees: []FID{fid("main.serve", 1)}},
				{
					Pos: at(24), Stmt: "total, err := sum(xs)",
					Changes: []Change{
						{Var: "total", New: intv("total", 28)},
						{Var: "err", New: Value{Name: "err", Type: "error", Kind: KindInterface, Text: "nil", Nil: true}},
					},
					Callees: []FID{fid("main.sum", 1)},
				},
				{Pos: at(25), Stmt: "f = f + total", Changes: []Change{{Var: "f", Old: ptr(intv("f", 3)), New: intv("f", 31)}}},
				{Pos: at(26), Stmt: "fmt.Println(f, err, pick(xs, 9))", Callees: []FID{fid("main.pick", 1)}},
			},
		},
		"sum": {
			Frame: frame("main.sum#1"),
			Steps: []Step{
				{Pos: at(31), Stmt: "for _, x := range xs {", Changes: []Change{{Var: "x", New: intv("x", 1)}}, Iteration: 1},
				{
					Pos: at(32), Stmt: "total = add(total, x)",
					Changes:   []Change{{Var: "total", Old: ptr(intv("total", 0)), New: intv("total", 1)}},
					Callees:   []FID{fid("main.add", 1)},
					Iteration: 1,
				},
				{Pos: at(31), Stmt: "for _, x := range xs {", Changes: []Change{{Var: "x", Old: ptr(intv("x", 6)), New: intv("x", 7)}}, Iteration: 7},
				{
					Pos: at(32), Stmt: "total = add(total, x)",
					Changes:   []Change{{Var: "total", Old: ptr(intv("total", 21)), New: intv("total", 28)}},
					Callees:   []FID{fid("main.add", 7)},
					Iteration: 7,
				},
				{Pos: at(34), Stmt: "return total, nil"},
			},
			Skipped: []Skip{{
				After: 1, Line: 31, Iterations: 5, Steps: 10,
				Callees: []FID{fid("main.add", 2), fid("main.add", 3), fid("main.add", 4), fid("main.add", 5), fid("main.add", 6)},
			}},
		},
		"worker": {
			Frame: frame("main.worker#1"),
			Steps: []Step{
				{Pos: at(41), Stmt: `log("start")`, Callees: []FID{fid("main.log", 1)}},
				{Pos: Pos{File: "/src/app/zz_generated.go", Line: 12}, Stmt: "runtime.Goexit()"},
			},
		},
		"serve": {
			Frame: frame("main.serve#1"),
			Steps: []Step{
				{Pos: at(47), Stmt: "n := 0", Changes: []Change{{Var: "n", New: intv("n", 0)}}},
				{Pos: at(48), Stmt: "for {"},
				{Pos: at(49), Stmt: "n++", Changes: []Change{{Var: "n", Old: ptr(intv("n", 0)), New: intv("n", 1)}}},
				{Pos: at(48), Stmt: "for {"},
				{Pos: at(49), Stmt: "n++", Changes: []Change{{Var: "n", Old: ptr(intv("n", 1)), New: intv("n", 2)}}},
			},
			Truncated: true,
		},
		"pick": {
			Frame: frame("main.pick#1"),
			Steps: []Step{{Pos: at(53), Stmt: "return xs[i]"}},
		},
	}
}

func TestFLTText(t *testing.T) {
	r := testRecording()
	flts := testFLTs(r)
	for _, name := range []string{"fib", "main", "sum", "worker", "serve", "pick"} {
		t.Run(name, func(t *testing.T) {
			golden(t, "flt-"+name+".txt", FLTText(r, flts[name]))
		})
	}
}

func TestFLTJSON(t *testing.T) {
	r := testRecording()
	flts := testFLTs(r)
	for _, tc := range []struct {
		name string
		o    JSONOptions
	}{
		{"fib", JSONOptions{}},
		{"main", JSONOptions{}},
		{"sum", JSONOptions{}},
		{"serve", JSONOptions{Children: true}},
		{"pick", JSONOptions{Children: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, "flt-"+tc.name+".json", jsonText(t, FLTJSON(flts[tc.name], tc.o)))
		})
	}
}

// A trace cut with a note says why in the note's words; a note on an uncut
// trace gets a line of its own. Without a recording, callees are bare fids.
func TestFLTTextNote(t *testing.T) {
	f := &Frame{FID: fid("main.spin", 1), Caller: fid("main.main", 1), Goroutine: 1, CallSite: at(9), Exit: Returned}
	steps := []Step{{Pos: at(3), Stmt: "tick()", Callees: []FID{fid("main.tick", 1)}}}
	for _, tc := range []struct {
		flt  *FLT
		want string
	}{
		{
			&FLT{Frame: f, Steps: steps, Truncated: true, Note: "step limit 1 reached"},
			"main.spin#1() · caller main.main#1 at main.go:9 · goroutine 1\n" +
				"  3  tick()  ⇢ main.tick#1\n" +
				"  … trace cut after 1 step: step limit 1 reached\n" +
				"  returned\n",
		},
		{
			&FLT{Frame: f, Note: "recorded without statements"},
			"main.spin#1() · caller main.main#1 at main.go:9 · goroutine 1\n" +
				"  (no statements recorded)\n" +
				"  note: recorded without statements\n" +
				"  returned\n",
		},
	} {
		if got := FLTText(nil, tc.flt); got != tc.want {
			t.Errorf("FLTText:\n%s\nwant:\n%s", got, tc.want)
		}
	}
}

func TestSkipText(t *testing.T) {
	for _, tc := range []struct {
		skip Skip
		want string
	}{
		{Skip{Line: 14, Iterations: 1, Steps: 1}, "… 1 iteration of the loop at line 14 skipped (1 step)"},
		{
			Skip{Line: 14, Iterations: 2, Steps: 4, Callees: []FID{fid("main.add", 3), fid("main.sub", 1)}},
			"… 2 iterations of the loop at line 14 skipped (4 steps; calls main.add#3, main.sub#1)",
		},
		{Skip{Iterations: 3, Steps: 9}, "… 3 iterations of a loop skipped (9 steps)"},
	} {
		if got := skipText(tc.skip); got != tc.want {
			t.Errorf("skipText(%+v) = %q, want %q", tc.skip, got, tc.want)
		}
	}
}

func TestFrameLine(t *testing.T) {
	r := testRecording()
	orphan := &Frame{FID: fid("main.cb", 1), Caller: fid("main.gone", 2), Goroutine: 3, CallSite: at(70), Exit: Returned}
	test := &Frame{
		FID: fid("example.com/m.TestParse", 1), Goroutine: 18,
		CallSite: Pos{File: "/usr/local/go/src/testing/testing.go", Line: 1934}, Exit: Goexited,
	}
	for _, tc := range []struct {
		f    *Frame
		want string
	}{
		{r.At(0), "main.main#1() ✗ panicked: " + indexPanic + " · root frame · goroutine 1"},
		{r.At(2), "main.fib#2(n=2) → 1 · caller main.fib#1 at main.go:11 · goroutine 1"},
		{r.At(7), "main.worker#1(id=1) exited via runtime.Goexit · spawned by main.main#1 at main.go:22 · goroutine 7"},
		{orphan, "main.cb#1() · caller main.gone#2 (not recorded) at main.go:70 · goroutine 3"},
		{test, "m.TestParse#1() exited via runtime.Goexit · root frame, called at testing.go:1934 · goroutine 18"},
	} {
		if got := FrameLine(r, tc.f); got != tc.want {
			t.Errorf("FrameLine:\n got %s\nwant %s", got, tc.want)
		}
	}
}

func TestFramesText(t *testing.T) {
	r := testRecording()
	golden(t, "frames-fib.txt", FramesText(r, "main.fib", r.Invocations("main.fib")))
	golden(t, "frames-fib.json", jsonText(t, FramesJSON("main.fib", r.Invocations("main.fib"), JSONOptions{})))

	if got, want := FramesText(r, "main.nope", nil), "main.nope: no invocations\n"; got != want {
		t.Errorf("FramesText of no frames = %q, want %q", got, want)
	}
	if got, want := jsonText(t, FramesJSON("main.nope", nil, JSONOptions{})), "{\n  \"func\": \"main.nope\",\n  \"frames\": []\n}\n"; got != want {
		t.Errorf("FramesJSON of no frames = %q, want %q", got, want)
	}

	lr := loopRecording()
	golden(t, "frames-step.txt", FramesText(lr, "main.step", lr.Invocations("main.step")))
}

func TestBreak(t *testing.T) {
	for _, tc := range []struct {
		fn, cond string
		n        int
		text     string
		json     string
	}{
		{"main.fib", "n == 3", 1, "breakpoint main.fib if n == 3: 1 matching frame\n",
			`{"breakpoint":{"func":"main.fib","condition":"n == 3"},"matches":1}`},
		{"main.fib", "", 6, "breakpoint main.fib: 6 matching frames\n",
			`{"breakpoint":{"func":"main.fib","condition":""},"matches":6}`},
		{"main.fib", "n > 99 && s != \"<x>\"", 0, "breakpoint main.fib if n > 99 && s != \"<x>\": no matching frames\n",
			`{"breakpoint":{"func":"main.fib","condition":"n > 99 && s != \"<x>\""},"matches":0}`},
	} {
		if got := BreakText(tc.fn, tc.cond, tc.n); got != tc.text {
			t.Errorf("BreakText = %q, want %q", got, tc.text)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, BreakJSON(tc.fn, tc.cond, tc.n), ""); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.json+"\n" {
			t.Errorf("BreakJSON = %s, want %s", got, tc.json)
		}
	}
}

func TestCallTree(t *testing.T) {
	r := testRecording()
	root := r.At(0)
	for _, tc := range []struct {
		name  string
		depth int
	}{{"depth0", 0}, {"depth1", 1}, {"depth2", 2}, {"full", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, "tree-"+tc.name+".txt", CallTreeText(r, root, tc.depth))
		})
	}
	golden(t, "tree-depth1.json", jsonText(t, CallTreeJSON(r, root, 1, JSONOptions{})))

	// Breadth: the middle of a long list of callees is elided, and the
	// count says that a hidden one panicked.
	lr := loopRecording()
	golden(t, "tree-loop.txt", CallTreeText(lr, nil, -1))
	tree := CallTreeJSON(lr, nil, -1, JSONOptions{}).(treeJSON)
	if tree.Root != nil || len(tree.Roots) != 1 {
		t.Fatalf("CallTreeJSON(nil root): root %v, %d roots; want null and 1", tree.Root, len(tree.Roots))
	}
	sim := tree.Roots[0].Children[0]
	var shown []string
	for _, c := range sim.Children {
		shown = append(shown, c.FID)
	}
	if sim.More != 30 || sim.MoreAfter != 25 || len(shown) != 30 || shown[24] != "main.step#25" || shown[25] != "main.step#56" {
		t.Errorf("simulate node: more %d after %d, children %v; want 30 hidden after 25, #1…#25 and #56…#60", sim.More, sim.MoreAfter, shown)
	}
}

func TestOutcome(t *testing.T) {
	r := testRecording()
	golden(t, "outcome-panic.txt", OutcomeText(r))
	golden(t, "outcome-panic.json", jsonText(t, OutcomeJSON(r)))

	tr := testRunRecording()
	golden(t, "outcome-test.txt", OutcomeText(tr))
	golden(t, "outcome-test.json", jsonText(t, OutcomeJSON(tr)))
	golden(t, "tree-testrun.txt", CallTreeText(tr, nil, 3))
}

// Values and messages keep to one line, and no line exceeds MaxTextLine.
func TestTextLines(t *testing.T) {
	long := strings.Repeat("é", 300)
	f := &Frame{
		FID: fid("main.f", 1), Goroutine: 1, Exit: Panicked, Panic: "bad\ninput",
		Args: []Value{{Name: "s", Type: "string", Kind: KindString, Text: `"` + long + `"`}},
	}
	flt := &FLT{Frame: f, Steps: []Step{{Pos: at(5), Stmt: "x := g(\n\t\ts,\n\t)", Changes: []Change{{Var: "x", New: Value{Error: "no DWARF"}}}}}}
	got := FLTText(nil, flt)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("FLTText wrote %d lines, want 3:\n%s", len(lines), got)
	}
	want0 := "main.f#1(s=\"" + strings.Repeat("é", MaxTextLine-len(`main.f#1(s="`)-1) + "…"
	if lines[0] != want0 {
		t.Errorf("header line:\n got %s\nwant %s", lines[0], want0)
	}
	if want := "  5  x := g( s, )  x = <unreadable: no DWARF> (new)"; lines[1] != want {
		t.Errorf("step line:\n got %q\nwant %q", lines[1], want)
	}
	if want := `  panicked: bad\ninput`; lines[2] != want {
		t.Errorf("exit line:\n got %q\nwant %q", lines[2], want)
	}
}

// json.Marshal (with its HTML escaping) reads the same structure as
// WriteJSON, and every list is [] rather than null.
func TestJSONNeverNull(t *testing.T) {
	r := testRecording()
	f := &FLT{Frame: r.At(0), Steps: []Step{{Pos: at(20), Stmt: "x := 1"}}}
	b, err := json.Marshal(FLTJSON(f, JSONOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"caller":null`, `"args":[]`, `"results":[]`, `"changes":[]`, `"callees":[]`, `"skipped":[]`, `"truncated":false`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("FLTJSON lacks %s: %s", want, b)
		}
	}
	b, err = json.Marshal(OutcomeJSON(&Recording{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"exit_code":0,"panic":null,"failed_tests":[],"output":"","killed":false}`; string(b) != want {
		t.Errorf("OutcomeJSON of an empty recording = %s, want %s", b, want)
	}
}

// loopRecording is main calling simulate(60), which calls step 60 times;
// step#40 panicked and simulate recovered.
func loopRecording() *Recording {
	frames := []*Frame{
		{FID: fid("main.main", 1), Goroutine: 1, Exit: Returned},
		{
			FID: fid("main.simulate", 1), Caller: fid("main.main", 1), Goroutine: 1, CallSite: at(30),
			Args: []Value{intv("n", 60)}, Results: []Value{intv("hash", 12), intv("evens", 31)}, Exit: Returned,
		},
	}
	for i := 1; i <= 60; i++ {
		f := &Frame{
			FID: fid("main.step", i), Caller: fid("main.simulate", 1), Goroutine: 1, CallSite: at(17),
			Args: []Value{intv("hash", i*7%101), intv("i", i-1)}, Results: []Value{intv("~r0", i*11%101)}, Exit: Returned,
		}
		if i == 40 {
			f.Results, f.Exit, f.Panic = nil, Panicked, "hash overflow"
		}
		frames = append(frames, f)
	}
	return NewRecording(frames...)
}

// testRunRecording is a go test run stopped by the frame limit: two tests,
// one of which failed with t.Fatal.
func testRunRecording() *Recording {
	tRunner := Pos{File: "/usr/local/go/src/testing/testing.go", Line: 1934}
	r := NewRecording(
		&Frame{FID: fid("example.com/m.TestParse", 1), Goroutine: 18, CallSite: tRunner, Exit: Returned},
		&Frame{
			FID: fid("example.com/m.Parse", 1), Caller: fid("example.com/m.TestParse", 1), Goroutine: 18,
			CallSite: Pos{File: "/src/m/parse_test.go", Line: 8},
			Args:     []Value{{Name: "s", Type: "string", Kind: KindString, Text: `""`}},
			Results: []Value{
				{Name: "~r0", Type: "*example.com/m.Node", Kind: KindPointer, Text: "nil", Nil: true},
				{Name: "~r1", Type: "error", Kind: KindInterface, Text: `&errors.errorString{s: "empty input"}`},
			},
			Exit: Returned,
		},
		&Frame{FID: fid("example.com/m.TestEmpty", 1), Goroutine: 19, CallSite: tRunner, Exit: Goexited},
	)
	r.Outcome = Outcome{
		ExitCode:    1,
		FailedTests: []string{"TestEmpty"},
		Killed:      true,
	}
	r.Partial = "frame limit (3 frames) reached; later frames are not recorded"
	return r
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, v, "  "); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// golden compares got with testdata/name.golden, or rewrites the file with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	line := 0
	for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
		line++
	}
	t.Errorf("%s differs from the golden file from line %d (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s",
		path, line+1, got, want)
}
