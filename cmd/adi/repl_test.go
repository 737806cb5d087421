package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/engine"
)

const nilptr = "github.com/adi-go/adi/testdata/nilptr"

// nilptr's bug (testdata/README.md): Greeting (nilptr.go:40) dereferences
// the nil *User that (*Directory).Find returns for the unknown id 4.
const nilDeref = "runtime error: invalid memory address or nil pointer dereference"

func TestReplJSONGoTest(t *testing.T) {
	s := script{
		"frame",
		"frames " + nilptr + ".Greeting",
		"break nilptr.Greeting id == 4",
		"call-tree",
		"outcome",
		"execute " + nilptr + ".Greeting#3 40 1 u",
		"execute " + nilptr + ".Greeting#3 39 1 id = 1",
		"execute " + nilptr + ".Greeting#1 40 1 u = nil",
		"",
		"# comments and blank lines get no answer",
		"step-out",
		"continue",
		"frames nilptr.Greeting",
		"frames Greeting",
		"frames nilptr.Greetin",
		"help",
		"quit",
		"frame",
	}
	r := runRepl(t, s.String(), "--json", "--", "go", "test", "./testdata/nilptr", "-run", "TestGreetings")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)

	// The session starts at the frame that panicked.
	a.keys("frame", "fid", "func", "index", "caller", "goroutine", "call_site", "args", "results", "panic", "steps", "skipped", "truncated")
	var fr frameJ
	a.decode("frame", &fr)
	if fr.FID != nilptr+".Greeting#3" || fr.Func != nilptr+".Greeting" || fr.Index != 3 {
		t.Errorf("frame: fid %q func %q index %d, want %s.Greeting#3", fr.FID, fr.Func, fr.Index, nilptr)
	}
	if str(fr.Caller) != nilptr+".Greetings#1" {
		t.Errorf("frame: caller %s, want %s.Greetings#1", str(fr.Caller), nilptr)
	}
	if !strings.HasSuffix(fr.CallSite.File, "testdata/nilptr/nilptr.go") || fr.CallSite.Line != 47 {
		t.Errorf("frame: call_site %+v, want nilptr.go:47", fr.CallSite)
	}
	if got := argValue(fr.Args, "id"); got != "4" {
		t.Errorf("frame: argument id = %s, want 4", got)
	}
	if len(fr.Results) != 0 || fr.Exit != "panicked" || str(fr.Panic) != nilDeref {
		t.Errorf("frame: results %v exit %q panic %q, want no results, panicked with %q", fr.Results, fr.Exit, str(fr.Panic), nilDeref)
	}
	if len(fr.Steps) != 2 {
		t.Fatalf("frame: %d steps, want 2 (lines 39 and 40): %+v", len(fr.Steps), fr.Steps)
	}
	st := fr.Steps[0]
	if st.Line != 39 || st.Stmt != "u := d.Find(id)" {
		t.Errorf("frame: first step %d %q, want 39 \"u := d.Find(id)\"", st.Line, st.Stmt)
	}
	if len(st.Changes) != 1 || st.Changes[0].Var != "u" || st.Changes[0].Old != nil || st.Changes[0].New != "nil" || st.Changes[0].Type != "*"+nilptr+".User" {
		t.Errorf("frame: changes of line 39 = %+v, want u created as a nil *User", st.Changes)
	}
	if !slices.Equal(st.Callees, []string{nilptr + ".(*Directory).Find#3"}) {
		t.Errorf("frame: callees of line 39 = %v, want [(*Directory).Find#3]", st.Callees)
	}
	if fr.Steps[1].Line != 40 || !strings.Contains(fr.Steps[1].Stmt, "u.Name") {
		t.Errorf("frame: second step %d %q, want line 40 reading u.Name", fr.Steps[1].Line, fr.Steps[1].Stmt)
	}
	if len(fr.Skipped) != 0 || fr.Truncated {
		t.Errorf("frame: skipped %v truncated %v, want none", fr.Skipped, fr.Truncated)
	}

	var fs framesJ
	a.keys("frames "+nilptr+".Greeting", "func", "frames")
	a.decode("frames "+nilptr+".Greeting", &fs)
	if fs.Func != nilptr+".Greeting" || len(fs.Frames) != 3 {
		t.Fatalf("frames: func %q with %d frames, want Greeting with 3", fs.Func, len(fs.Frames))
	}
	for i, want := range []struct{ id, result, panic string }{
		{"1", `"hello, ada"`, "<null>"},
		{"3", `"hello, cy"`, "<null>"},
		{"4", "<none>", nilDeref},
	} {
		f := fs.Frames[i]
		if argValue(f.Args, "id") != want.id || argValue(f.Results, "~r0") != want.result || str(f.Panic) != want.panic {
			t.Errorf("frames[%d]: id=%s → %s, panic %s; want id=%s → %s, panic %s", i,
				argValue(f.Args, "id"), argValue(f.Results, "~r0"), str(f.Panic), want.id, want.result, want.panic)
		}
	}

	var br breakJ
	a.keys("break nilptr.Greeting id == 4", "breakpoint", "matches")
	a.decode("break nilptr.Greeting id == 4", &br)
	if br.Breakpoint.Func != nilptr+".Greeting" || br.Breakpoint.Condition != "id == 4" || br.Matches != 1 {
		t.Errorf("break: %+v, want Greeting if id == 4 matching 1 frame", br)
	}

	var tree treeJ
	a.decode("call-tree", &tree)
	if tree.Root == nil {
		t.Fatalf("call-tree: no root: %s", a.line("call-tree"))
	}
	if tree.Root.FID != nilptr+".Greeting#3" || str(tree.Root.Panic) != nilDeref || len(tree.Root.Children) != 1 {
		t.Fatalf("call-tree: root %s panic %s with %d children, want Greeting#3 panicking with one callee", tree.Root.FID, str(tree.Root.Panic), len(tree.Root.Children))
	}
	find := tree.Root.Children[0]
	if find.FID != nilptr+".(*Directory).Find#3" || len(find.Results) != 1 || find.Results[0].Value != "nil" || !find.Results[0].Nil {
		t.Errorf("call-tree: callee %s → %+v, want (*Directory).Find#3 returning nil", find.FID, find.Results)
	}
	if find.Children == nil || find.Panic != nil {
		t.Errorf("call-tree: Find#3 children %v panic %s, want [] and null", find.Children, str(find.Panic))
	}

	var oc outcomeJ
	a.keys("outcome", "exit_code", "panic", "failed_tests", "output")
	a.decode("outcome", &oc)
	if oc.ExitCode != 2 || oc.Killed || oc.Partial != "" {
		t.Errorf("outcome: exit_code %d killed %v partial %q, want 2, false, complete", oc.ExitCode, oc.Killed, oc.Partial)
	}
	if !slices.Equal(oc.FailedTests, []string{"TestGreetings"}) {
		t.Errorf("outcome: failed_tests %q, want [TestGreetings]", oc.FailedTests)
	}
	if !strings.Contains(oc.Output, "--- FAIL: TestGreetings") {
		t.Errorf("outcome: output lacks the test failure:\n%s", oc.Output)
	}
	if oc.Panic == nil {
		t.Fatalf("outcome: no panic")
	}
	if oc.Panic.Value != nilDeref || str(oc.Panic.Frame) != nilptr+".Greeting#3" || oc.Panic.Goroutine != fr.Goroutine {
		t.Errorf("outcome: panic %q in %s on goroutine %d, want %q in Greeting#3 on goroutine %d",
			oc.Panic.Value, str(oc.Panic.Frame), oc.Panic.Goroutine, nilDeref, fr.Goroutine)
	}
	var stack []string
	for _, e := range oc.Panic.Stack {
		if e.FID != nil {
			stack = append(stack, *e.FID+"@"+filepath.Base(e.File)+":"+strconv.Itoa(e.Line))
		}
	}
	wantStack := []string{
		nilptr + ".Greeting#3@nilptr.go:40",
		nilptr + ".Greetings#1@nilptr.go:47",
		nilptr + ".TestGreetings#1@nilptr_test.go:10",
	}
	if !slices.Equal(stack, wantStack) {
		t.Errorf("outcome: recorded frames of the panic stack %q, want %q", stack, wantStack)
	}

	var ex execJ
	a.keys("execute "+nilptr+".Greeting#3 40 1 u", "fid", "line", "k", "stmt", "value")
	a.decode("execute "+nilptr+".Greeting#3 40 1 u", &ex)
	if ex.FID != nilptr+".Greeting#3" || ex.Line != 40 || ex.K != 1 || ex.Stmt != "u" || str(ex.Value) != "nil" || ex.Type != "*"+nilptr+".User" || ex.WhatIf {
		t.Errorf("execute u: %+v (value %s), want u = nil (*User) at line 40, visit 1", ex, str(ex.Value))
	}
	var wi execJ
	a.decode("execute "+nilptr+".Greeting#3 39 1 id = 1", &wi)
	if !wi.WhatIf || wi.Panic != nil || len(wi.Results) != 1 || wi.Results[0].Value != `"hello, ada"` || wi.Value != nil {
		t.Errorf("execute id = 1: %s, want a what-if returning \"hello, ada\"", a.line("execute "+nilptr+".Greeting#3 39 1 id = 1"))
	}
	t.Run("what-if that panics under a test", func(t *testing.T) {
		// A what-if whose frame panics is reported as a panic also when a
		// deferred function further up (testing's tRunner) recovers it.
		var p execJ
		a.with(t).decode("execute "+nilptr+".Greeting#1 40 1 u = nil", &p)
		if !p.WhatIf || !strings.Contains(str(p.Panic), "nil pointer dereference") {
			t.Errorf("execute u = nil at line 40 of Greeting#1: %s\nwant \"what_if\":true and a \"panic\" with the nil pointer dereference",
				a.line("execute "+nilptr+".Greeting#1 40 1 u = nil"))
		}
	})

	var out frameJ
	a.decode("step-out", &out)
	if out.FID != nilptr+".Greetings#1" || out.Moved == nil || !*out.Moved {
		t.Errorf("step-out: fid %s moved %v, want Greetings#1, moved", out.FID, out.Moved)
	}
	if len(out.Steps) == 0 {
		t.Errorf("step-out: the answer has no trace")
	}
	var cont frameJ
	a.decode("continue", &cont)
	if cont.FID != nilptr+".Greeting#3" || cont.Moved == nil || !*cont.Moved || cont.Note != "" {
		t.Errorf("continue: fid %s moved %v note %q, want Greeting#3 (the breakpoint id == 4), moved", cont.FID, cont.Moved, cont.Note)
	}
	// A function of a package with a long import path can be named by
	// the last element of the path.
	var short framesJ
	a.decode("frames nilptr.Greeting", &short)
	if short.Func != nilptr+".Greeting" || len(short.Frames) != 3 {
		t.Errorf("frames nilptr.Greeting: func %q with %d frames, want %s.Greeting with 3", short.Func, len(short.Frames), nilptr)
	}
	if msg := a.err("frames Greeting"); !strings.Contains(msg, `did you mean `+nilptr+`.Greeting?`) {
		t.Errorf("frames Greeting: %q, want a suggestion of %s.Greeting", msg, nilptr)
	}
	t.Run("did you mean for a short name", func(t *testing.T) {
		// A misspelt short name gets a suggestion, as main.fibb does.
		if msg := a.with(t).err("frames nilptr.Greetin"); !strings.Contains(msg, "did you mean") || !strings.Contains(msg, "nilptr.Greeting") {
			t.Errorf("frames nilptr.Greetin: %q, want a suggestion of %s.Greeting", msg, nilptr)
		}
	})
	var help map[string]string
	a.decode("help", &help)
	if help["help"] != engine.CommandHelp {
		t.Errorf("help: %q, want engine.CommandHelp", help["help"])
	}
}

