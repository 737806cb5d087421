package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// visit is one arrival of the stepper at a statement of the frame.
type visit struct {
	pos trace.Pos
	// What the statement called, counted as it ran, so that the recorded
	// callees can be given to the right visit of a line run many times:
	// calls are user functions it called directly (stepped into),
	// indirect the user functions library code called for it (sort.Slice's
	// less, t.Run's subtest: counted by entry breakpoints while the library
	// call runs), spawns its go statements.
	calls, indirect, spawns int
	// locals after the statement ran (read at the next visit).
	after map[string]trace.Value
	order []string
}

// walk steps through the frame statement by statement, calling at(v) on
// each arrival at a statement (before it runs). at returns false to stop.
// Calls are stepped into and straight out again, so a callee costs one
// return breakpoint however deep its own subtree is. walk returns the visits
// made and whether the frame ended (returned, or the process ended).
//
// A frame that runs alone is walked by walkFast up to its return, which
// makes the same visits with fewer stops; Delve's Step takes over from
// there.
func (in *inFrame) walk(ctx context.Context, at func(v *visit) bool) ([]*visit, bool, error) {
	var visits []*visit
	cur := &visit{pos: trace.Pos{File: in.frame.Decl.File, Line: in.frame.Decl.Line}}
	// The entry breakpoint is after the prologue: the first statement.
	if w, fr, line, err := in.locate(); err != nil {
		return nil, false, err
	} else if w == inTarget {
		cur.pos = trace.Pos{File: fr.Current.File, Line: line}
	}
	visits = append(visits, cur)
	if !at(cur) {
		return visits, false, nil
	}
	if in.stepping == stepAuto && in.runsAlone() {
		var ended, handover bool
		var err error
		visits, cur, ended, handover, err = in.walkFast(ctx, visits, cur, at)
		if err != nil || !handover {
			return visits, ended, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return visits, false, err
		}
		// Delve's step follows a go statement into the new goroutine and
		// lets this one run on meanwhile: step over it instead.
		step := api.Step
		if in.goStmtLine(cur.pos.Line) {
			step = api.Next
			cur.spawns++
		}
		ended, _, err := in.command(step)
		if err != nil {
			return visits, false, err
		}
		if ended {
			return visits, true, nil
		}
		w, fr, line, err := in.locate()
		if err != nil {
			return visits, false, err
		}
		if w == gone {
			in.fillResults(in.returnValues())
		}
		midStatement := false
		for w == inCallee {
			counter := &cur.indirect
			var callee *recordedCallee
			if in.isUser(fr) {
				cur.calls++
				counter = nil
				callee = in.directCallee(fr)
			}
			if in.stepping == stepDelveOut {
				ended, _, err = in.command(api.StepOut)
			} else {
				ended, err = in.stepOverCall(ctx, fr, counter, callee)
			}
			if err != nil {
				return visits, false, err
			}
			if ended {
				return visits, true, nil
			}
			if w, fr, line, err = in.locate(); err != nil {
				return visits, false, err
			}
			// Back in the calling statement, unless the call was its
			// last instruction: then the return address is the first
			// instruction of the next statement, and Delve would step
			// over that one as "the current line".
			midStatement = line == cur.pos.Line
		}
		switch {
		case w == gone:
			return visits, true, nil
		case !midStatement:
			cur = &visit{pos: trace.Pos{File: fr.Current.File, Line: line}}
			visits = append(visits, cur)
			if !at(cur) {
				return visits, false, nil
			}
		}
	}
}

// fillResults replaces the results that the instrumenting recorder kept
// shallowly, or by number only (see named), with the values Delve read
// when the frame returned (rets).
func (in *inFrame) fillResults(rets []trace.Value) {
	f := in.frame
	if len(rets) != len(f.Results) {
		return
	}
	filled := false
	for i := range f.Results {
		if shallow(&f.Results[i]) || named(&f.Results[i], &rets[i]) {
			v := rets[i]
			v.Name = f.Results[i].Name
			f.Results[i] = v
			filled = true
		}
	}
	if rec := in.rec; filled && rec != nil && f.Seq < rec.Len() && rec.FIDOf(f.Seq) == f.FID {
		rec.SetResults(f.Seq, f.Results)
	}
}

