package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/adi-go/adi/engine/cond"
	"github.com/adi-go/adi/engine/trace"
)

// fib4 is "go run ./testdata/fib 4": main.main#1, main.parseN#1, then
// main.fib#1 (n=4) … main.fib#9 in order of entry.
var fib4 = []string{"go", "run", "./testdata/fib", "4"}

func fid(fn string, i int) trace.FID { return trace.FID{Func: fn, Index: i} }

// at asserts that the session inspects want.
func at(t *testing.T, s *Session, want string) {
	t.Helper()
	if got := s.Current().FID.String(); got != want {
		t.Fatalf("inspecting %s, want %s", got, want)
	}
}

func TestStartIndex(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{fib4, "main.main#1"}, // exits 0: the first frame
		{[]string{"go", "run", "./testdata/nilmap"}, "main.(*Registry).Add#1"},                                                     // the panicking frame
		{[]string{"go", "test", "./testdata/tabletest"}, "github.com/adi-go/adi/testdata/tabletest.TestFormatSize#1"},              // the failing test
		{[]string{"go", "test", "./testdata/nilptr", "-run", "TestGreetings"}, "github.com/adi-go/adi/testdata/nilptr.Greeting#3"}, // panic inside a test
	} {
		t.Run(strings.Join(tc.argv[2:], " "), func(t *testing.T) {
			at(t, newSession(t, tc.argv...), tc.want)
		})
	}
}

func TestContinuePrev(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, fib4...)

	// No breakpoints: continue and prev leave i where it is, and say why.
	nav, err := s.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nav.Moved || !strings.Contains(nav.Note, "no breakpoints") {
		t.Fatalf("continue without breakpoints: moved=%v note=%q", nav.Moved, nav.Note)
	}
	at(t, s, "main.main#1")

	n, err := s.Break("main.fib", "n == 2")
	if err != nil || n != 2 {
		t.Fatalf("break main.fib n == 2 = %d, %v; want 2 matches", n, err)
	}
	for _, want := range []string{"main.fib#3", "main.fib#7"} {
		nav, err := s.Continue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !nav.Moved || nav.FLT.Frame.FID.String() != want {
			t.Fatalf("continue: at %s moved=%v, want %s", nav.FLT.Frame.FID, nav.Moved, want)
		}
		at(t, s, want)
	}
	nav, err = s.Continue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nav.Moved || !strings.Contains(nav.Note, "no later frame") {
		t.Fatalf("continue past the last match: moved=%v note=%q", nav.Moved, nav.Note)
	}
	at(t, s, "main.fib#7")

	if nav, err = s.Prev(ctx); err != nil || nav.FLT.Frame.FID.String() != "main.fib#3" {
		t.Fatalf("prev = %v, %v; want main.fib#3", nav, err)
	}
	nav, err = s.Prev(ctx)
	if err != nil || nav.Moved || !strings.Contains(nav.Note, "no earlier frame") {
		t.Fatalf("prev before the first match: %+v, %v", nav, err)
	}
	at(t, s, "main.fib#3")
}

func TestBreakpointSet(t *testing.T) {
	s := newSession(t, fib4...)
	for _, c := range []string{"", "n == 2", "n == 2", "r0 == 1 && n > 1"} {
		if _, err := s.Break("main.fib", c); err != nil {
			t.Fatalf("break main.fib %q: %v", c, err)
		}
	}
	if got := describeBreakpoints(s.Breakpoints()); got != "main.fib, main.fib if n == 2, main.fib if r0 == 1 && n > 1" {
		t.Fatalf("B = %s (a duplicate must not be added twice)", got)
	}
	if n, err := s.Break("main.fib", "r0 == 1 && n > 1"); err != nil || n != 2 {
		t.Fatalf("condition over the unnamed result: %d matches, %v; want 2 (fib(2) twice)", n, err)
	}
	if n, err := s.Clear("main.fib", "n == 2"); err != nil || n != 1 {
		t.Fatalf("clear main.fib n == 2 = %d, %v", n, err)
	}
	if _, err := s.Clear("main.fib", "n == 9"); err == nil || !strings.Contains(err.Error(), "no breakpoint main.fib if n == 9") {
		t.Fatalf("clearing a breakpoint that is not set: %v", err)
	}
	if n, err := s.Clear("main.fib", ""); err != nil || n != 2 {
		t.Fatalf("clear main.fib = %d, %v; want both remaining", n, err)
	}
	if len(s.Breakpoints()) != 0 {
		t.Fatalf("B not empty: %v", s.Breakpoints())
	}
}

func TestBreakBadInput(t *testing.T) {
	s := newSession(t, fib4...)
	s.Break("main.fib", "n == 3")
	before := describeBreakpoints(s.Breakpoints())
	for _, tc := range []struct {
		fn, cond string
		is       error
		msg      string
	}{
		{"main.fibb", "", nil, `no function "main.fibb" in the recording; did you mean main.fib?`},
		{"main.fib", "n >", cond.ErrSyntax, `does not parse`},
		{"main.fib", "m > 1", cond.ErrUnknownName, `unknown name "m" in condition; the frame has: n, r0`},
		{"main.fib", `n == "x"`, cond.ErrType, ``},
	} {
		_, err := s.Break(tc.fn, tc.cond)
		if err == nil {
			t.Errorf("break %s %q: no error", tc.fn, tc.cond)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("break %s %q: %v, want %v", tc.fn, tc.cond, err, tc.is)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("break %s %q: %q does not say %q", tc.fn, tc.cond, err, tc.msg)
		}
	}
	if after := describeBreakpoints(s.Breakpoints()); after != before {
		t.Fatalf("B changed by failed commands: %s → %s", before, after)
	}
}

