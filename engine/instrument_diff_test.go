package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/trace"
)

// diffTargets are all the testdata programs that build (see
// testdata/README.md), as adi's tests run them.
var diffTargets = [][]string{
	{"go", "run", "./testdata/nilmap"},
	{"go", "test", "./testdata/nilptr"},
	{"go", "run", "./testdata/index"},
	{"go", "test", "./testdata/offbyone"},
	{"go", "test", "./testdata/search"},
	{"go", "test", "./testdata/recursion"},
	{"go", "test", "./testdata/methods"},
	{"go", "run", "./testdata/closure"},
	{"go", "test", "./testdata/generics"},
	{"go", "run", "./testdata/pipeline"},
	{"go", "test", "./testdata/droppederr"},
	{"go", "test", "./testdata/deferrecover"},
	{"go", "test", "./testdata/tabletest"},
	{"go", "run", "./testdata/fib", "10"},
	{"go", "run", "./testdata/loop"},
	{"go", "run", "./testdata/nondet"},
	{"go", "run", "./testdata/spin"},
	{"go", "run", "./testdata/initgen"},
	{"go", "run", "./testdata/empty"},
	{"go", "run", "./testdata/libpanic"},
}

// TestRecordersAgree records every testdata program with both recorders
// and compares the indexes: the same functions entered in the same order
// on each goroutine, the same callers, call sites and spawn edges, the same
// basic-kind arguments and results, the same exits. Composite values are
// compared by kind, nil-ness and length, which is what the instrumenting
// recorder keeps of them.
//
// What legitimately differs between two runs of one program is
// normalised: frames are compared as call trees (the interleaving of
// goroutines is up to the scheduler, and so are the invocation numbers of
// a function entered on several goroutines). When the recordings differ,
// the Delve recorder records the program a second time: a difference that
// is also found between the two Delve runs at the same place is the
// program's own non-determinism (testdata/nondet seeds from the clock),
// not the recorder's; every other difference fails the test.
func TestRecordersAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("records every fixture twice")
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "testdata")); err != nil {
		t.Fatal(err)
	}
	for _, argv := range diffTargets {
		name := strings.TrimPrefix(argv[2], "./testdata/")
		t.Run(name, func(t *testing.T) {
			timeout := time.Minute
			if name == "spin" {
				timeout = 3 * time.Second
			}
			recs := map[RecorderKind]*trace.Recording{}
			for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
				var log []string
				s, err := Open(context.Background(), argv, root, Options{
					Recorder: k, Timeout: timeout,
					Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) },
				})
				if err != nil {
					t.Fatalf("%s recorder: %v", k, err)
				}
				defer s.Close()
				if k == RecorderInstrument {
					for _, l := range log {
						if strings.Contains(l, "instead") {
							t.Fatalf("the instrumenting recorder fell back: %s", l)
						}
					}
				}
				recs[k] = s.Recording()
			}
			diffs := timingOnly(t, compareRecordings(recs[RecorderDelve], recs[RecorderInstrument], name == "spin"))
			if len(diffs) == 0 {
				return
			}
			s, err := Open(context.Background(), argv, root, Options{Recorder: RecorderDelve, Timeout: timeout})
			if err != nil {
				t.Fatalf("delve recorder, second run: %v", err)
			}
			defer s.Close()
			// Differences between two Delve runs, and the frames whose
			// arguments differed there: values computed from those
			// arguments differ by chance, or coincide by chance.
			noise := map[string]bool{}
			var tainted []string
			for _, d := range compareRecordings(recs[RecorderDelve], s.Recording(), name == "spin") {
				noise[d.key] = true
				if path, ok := strings.CutSuffix(d.key, ": arguments "+d.value); ok {
					tainted = append(tainted, path)
				}
			}
			isNoise := func(d difference) bool {
				if noise[d.key] {
					return true
				}
				for _, p := range tainted {
					if strings.HasPrefix(d.key, p+"/") || strings.HasPrefix(d.key, p+": results") {
						return true
					}
				}
				return false
			}
			for _, d := range diffs {
				if isNoise(d) {
					t.Logf("also between two Delve runs (the program is not deterministic): %s", d.text)
					continue
				}
				t.Error(d.text)
			}
		})
	}
}

