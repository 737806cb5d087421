package offline

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The dropped-error rule: `v, _ := f(x)` discards f's last result, by Go's
// convention an error. Where f is a pure library function (strconv's
// parsers, time.ParseDuration), the diagnoser recomputes it from the
// argument the recording holds and shows the error that was dropped. A
// variable named err that was assigned a non-nil error and then never read
// is the same bug in another form.

// maxDroppedFLTs bounds the invocations traced per discarding statement.
const maxDroppedFLTs = 4

// droppedFindings looks for discarded errors in the functions of scope.
func (d *diagnoser) droppedFindings(ctx context.Context, scope []int32) []*finding {
	var out []*finding
	d.eachFunc(ctx, scope, func(f *trace.Frame, file *syntax.File, fd *ast.FuncDecl) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) < 2 || len(as.Rhs) != 1 {
				return true
			}
			if id, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); !ok || id.Name != "_" {
				return true
			}
			call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			if fnd := d.droppedAt(ctx, file, as, call, f.FID.Func, scope); fnd != nil {
				out = append(out, fnd)
			}
			return true
		})
	})
	return out
}

// droppedAt examines one discarding statement in the invocations of fn.
func (d *diagnoser) droppedAt(ctx context.Context, file *syntax.File, as *ast.AssignStmt, call *ast.CallExpr, fn string, scope []int32) *finding {
	line := file.Line(as.Pos())
	stmt := oneLine(file.Text(as))
	callText := file.Text(call.Fun)
	pkg, name := d.libraryFunc(file, call)
	var first *trace.Frame
	var firstStep *trace.Step
	var firstVars map[string]*trace.Value
	// recomputedNil is set when the call, recomputed on the failing
	// path or recorded there, returned no error: the error discarded
	// there was nil.
	recomputedNil := false
	traced := 0
	for _, seq := range scope {
		if traced >= maxDroppedFLTs {
			break
		}
		if d.rec.FuncOf(int(seq)) != fn {
			continue
		}
		traced++
		f := d.rec.At(int(seq))
		flt, st, err := d.flt(ctx, f)
		if err != nil {
			continue
		}
		for i, step := range flt.Steps {
			if step.Line != line || step.File != file.Path {
				continue
			}
			vars := st.before(i)
			if first == nil {
				first, firstStep, firstVars = f, &flt.Steps[i], vars
			}
			if callee, isNil, ok := d.calleeErr(call, &flt.Steps[i]); ok {
				if !isNil {
					return d.droppedRecorded(ctx, f, step.Pos, fn, stmt, callText, callee)
				}
				recomputedNil = true
				continue
			}
			var args []string
			for _, a := range call.Args {
				v, ok := evalText(file.Text(a), vars)
				if !ok {
					args = nil
					break
				}
				args = append(args, v)
			}
			if args == nil && len(call.Args) > 0 {
				continue
			}
			res, errText, ok := recompute(pkg, name, args)
			if ok && errText == "" {
				recomputedNil = true
			}
			if !ok || errText == "" {
				continue
			}
			fnd := &finding{
				method: "dropped-error", root: step.Pos, fn: fn, fid: f.FID,
				strength: strengthDropped, confidence: report.High,
			}
			call := fmt.Sprintf("%s(%s)", callText, strings.Join(args, ", "))
			fnd.evidence = append(fnd.evidence, d.evidence(f, step.Pos,
				fmt.Sprintf("`%s` discards the error of %s", stmt, callText),
				fmt.Sprintf("%s = %s, error %q (recomputed from the recorded argument)", call, res, errText)))
			var set []string
			for _, c := range step.Changes {
				set = append(set, c.Var+" = "+c.New.Text)
			}
			if len(set) > 0 {
				fnd.evidence = append(fnd.evidence, d.evidence(f, step.Pos, "the statement goes on with the zero value", strings.Join(set, ", ")))
			}
			fnd.summary = fmt.Sprintf("%s drops the error of %s at %s:%d: %s fails, and the failure is silently replaced by %s",
				syntax.ShortFunc(fn), callText, d.rel(step.File), step.Line, call, res)
			fnd.explanation = fmt.Sprintf("`%s` discards the error that %s returns. In %s the argument was %s, which %s rejects (%s), "+
				"so the code went on with %s as if the input were valid. Check the error (and handle or report the bad input) instead of discarding it.",
				stmt, callText, syntax.ShortFunc(f.FID.String()), strings.Join(args, ", "), callText, errText, res)
			return fnd
		}
	}
	if first == nil || recomputedNil || neverFails(pkg, call, firstVars) {
		return nil
	}
	// The error could not be recomputed: say that it is discarded, if the
	// result discarded is an error, or may be one.
	isErr, known := d.lastResultIsError(ctx, file, call, firstStep, firstVars)
	if known && !isErr {
		return nil
	}
	pos := firstStep.Pos
	fnd := &finding{
		method: "dropped-error", root: pos, fn: fn, fid: first.FID,
		strength: strengthBoundary - 15, confidence: report.Low,
	}
	what, may := "the last result (by convention an error)", "what may be an error"
	if known {
		what, may = "the error", "the error it returns"
	}
	fnd.summary = fmt.Sprintf("%s discards %s of %s at %s:%d", syntax.ShortFunc(fn), what, callText, d.rel(pos.File), pos.Line)
	fnd.explanation = fmt.Sprintf("`%s` ignores %s; adi could not recompute the call to show whether it failed on the failing path.", stmt, may)
	fnd.evidence = append(fnd.evidence, d.evidence(first, pos, fmt.Sprintf("`%s` discards a result", stmt), ""))
	return fnd
}