// index's bug (testdata/README.md): pageCount (main.go:17) computes n/size + 1,
// 4 pages for 12 items, and firstOfPage panics on the fourth.
func TestReplJSONGoRun(t *testing.T) {
	const indexPanic = "runtime error: index out of range [12] with length 12"
	s := script{
		"frame",
		"frames main.pageCount",
		"call-tree main.printPages#1",
		"execute main.pageCount#1 17 1 n/size + 1",
		"execute main.pageCount#1 17 1 (n + size - 1) / size",
		"execute main.pageCount#1 17 1 n = 11",
		"execute main.firstOfPage#1 22 1 p = 3",
		"execute main.printPages#1 28 1 pages = 3",
		"frame main.pageCount#1",
		"outcome",
	}
	r := runRepl(t, s.String(), "--json", "--", "go", "run", "./testdata/index")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)

	var fr frameJ
	a.decode("frame", &fr)
	if fr.FID != "main.firstOfPage#4" || str(fr.Caller) != "main.printPages#1" || fr.CallSite.Line != 29 || str(fr.Panic) != indexPanic {
		t.Errorf("frame: %s called by %s at line %d, panic %s; want main.firstOfPage#4 called by main.printPages#1 at line 29, panicking with %q",
			fr.FID, str(fr.Caller), fr.CallSite.Line, str(fr.Panic), indexPanic)
	}
	if argValue(fr.Args, "p") != "3" || argValue(fr.Args, "size") != "4" {
		t.Errorf("frame: args %+v, want p=3 size=4", fr.Args)
	}
	if len(fr.Steps) != 1 || fr.Steps[0].Line != 22 || fr.Steps[0].Stmt != "return items[p*size]" {
		t.Errorf("frame: steps %+v, want line 22 return items[p*size]", fr.Steps)
	}

	var fs framesJ
	a.decode("frames main.pageCount", &fs)
	if len(fs.Frames) != 1 || argValue(fs.Frames[0].Args, "n") != "12" || argValue(fs.Frames[0].Args, "size") != "4" || argValue(fs.Frames[0].Results, "~r0") != "4" {
		t.Errorf("frames main.pageCount: %s, want one frame pageCount(n=12, size=4) → 4", a.line("frames main.pageCount"))
	}

	var tree treeJ
	a.decode("call-tree main.printPages#1", &tree)
	if tree.Root == nil {
		t.Fatal("call-tree: no root")
	}
	var kids []string
	for _, c := range tree.Root.Children {
		kids = append(kids, c.FID)
	}
	want := []string{"main.pageCount#1", "main.firstOfPage#1", "main.firstOfPage#2", "main.firstOfPage#3", "main.firstOfPage#4"}
	if tree.Root.FID != "main.printPages#1" || !slices.Equal(kids, want) {
		t.Errorf("call-tree: %s → %v, want main.printPages#1 → %v", tree.Root.FID, kids, want)
	} else if str(tree.Root.Children[4].Panic) != indexPanic || tree.Root.Children[3].Panic != nil {
		t.Errorf("call-tree: firstOfPage#4 panic %s, #3 panic %s; want only #4 to panic", str(tree.Root.Children[4].Panic), str(tree.Root.Children[3].Panic))
	}

	for _, c := range []struct{ cmd, value string }{
		{"execute main.pageCount#1 17 1 n/size + 1", "4"},
		{"execute main.pageCount#1 17 1 (n + size - 1) / size", "3"},
	} {
		var ex execJ
		a.decode(c.cmd, &ex)
		if str(ex.Value) != c.value || ex.WhatIf || ex.FID != "main.pageCount#1" || ex.Line != 17 || ex.K != 1 {
			t.Errorf("%s: %s, want value %s", c.cmd, a.line(c.cmd), c.value)
		}
	}
	var wi execJ
	a.decode("execute main.pageCount#1 17 1 n = 11", &wi)
	if !wi.WhatIf || wi.Panic != nil || len(wi.Results) != 1 || wi.Results[0].Value != "3" {
		t.Errorf("execute n = 11: %s, want a what-if returning 3", a.line("execute main.pageCount#1 17 1 n = 11"))
	}
	var wp execJ
	a.decode("execute main.firstOfPage#1 22 1 p = 3", &wp)
	if !wp.WhatIf || str(wp.Panic) != indexPanic || len(wp.Results) != 0 {
		t.Errorf("execute p = 3: %s, want a what-if panicking with %q", a.line("execute main.firstOfPage#1 22 1 p = 3"), indexPanic)
	}
	var wn execJ
	a.decode("execute main.printPages#1 28 1 pages = 3", &wn)
	if !wn.WhatIf || wn.Panic != nil || len(wn.Results) != 0 {
		t.Errorf("execute pages = 3: %s, want a what-if returning normally", a.line("execute main.printPages#1 28 1 pages = 3"))
	}
	t.Run("what-if of a function without results", func(t *testing.T) {
		// A what-if answer always has "results" or "panic" (execJSON sets Results
		// to [] for a frame that returns nothing, but the field is tagged
		// omitempty, so the key disappears).
		a.with(t).keys("execute main.printPages#1 28 1 pages = 3", "results")
	})

	var pc frameJ
	a.decode("frame main.pageCount#1", &pc)
	if len(pc.Steps) != 1 || pc.Steps[0].Line != 17 || pc.Steps[0].Stmt != "return n/size + 1" || argValue(pc.Results, "~r0") != "4" {
		t.Errorf("frame main.pageCount#1: %s, want line 17 return n/size + 1, → 4", a.line("frame main.pageCount#1"))
	}

	var oc outcomeJ
	a.decode("outcome", &oc)
	if oc.ExitCode != 2 || oc.Panic == nil || oc.Panic.Value != indexPanic || str(oc.Panic.Frame) != "main.firstOfPage#4" || len(oc.FailedTests) != 0 || oc.FailedTests == nil {
		t.Errorf("outcome: %s, want exit 2, panic %q in main.firstOfPage#4, failed_tests []", a.line("outcome"), indexPanic)
	}
	for _, w := range []string{"12 items, 4 pages\n", "page 3 starts with", "panic: " + indexPanic} {
		if !strings.Contains(oc.Output, w) {
			t.Errorf("outcome: output lacks %q:\n%s", w, oc.Output)
		}
	}
	if strings.Contains(oc.Output, "done") {
		t.Errorf("outcome: output has %q, but the program panicked first", "done")
	}
}

