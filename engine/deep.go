package engine

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/source"
	"github.com/adi-go/adi/engine/trace"
)

// FLT returns the Frame Lifetime Trace of f, building it on first use by
// re-executing the program; traces are cached for the session.
func (s *Session) FLT(ctx context.Context, f *trace.Frame) (*trace.FLT, error) {
	return s.FLTUntil(ctx, f, nil)
}

// Until says whether a trace ends with the statement at pos, about to run
// with the frame's arguments and locals vars (see FLTUntil).
type Until func(pos trace.Pos, vars map[string]trace.Value) bool

// FLTUntil returns the beginning of the Frame Lifetime Trace of f: up to
// and with the first statement until accepts, or the whole trace when none
// is (or when it is built already). A caller that looks for one statement
// (the diagnoser, for a test's first failed assertion) saves stepping
// through the rest, which for a table-driven test is most of it. Such a
// beginning is not cached (its Note says where it ends); a whole trace is.
// A nil until accepts none (FLT).
func (s *Session) FLTUntil(ctx context.Context, f *trace.Frame, until Until) (*trace.FLT, error) {
	s.fltMu.Lock()
	defer s.fltMu.Unlock()
	if flt, ok := s.flts[f.FID]; ok {
		return flt, nil
	}
	if err, ok := s.fltErrs[f.FID]; ok {
		return nil, err
	}
	accepted := false
	flt, err := s.buildFLT(ctx, f, func(p trace.Pos, vars map[string]trace.Value) bool {
		accepted = until != nil && until(p, vars)
		return accepted
	}, true)
	if err == nil && !accepted {
		s.flts[f.FID] = flt
	}
	return flt, err
}

// FLTAll returns the Frame Lifetime Trace of f with every iteration of its
// loops kept, not only the first and last ones (a trace's steps stay
// bounded by MaxSteps). It is built anew on each call: a caller that needs
// to follow a loop statement by statement (the diagnoser, for where a
// string went wrong) asks for it once.
func (s *Session) FLTAll(ctx context.Context, f *trace.Frame) (*trace.FLT, error) {
	s.fltMu.Lock()
	defer s.fltMu.Unlock()
	if err, ok := s.fltErrs[f.FID]; ok {
		return nil, err
	}
	return s.buildFLT(ctx, f, nil, false)
}

// buildFLT builds the trace of f (see FLTUntil for until) with the
// session's limits, its statements' text and, if summarize, its loops
// summarized (s.fltMu held).
func (s *Session) buildFLT(ctx context.Context, f *trace.Frame, until Until, summarize bool) (*trace.FLT, error) {
	bctx, cancel := context.WithTimeout(ctx, s.execTimeout)
	defer cancel()
	flt, err := buildFLT(bctx, s.prog, s.rec, f, s.lim, stepAuto, until)
	if err != nil {
		// A divergence or our own time limit would come back the same
		// on every try: remember them. The caller's cancellation not.
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("building the trace of %s took longer than %s (raise --exec-timeout): %w", f.FID, s.execTimeout, err)
			s.fltErrs[f.FID] = err
		case errors.Is(err, ErrDiverged):
			s.fltErrs[f.FID] = err
		}
		return nil, err
	}
	flt.Steps = mergeContinuations(s.src, flt.Steps)
	for i := range flt.Steps {
		st := &flt.Steps[i]
		if text, err := s.src.Stmt(st.File, st.Line); err == nil {
			st.Stmt = text
		}
	}
	if fn, err := s.src.FuncAt(f.Decl.File, f.Decl.Line, ""); err == nil && summarize {
		loops := make([]trace.LoopRange, len(fn.Loops))
		for i, l := range fn.Loops {
			loops[i] = trace.LoopRange{Header: l.Header, Start: l.Start, End: l.End}
		}
		flt.Steps, flt.Skipped = trace.Summarize(flt.Steps, loops, s.lim.LoopKeepFirst, s.lim.LoopKeepLast)
	}
	return flt, nil
}

// ExecResult is the answer of execute: the value of an expression at the
// k-th visit of a line of a frame, or, for an assignment, how the frame
// ended under that what-if.
type ExecResult struct {
	FID  trace.FID
	Line int
	K    int
	Stmt string
	// Value is the expression's value (expressions only).
	Value *trace.Value
	// WhatIf is set for assignments: the frame ran on to its exit, and
	// Results or Panic say how it ended.
	WhatIf  bool
	Results []trace.Value
	Panic   string
}