// goStmtLine reports whether a line of the frame's function runs a go
// statement (calls runtime.newproc), as Delve's step decides it.
func (in *inFrame) goStmtLine(line int) bool {
	if in.goLines == nil {
		grp, unlock := in.p.d.LockTargetGroup()
		tgt := grp.Selected
		insts, err := proc.Disassemble(tgt.Memory(), nil, tgt.Breakpoints(), tgt.BinInfo(), in.fn.Entry, in.fn.End)
		unlock()
		if err != nil {
			insts = nil
		}
		in.setGoLines(insts)
	}
	return in.goLines[line]
}

// setGoLines sets the lines of the frame's function that run a go
// statement, from the function's code.
func (in *inFrame) setGoLines(insts []proc.AsmInstruction) {
	in.goLines = map[int]bool{}
	for i := range insts {
		ins := &insts[i]
		if ins.IsCall() && ins.DestLoc != nil && ins.DestLoc.Fn != nil && ins.DestLoc.Fn.Name == "runtime.newproc" {
			in.goLines[ins.Loc.Line] = true
		}
	}
}

// recordedCallee is a direct callee of the frame in the recording: a frame
// kept (seq), or one dropped past the frame limit (seq -1), of which the
// recording says its function and how many recursive calls it made
// (within, -1 if it cannot say; see trace.DroppedCallee).
type recordedCallee struct {
	seq    int
	fn     string
	within int
}

// directCallee returns the frame's direct callee in the recording that
// the goroutine has just entered (fr: its function's), nil when the
// recording's callees and the walk's no longer match. Callees are entered
// in the order of the recording: the n-th direct call of the walk is the
// n-th direct callee.
func (in *inFrame) directCallee(fr *proc.Stackframe) *recordedCallee {
	if in.calleesLost {
		return nil
	}
	if in.callees == nil {
		in.callees = newCalleeList(in.rec, in.frame.Seq)
	}
	c, ok := in.callees.next()
	if !ok || fr.Current.Fn == nil || c.fn != fidName(fr.Current.Fn) {
		in.calleesLost = true
		return nil
	}
	return &c
}

// calleeList walks a frame's direct callees in the recording, in order:
// those kept, and those dropped past the frame limit in their places (the
// runs), up to the place cut when the recording does not know those after
// it (-1: it knows them all).
type calleeList struct {
	kept []recordedCallee
	runs []trace.DroppedCallee
	cut  int
	// place is the next callee's place, k the next kept, r the run of
	// the next dropped and inRun how many of it were walked.
	place, k, r, inRun int
}

// newCalleeList lists the direct callees of frame seq: those kept alone
// when the places of those dropped do not fit them.
func newCalleeList(rec *trace.Recording, seq int) *calleeList {
	l := &calleeList{cut: -1}
	for _, k := range rec.Children(seq) {
		if !rec.SpawnOf(int(k)) && !rec.IndirectOf(int(k)) {
			l.kept = append(l.kept, recordedCallee{seq: int(k), fn: rec.FuncOf(int(k))})
		}
	}
	runs, cut := rec.DroppedCallees(seq)
	gaps, end := 0, 0 // the places left to the kept, the end of the last run
	for _, d := range runs {
		if d.At < end || d.N < 1 {
			return l
		}
		gaps, end = gaps+d.At-end, d.At+d.N
	}
	if cut >= 0 {
		if cut < end {
			return l
		}
		gaps += cut - end
	}
	if gaps > len(l.kept) {
		return l
	}
	l.runs, l.cut = runs, cut
	return l
}

// next returns the next callee, or false past the last one known.
func (l *calleeList) next() (recordedCallee, bool) {
	if l.cut >= 0 && l.place >= l.cut {
		return recordedCallee{}, false
	}
	var c recordedCallee
	switch {
	case l.r < len(l.runs) && l.runs[l.r].At <= l.place:
		d := l.runs[l.r]
		c = recordedCallee{seq: -1, fn: d.Func, within: d.Within}
		if l.inRun++; l.inRun == d.N {
			l.r, l.inRun = l.r+1, 0
		}
	case l.k < len(l.kept):
		c = l.kept[l.k]
		l.k++
	default:
		return c, false
	}
	l.place++
	return c, true
}

// isUser reports whether a stack frame runs a function of the recording.
func (in *inFrame) isUser(fr *proc.Stackframe) bool {
	return fr.Current.Fn != nil && in.rec.HasFunc(fidName(fr.Current.Fn))
}

