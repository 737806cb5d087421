package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

func TestOnlyFailed(t *testing.T) {
	test := &target.Spec{Kind: target.Test}
	failed := func(dropped bool, tests ...string) *trace.Recording {
		rec := trace.NewRecording()
		rec.Dropped = dropped
		rec.Outcome.FailedTests = tests
		return rec
	}
	for _, tc := range []struct {
		spec *target.Spec
		args []string
		rec  *trace.Recording
		want []string // nil: not narrowed
	}{
		{test, []string{"-test.paniconexit0", "-test.v=true"}, failed(true, "TestA"),
			[]string{"-test.paniconexit0", "-test.run=^(TestA)$", "-test.v=true"}},
		// Subtests: their top-level test, once.
		{test, []string{"-test.paniconexit0", "-test.run=Test", "-test.count=1"}, failed(true, "TestA/x_y", "TestA", "TestB"),
			[]string{"-test.paniconexit0", "-test.run=^(TestA|TestB)$", "-test.count=1"}},
		{test, []string{"-test.paniconexit0", "-test.run=^(TestA)$"}, failed(true, "TestA"), nil},
		// Every -run goes: the last one given would win.
		{test, []string{"-test.paniconexit0", "-test.run=A", "-test.v=true", "-test.run=B"}, failed(true, "TestA"),
			[]string{"-test.paniconexit0", "-test.run=^(TestA)$", "-test.v=true"}},
		{test, []string{"-test.paniconexit0"}, failed(false, "TestA"), nil},
		{test, []string{"-test.paniconexit0"}, failed(true), nil},
		{&target.Spec{Kind: target.Run}, nil, failed(true, "TestA"), nil},
	} {
		got, run, ok := onlyFailed(tc.spec, tc.args, tc.rec)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("onlyFailed(%s, %q, %q dropped %v) = %q, %v; want %q", tc.spec.Kind, tc.args, tc.rec.Outcome.FailedTests, tc.rec.Dropped, got, ok, tc.want)
		}
		if ok && !slices.Contains(got, "-test.run="+run) {
			t.Errorf("run %q is not in %q", run, got)
		}
	}
}

// TestOpenRecordsFailedTestsAlone: a package whose passing test takes
// more frames than the limit, before the test that fails. The failed test
// is recorded again alone, so that its frames (the evidence) are in the
// recording; a test that fails only after another is kept as the whole run
// recorded it.
func TestOpenRecordsFailedTestsAlone(t *testing.T) {
	src := "package late\n\nvar ready bool\n\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}\n\n" +
		"func Average(xs []int) int {\n\tsum := 0\n\tfor i := 1; i < len(xs); i++ {\n\t\tsum += xs[i]\n\t}\n\treturn sum / len(xs)\n}\n"
	for _, tc := range []struct {
		name, test string
		alone      bool
	}{
		{"alone", "func TestAverage(t *testing.T) {\n\tif got := Average([]int{4, 6, 8}); got != 6 {\n\t\tt.Fatalf(\"Average = %d, want 6\", got)\n\t}\n}\n", true},
		// Fails only when TestHeavy ran first.
		{"after", "func TestAverage(t *testing.T) {\n\tif ready && Average([]int{4, 6, 8}) != 6 {\n\t\tt.Fatal(\"Average\")\n\t}\n}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{
				"go.mod":       "module example.com/late\n\ngo 1.21\n",
				"late.go":      src,
				"late_test.go": "package late\n\nimport \"testing\"\n\nfunc TestHeavy(t *testing.T) {\n\tready = fib(15) == 610\n}\n\n" + tc.test,
			})
			var log []string
			s, err := Open(context.Background(), []string{"go", "test", "."}, dir, Options{
				Limits: Limits{MaxFrames: 100}, Timeout: time.Minute,
				Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			all := strings.Join(log, "\n")
			if !strings.Contains(all, "recording the failed tests alone (-run ^(TestAverage)$)") {
				t.Fatalf("log:\n%s", all)
			}
			rec := s.Recording()
			_, average := rec.Find(trace.FID{Func: "example.com/late.Average", Index: 1})
			if !tc.alone {
				if !strings.Contains(all, "the failed tests pass when run alone: keeping the whole run") || !rec.Dropped || average || slices.Contains(s.prog.Args, "-test.run=^(TestAverage)$") {
					t.Errorf("kept %d frames (dropped %v), Average#1 %v, args %q; log:\n%s", rec.Len(), rec.Dropped, average, s.prog.Args, all)
				}
				return
			}
			if rec.Dropped || rec.Partial != "" || !average || rec.HasFunc("example.com/late.fib") {
				t.Errorf("recording of %d frames (dropped %v, %q), Average#1 %v, fib %v", rec.Len(), rec.Dropped, rec.Partial, average, rec.HasFunc("example.com/late.fib"))
			}
			if got := rec.Outcome.FailedTests; !slices.Equal(got, []string{"TestAverage"}) {
				t.Errorf("failed tests %q", got)
			}
			// Re-executions run what was recorded.
			if !slices.Contains(s.prog.Args, "-test.run=^(TestAverage)$") {
				t.Errorf("the session runs %q", s.prog.Args)
			}
		})
	}
}