// calleeErr returns the frame of the program that step made for call
// (the step's one callee of call's name, see withCalls) and whether its
// recorded last result, an error (an interface or a pointer), is nil; ok
// is false when that is not known.
func (d *diagnoser) calleeErr(call *ast.CallExpr, step *trace.Step) (callee *trace.Frame, isNil, ok bool) {
	name := callName(call)
	if name == "" {
		return nil, false, false
	}
	for _, fid := range step.Callees {
		if calleeName(fid) != name {
			continue
		}
		if callee != nil {
			return nil, false, false // two calls of that name: which one is not known
		}
		if callee = d.frame(fid); callee == nil {
			return nil, false, false
		}
	}
	if callee == nil || len(callee.Results) == 0 {
		return nil, false, false
	}
	last := callee.Results[len(callee.Results)-1]
	if last.Kind != trace.KindInterface && last.Kind != trace.KindPointer {
		return nil, false, false
	}
	return callee, last.Nil, true
}

// droppedRecorded is the finding for a statement at pos of frame f that
// discarded the error its callee returned, not nil by the recording.
func (d *diagnoser) droppedRecorded(ctx context.Context, f *trace.Frame, pos trace.Pos, fn, stmt, callText string, callee *trace.Frame) *finding {
	// The recording keeps an error's type only; the callee's trace reads
	// its value (its message).
	if _, _, err := d.flt(ctx, callee); err == nil {
		if c := d.frame(callee.FID); c != nil {
			callee = c
		}
	}
	fnd := &finding{
		method: "dropped-error", root: pos, fn: fn, fid: f.FID,
		strength: strengthDropped, confidence: report.High,
	}
	res := resultsText(callee)
	fnd.evidence = append(fnd.evidence, d.evidence(f, pos,
		fmt.Sprintf("`%s` discards the error of %s", stmt, callText),
		fmt.Sprintf("%s returned %s", syntax.ShortFunc(callee.FID.String()), res)))
	fnd.summary = fmt.Sprintf("%s drops the error of %s at %s:%d: %s failed, and the failure is silently ignored",
		syntax.ShortFunc(fn), callText, d.rel(pos.File), pos.Line, syntax.ShortFunc(callee.FID.String()))
	fnd.explanation = fmt.Sprintf("`%s` discards the error that %s returns. On the failing path %s returned %s: "+
		"the code went on as if the call had succeeded. Check the error (and handle or report it) instead of discarding it.",
		stmt, callText, syntax.ShortFunc(callee.FID.String()), res)
	return fnd
}

// neverFails reports whether call writes to a strings.Builder or a
// bytes.Buffer, whose writes are documented to return a nil error (its
// Write methods, or fmt.Fprint… to one), by the types of vars; pkg is the
// import path of the package a call of a package's function calls.
func neverFails(pkg string, call *ast.CallExpr, vars map[string]*trace.Value) bool {
	x, name, ok := identCall(call)
	if !ok {
		return false
	}
	infallible := func(e ast.Expr) bool {
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		v, ok := vars[id.Name]
		if !ok {
			return false
		}
		switch strings.TrimPrefix(v.Type, "*") {
		case "strings.Builder", "bytes.Buffer":
			return true
		}
		return false
	}
	if _, isVar := vars[x.Name]; isVar {
		switch name {
		case "Write", "WriteString", "WriteByte", "WriteRune":
			return infallible(x)
		}
		return false
	}
	if pkg == "fmt" && strings.HasPrefix(name, "Fprint") && len(call.Args) > 0 {
		return infallible(call.Args[0])
	}
	return false
}

// libraryFunc returns the import path and name of a call of a package
// function (strconv.Atoi → "strconv", "Atoi").
func (d *diagnoser) libraryFunc(file *syntax.File, call *ast.CallExpr) (pkg, name string) {
	id, fn, ok := identCall(call)
	if !ok {
		return "", ""
	}
	for _, imp := range file.AST.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		n := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		if n == id.Name {
			return p, fn
		}
	}
	return "", ""
}