func TestStepIntoStepOut(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, fib4...)
	if _, err := s.StepInto(ctx, fid("main.fib", 5)); err != nil {
		t.Fatal(err)
	}
	at(t, s, "main.fib#5")
	for _, tc := range []struct {
		fid trace.FID
		msg string
	}{
		{fid("main.fib", 99), "main.fib was invoked 9 time(s), use main.fib#1 to main.fib#9"},
		{fid("main.fibb", 1), "did you mean main.fib?"},
	} {
		if _, err := s.StepInto(ctx, tc.fid); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("step-into %s: %v, want it to say %q", tc.fid, err, tc.msg)
		}
		at(t, s, "main.fib#5")
	}
	// fib#5 (n=0) ← fib#3 (n=2) ← fib#2 (n=3) ← fib#1 (n=4) ← main.main#1.
	for _, want := range []string{"main.fib#3", "main.fib#2", "main.fib#1", "main.main#1"} {
		nav, err := s.StepOut(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !nav.Moved {
			t.Fatalf("step-out to %s did not move", want)
		}
		at(t, s, want)
	}
	nav, err := s.StepOut(ctx)
	if err != nil || nav.Moved || !strings.Contains(nav.Note, "root frame") {
		t.Fatalf("step-out of the root: %+v, %v", nav, err)
	}
	at(t, s, "main.main#1")
}

func TestExecInput(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, fib4...)
	for _, tc := range []struct{ line, msg string }{
		{"frobnicate", `unknown command "frobnicate"`},
		{"step-into fib", `malformed frame id "fib"`},
		{"step-into main.fib#0", "positive integer"},
		{"execute main.fib#1 99 1 n", "line 99 is not a statement of main.fib (main.go lines 12-17); the statements are on lines 13, 14, 16, 17"},
		{"execute main.fib#1 13 2 n", "line 13 ran 1 time(s) in main.fib#1, not 2"},
		{"execute main.fib#1 13 0 n", "k must be 1 or more"},
		{"execute main.fib#1 13 1 n +", "neither a Go expression nor an assignment"},
		{"execute main.fib#1 13", "usage: execute FID LINE K STMT"},
		{"call-tree main.fib#1 -1", "depth must be 0 or more"},
		{"frames main.nope", `no function "main.nope"`},
	} {
		_, err := s.Exec(ctx, tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want it to say %q", tc.line, err, tc.msg)
		}
	}
	at(t, s, "main.main#1")
}

func TestExecute(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, fib4...)
	res, err := s.Execute(ctx, fid("main.fib", 1), 16, 1, "n*10 + 1")
	if err != nil {
		t.Fatal(err)
	}
	if res.WhatIf || res.Value == nil || res.Value.Text != "41" {
		t.Fatalf("n*10+1 in fib#1 = %+v, want 41", res)
	}
	// What-if on an argument: the compiler keeps reading the register the
	// argument came in (see syncArgRegister), so fib(5) must come out 5.
	for _, tc := range []struct {
		fid  trace.FID
		line int
		stmt string
		want string
	}{
		{fid("main.fib", 1), 13, "n = 5", "5"},
		{fid("main.fib", 1), 16, "n = 6", "8"},
		{fid("main.fib", 4), 13, "n = 3", "2"}, // fib#4 had n=1
	} {
		res, err := s.Execute(ctx, tc.fid, tc.line, 1, tc.stmt)
		if err != nil {
			t.Fatal(err)
		}
		if !res.WhatIf || len(res.Results) != 1 || res.Results[0].Text != tc.want {
			t.Errorf("%s at %s:%d: %+v, want result %s", tc.stmt, tc.fid, tc.line, res, tc.want)
		}
	}
}

func TestCallTreeAndFrames(t *testing.T) {
	s := newSession(t, fib4...)
	fs, err := s.Frames("main.fib")
	if err != nil || len(fs) != 9 {
		t.Fatalf("frames main.fib: %d, %v", len(fs), err)
	}
	root, err := s.CallTree(fid("main.fib", 2))
	if err != nil {
		t.Fatal(err)
	}
	got := trace.CallTreeText(s.Recording(), root, 1)
	want := "main.fib#2(n=3) → 2 · caller main.fib#1 at main.go:16 · goroutine 1\n" +
		"  main.fib#3(n=2) → 1\n" +
		"    … 2 more calls\n" +
		"  main.fib#6(n=1) → 1\n"
	if got != want {
		t.Fatalf("call-tree main.fib#2 1:\n%s\nwant:\n%s", got, want)
	}
}

func TestFLTCached(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, fib4...)
	a, err := s.Frame(ctx, fid("main.fib", 2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Frame(ctx, fid("main.fib", 2))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("the second FLT of a frame was built again, not taken from the cache")
	}
}