// Execute re-runs the program to the k-th visit of line inside frame fid
// and evaluates stmt there. An expression is evaluated; an assignment
// ("x = 5", "p.X = nil") is applied and the frame is run to its exit.
// Neither changes the recording or Σ.
func (s *Session) Execute(ctx context.Context, fid trace.FID, line, k int, stmt string) (*ExecResult, error) {
	f, err := s.rec.Frame(fid)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("k must be 1 or more (the k-th visit of line %d), got %d", line, k)
	}
	if err := s.checkLine(f, line); err != nil {
		return nil, err
	}
	lhs, rhs, isAssign, err := parseStmt(stmt)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.execTimeout)
	defer cancel()
	in, err := reach(ctx, s.prog, s.rec, f, s.lim)
	if err != nil {
		return nil, err
	}
	defer in.p.kill()
	stop := context.AfterFunc(ctx, in.p.halt)
	defer stop()

	visits := 0
	_, ended, err := in.walk(ctx, func(v *visit) bool {
		if v.pos.Line == line && v.pos.File == f.Decl.File {
			visits++
		}
		return visits < k
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("execute in %s: the re-execution took longer than %s: %w", fid, s.execTimeout, ctx.Err())
		}
		return nil, err
	}
	if visits < k || ended {
		return nil, fmt.Errorf("line %d ran %d time(s) in %s, not %d: use k from 1 to %d", line, visits, fid, k, visits)
	}
	res := &ExecResult{FID: fid, Line: line, K: k, Stmt: stmt}
	cfg := s.lim.loadConfig()
	if !isAssign {
		v, err := in.p.d.EvalVariableInScope(in.goid, 0, 0, stmt, cfg)
		if err != nil {
			return nil, fmt.Errorf("evaluating %q at line %d of %s: %v", stmt, line, fid, err)
		}
		val := convertValue(api.ConvertVar(v))
		val.Name = stmt
		res.Value = &val
		return res, nil
	}
	var old *trace.Value
	if v, err := in.p.d.EvalVariableInScope(in.goid, 0, 0, lhs, cfg); err == nil {
		ov := convertValue(api.ConvertVar(v))
		old = &ov
	}
	if err := in.p.d.SetVariableInScope(in.goid, 0, 0, lhs, rhs); err != nil {
		return nil, fmt.Errorf("setting %s = %s at line %d of %s: %s", lhs, rhs, line, fid, setError(err))
	}
	if old != nil {
		if err := in.syncArgRegister(lhs, *old); err != nil {
			return nil, fmt.Errorf("setting %s = %s at line %d of %s: %v", lhs, rhs, line, fid, err)
		}
	}
	res.WhatIf = true
	// Run the frame to its exit: step out of it, collecting its results.
	ended, gone, err := in.command(api.StepOut)
	if err != nil {
		return nil, err
	}
	if ended && !gone {
		res.Panic = in.panicValue()
		return res, nil
	}
	if ended {
		return nil, fmt.Errorf("the program exited before %s returned under the what-if", fid)
	}
	// A panic that a caller recovers (testing's tRunner does, to report
	// it) also ends the step out: the frame did not return then.
	if msg, ok := in.panicInFlight(); ok {
		res.Panic = msg
		return res, nil
	}
	res.Results = in.returnValues()
	return res, nil
}

// setError says why Delve could not assign a value, in adi's words.
func setError(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "can not be allocated") || strings.Contains(msg, "function calls are not allowed"):
		return "adi can assign numbers, booleans, nil and existing variables, but not a new string, slice, map or composite value (that would need a call into the program)"
	case strings.Contains(msg, "no type entry found"):
		return "adi cannot build that value: assign numbers, booleans, nil or another variable of the frame"
	}
	return msg
}

// checkLine verifies that line holds a statement of f's function.
func (s *Session) checkLine(f *trace.Frame, line int) error {
	fn, err := s.src.FuncAt(f.Decl.File, f.Decl.Line, "")
	if err != nil {
		return fmt.Errorf("reading the source of %s: %v", f.FID.Func, err)
	}
	// The closing brace is where Delve stops for the return.
	lines := append(s.src.StmtLines(f.Decl.File, fn), fn.End)
	for _, l := range lines {
		if l == line {
			return nil
		}
	}
	return fmt.Errorf("line %d is not a statement of %s (%s lines %d-%d); the statements are on lines %s",
		line, f.FID.Func, shortFile(f.Decl.File), fn.Start, fn.End, intList(lines))
}

// parseStmt splits "x = expr" into its sides; anything else must be an
// expression.
func parseStmt(stmt string) (lhs, rhs string, assign bool, err error) {
	stmt = strings.TrimSpace(stmt)
	if stmt == "" {
		return "", "", false, errors.New("execute needs an expression or an assignment to evaluate")
	}
	if _, err := parser.ParseExpr(stmt); err == nil {
		return "", "", false, nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", "package p; func _() { "+stmt+" }", 0)
	if err != nil {
		return "", "", false, fmt.Errorf("%q is neither a Go expression nor an assignment", stmt)
	}
	body := file.Decls[0].(*ast.FuncDecl).Body.List
	as, ok := body[0].(*ast.AssignStmt)
	if len(body) != 1 || !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return "", "", false, fmt.Errorf("%q: execute takes an expression or one assignment (x = value)", stmt)
	}
	text := func(n ast.Node) string {
		return ("package p; func _() { " + stmt + " }")[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
	}
	return text(as.Lhs[0]), text(as.Rhs[0]), true, nil
}

func shortFile(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

func intList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// mergeContinuations makes one step of a statement written over several
// lines: Delve stops on each line of a multi-line composite literal, and
// the reader wants the statement, once, with all it changed and called.
func mergeContinuations(src *source.Cache, steps []trace.Step) []trace.Step {
	out := steps[:0:0]
	visits := map[trace.Pos]int{}
	for _, st := range steps {
		start := src.StmtStart(st.File, st.Line)
		if start != st.Line && len(out) > 0 {
			prev := &out[len(out)-1]
			if prev.File == st.File && src.StmtStart(prev.File, prev.Line) == start {
				prev.Changes = mergeChanges(prev.Changes, st.Changes)
				prev.Callees = append(prev.Callees, st.Callees...)
				continue
			}
		}
		st.Line = start
		visits[st.Pos]++
		st.Visit = visits[st.Pos]
		out = append(out, st)
	}
	return out
}

// mergeChanges combines the ΔS of two consecutive steps: a variable keeps
// its first old value and takes its last new one.
func mergeChanges(a, b []trace.Change) []trace.Change {
	out := append([]trace.Change(nil), a...)
	for _, c := range b {
		found := false
		for i := range out {
			if out[i].Var == c.Var {
				out[i].New = c.New
				found = true
				break
			}
		}
		if !found {
			out = append(out, c)
		}
	}
	return out
}