// durations matches the run times the testing package prints.
var durations = regexp.MustCompile(`\(\d+\.\d+s\)`)

// TestRecordersAgreeFloats: floats and complex numbers of every range are
// written by the two recorders alike (Delve's texts: strconv's 'f' for a
// float, 0 for -0, go/constant's for a complex number), so a re-execution
// from an instrumented recording finds the arguments it recorded: a large
// one was -9.223372036854776e+18 in the one and -9223372036854776000 in
// the other, a complex one (1.5 + -0.21428571428571427i) and
// (1.5 + -0.214286i).
func TestRecordersAgreeFloats(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/floats\n\ngo 1.26\n",
		"main.go": `package main

import (
	"fmt"
	"math"
)

type celsius float64

func show(a float64, b float32, c complex128, d celsius) float64 { return a * 2 }

func main() {
	for _, x := range []float64{-9223372036854775805, 1e-7, 1.5, 0, math.Copysign(0, -1), 1e300, math.Inf(1), math.NaN(), 123456789.125} {
		fmt.Println(show(x, float32(x)/3, complex(x, -x/7), celsius(x/9)))
	}
}
`,
	})
	recs := map[RecorderKind]*trace.Recording{}
	for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Recorder: k, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("%s recorder: %v", k, err)
		}
		defer s.Close()
		recs[k] = s.Recording()
	}
	if diffs := compareRecordings(recs[RecorderDelve], recs[RecorderInstrument], false); len(diffs) > 0 {
		for _, d := range diffs {
			t.Errorf("%s: %s", d.key, d.value)
		}
		for i := 1; i <= 9; i++ {
			fid := trace.FID{Func: "main.show", Index: i}
			df, _ := recs[RecorderDelve].Frame(fid)
			inf, _ := recs[RecorderInstrument].Frame(fid)
			if df != nil && inf != nil {
				t.Logf("main.show#%d: delve %s %s, instrumented %s %s", i, texts(df.Args), texts(df.Results), texts(inf.Args), texts(inf.Results))
			}
		}
	}
	f, err := recs[RecorderInstrument].Frame(trace.FID{Func: "main.show", Index: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Args[0].Text; got != "-9223372036854776000" {
		t.Errorf("main.show#1's a = %s, want -9223372036854776000 (Delve's text)", got)
	}
}

// TestRecordersAgreeTypes records a program passing values of types
// spelled with other types (func, struct and interface literals, and the
// containers of them) declared in a package other than main, with both
// recorders: the instrumenting recorder names them as Delve does, with
// full package paths (the runtime's reflect names them by package name).
// A trace is built for a frame with such an argument: the re-execution
// compares it, and reaches the frame.
func TestRecordersAgreeTypes(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/types\n\ngo 1.26\n",
		"lib/lib.go": `package lib

type T struct{ N int }

type Box[E any] struct{ V E }

func Variadic(fs ...func(*T)) int {
	n := len(fs)
	return n
}

func Funcs(f func(int, ...string) (bool, error), g func(*T) error, h func() *T, k func(T, T)) bool { return f == nil }

func Literals(s struct{ A *T; B int }, i interface{ M() *T }, e interface{}) int { return s.B }

func Containers(m map[string]func(T), c chan func() T, a [2]func(*T), p *func(T) T) int { return len(m) }

func Generic(b Box[*T], bs []Box[T], x Box[func(T)]) int { return 0 }

func Embedded(s struct {
	T
	X int "json:\"x\""
}, e struct{}, r func(...*T) (T, error), w interface {
	Get(int) (T, bool)
	Set(...T)
}) int {
	return s.X
}
`,
		"main.go": `package main

import (
	"fmt"

	"example.com/types/lib"
)

func main() {
	fmt.Println(lib.Variadic(), lib.Variadic(func(*lib.T) {}))
	fmt.Println(lib.Funcs(nil, nil, nil, nil))
	fmt.Println(lib.Literals(struct{ A *lib.T; B int }{}, nil, nil))
	fmt.Println(lib.Containers(nil, nil, [2]func(*lib.T){}, nil))
	fmt.Println(lib.Generic(lib.Box[*lib.T]{}, nil, lib.Box[func(lib.T)]{}))
	fmt.Println(lib.Embedded(struct {
		lib.T
		X int "json:\"x\""
	}{}, struct{}{}, nil, nil))
}
`,
	})
	recs := map[RecorderKind]*trace.Recording{}
	var inst *Session
	for _, k := range []RecorderKind{RecorderDelve, RecorderInstrument} {
		s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Recorder: k, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("%s recorder: %v", k, err)
		}
		defer s.Close()
		recs[k], inst = s.Recording(), s
	}
	if diffs := compareRecordings(recs[RecorderDelve], recs[RecorderInstrument], false); len(diffs) > 0 {
		for _, d := range diffs {
			t.Errorf("%s", d.text)
		}
	}
	f, err := recs[RecorderInstrument].Frame(fid("example.com/types/lib.Variadic", 1))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[]func(*example.com/types/lib.T)"; len(f.Args) != 1 || f.Args[0].Type != want {
		t.Errorf("lib.Variadic#1's arguments %+v, want fs of type %s", f.Args, want)
	}
	flt, err := inst.Frame(context.Background(), fid("example.com/types/lib.Variadic", 1))
	if err != nil {
		t.Fatalf("the trace of lib.Variadic#1: %v", err)
	}
	if len(flt.Steps) == 0 || flt.Steps[0].Line != 8 {
		t.Errorf("the trace of lib.Variadic#1 has steps %+v, want line 8 first", flt.Steps)
	}
}