func TestReplJSONBinary(t *testing.T) {
	bin := buildFib(t)
	s := script{
		"frames main.fib",
		"break main.fib n == 1",
		"break main.fib r0 > 1",
		"breakpoints",
		"continue",
		"c",
		"prev",
		"clear main.fib n == 1",
		"execute main.fib#1 16 1 n*2",
		"execute main.fib#1 13 1 n = 3",
		"call-tree main.fib#2 1",
		"step-into main.fib#15",
		"step-out",
		"outcome",
	}
	r := runRepl(t, s.String(), "--json", "--", bin, "5")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)

	var fs framesJ
	a.decode("frames main.fib", &fs)
	if len(fs.Frames) != 15 {
		t.Fatalf("frames main.fib: %d frames, want 15 (the calls of fib(5))", len(fs.Frames))
	}
	f1 := fs.Frames[0]
	if f1.FID != "main.fib#1" || str(f1.Caller) != "main.main#1" || f1.CallSite.Line != 39 || argValue(f1.Args, "n") != "5" || argValue(f1.Results, "~r0") != "5" || f1.Exit != "returned" {
		t.Errorf("frames main.fib: first %+v, want main.fib#1(n=5) → 5 called by main.main#1 at line 39", f1)
	}
	for i, f := range fs.Frames {
		if f.Index != i+1 || f.Func != "main.fib" {
			t.Errorf("frames main.fib: frame %d is %s (index %d)", i, f.FID, f.Index)
		}
	}
	for cmd, n := range map[string]int{"break main.fib n == 1": 5, "break main.fib r0 > 1": 4} {
		var br breakJ
		a.decode(cmd, &br)
		if br.Matches != n {
			t.Errorf("%s: %d matches, want %d", cmd, br.Matches, n)
		}
	}
	var bps bpListJ
	a.decode("breakpoints", &bps)
	if len(bps.Breakpoints) != 2 || bps.Breakpoints[0].Condition != "n == 1" || bps.Breakpoints[1].Condition != "r0 > 1" || bps.Cleared != nil {
		t.Errorf("breakpoints: %s, want the two of main.fib", a.line("breakpoints"))
	}
	for cmd, fid := range map[string]string{"continue": "main.fib#1", "c": "main.fib#2", "prev": "main.fib#1"} {
		var f frameJ
		a.decode(cmd, &f)
		if f.FID != fid || f.Moved == nil || !*f.Moved {
			t.Errorf("%s: %s moved %v, want %s, moved", cmd, f.FID, f.Moved, fid)
		}
	}
	var cl bpListJ
	a.decode("clear main.fib n == 1", &cl)
	if cl.Cleared == nil || *cl.Cleared != 1 || len(cl.Breakpoints) != 1 || cl.Breakpoints[0].Condition != "r0 > 1" {
		t.Errorf("clear: %s, want 1 cleared, r0 > 1 left", a.line("clear main.fib n == 1"))
	}
	var ex execJ
	a.decode("execute main.fib#1 16 1 n*2", &ex)
	if str(ex.Value) != "10" || ex.Type != "int" {
		t.Errorf("execute n*2: %s, want 10 (int)", a.line("execute main.fib#1 16 1 n*2"))
	}
	var wi execJ
	a.decode("execute main.fib#1 13 1 n = 3", &wi)
	if !wi.WhatIf || len(wi.Results) != 1 || wi.Results[0].Value != "2" || wi.Panic != nil {
		t.Errorf("execute n = 3: %s, want fib#1 to return fib(3) = 2", a.line("execute main.fib#1 13 1 n = 3"))
	}
	var tree treeJ
	a.decode("call-tree main.fib#2 1", &tree)
	if tree.Root == nil || tree.Root.FID != "main.fib#2" || len(tree.Root.Children) != 2 {
		t.Fatalf("call-tree main.fib#2 1: %s, want fib#2 with its two callees", a.line("call-tree main.fib#2 1"))
	}
	if c := tree.Root.Children[0]; argValue(c.Args, "n") != "3" || len(c.Children) != 0 || c.More != 2 {
		t.Errorf("call-tree main.fib#2 1: first callee %s(n=%s) with %d children, %d more; want n=3 cut at depth 1 with 2 more",
			c.FID, argValue(c.Args, "n"), len(c.Children), c.More)
	}
	var in, out frameJ
	a.decode("step-into main.fib#15", &in)
	a.decode("step-out", &out)
	if in.FID != "main.fib#15" || in.Caller == nil || out.FID != *in.Caller {
		t.Errorf("step-into main.fib#15 then step-out: %s (caller %s) then %s", in.FID, str(in.Caller), out.FID)
	}
	var oc outcomeJ
	a.decode("outcome", &oc)
	if oc.ExitCode != 0 || oc.Panic != nil || oc.Output != "fib(5) = 5\n" || oc.Killed || oc.Partial != "" {
		t.Errorf("outcome: %s, want exit 0 with output fib(5) = 5", a.line("outcome"))
	}
}