// BuildFLT re-executes prog to frame f of rec and steps through it.
func BuildFLT(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits) (*trace.FLT, error) {
	return buildFLT(ctx, prog, rec, f, lim, stepAuto, nil)
}

// buildFLT is BuildFLT, stepping as how says. When until is not nil, the
// trace ends with the first statement until accepts (with what it
// changed): see Session.FLTUntil.
func buildFLT(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits, how stepping, until Until) (*trace.FLT, error) {
	flt, err := traceFrame(ctx, prog, rec, f, lim, how, until)
	if errors.Is(err, errFastAbort) {
		// The run left the recorded path: step again as Delve does.
		flt, err = traceFrame(ctx, prog, rec, f, lim, stepSlow, until)
	}
	return flt, err
}

// traceFrame is one way of buildFLT through frame f: one re-execution,
// or two when skipping a callee's recursive calls left the recorded path
// (see skipAhead).
func traceFrame(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits, how stepping, until Until) (*trace.FLT, error) {
	flt, err := traceOnce(ctx, prog, rec, f, lim, how, until, false)
	if errors.Is(err, errSkipAhead) {
		flt, err = traceOnce(ctx, prog, rec, f, lim, how, until, true)
	}
	return flt, err
}

// traceOnce is one re-execution of buildFLT.
func traceOnce(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits, how stepping, until Until, noSkip bool) (*trace.FLT, error) {
	lim = lim.withDefaults()
	in, err := reach(ctx, prog, rec, f, lim)
	if err != nil {
		return nil, err
	}
	in.stepping, in.noSkip = how, noSkip
	defer in.p.kill()
	stop := context.AfterFunc(ctx, in.p.halt)
	defer stop()

	flt := &trace.FLT{Frame: f}
	var prev map[string]trace.Value
	var last *visit
	n := 0
	end := -1 // the visit past the one until accepted
	visits, ended, err := in.walk(ctx, func(v *visit) bool {
		// A panic that began before this visit was recovered: the frame
		// went on.
		in.atPanic = nil
		vals, order := in.locals(last != nil)
		if last != nil {
			last.after, last.order = vals, order
		} else {
			prev = vals
		}
		last = v
		n++
		if end < 0 && until != nil && until(v.pos, vals) {
			end = n + 1
		}
		// Two visits past the limit: the header line's (dropped below),
		// and one whose locals close the last step's ΔS.
		return n <= lim.MaxSteps+1 && (end < 0 || n < end)
	})
	if err != nil {
		return nil, fmt.Errorf("stepping through %s: %w", f.FID, err)
	}
	if ended && f.Exit == trace.Panicked && last != nil && last.after == nil && in.atPanic != nil {
		// The panic unwound the frame in its last statement: what that
		// statement changed is what the frame held when the panic began.
		last.after, last.order = in.atPanic.vals, in.atPanic.order
	}
	seen := map[trace.Pos]int{}
	for _, v := range visits {
		seen[v.pos]++
		st := trace.Step{Pos: v.pos, Visit: seen[v.pos]}
		if v.after != nil {
			st.Changes = diffLocals(prev, v.after, v.order)
			prev = v.after
		}
		flt.Steps = append(flt.Steps, st)
	}
	assignCallees(rec, f, visits, flt.Steps, ended)
	// Delve stops first on the function's header line, after the prologue
	// but before the code there copies a closure's captured variables in:
	// what it read of them is garbage ("could not read string at
	// 0x20796c…"), so their first values are new, not changes from it.
	if len(flt.Steps) > 0 && flt.Steps[0].Line == f.Decl.Line {
		for i, c := range flt.Steps[0].Changes {
			if c.Old != nil && !slices.ContainsFunc(f.Args, func(a trace.Value) bool { return a.Name == c.Var }) {
				flt.Steps[0].Changes[i].Old = nil
			}
		}
	}
	// The header line is not a statement of the body: it is dropped when
	// nothing happened there.
	if len(flt.Steps) > 1 && flt.Steps[0].Line == f.Decl.Line && len(flt.Steps[0].Changes) == 0 && len(flt.Steps[0].Callees) == 0 {
		flt.Steps = flt.Steps[1:]
	}
	switch {
	case len(flt.Steps) > lim.MaxSteps:
		flt.Steps = flt.Steps[:lim.MaxSteps]
		flt.Truncated = true
		flt.Note = fmt.Sprintf("trace cut after %d statements (raise --max-steps)", lim.MaxSteps)
	case end >= 0 && len(visits) == end && len(flt.Steps) > 1:
		// The visit past the one asked for closed its ΔS: not a step.
		flt.Steps = flt.Steps[:len(flt.Steps)-1]
		last := flt.Steps[len(flt.Steps)-1]
		flt.Note = fmt.Sprintf("trace ends at %s:%d, where it was asked to", filepath.Base(last.File), last.Line)
	}
	return flt, nil
}