// difference is one difference between two recordings; key says where and
// what (without the values).
// (value names the argument for a difference of arguments).
// difference is one difference between two recordings; timing marks one
// that the run's timing explains (see compareRecordings).
type difference struct {
	key, text, value string
	timing           bool
}

// timingOnly logs the differences that timing explains and returns the
// others.
func timingOnly(t *testing.T, diffs []difference) []difference {
	var out []difference
	for _, d := range diffs {
		if d.timing {
			t.Logf("timing: %s", d.text)
			continue
		}
		out = append(out, d)
	}
	return out
}

// node is a frame in a canonical call tree.
type node struct {
	f    *trace.Frame
	kids []*node
}

// canonical builds the call trees of a recording: roots in order of entry,
// children in the order their caller made the call (RunOrder). Goroutines
// that one go statement started, run again by the caller (in a loop), are
// in the order of their arguments among themselves: which of them a run
// of the statement started is told by the order the goroutines first ran
// in, which is the scheduler's (their spawn edges, caller and call site,
// are the same).
func canonical(rec *trace.Recording) []*node {
	nodes := make([]*node, rec.Len())
	for i := range nodes {
		nodes[i] = &node{f: rec.At(i)}
	}
	var roots []*node
	for i, n := range nodes {
		f := n.f
		if f.Parent < 0 {
			roots = append(roots, nodes[i])
			continue
		}
		nodes[f.Parent].kids = append(nodes[f.Parent].kids, nodes[i])
	}
	for _, n := range nodes {
		sort.SliceStable(n.kids, func(a, b int) bool { return n.kids[a].f.RunOrder() < n.kids[b].f.RunOrder() })
		sortSpawns(n.kids)
	}
	return roots
}

// sortSpawns orders the goroutines each go statement of kids' caller
// started by their arguments of basic kinds (the values both recorders
// keep whole), in the places they hold.
func sortSpawns(kids []*node) {
	groups := map[trace.Pos][]int{}
	for i, k := range kids {
		if k.f.Spawn {
			groups[k.f.CallSite] = append(groups[k.f.CallSite], i)
		}
	}
	for _, at := range groups {
		if len(at) < 2 {
			continue
		}
		group := make([]*node, len(at))
		for j, i := range at {
			group[j] = kids[i]
		}
		sort.SliceStable(group, func(a, b int) bool { return basicTexts(group[a].f.Args) < basicTexts(group[b].f.Args) })
		for j, i := range at {
			kids[i] = group[j]
		}
	}
}