// TestOpenArgv0: a program that passes os.Args[0] on to its own functions
// (flag.NewFlagSet(os.Args[0], …) does) calls them with the same argument
// in the recording and in the re-executions, whichever build ran.
func TestOpenArgv0(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/argv0\n\ngo 1.21\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc usage(prog string) string {\n\treturn \"usage: \" + prog\n}\n\nfunc main() {\n\tfmt.Println(len(usage(os.Args[0])) > 7)\n}\n",
	})
	s, f := openFrame(t, []string{"go", "run", "."}, dir, Options{Recorder: RecorderInstrument, Timeout: time.Minute}, trace.FID{Func: "main.usage", Index: 1})
	if len(f.Args) != 1 || f.Args[0].Text != strconv.Quote(s.prog.Path) {
		t.Errorf("main.usage#1's arguments %+v, want the program's path %q", f.Args, s.prog.Path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.FLT(ctx, f); err != nil {
		t.Errorf("trace of main.usage#1: %v", err)
	}
}

// TestOpenConstantArgs: Delve names an integer of a type with constants by
// them ("Read|Write (3)"), the instrumenting recorder by its number: the
// same argument, whose name the trace then shows.
func TestOpenConstantArgs(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/consts\n\ngo 1.21\n",
		"main.go": `package main

import "fmt"

type Mode uint8

const (
	Read Mode = 1 << iota
	Write
)

func open(m Mode) Mode {
	return m & Write
}

func main() {
	fmt.Println(open(Read), open(Read|Write), open(8))
}
`,
	})
	s, err := Open(context.Background(), []string{"go", "run", "."}, dir, Options{Recorder: RecorderInstrument, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, want := range []struct{ arg, result string }{{"Read (1)", "0"}, {"Read|Write (3)", "Write (2)"}, {"8", "0"}} {
		f, err := s.Recording().Frame(trace.FID{Func: "main.open", Index: i + 1})
		if err != nil {
			t.Fatal(err)
		}
		flt, err := s.FLT(ctx, f)
		if err != nil {
			t.Errorf("trace of %s: %v", f.FID, err)
			continue
		}
		if a, r := flt.Frame.Args, flt.Frame.Results; len(a) != 1 || a[0].Text != want.arg || len(r) != 1 || r[0].Text != want.result {
			t.Errorf("%s's argument and result in its trace: %+v, %+v; want %s, %s", f.FID, a, r, want.arg, want.result)
		}
	}
}

// TestBuildDebugFallback: a debug build that fails only with the counting
// overlay (here an overlay that breaks the program) is made plain, and
// says so; a program that does not build gives its own error, once.
func TestBuildDebugFallback(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/fallback\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	work := t.TempDir()
	broken := filepath.Join(work, "broken.go")
	overlay := filepath.Join(work, "overlay.json")
	if err := os.WriteFile(broken, []byte("package main\n\nfunc main() { undefinedName() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, fmt.Appendf(nil, `{"Replace": {%q: %q}}`, filepath.Join(dir, "main.go"), broken), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &instrumentedBuild{rewritten: make(chan struct{}), res: &instrument.Result{CountOverlay: overlay}}
	close(b.rewritten)
	spec, err := target.Parse([]string{"go", "run", "."}, dir)
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	logf := func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }
	built, err := buildDebug(context.Background(), spec, work, b, logf)
	if err != nil {
		t.Fatalf("the plain build: %v", err)
	}
	if _, err := os.Stat(built.Path); err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || !strings.Contains(log[0], "the debug build with the counting hook failed (") || !strings.Contains(log[0], "undefinedName") {
		t.Errorf("log: %q", log)
	}
	// The program itself does not build: its error, and no note.
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { alsoUndefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log = nil
	_, err = buildDebug(context.Background(), spec, work, b, logf)
	var berr *target.BuildError
	if !errors.As(err, &berr) || !strings.Contains(berr.Output, "alsoUndefined") || len(log) != 0 {
		t.Errorf("a program that does not build: %v; log %q", err, log)
	}
}

// TestOpenUserOverlay: a target built with its own -overlay is recorded
// and re-executed as it runs with it. Both of adi's overlays include the
// target's replacements and rewrite the files as they replace them (the
// go command takes one -overlay: adi's used to replace the target's, and
// the instrumented recording had no frame).
func TestOpenUserOverlay(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/overlaid\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { fmt.Println(add(1, 2)) }\n",
		"alt.txt": "package main\n\nimport \"fmt\"\n\nfunc add(a, b int) int { return a - b }\n\nfunc main() { fmt.Println(\"overlaid\", add(1, 2)) }\n",
		"ov.json": `{"Replace": {"main.go": "alt.txt"}}`,
	})
	for _, k := range []RecorderKind{RecorderInstrument, RecorderDelve} {
		s, f := openFrame(t, []string{"go", "run", "-overlay=ov.json", "."}, dir, Options{Recorder: k}, trace.FID{Func: "main.add", Index: 1})
		if got := s.Recording().Outcome.Stdout; got != "overlaid -1\n" {
			t.Errorf("%s recorder: output %q", k, got)
		}
		flt, err := s.FLT(context.Background(), f)
		if err != nil {
			t.Fatalf("%s recorder: %v", k, err)
		}
		if len(flt.Frame.Results) != 1 || flt.Frame.Results[0].Text != "-1" {
			t.Errorf("%s recorder: add#1 returned %+v", k, flt.Frame.Results)
		}
		// The statements are the overlay's, which ran.
		var stmts []string
		for _, st := range flt.Steps {
			stmts = append(stmts, st.Stmt)
		}
		if !slices.Contains(stmts, "return a - b") {
			t.Errorf("%s recorder: add#1's statements %q; want the overlay's \"return a - b\"", k, stmts)
		}
	}
}
