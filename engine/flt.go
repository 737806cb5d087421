package engine

import (
	"context"
	"fmt"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// visit is one arrival of the stepper at a statement of the frame.
type visit struct {
	pos trace.Pos
	// calls counts the user functions the statement called directly (seen
	// by stepping into them); viaLibrary is set when it called library code,
	// which may have called user code that the stepper did not see.
	calls      int
	viaLibrary bool
	// locals after the statement ran (read at the next visit).
	after map[string]trace.Value
	order []string
}

// walk steps through the frame statement by statement, calling at(v) on
// each arrival at a statement (before it runs). at returns false to stop.
// Calls are stepped into and straight out again, so a callee costs one
// return breakpoint however deep its own subtree is. walk returns the visits
// made and whether the frame ended (returned, or the process ended).
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
	for {
		if err := ctx.Err(); err != nil {
			return visits, false, err
		}
		_, ended, err := in.command(api.Step)
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
		midStatement := false
		for w == inCallee {
			if in.isUser(fr) {
				cur.calls++
			} else {
				cur.viaLibrary = true
			}
			if in.delveStepOut {
				_, ended, err = in.command(api.StepOut)
			} else {
				ended, err = in.stepOverCall(fr)
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

// isUser reports whether a stack frame runs a function of the recording.
func (in *inFrame) isUser(fr *proc.Stackframe) bool {
	return fr.Current.Fn != nil && in.rec.HasFunc(fidName(fr.Current.Fn))
}

// BuildFLT re-executes prog to frame f of rec and steps through it.
func BuildFLT(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits) (*trace.FLT, error) {
	return buildFLT(ctx, prog, rec, f, lim, false)
}

// buildFLT is BuildFLT; delveStepOut steps over calls with Delve's StepOut
// instead of the return-slot watchpoint, for the benchmark that compares them.
func buildFLT(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits, delveStepOut bool) (*trace.FLT, error) {
	lim = lim.withDefaults()
	in, err := reach(ctx, prog, rec, f, lim)
	if err != nil {
		return nil, err
	}
	in.delveStepOut = delveStepOut
	defer in.p.kill()
	stop := context.AfterFunc(ctx, in.p.halt)
	defer stop()

	flt := &trace.FLT{Frame: f}
	var prev map[string]trace.Value
	var last *visit
	visits, _, err := in.walk(ctx, func(v *visit) bool {
		vals, order := in.locals(last != nil)
		if last != nil {
			last.after, last.order = vals, order
		} else {
			prev = vals
		}
		last = v
		return len(flt.Steps) < lim.MaxSteps
	})
	if err != nil {
		return nil, fmt.Errorf("stepping through %s: %w", f.FID, err)
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
	if len(visits) > lim.MaxSteps {
		flt.Steps = flt.Steps[:lim.MaxSteps]
		flt.Truncated = true
		flt.Note = fmt.Sprintf("trace cut after %d statements (raise --max-steps)", lim.MaxSteps)
	}
	assignCallees(rec, f, visits, flt.Steps)
	// Delve stops first on the function's header line, after the prologue:
	// not a statement of the body; drop it when nothing happened there.
	if len(flt.Steps) > 1 && flt.Steps[0].Line == f.Decl.Line && len(flt.Steps[0].Changes) == 0 && len(flt.Steps[0].Callees) == 0 {
		flt.Steps = flt.Steps[1:]
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
		case !ov.Same(&nv):
			old := ov
			out = append(out, trace.Change{Var: name, Old: &old, New: nv})
		}
	}
	return out
}

// assignCallees attributes the frame's recorded callees to the statements
// that made them: in order, each to the next statement on its call site's
// line, as many as the stepper saw called there (calls made through library
// code, such as sort.Slice calling a less function, are not seen and go to
// the statement on their line).
func assignCallees(rec *trace.Recording, f *trace.Frame, visits []*visit, steps []trace.Step) {
	children := f.Children
	next := 0
	for i := range steps {
		v := visits[i]
		taken := 0
		for next < len(children) {
			c := rec.Frames[children[next]]
			if c.CallSite.Line != v.pos.Line || c.CallSite.File != v.pos.File {
				break
			}
			if taken >= v.calls && !v.viaLibrary && !c.Spawn {
				break
			}
			steps[i].Callees = append(steps[i].Callees, c.FID)
			taken++
			next++
		}
	}
	// Anything left (a deferred call run by a panic, say) goes to the first
	// statement on its line, or to the last statement.
	for ; next < len(children); next++ {
		c := rec.Frames[children[next]]
		at := len(steps) - 1
		for i := range steps {
			if steps[i].Line == c.CallSite.Line && steps[i].File == c.CallSite.File {
				at = i
				break
			}
		}
		if at >= 0 {
			steps[at].Callees = append(steps[at].Callees, c.FID)
		}
	}
}