// diffLocals lists the variables created or changed between two snapshots.
func diffLocals(before, after map[string]trace.Value, order []string) []trace.Change {
	var out []trace.Change
	for _, name := range order {
		nv := after[name]
		ov, ok := before[name]
		switch {
		case !ok:
			out = append(out, trace.Change{Var: name, New: nv})
		case ov.Error != "":
			// It was unreadable before (a func value at the entry):
			// reading it now is not a change.
		case !ov.Same(&nv):
			old := ov
			out = append(out, trace.Change{Var: name, Old: &old, New: nv})
		}
	}
	return out
}

// assignCallees gives the frame's recorded callees to the statements that
// made them: each visit of a line takes, in order of entry, as many of the
// callees with that call site as the stepper counted it making, of each
// kind (direct calls, calls through library code, go statements).
func assignCallees(rec *trace.Recording, f *trace.Frame, visits []*visit, steps []trace.Step, ended bool) {
	children := rec.Children(f.Seq) // in run order
	taken := make([]bool, len(children))
	// take gives step i up to n untaken callees of kind from line, and
	// returns how many it could not find.
	take := func(i int, line int, n int, kind func(seq int) bool) int {
		for j := 0; j < len(children) && n > 0; j++ {
			c := int(children[j])
			if taken[j] || rec.CallSiteOf(c).Line != line || !kind(c) {
				continue
			}
			steps[i].Callees = append(steps[i].Callees, rec.FIDOf(c))
			taken[j] = true
			n--
		}
		return n
	}
	direct := func(c int) bool { return !rec.IndirectOf(c) && !rec.SpawnOf(c) }
	indirect := func(c int) bool { return rec.IndirectOf(c) }
	spawn := func(c int) bool { return rec.SpawnOf(c) && !rec.IndirectOf(c) }
	call := func(c int) bool { return !rec.SpawnOf(c) || rec.IndirectOf(c) }
	for i := range steps {
		v := visits[i]
		// The stepper and the recorder may tell a call's kind apart
		// otherwise (an interface's call of a generic method goes
		// through a wrapper the stepper sees as library code): calls
		// not found of one kind are taken of the other.
		left := take(i, v.pos.Line, v.calls, direct) + take(i, v.pos.Line, v.indirect, indirect)
		take(i, v.pos.Line, left, call)
		take(i, v.pos.Line, v.spawns, spawn)
	}
	// Anything left (a deferred call run by a panic, a call the stepper
	// could not count) goes to the first statement on its line, or to the
	// last statement; but for a trace that stops before the frame ended,
	// not the callees that ran after its last one's.
	last := uint64(0)
	for j, seq := range children {
		if taken[j] {
			last = max(last, rec.RunOrderOf(int(seq)))
		}
	}
	for j, seq := range children {
		if taken[j] || len(steps) == 0 || !ended && rec.RunOrderOf(int(seq)) > last {
			continue
		}
		site := rec.CallSiteOf(int(seq))
		at := len(steps) - 1
		for i := range steps {
			if steps[i].Line == site.Line && steps[i].File == site.File {
				at = i
				break
			}
		}
		steps[at].Callees = append(steps[at].Callees, rec.FIDOf(int(seq)))
	}
	// Callees are listed in the order they ran.
	for i := range steps {
		sortByEntry(rec, steps[i].Callees)
	}
}

func sortByEntry(rec *trace.Recording, fids []trace.FID) {
	sort.SliceStable(fids, func(a, b int) bool {
		sa, okA := rec.Find(fids[a])
		sb, okB := rec.Find(fids[b])
		return okA && okB && rec.RunOrderOf(sa) < rec.RunOrderOf(sb)
	})
}