func TestReplText(t *testing.T) {
	bin := buildFib(t)
	in := strings.Join([]string{
		"help",
		"frames main.fibb",
		"",
		"# a comment",
		"frame main.fib#3",
		"execute main.fib#1 16 1 n*2",
		"execute main.fib#1 13 1 n = 3",
		"outcome",
		"bogus",
		"quit",
		"frames main.fib",
	}, "\n") + "\n"
	r := runRepl(t, in, "--", bin, "5")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	want := "inspecting main.main#1; type help for the commands\n" +
		engine.CommandHelp + "\n" +
		"error: no function \"main.fibb\" in the recording; did you mean main.fib?\n" +
		"main.fib#3(n=3) → 2 · caller main.fib#2 at main.go:16 · goroutine 1\n" +
		"  13  if n < 2 {\n" +
		"  16  return fib(n-1) + fib(n-2)  ⇢ main.fib#4(n=2) → 1  ⇢ main.fib#7(n=1) → 1\n" +
		"  returned 2\n" +
		"n*2 = 10  at line 16 (visit 1) of main.fib#1\n" +
		"with n = 3 at line 13 (visit 1) of main.fib#1, main.fib#1 returns (2)\n" +
		"exit code 0\n" +
		"output (1 line):\n" +
		"  fib(5) = 5\n" +
		"error: unknown command \"bogus\"; type help for the list\n"
	if r.Stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.Stdout, want)
	}
	for _, c := range []string{"break", "clear", "breakpoints", "continue", "prev", "step-into", "step-out", "call-tree", "execute", "frame", "frames", "outcome", "help", "quit"} {
		if !strings.Contains(r.Stdout, "\n  "+c+" ") {
			t.Errorf("help does not list %s", c)
		}
	}
	for _, w := range []string{"adi: recording " + bin, "adi: recorded 17 frames of 3 functions", "exit code 0"} {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
		}
	}

	// EOF ends the session as quit does.
	r = runRepl(t, "frames main.fib\nstep-out", "--", bin, "3")
	if r.Code != 0 {
		t.Fatalf("EOF: exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if lines[1] != "main.fib: 5 invocations" || !strings.HasPrefix(lines[len(lines)-1], "  returned") ||
		!strings.Contains(r.Stdout, "main.main#1 is a root frame: it has no recorded caller; the inspected frame is unchanged\n") {
		t.Errorf("EOF: stdout:\n%s\nwant the five invocations of fib(3), then the root-frame note of step-out (a last line without newline is a command)", r.Stdout)
	}

	// A line longer than the reader's buffer ends the session with an error.
	r = runRepl(t, "frames main.fib\n"+strings.Repeat("x", 2<<20)+"\n", "--", bin, "1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "adi: reading commands:") || !strings.Contains(r.Stdout, "main.fib: 1 invocation\n") {
		t.Errorf("long line: exit code %d, stdout:\n%s\nstderr:\n%s\nwant 1 and a reading error after the first answer", r.Code, clip(r.Stdout), clip(r.Stderr))
	}
}

func TestReplBadInput(t *testing.T) {
	bin := buildFib(t)
	s := script{
		"step-out",
		"continue",
		"step-into main.fib#3",
		"bogus",
		"frames main.fibb",
		"frames main.nosuch",
		"frames",
		"step-into main.fib#999",
		"step-into fib",
		"step-into main.fib#0",
		"frame main.nosuch#1",
		"break main.fib n ==",
		"break main.fib m == 1",
		`break main.fib n == "x"`,
		"break main.fibb",
		"execute main.fib#3 99 1 n",
		"execute main.fib#3 16 5 n",
		"execute main.fib#3 13 0 n",
		"execute main.fib#3 x 1 n",
		"execute main.fib#3 16 1 n +",
		"execute main.fib#3 16 1 nosuchvar",
		"execute main.fib#3",
		"execute main.fib#99 13 1 n",
		"clear main.fib",
		"call-tree main.fib#3 -1",
		"frame",
		"breakpoints",
		"frame main.fib#3",
	}
	r := runRepl(t, s.String(), "--json", "--", bin, "5")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)

	var so frameJ
	a.decode("step-out", &so)
	if so.FID != "main.main#1" || so.Moved == nil || *so.Moved || !strings.Contains(so.Note, "main.main#1 is a root frame") {
		t.Errorf("step-out at the root: %s moved %v note %q, want main.main#1 unmoved with a note", so.FID, so.Moved, so.Note)
	}
	var co frameJ
	a.decode("continue", &co)
	if co.FID != "main.main#1" || co.Moved == nil || *co.Moved || !strings.Contains(co.Note, "no breakpoints are set") {
		t.Errorf("continue without breakpoints: %s moved %v note %q", co.FID, co.Moved, co.Note)
	}
	var si frameJ
	a.decode("step-into main.fib#3", &si)
	if si.FID != "main.fib#3" {
		t.Fatalf("step-into main.fib#3: at %s", si.FID)
	}

	exact := map[string]string{
		"bogus":                     `unknown command "bogus"; type help for the list`,
		"frames main.fibb":          `no function "main.fibb" in the recording; did you mean main.fib?`,
		"frames main.nosuch":        `no function "main.nosuch" in the recording`,
		"frames":                    `usage: frames FUNC`,
		"step-into main.fib#999":    `no frame main.fib#999 in the recording: main.fib was invoked 15 time(s), use main.fib#1 to main.fib#15`,
		"step-into fib":             `malformed frame id "fib": want FUNC#N, e.g. main.fib#3`,
		"break main.fib m == 1":     `breakpoint on main.fib: unknown name "m" in condition; the frame has: n, r0`,
		"execute main.fib#3 99 1 n": `line 99 is not a statement of main.fib (main.go lines 12-17); the statements are on lines 13, 14, 16, 17`,
		"execute main.fib#3 16 5 n": `line 16 ran 1 time(s) in main.fib#3, not 5: use k from 1 to 1`,
		"execute main.fib#3 13 0 n": `k must be 1 or more (the k-th visit of line 13), got 0`,
		"execute main.fib#3 x 1 n":  `LINE and K must be numbers, got "x" and "1"`,
		"clear main.fib":            `no breakpoint main.fib to clear; breakpoints: none`,
		"call-tree main.fib#3 -1":   `depth must be 0 or more, got -1`,
	}
	for cmd, want := range exact {
		if got := a.err(cmd); got != want {
			t.Errorf("%s:\n got %q\nwant %q", cmd, got, want)
		}
	}
	contains := map[string][]string{
		"step-into main.fib#0":              {`malformed frame id "main.fib#0"`},
		"frame main.nosuch#1":               {"no frame main.nosuch#1", "never invoked"},
		"break main.fib n ==":               {`condition "n ==" does not parse`},
		`break main.fib n == "x"`:           {"cannot compare"},
		"break main.fibb":                   {"did you mean main.fib?"},
		"execute main.fib#3 16 1 n +":       {`"n +" is neither a Go expression nor an assignment`},
		"execute main.fib#3 16 1 nosuchvar": {"nosuchvar"},
		"execute main.fib#3":                {"usage: execute FID LINE K STMT"},
		"execute main.fib#99 13 1 n":        {"use main.fib#1 to main.fib#15"},
	}
	for cmd, wants := range contains {
		got := a.err(cmd)
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not contain %q", cmd, got, w)
			}
		}
	}

	// Errors leave Σ unchanged: still at main.fib#3, no breakpoints.
	var fr frameJ
	a.decode("frame", &fr)
	if fr.FID != "main.fib#3" {
		t.Errorf("frame after the errors: %s, want main.fib#3", fr.FID)
	}
	if a.line("frame") != a.line("frame main.fib#3") {
		t.Errorf("frame and frame main.fib#3 differ:\n%s\n%s", a.line("frame"), a.line("frame main.fib#3"))
	}
	var bps bpListJ
	a.decode("breakpoints", &bps)
	if bps.Breakpoints == nil || len(bps.Breakpoints) != 0 {
		t.Errorf("breakpoints after failed breaks: %s, want []", a.line("breakpoints"))
	}
}