// recompute calls a pure library function on recorded arguments (as
// rendered: strings quoted) and returns its first result and its error
// ("" when nil); ok is false for functions it does not know.
func recompute(pkg, name string, args []string) (res, errText string, ok bool) {
	str := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		s, err := strconv.Unquote(args[i])
		return s, err == nil
	}
	num := func(i int) (int, bool) {
		if i >= len(args) {
			return 0, false
		}
		n, err := strconv.Atoi(args[i])
		return n, err == nil
	}
	errOf := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	s, sok := str(0)
	if !sok {
		return "", "", false
	}
	switch pkg + "." + name {
	case "strconv.Atoi":
		v, err := strconv.Atoi(s)
		return strconv.Itoa(v), errOf(err), true
	case "strconv.ParseInt":
		b, ok1 := num(1)
		bits, ok2 := num(2)
		if !ok1 || !ok2 {
			return "", "", false
		}
		v, err := strconv.ParseInt(s, b, bits)
		return strconv.FormatInt(v, 10), errOf(err), true
	case "strconv.ParseUint":
		b, ok1 := num(1)
		bits, ok2 := num(2)
		if !ok1 || !ok2 {
			return "", "", false
		}
		v, err := strconv.ParseUint(s, b, bits)
		return strconv.FormatUint(v, 10), errOf(err), true
	case "strconv.ParseFloat":
		bits, ok1 := num(1)
		if !ok1 {
			return "", "", false
		}
		v, err := strconv.ParseFloat(s, bits)
		return strconv.FormatFloat(v, 'g', -1, 64), errOf(err), true
	case "strconv.ParseBool":
		v, err := strconv.ParseBool(s)
		return strconv.FormatBool(v), errOf(err), true
	case "strconv.Unquote":
		v, err := strconv.Unquote(s)
		return strconv.Quote(v), errOf(err), true
	case "time.ParseDuration":
		v, err := time.ParseDuration(s)
		return v.String(), errOf(err), true
	}
	return "", "", false
}

// errUseRE matches a statement that mentions err; errAssignRE one that
// assigns it.
var (
	errUseRE    = regexp.MustCompile(`\berr\b`)
	errAssignRE = regexp.MustCompile(`\berr\s*(,[^=]*)?:?=[^=]`)
)

// uncheckedErrs finds a variable named err that was assigned a non-nil
// error and then overwritten or never read, in the traces of the functions
// of focus that assign err (the first invocation of each is traced).
func (d *diagnoser) uncheckedErrs(ctx context.Context, focus []int32) []*finding {
	d.eachFunc(ctx, focus, func(f *trace.Frame, _ *syntax.File, fd *ast.FuncDecl) {
		if assignedNames(fd.Body)["err"] {
			d.flt(ctx, f)
		}
	})
	var out []*finding
	var traced []*trace.Frame
	for _, st := range d.states {
		traced = append(traced, st.flt.Frame)
	}
	sortBySeq(traced)
	for _, tf := range traced {
		flt := d.states[tf.FID].flt
		if isTestFile(flt.Frame.Decl.File) {
			continue
		}
		for i, step := range flt.Steps {
			c := changedVar(&flt.Steps[i], "err")
			if c == nil || c.New.Nil || c.New.Kind != trace.KindInterface {
				continue
			}
			used := false
			for _, later := range flt.Steps[i+1:] {
				if !errUseRE.MatchString(later.Stmt) {
					continue
				}
				rhs := later.Stmt
				if loc := errAssignRE.FindStringIndex(rhs); loc != nil {
					rhs = rhs[loc[1]:]
				}
				used = errUseRE.MatchString(rhs) || !errAssignRE.MatchString(later.Stmt)
				break
			}
			if used {
				continue
			}
			f := flt.Frame
			fnd := &finding{method: "dropped-error", root: step.Pos, fn: f.FID.Func, fid: f.FID,
				strength: strengthDropped, confidence: report.Medium}
			fnd.summary = fmt.Sprintf("%s never checks err after `%s` at %s:%d, where it is %s",
				syntax.ShortFunc(f.FID.Func), strings.TrimSpace(step.Stmt), d.rel(step.File), step.Line, short(c.New.Text))
			fnd.explanation = fmt.Sprintf("`%s` set err to %s, and %s went on without reading it. Check err right after the call.",
				strings.TrimSpace(step.Stmt), short(c.New.Text), syntax.ShortFunc(f.FID.String()))
			fnd.evidence = append(fnd.evidence, d.evidence(f, step.Pos, "err is set and never read", "err = "+c.New.Text))
			out = append(out, fnd)
		}
	}
	return out
}
