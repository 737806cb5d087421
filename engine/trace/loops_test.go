package trace

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// lines makes steps on the given lines.
func lines(ls ...int) []Step {
	steps := make([]Step, len(ls))
	for i, l := range ls {
		steps[i] = Step{Pos: Pos{File: "main.go", Line: l}, Stmt: "line " + strconv.Itoa(l)}
	}
	return steps
}

func stepLines(steps []Step) []int {
	var out []int
	for _, s := range steps {
		out = append(out, s.Line)
	}
	return out
}

func iterations(steps []Step) []int {
	var out []int
	for _, s := range steps {
		out = append(out, s.Iteration)
	}
	return out
}

// checkConserved checks that no step and no callee is lost and that the
// input is not modified.
func checkConserved(t *testing.T, in []Step, before []Step, out []Step, skips []Skip) {
	t.Helper()
	if !reflect.DeepEqual(in, before) {
		t.Errorf("Summarize modified its input")
	}
	n := len(out)
	var callees []FID
	for _, s := range out {
		callees = append(callees, s.Callees...)
	}
	for i, sk := range skips {
		n += sk.Steps
		callees = append(callees, sk.Callees...)
		if sk.After < -1 || sk.After >= len(out) {
			t.Errorf("skip %d: After %d outside the %d steps", i, sk.After, len(out))
		}
		if i > 0 && sk.After < skips[i-1].After {
			t.Errorf("skips not in order: %+v", skips)
		}
		if sk.Iterations < 2 || sk.Steps < sk.Iterations {
			t.Errorf("skip %d: %+v", i, sk)
		}
	}
	if n != len(in) {
		t.Errorf("%d steps kept + skipped, %d given", n, len(in))
	}
	var want []FID
	for _, s := range in {
		want = append(want, s.Callees...)
	}
	cmp := func(a, b FID) int {
		if a.Func != b.Func {
			if a.Func < b.Func {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	}
	slices.SortFunc(callees, cmp)
	slices.SortFunc(want, cmp)
	if !slices.Equal(callees, want) {
		t.Errorf("callees: got %v, want %v", callees, want)
	}
	// The variables after each kept step, replayed from the kept steps'
	// changes and the skips', are those after it in the input.
	apply := func(vars map[string]string, cs []Change) {
		for _, c := range cs {
			vars[c.Var] = c.New.Text
		}
	}
	inVars, outVars := map[string]string{}, map[string]string{}
	p := 0
	skipped := func(after int) {
		for _, sk := range skips {
			if sk.After == after {
				for _, st := range in[p : p+sk.Steps] {
					apply(inVars, st.Changes)
				}
				p += sk.Steps
				apply(outVars, sk.Changes)
			}
		}
	}
	skipped(-1)
	for i, st := range out {
		if p >= len(in) {
			break // counted above
		}
		apply(inVars, in[p].Changes)
		apply(outVars, st.Changes)
		p++
		skipped(i)
		if !maps.Equal(inVars, outVars) {
			t.Errorf("after kept step %d (line %d): variables %v, want %v", i, st.Line, outVars, inVars)
			return
		}
	}
}

func summarize(t *testing.T, in []Step, loops []LoopRange, first, last int) ([]Step, []Skip) {
	t.Helper()
	before := slices.Clone(in)
	out, skips := Summarize(in, loops, first, last)
	checkConserved(t, in, before, out, skips)
	return out, skips
}

// A 100-iteration loop:
//
//	3	s := 0
//	4	for i := 0; i < 100; i++ {
//	5		s += work(i)
//	6	}
//	7	return s
func TestSummarizeLongLoop(t *testing.T) {
	in := lines(3)
	for i := 1; i <= 100; i++ {
		in = append(in, lines(4)...)
		in = append(in, Step{Pos: Pos{"main.go", 5}, Callees: []FID{{"main.work", i}}})
	}
	in = append(in, lines(4, 7)...)
	loops := []LoopRange{{4, 4, 6}}

	out, skips := summarize(t, in, loops, 1, 1)
	if got, want := stepLines(out), []int{3, 4, 5, 4, 5, 4, 7}; !slices.Equal(got, want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	if got, want := iterations(out), []int{0, 1, 1, 100, 100, 100, 0}; !slices.Equal(got, want) {
		t.Errorf("iterations %v, want %v", got, want)
	}
	if len(skips) != 1 {
		t.Fatalf("skips %+v", skips)
	}
	sk := skips[0]
	if sk.After != 2 || sk.Line != 4 || sk.Iterations != 98 || sk.Steps != 196 || len(sk.Callees) != 98 {
		t.Errorf("skip %+v", Skip{After: sk.After, Line: sk.Line, Iterations: sk.Iterations, Steps: sk.Steps})
	}
	if sk.Callees[0] != (FID{"main.work", 2}) || sk.Callees[97] != (FID{"main.work", 99}) {
		t.Errorf("callees %v … %v", sk.Callees[0], sk.Callees[97])
	}
	if out[2].Callees[0] != (FID{"main.work", 1}) || out[4].Callees[0] != (FID{"main.work", 100}) {
		t.Errorf("kept callees %v %v", out[2].Callees, out[4].Callees)
	}

	// More kept iterations.
	out, skips = summarize(t, in, loops, 3, 2)
	if len(out) != 1+2*5+2 || len(skips) != 1 || skips[0].Iterations != 95 || skips[0].After != 6 {
		t.Errorf("keep 3/2: %d steps, skips %+v", len(out), skips)
	}
	if got, want := iterations(out), []int{0, 1, 1, 2, 2, 3, 3, 99, 99, 100, 100, 100, 0}; !slices.Equal(got, want) {
		t.Errorf("keep 3/2: iterations %v, want %v", got, want)
	}

	// Keeping only the last iterations, the skip comes before them.
	out, skips = summarize(t, in[1:], loops, 0, 1)
	if len(skips) != 1 || skips[0].After != -1 || skips[0].Iterations != 99 || len(out) != 4 {
		t.Errorf("keep 0/1: %v, skips %+v", stepLines(out), skips)
	}

	// No summarisation: everything kept, iterations numbered.
	for _, keep := range [][2]int{{0, 0}, {-1, -5}, {50, 50}} {
		out, skips = summarize(t, in, loops, keep[0], keep[1])
		if len(out) != len(in) || len(skips) != 0 {
			t.Errorf("keep %v: %d steps, %d skips", keep, len(out), len(skips))
		}
		if out[len(out)-2].Iteration != 100 || out[3].Iteration != 2 {
			t.Errorf("keep %v: iterations %v", keep, iterations(out))
		}
	}
}

// Nested loops, 10×10:
//
//	2	for i := 0; i < 10; i++ {
//	3		for j := 0; j < 10; j++ {
//	4			s += j
//	5		}
//	6		t++
//	7	}
//	8	return
func TestSummarizeNested(t *testing.T) {
	in := lines(1)
	for i := 0; i < 10; i++ {
		in = append(in, lines(2)...)
		for j := 0; j < 10; j++ {
			in = append(in, lines(3, 4)...)
		}
		in = append(in, lines(3, 6)...)
	}
	in = append(in, lines(2, 8)...)
	// Callers may give loops in any order.
	loops := []LoopRange{{3, 3, 5}, {2, 2, 7}}

	out, skips := summarize(t, in, loops, 1, 1)
	inner := []int{3, 4, 3, 4, 3, 6}
	want := append(append(append(append([]int{1, 2}, inner...), 2), inner...), 2, 8)
	if got := stepLines(out); !slices.Equal(got, want) {
		t.Fatalf("lines %v\nwant %v", got, want)
	}
	wantIter := []int{0, 1, 1, 1, 10, 10, 10, 1, 10, 1, 1, 10, 10, 10, 10, 10, 0}
	if got := iterations(out); !slices.Equal(got, wantIter) {
		t.Errorf("iterations %v\nwant %v", got, wantIter)
	}
	wantSkips := []Skip{
		{After: 3, Line: 3, Iterations: 8, Steps: 16}, // inner loop of outer iteration 1
		{After: 7, Line: 2, Iterations: 8, Steps: 8 * 23},
		{After: 10, Line: 3, Iterations: 8, Steps: 16}, // inner loop of outer iteration 10
	}
	if !reflect.DeepEqual(skips, wantSkips) {
		t.Errorf("skips %+v\nwant %+v", skips, wantSkips)
	}
}

// The steps Delve records with "next" for loops of several kinds:
//
//	 7	func loops(xs []int) int {
//	 8		s := 0
//	 9		for i := 0; i < 3; i++ {
//	10			s += work(i)
//	11		}
//	12		for _, x := range xs {
//	13			if x == 2 {
//	14				continue
//	15			}
//	16			s += x
//	17		}
//	18		for i := range 2 {
//	19			s += i
//	20		}
//	21		j := 0
//	22		for {
//	23			j++
//	24			if j == 3 {
//	25				break
//	26			}
//	27		}
//	28		for j > 0 {
//	29			j--
//	30		}
//	31		for i := 0; i < 2; i++ {
//	32			for k := 0; k < 2; k++ {
//	33				s += k
//	34			}
//	35		}
//	36		for i := 0; i < 0; i++ {
//	37			s++
//	38		}
//	39		return s
//	40	}
var delveLines = []int{7, 8, 9, 10, 9, 10, 9, 10, 9, 12, 13, 16, 12, 13, 14, 12, 13, 16, 12, 18, 19, 18, 19, 18, 21, 22, 23, 24, 23, 24, 23, 24, 25, 28, 29, 28, 29, 28, 29, 28, 31, 32, 33, 32, 33, 32, 31, 32, 33, 32, 33, 32, 31, 36, 39}

var delveLoops = []LoopRange{{9, 9, 11}, {12, 12, 17}, {18, 18, 20}, {22, 22, 27}, {28, 28, 30}, {31, 31, 35}, {32, 32, 34}, {36, 36, 38}}

func TestSummarizeDelveSteps(t *testing.T) {
	in := lines(delveLines...)
	// Nothing to leave out with 1 + 1 kept: every loop runs at most 3 times.
	out, skips := summarize(t, in, delveLoops, 1, 1)
	if len(skips) != 0 || !slices.Equal(stepLines(out), delveLines) {
		t.Fatalf("keep 1/1: %v, skips %+v", stepLines(out), skips)
	}
	wantIter := []int{
		0, 0, // 7 8
		1, 1, 2, 2, 3, 3, 3, // for i < 3, the final check in iteration 3
		1, 1, 1, 2, 2, 2, 3, 3, 3, 3, // range xs, with continue
		1, 1, 2, 2, 2, // range 2
		0,                      // j := 0
		1, 1, 1, 2, 2, 3, 3, 3, // for { }, cut where it jumps back to j++
		1, 1, 2, 2, 3, 3, 3, // for j > 0
		1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, // nested: inner numbers inside the inner loop
		1, // a loop that does not run: the header step only
		0,
	}
	if got := iterations(out); !slices.Equal(got, wantIter) {
		t.Errorf("iterations\n got %v\nwant %v", got, wantIter)
	}

	// Keeping one iteration leaves out the middle ones of 3.
	out, skips = summarize(t, in, delveLoops, 1, 0)
	wantSkips := []Skip{
		{After: 3, Line: 9, Iterations: 2, Steps: 5},
		{After: 6, Line: 12, Iterations: 2, Steps: 7},
		{After: 15, Line: 22, Iterations: 2, Steps: 5},
		{After: 17, Line: 28, Iterations: 2, Steps: 5},
	}
	if !reflect.DeepEqual(skips, wantSkips) {
		t.Errorf("keep 1/0: skips %+v\nwant %+v", skips, wantSkips)
	}
	wantLines := []int{7, 8, 9, 10, 12, 13, 16, 18, 19, 18, 19, 18, 21, 22, 23, 24, 28, 29, 31, 32, 33, 32, 33, 32, 31, 32, 33, 32, 33, 32, 31, 36, 39}
	if got := stepLines(out); !slices.Equal(got, wantLines) {
		t.Errorf("keep 1/0: lines\n got %v\nwant %v", got, wantLines)
	}
}

// A "for {" loop left by break after 50 iterations, continue in some.
//
//	1	n := 0
//	2	for {
//	3		n++
//	4		if n%2 == 0 {
//	5			continue
//	6		}
//	7		if n == 49 {
//	8			break
//	9		}
//	10	}
//	11	return n
func TestSummarizeBreakContinue(t *testing.T) {
	in := lines(1, 2)
	for n := 1; n <= 49; n++ {
		in = append(in, lines(3, 4)...)
		if n%2 == 0 {
			in = append(in, lines(5)...)
			continue
		}
		in = append(in, lines(7)...)
		if n == 49 {
			in = append(in, lines(8)...)
			break
		}
	}
	in = append(in, lines(11)...)
	out, skips := summarize(t, in, []LoopRange{{2, 2, 10}}, 2, 1)
	if got, want := stepLines(out), []int{1, 2, 3, 4, 7, 3, 4, 5, 3, 4, 7, 8, 11}; !slices.Equal(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	if got, want := iterations(out), []int{0, 1, 1, 1, 1, 2, 2, 2, 49, 49, 49, 49, 0}; !slices.Equal(got, want) {
		t.Errorf("iterations %v, want %v", got, want)
	}
	if len(skips) != 1 || skips[0].Iterations != 46 || skips[0].After != 7 || skips[0].Line != 2 {
		t.Errorf("skips %+v", skips)
	}
}

func TestSummarizeOutsideLoops(t *testing.T) {
	in := lines(1, 2, 3, 5, 3, 9)
	in[2].Callees = []FID{{"main.f", 1}}
	in[2].Changes = []Change{{Var: "x", New: Value{}}}
	out, skips := summarize(t, in, []LoopRange{{20, 20, 25}}, 1, 1)
	if len(skips) != 0 || !reflect.DeepEqual(out, in) {
		t.Errorf("steps outside loops changed: %+v, %+v", out, skips)
	}
	out, skips = summarize(t, in, nil, 1, 1)
	if len(skips) != 0 || !reflect.DeepEqual(out, in) {
		t.Errorf("no loops: %+v, %+v", out, skips)
	}
	out, skips = summarize(t, nil, []LoopRange{{2, 2, 3}}, 1, 1)
	if len(out) != 0 || len(skips) != 0 {
		t.Errorf("no steps: %+v, %+v", out, skips)
	}
}

// Loops that run 0 and 1 times:
//
//	1	for i := 0; i < n; i++ {
//	2		f()
//	3	}
//	4	g()
func TestSummarizeShortLoops(t *testing.T) {
	loops := []LoopRange{{1, 1, 3}}
	out, skips := summarize(t, lines(1, 4), loops, 1, 1)
	if len(skips) != 0 || !slices.Equal(iterations(out), []int{1, 0}) {
		t.Errorf("0 times: %+v %+v", out, skips)
	}
	out, skips = summarize(t, lines(1, 2, 1, 4), loops, 1, 1)
	if len(skips) != 0 || !slices.Equal(iterations(out), []int{1, 1, 1, 0}) {
		t.Errorf("1 time: %+v %+v", out, skips)
	}
	// 3 iterations with 1 + 1 kept: leaving out one saves nothing.
	out, skips = summarize(t, lines(1, 2, 1, 2, 1, 2, 1, 4), loops, 1, 1)
	if len(skips) != 0 || !slices.Equal(iterations(out), []int{1, 1, 2, 2, 3, 3, 3, 0}) {
		t.Errorf("3 times: %+v %+v", iterations(out), skips)
	}
	// 4 iterations: two left out.
	out, skips = summarize(t, lines(1, 2, 1, 2, 1, 2, 1, 2, 1, 4), loops, 1, 1)
	if len(skips) != 1 || skips[0].Iterations != 2 || !slices.Equal(iterations(out), []int{1, 1, 4, 4, 4, 0}) {
		t.Errorf("4 times: %+v %+v", iterations(out), skips)
	}
}

// Two loops one after the other, 5 and 6 iterations:
//
//	1	for i := range 5 {
//	2		a()
//	3	}
//	4	for i := range 6 {
//	5		b()
//	6	}
func TestSummarizeSequentialLoops(t *testing.T) {
	var in []Step
	for range 5 {
		in = append(in, lines(1, 2)...)
	}
	in = append(in, lines(1)...)
	for range 6 {
		in = append(in, lines(4, 5)...)
	}
	in = append(in, lines(4, 7)...)
	out, skips := summarize(t, in, []LoopRange{{1, 1, 3}, {4, 4, 6}}, 1, 1)
	if got, want := stepLines(out), []int{1, 2, 1, 2, 1, 4, 5, 4, 5, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	want := []Skip{{After: 1, Line: 1, Iterations: 3, Steps: 6}, {After: 6, Line: 4, Iterations: 4, Steps: 8}}
	if !reflect.DeepEqual(skips, want) {
		t.Errorf("skips %+v, want %+v", skips, want)
	}
}

// The same loop run twice (the function loops around it with goto, or the
// loop is entered again after other steps) is summarised per run.
func TestSummarizeLoopEnteredTwice(t *testing.T) {
	var in []Step
	for range 2 {
		for range 5 {
			in = append(in, lines(2, 3)...)
		}
		in = append(in, lines(2, 9)...)
	}
	out, skips := summarize(t, in, []LoopRange{{2, 2, 4}}, 1, 1)
	if len(skips) != 2 || len(out) != 2*(2+3+1) {
		t.Errorf("%v, skips %+v", stepLines(out), skips)
	}
}

// TestSummarizeChanges: a skip carries what its steps changed, net, so that
// replaying a summarised trace gives the variables at every kept step.
//
//	3	s, last := 0, 0
//	4	for i := 0; i < 10; i++ {
//	5		s += i
//	6		last = i % 2 // back to its value before the skip: no change
//	7	}
func TestSummarizeChanges(t *testing.T) {
	change := func(name string, old *int, v int) Change {
		c := Change{Var: name, New: Value{Name: name, Type: "int", Kind: KindInt, Text: strconv.Itoa(v)}}
		if old != nil {
			c.Old = &Value{Name: name, Type: "int", Kind: KindInt, Text: strconv.Itoa(*old)}
		}
		return c
	}
	in := lines(3)
	in[0].Changes = []Change{change("s", nil, 0), change("last", nil, 0)}
	s, last := 0, 0
	for i := 0; i < 10; i++ {
		head := lines(4)[0]
		if i == 0 {
			head.Changes = []Change{change("i", nil, 0)}
		} else {
			prev := i - 1
			head.Changes = []Change{change("i", &prev, i)}
		}
		body := lines(5, 6)
		olds, oldl := s, last
		s, last = s+i, i%2
		if s != olds {
			body[0].Changes = []Change{change("s", &olds, s)}
		}
		if last != oldl {
			body[1].Changes = []Change{change("last", &oldl, last)}
		}
		in = append(in, head, body[0], body[1])
	}
	in = append(in, lines(4)...)
	_, skips := summarize(t, in, []LoopRange{{Header: 4, Start: 4, End: 7}}, 1, 1)
	if len(skips) != 1 {
		t.Fatalf("skips %+v, want one", skips)
	}
	var got []string
	for _, c := range skips[0].Changes {
		got = append(got, fmt.Sprintf("%s: %s → %s", c.Var, c.Old.Text, c.New.Text))
	}
	// Iterations 2 to 9 (i = 1 … 8): last ends at 0, as it started.
	if want := []string{"i: 0 → 8", "s: 0 → 36"}; !slices.Equal(got, want) {
		t.Errorf("skip changes %q, want %q", got, want)
	}
}