func TestReplTargetErrors(t *testing.T) {
	root := repoRoot(t)

	// compilerLines runs go build on pkg in dir and returns its error lines
	// (file:line:col: message), which adi must pass on verbatim.
	compilerLines := func(t *testing.T, dir, pkg string) []string {
		cmd := exec.Command("go", "build", "-o", os.DevNull, pkg)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("go build %s succeeded", pkg)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, ".go:") {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			t.Fatalf("go build %s: no compiler errors in\n%s", pkg, out)
		}
		return lines
	}
	// oneError checks a failed Open in JSON mode: exit code 1, one
	// {"error"} line on stdout, the same message on stderr after "adi: ".
	oneError := func(t *testing.T, r adiRun) string {
		t.Helper()
		if r.Code != 1 {
			t.Errorf("exit code %d, want 1", r.Code)
		}
		a := jsonAnswers(t, r, script{"(open)"})
		msg := a.err("(open)")
		if !strings.Contains(r.Stderr, "adi: "+msg) {
			t.Errorf("stderr does not repeat the error %q:\n%s", msg, r.Stderr)
		}
		return msg
	}
	// A script that would answer if a session had started.
	const cmds = "outcome\nframe\n"

	t.Run("go test does not build", func(t *testing.T) {
		r := runRepl(t, cmds, "--json", "--", "go", "test", "./testdata/broken")
		msg := oneError(t, r)
		summary, _, _ := strings.Cut(msg, "\n")
		if summary != "build failed: testdata/broken/broken.go:9:30: undefined: suffix (2 errors)" {
			t.Errorf("summary line %q, want the first compiler error and the count", summary)
		}
		for _, l := range compilerLines(t, root, "./testdata/broken") {
			if !strings.Contains(msg, "\n"+l+"\n") {
				t.Errorf("the error lacks the compiler's line %q verbatim:\n%s", l, msg)
			}
		}
	})
	t.Run("go run does not build", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/brokenmain\n\ngo 1.22\n"), 0o666)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(undefinedName)\n\tvar n int = \"x\"\n\t_ = n\n}\n"), 0o666)
		r := runAdi(t, runOptions{Dir: dir}, cmds, "repl", "--json", "--", "go", "run", ".")
		msg := oneError(t, r)
		if summary, _, _ := strings.Cut(msg, "\n"); summary != "build failed: ./main.go:6:14: undefined: undefinedName (2 errors)" {
			t.Errorf("summary line %q", summary)
		}
		for _, l := range compilerLines(t, dir, ".") {
			if !strings.Contains(msg, "\n"+l+"\n") {
				t.Errorf("the error lacks the compiler's line %q verbatim:\n%s", l, msg)
			}
		}
	})
	t.Run("go run of a library", func(t *testing.T) {
		msg := oneError(t, runRepl(t, cmds, "--json", "--", "go", "run", "./testdata/broken"))
		for _, w := range []string{"not a main package", "go test ./testdata/broken -run"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q lacks %q", msg, w)
			}
		}
	})
	t.Run("nonexistent package", func(t *testing.T) {
		for _, kind := range []string{"test", "run"} {
			msg := oneError(t, runRepl(t, cmds, "--json", "--", "go", kind, "./testdata/nosuch"))
			if !strings.Contains(msg, "package ./testdata/nosuch not found") {
				t.Errorf("go %s: %q", kind, msg)
			}
		}
	})
	t.Run("nonexistent binary", func(t *testing.T) {
		msg := oneError(t, runRepl(t, cmds, "--json", "--", "./nosuch-binary"))
		if !strings.Contains(msg, "./nosuch-binary not found") {
			t.Errorf("%q", msg)
		}
	})
	t.Run("stripped binary", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "fib-stripped")
		cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, "./testdata/fib")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		msg := oneError(t, runRepl(t, cmds, "--json", "--", bin, "5"))
		for _, w := range []string{bin + " has no debug information", "-gcflags=all=-N -l"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q lacks %q", msg, w)
			}
		}
	})
	t.Run("no target", func(t *testing.T) {
		const noTarget = `adi: no target: write the program to debug after "--", e.g. adi repl -- go test ./pkg -run TestX`
		for _, args := range [][]string{
			{"--json", "go", "run", "./testdata/fib"},
			{"--json", "--"},
			{},
		} {
			r := runRepl(t, cmds, args...)
			if r.Code != 2 || !strings.Contains(r.Stderr, noTarget) {
				t.Errorf("repl %q: exit code %d, stderr:\n%s\nwant 2 and %q", args, r.Code, r.Stderr, noTarget)
			}
			// Nothing but JSON on stdout, and no session.
			for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
				if _, ok := errorAnswer(l); l != "" && !ok {
					t.Errorf("repl %q: stdout has %q", args, l)
				}
			}
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, c := range []struct {
			args   []string
			code   int
			stdout string
			stderr string
		}{
			{nil, 2, "", "usage:"},
			{[]string{"help"}, 0, "adi repl [flags] -- TARGET", ""},
			{[]string{"bogus"}, 2, "", `adi: unknown command "bogus"`},
			{[]string{"repl", "-h"}, 0, "", "break FUNC [COND]"},
			{[]string{"repl", "--bogus", "--", "go", "run", "./testdata/fib"}, 2, "", "flag provided but not defined: -bogus"},
		} {
			r := runAdi(t, runOptions{}, cmds, c.args...)
			if r.Code != c.code || !strings.Contains(r.Stdout, c.stdout) || !strings.Contains(r.Stderr, c.stderr) {
				t.Errorf("adi %q: exit code %d, stdout:\n%s\nstderr:\n%s\nwant %d, %q on stdout, %q on stderr", c.args, r.Code, r.Stdout, clip(r.Stderr), c.code, c.stdout, c.stderr)
			}
		}
	})
}