// compareRecordings lists the differences between the Delve recorder's
// index d and the instrumenting recorder's i. killed: the run was stopped
// by a timeout, so each recording may hold a different number of frames:
// only the common prefix of each goroutine's tree is compared.
func compareRecordings(d, i *trace.Recording, killed bool) []difference {
	var diffs []difference
	add := func(format string, args ...any) {
		if len(diffs) < 40 {
			text := fmt.Sprintf(format, args...)
			key, _, _ := strings.Cut(text, ": delve")
			key, _, _ = strings.Cut(key, " delve")
			key, _, _ = strings.Cut(key, ":\n")
			value := ""
			if _, v, ok := strings.Cut(key, ": arguments "); ok {
				value = v
			}
			diffs = append(diffs, difference{key: key, text: text, value: value})
		}
	}
	if !killed {
		if d.Outcome.ExitCode != i.Outcome.ExitCode {
			add("exit code: delve %d, instrument %d", d.Outcome.ExitCode, i.Outcome.ExitCode)
		}
		if a, b := durations.ReplaceAllString(d.Outcome.Stdout, "(…s)"), durations.ReplaceAllString(i.Outcome.Stdout, "(…s)"); a != b {
			add("stdout differs:\ndelve:\n%s\ninstrument:\n%s", d.Outcome.Stdout, i.Outcome.Stdout)
		}
		if a, b := strings.Join(d.Outcome.FailedTests, ","), strings.Join(i.Outcome.FailedTests, ","); a != b {
			add("failed tests: delve %s, instrument %s", a, b)
		}
		if (d.Outcome.Panic == nil) != (i.Outcome.Panic == nil) {
			add("panic: delve %v, instrument %v", d.Outcome.Panic, i.Outcome.Panic)
		} else if d.Outcome.Panic != nil {
			if d.Outcome.Panic.Value != i.Outcome.Panic.Value || d.Outcome.Panic.Frame != i.Outcome.Panic.Frame {
				add("panic: delve %q in %s, instrument %q in %s", d.Outcome.Panic.Value, d.Outcome.Panic.Frame, i.Outcome.Panic.Value, i.Outcome.Panic.Frame)
			}
		}
		if d.Len() != i.Len() {
			add("frames: delve %d, instrument %d", d.Len(), i.Len())
		}
	}
	// Functions entered on more than one goroutine: their invocation
	// numbers depend on the interleaving.
	multi := map[string]bool{}
	for _, rec := range []*trace.Recording{d, i} {
		g := map[string]int64{}
		for f := range rec.All {
			if old, ok := g[f.FID.Func]; ok && old != f.Goroutine {
				multi[f.FID.Func] = true
			}
			g[f.FID.Func] = f.Goroutine
		}
	}
	var walk func(path string, a, b []*node)
	walk = func(path string, a, b []*node) {
		if !killed && len(a) != len(b) {
			add("%s: delve has %d callees %s, instrument %d %s", path, len(a), names(a), len(b), names(b))
		}
		for k := 0; k < len(a) && k < len(b); k++ {
			x, y := a[k].f, b[k].f
			where := path + "/" + x.FID.String()
			if x.FID.Func != y.FID.Func {
				add("%s: delve entered %s, instrument %s", where, x.FID, y.FID)
				return
			}
			if x.FID != y.FID && !multi[x.FID.Func] {
				add("%s: instrument numbers it %s", where, y.FID)
			}
			if x.Caller.Func != y.Caller.Func || !multi[x.Caller.Func] && x.Caller != y.Caller {
				add("%s: caller delve %s, instrument %s", where, x.Caller, y.Caller)
			}
			if x.Spawn != y.Spawn || x.Indirect != y.Indirect {
				add("%s: spawn/indirect delve %v/%v, instrument %v/%v", where, x.Spawn, x.Indirect, y.Spawn, y.Indirect)
			}
			if x.CallSite != y.CallSite {
				add("%s: call site delve %s, instrument %s", where, x.CallSite, y.CallSite)
			}
			if x.Decl != y.Decl {
				add("%s: declared at delve %s, instrument %s", where, x.Decl, y.Decl)
			}
			if d := diffValues(x.Args, y.Args); d != "" {
				add("%s: arguments %s", where, d)
			}
			lastOpen := killed && (x.Exit == trace.Running || y.Exit == trace.Running)
			// A goroutine's first frame whose deferred calls let the
			// program end (wg.Done) may or may not reach its return
			// before the process exits: the instrumenting recorder's exit
			// hook runs after them, Delve stops at the return. Either
			// is what happened in that run.
			endRace := x.Spawn && y.Spawn && !killed &&
				(x.Exit == trace.Running && y.Exit == trace.Returned || x.Exit == trace.Returned && y.Exit == trace.Running)
			if endRace && len(diffs) < 40 {
				diffs = append(diffs, difference{key: where + ": exit", timing: true,
					text: fmt.Sprintf("%s: exit delve %s, instrument %s (the end of the run raced the frame's return)", where, x.Exit, y.Exit)})
			}
			if !lastOpen && !endRace {
				if x.Exit != y.Exit || x.Panic != y.Panic {
					add("%s: exit delve %s %q, instrument %s %q", where, x.Exit, x.Panic, y.Exit, y.Panic)
				}
				if x.Exit == trace.Returned {
					if d := diffValues(x.Results, y.Results); d != "" {
						add("%s: results %s", where, d)
					}
				}
			}
			walk(where, a[k].kids, b[k].kids)
		}
	}
	walk("", canonical(d), canonical(i))
	return diffs
}