func TestReplTimeout(t *testing.T) {
	s := script{
		"outcome",
		"frames main.ready",
		"call-tree main.wait#1 1",
		"break main.ready ticks == 3",
		"continue",
		"frame main.(*poller).tick#2",
		"step-out",
	}
	r := runRepl(t, s.String(), "--json", "--timeout", "2s", "--", "go", "run", "./testdata/spin")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	// Build, 2s of recording, a few short re-executions.
	if r.Elapsed > 30*time.Second {
		t.Errorf("the session took %s", r.Elapsed)
	}
	if !strings.Contains(r.Stderr, "adi: partial recording: the run was killed after the timeout of 2s (raise --timeout)") {
		t.Errorf("stderr does not say the recording is partial:\n%s", r.Stderr)
	}
	a := jsonAnswers(t, r, s)
	var oc outcomeJ
	a.decode("outcome", &oc)
	if !oc.Killed || oc.ExitCode != -1 || !strings.Contains(oc.Partial, "timeout of 2s") || oc.Panic != nil {
		t.Errorf("outcome: %s, want killed, exit_code -1, partial naming the 2s timeout", a.line("outcome"))
	}
	if !strings.HasPrefix(oc.Output, "spin: starting\nwaiting, tick 1\n") {
		t.Errorf("outcome: output %q", oc.Output)
	}
	var fs framesJ
	a.decode("frames main.ready", &fs)
	if len(fs.Frames) < 10 {
		t.Fatalf("frames main.ready: %d frames in 2s, want about 40", len(fs.Frames))
	}
	for _, f := range fs.Frames[:10] {
		if argValue(f.Args, "ticks") != strconv.Itoa(f.Index) || argValue(f.Results, "~r0") != "false" {
			t.Errorf("frames main.ready: %s(ticks=%s) → %s", f.FID, argValue(f.Args, "ticks"), argValue(f.Results, "~r0"))
		}
	}
	var tree treeJ
	a.decode("call-tree main.wait#1 1", &tree)
	if tree.Root == nil || tree.Root.Exit != "running" || len(tree.Root.Children) == 0 || tree.Root.Children[0].FID != "main.(*poller).tick#1" {
		t.Errorf("call-tree main.wait#1 1: %s, want wait#1 still running with tick#1 first", clip(a.line("call-tree main.wait#1 1")))
	}
	var br breakJ
	a.decode("break main.ready ticks == 3", &br)
	if br.Matches != 1 {
		t.Errorf("break main.ready ticks == 3: %d matches", br.Matches)
	}
	var co frameJ
	a.decode("continue", &co)
	if co.FID != "main.ready#3" || len(co.Steps) != 1 || co.Steps[0].Stmt != "return ticks < 0" || argValue(co.Results, "~r0") != "false" {
		t.Errorf("continue: %s", clip(a.line("continue")))
	}
	var tk frameJ
	a.decode("frame main.(*poller).tick#2", &tk)
	if len(tk.Steps) != 2 || tk.Steps[0].Stmt != "p.ticks++" || len(tk.Steps[1].Callees) != 1 || tk.Steps[1].Callees[0] != "main.ready#2" {
		t.Errorf("frame main.(*poller).tick#2: %s", clip(a.line("frame main.(*poller).tick#2")))
	}
	var so frameJ
	a.decode("step-out", &so)
	if so.FID != "main.(*poller).tick#3" {
		t.Errorf("step-out from ready#3: %s, want main.(*poller).tick#3", so.FID)
	}
}

func TestReplTimeoutTraceOfUnfinishedFrame(t *testing.T) {
	// Building the trace of a frame whose callee never returns is bounded by
	// --exec-timeout (and by Ctrl-C).
	s := script{"frame", "outcome"}
	r := runAdi(t, runOptions{Limit: 25 * time.Second}, s.String(),
		"repl", "--json", "--timeout", "1s", "--exec-timeout", "3s", "--", "go", "run", "./testdata/spin")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)
	if msg, ok := errorAnswer(a.line("frame")); ok && !strings.Contains(msg, "--exec-timeout") {
		t.Errorf("frame: error %q, want the trace or a word on --exec-timeout", msg)
	}
}

func TestReplMaxStepsBoundsTrace(t *testing.T) {
	// --max-steps stops the stepping, not only the trace after it.
	s := script{"frame main.wait#1"}
	r := runAdi(t, runOptions{Limit: 40 * time.Second}, s.String(),
		"repl", "--json", "--timeout", "1s", "--max-steps", "20", "--exec-timeout", "4s", "--", "go", "run", "./testdata/spin")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	a := jsonAnswers(t, r, s)
	if msg, ok := errorAnswer(a.line("frame main.wait#1")); ok {
		t.Fatalf("frame main.wait#1 with --max-steps 20: error %q, want a trace cut after 20 steps", msg)
	}
	var fr frameJ
	a.decode("frame main.wait#1", &fr)
	n := len(fr.Steps)
	for _, sk := range fr.Skipped {
		n += sk.Steps
	}
	if !fr.Truncated || n != 20 || !strings.Contains(fr.Note, "--max-steps") {
		t.Errorf("frame main.wait#1: truncated %v after %d steps, note %q; want cut after 20", fr.Truncated, n, fr.Note)
	}
}