func names(ns []*node) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.f.FID.String())
	}
	return "[" + strings.Join(s, " ") + "]"
}

// diffValues compares the Delve recorder's values with the instrumenting
// recorder's: names, types and kinds always; basic kinds by their text;
// composite values by nil-ness and length; a test's *testing.T by its
// name.
func diffValues(want, got []trace.Value) string {
	if len(want) != len(got) {
		return fmt.Sprintf("delve has %d values %s, instrument %d %s", len(want), texts(want), len(got), texts(got))
	}
	for k := range want {
		w, g := want[k], got[k]
		if w.Name != g.Name || w.Type != g.Type || w.Kind != g.Kind {
			return fmt.Sprintf("value %d: delve %s %s (%s), instrument %s %s (%s)", k, w.Name, w.Type, w.Kind, g.Name, g.Type, g.Kind)
		}
		switch w.Kind {
		case trace.KindBool, trace.KindInt, trace.KindUint, trace.KindFloat, trace.KindComplex, trace.KindString:
			if w.Text != g.Text {
				return fmt.Sprintf("%s: delve %s, instrument %s", w.Name, w.Text, g.Text)
			}
		default:
			if w.Nil != g.Nil || (w.Kind == trace.KindSlice || w.Kind == trace.KindMap) && w.Len != g.Len {
				return fmt.Sprintf("%s: delve %s (nil %v, len %d), instrument %s (nil %v, len %d)", w.Name, w.Text, w.Nil, w.Len, g.Text, g.Nil, g.Len)
			}
			// Both show which test a *testing.T runs.
			if trace.IsTestType(w.Type) && w.Text != g.Text {
				return fmt.Sprintf("%s: delve %s, instrument %s", w.Name, w.Text, g.Text)
			}
			// Two full values (two Delve runs) by their text: a slice
			// of random numbers taints what is computed from it.
			if !w.Shallow() && !g.Shallow() && w.Kind != trace.KindChan && w.Text != g.Text {
				return fmt.Sprintf("%s: delve %s, instrument %s", w.Name, w.Text, g.Text)
			}
		}
	}
	return ""
}

// basicTexts is texts of the values of basic kinds.
func basicTexts(vs []trace.Value) string {
	var basic []trace.Value
	for _, v := range vs {
		switch v.Kind {
		case trace.KindBool, trace.KindInt, trace.KindUint, trace.KindFloat, trace.KindComplex, trace.KindString:
			basic = append(basic, v)
		}
	}
	return texts(basic)
}

func texts(vs []trace.Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Name+"="+v.Text)
	}
	return "[" + strings.Join(s, " ") + "]"
}