func TestReplMaxFrames(t *testing.T) {
	s := script{"outcome", "frames main.fib", "frame main.fib#7", "frame main.main#1", "frames main.parseN"}
	r := runRepl(t, s.String(), "--json", "--max-frames", "20", "--", "go", "run", "./testdata/fib", "10")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "adi: partial recording: frame limit reached") {
		t.Errorf("stderr does not say the recording is partial:\n%s", r.Stderr)
	}
	a := jsonAnswers(t, r, s)
	var oc outcomeJ
	a.decode("outcome", &oc)
	if oc.ExitCode != 0 || oc.Killed || oc.Output != "fib(10) = 55\n" || oc.Panic != nil {
		t.Errorf("outcome: %s, want exit 0 with fib(10) = 55", a.line("outcome"))
	}
	if !strings.Contains(oc.Partial, "frame limit reached") || !strings.Contains(oc.Partial, "20") || !strings.Contains(oc.Partial, "--max-frames") {
		t.Errorf("outcome: partial %q, want the frame limit of 20 and --max-frames", oc.Partial)
	}
	var fs framesJ
	a.decode("frames main.fib", &fs)
	if len(fs.Frames) != 18 {
		t.Errorf("frames main.fib: %d, want 18 (20 frames less main and parseN)", len(fs.Frames))
	}
	var f7 frameJ
	a.decode("frame main.fib#7", &f7)
	if argValue(f7.Args, "n") != "4" || argValue(f7.Results, "~r0") != "3" || f7.Exit != "returned" || len(f7.Steps) == 0 {
		t.Errorf("frame main.fib#7: %s, want fib(4) → 3 with its trace", clip(a.line("frame main.fib#7")))
	}
	var m frameJ
	a.decode("frame main.main#1", &m)
	if len(m.Steps) == 0 || m.Steps[0].Line != 34 {
		t.Errorf("frame main.main#1: %s", clip(a.line("frame main.main#1")))
	}
	t.Run("frames cut by the limit are not running", func(t *testing.T) {
		// A frame whose return came after --max-frames is not reported as "still
		// running when the run ended".
		if m.Exit == "running" {
			t.Errorf("main.main#1: exit %q, but the run ended normally with exit code 0", m.Exit)
		}
		if fs.Frames[0].Exit == "running" {
			t.Errorf("main.fib#1: exit %q, but fib(10) returned 55", fs.Frames[0].Exit)
		}
	})
}
