package offline

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// panicSite is the statement that panicked and the operand that made it
// panic.
type panicSite struct {
	f    *trace.Frame
	flt  *trace.FLT
	st   *frameState
	step int
	file *syntax.File
	stmt ast.Stmt
	info panicInfo
	// operand is the bad value's expression (the nil map or pointer, the
	// index, the divisor); container is the indexed or sliced expression.
	operand, container ast.Expr
	// slice is the slice expression whose bounds a slice bounds panic
	// gives, when they tell which it is.
	slice *ast.SliceExpr
	// value is the operand's recorded value as text.
	value string
}

// diagnosePanic traces the bad value of the panic in frame f back to the
// statement that made it (the panic origin rule pack).
func (d *diagnoser) diagnosePanic(ctx context.Context, f *trace.Frame, msg string) (*finding, error) {
	flt, st, err := d.flt(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(flt.Steps) == 0 {
		return nil, fmt.Errorf("the trace of %s has no statements", f.FID)
	}
	site := &panicSite{f: f, flt: flt, st: st, step: len(flt.Steps) - 1, info: classifyPanic(msg)}
	pos := flt.Steps[site.step].Pos
	site.file, err = d.src.File(pos.File)
	if err != nil {
		return nil, err
	}
	site.stmt = site.file.StmtAt(pos.Line)
	d.findOperand(ctx, site)

	fn := &finding{
		method: "panic-origin", root: pos, fn: f.FID.Func, fid: f.FID,
		strength: strengthTraced, confidence: report.Medium,
	}
	stmtText := strings.TrimSpace(flt.Steps[site.step].Stmt)
	if site.stmt != nil {
		stmtText = oneLine(site.file.Text(site.stmt))
	}
	claim := fmt.Sprintf("`%s` panics: %s", stmtText, msg)
	value := ""
	if site.operand != nil {
		value = site.file.Text(site.operand) + " = " + site.value
	}
	if r := d.recoverer(f); r != nil && d.rec.Outcome.Panic == nil {
		claim += fmt.Sprintf(" (recovered in %s, which returned %s)", syntax.ShortFunc(r.FID.String()), resultsText(r))
	}
	fn.evidence = append(fn.evidence, d.evidence(f, pos, claim, value))
	if site.slice != nil {
		d.explainSlice(site, fn)
		return fn, nil
	}
	if site.operand == nil {
		fn.summary = fmt.Sprintf("%s panics at %s:%d: %s", syntax.ShortFunc(f.FID.Func), d.rel(pos.File), pos.Line, msg)
		fn.explanation = fmt.Sprintf("The statement `%s` panicked with %q; adi could not tell which of its operands was bad.", stmtText, msg)
		fn.confidence = report.Low
		fn.strength = strengthTraced / 2
		return fn, nil
	}
	switch site.info.kind {
	case panicNilMap:
		d.explainNilMap(ctx, site, fn)
	case panicNilPointer:
		d.explainNilPointer(ctx, site, fn)
	case panicIndex, panicSlice:
		d.explainIndex(ctx, site, fn)
	case panicDivide:
		d.explainDivide(ctx, site, fn)
	default:
		fn.summary = fmt.Sprintf("%s panics at %s:%d: %s", syntax.ShortFunc(f.FID.Func), d.rel(pos.File), pos.Line, msg)
		fn.explanation = fmt.Sprintf("`%s` panicked with %q; %s.", stmtText, msg, value)
	}
	return fn, nil
}

// resultsText renders a frame's results for a claim.
func resultsText(f *trace.Frame) string {
	if len(f.Results) == 0 {
		return "nothing"
	}
	parts := make([]string, len(f.Results))
	for i, r := range f.Results {
		parts[i] = r.Text
	}
	return short(strings.Join(parts, ", "))
}

// findOperand finds, in the panicking statement, the operand whose value
// explains the panic, checking candidates against the recorded values (and,
// when those do not decide, by re-running to the statement with execute).
func (d *diagnoser) findOperand(ctx context.Context, s *panicSite) {
	if s.stmt == nil {
		return
	}
	vars := s.st.before(s.step)
	type cand struct{ op, container ast.Expr }
	var cands []cand
	ast.Inspect(s.stmt, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		switch x := n.(type) {
		case *ast.AssignStmt:
			if s.info.kind == panicNilMap {
				for _, l := range x.Lhs {
					if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok {
						cands = append(cands, cand{op: ix.X})
					}
				}
			}
		case *ast.IncDecStmt:
			if ix, ok := ast.Unparen(x.X).(*ast.IndexExpr); ok && s.info.kind == panicNilMap {
				cands = append(cands, cand{op: ix.X})
			}
		case *ast.SelectorExpr:
			if s.info.kind == panicNilPointer && !s.isPackage(x.X) {
				cands = append(cands, cand{op: x.X})
			}
		case *ast.StarExpr:
			if s.info.kind == panicNilPointer {
				cands = append(cands, cand{op: x.X})
			}
		case *ast.IndexExpr:
			if s.info.kind == panicIndex {
				cands = append(cands, cand{op: x.Index, container: x.X})
			}
		case *ast.SliceExpr:
			if s.info.kind == panicSlice && s.slice == nil && s.info.bounds != "" && sliceMatches(s.file, x, vars, s.info.bounds) {
				// The slice expression the message's bounds are those of.
				s.slice = x
			}
			if s.info.kind == panicSlice {
				for _, e := range []ast.Expr{x.High, x.Low, x.Max} {
					if e != nil {
						cands = append(cands, cand{op: e, container: x.X})
					}
				}
			}
		case *ast.BinaryExpr:
			if s.info.kind == panicDivide && (x.Op == token.QUO || x.Op == token.REM) {
				cands = append(cands, cand{op: x.Y})
			}
		case *ast.TypeAssertExpr:
			if s.info.kind == panicAssert {
				cands = append(cands, cand{op: x.X})
			}
		case *ast.SendStmt:
			if s.info.kind == panicClosedChan {
				cands = append(cands, cand{op: x.Chan})
			}
		}
		return true
	})
	if s.slice != nil {
		s.container = s.slice.X
		return
	}
	// test says whether a candidate's value explains the panic.
	test := func(c cand) (string, bool, bool) {
		text := s.file.Text(c.op)
		val, ok := evalText(text, vars)
		if !ok {
			return "", false, false
		}
		switch s.info.kind {
		case panicNilMap, panicNilPointer:
			return val, val == "nil", true
		case panicIndex:
			if !s.info.hasIndex {
				return val, true, true
			}
			if val != strconv.FormatInt(s.info.index, 10) {
				return val, false, true
			}
			if c.container != nil && s.info.length >= 0 {
				if l, ok := evalText("len("+s.file.Text(c.container)+")", vars); ok && l != strconv.FormatInt(s.info.length, 10) {
					return val, false, true
				}
			}
			return val, true, true
		case panicDivide:
			return val, val == "0", true
		}
		return val, true, true
	}
	var undecided []cand
	for _, c := range cands {
		val, bad, ok := test(c)
		if !ok {
			undecided = append(undecided, c)
			continue
		}
		if bad {
			s.operand, s.container, s.value = c.op, c.container, val
			return
		}
	}
	// The recording could not decide (a value it cut, a package variable):
	// re-run to the statement and ask Delve.
	step := s.flt.Steps[s.step]
	for _, c := range undecided {
		expr := s.file.Text(c.op)
		probe := expr + " == nil"
		switch s.info.kind {
		case panicIndex:
			probe = expr + " == " + strconv.FormatInt(s.info.index, 10)
		case panicDivide:
			probe = expr + " == 0"
		case panicSlice, panicAssert, panicClosedChan, panicOther:
			probe = expr
		}
		res, err := d.dbg.Execute(ctx, s.f.FID, step.Line, max(step.Visit, 1), probe)
		if err != nil || res.Value == nil {
			continue
		}
		if res.Value.Text == "true" || probe == expr {
			s.operand, s.container = c.op, c.container
			if v, err := d.dbg.Execute(ctx, s.f.FID, step.Line, max(step.Visit, 1), expr); err == nil && v.Value != nil {
				s.value = v.Value.Text
			}
			return
		}
	}
	if len(cands) == 1 {
		s.operand, s.container = cands[0].op, cands[0].container
		s.value, _ = evalText(s.file.Text(s.operand), vars)
	}
}

// isPackage reports whether e is the name of an imported package of the
// statement's file (fmt in fmt.Sprintf).
func (s *panicSite) isPackage(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	for _, imp := range s.file.AST.Imports {
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else if p, err := strconv.Unquote(imp.Path.Value); err == nil {
			name = p[strings.LastIndexByte(p, '/')+1:]
		}
		if name == id.Name {
			return true
		}
	}
	return false
}

// traceOperand follows the operand (or one name in it) backwards.
func (d *diagnoser) traceOperand(ctx context.Context, s *panicSite, expr string) (origin, []report.Evidence) {
	tr := &tracer{d: d}
	o := tr.back(ctx, tracked{f: s.f, flt: s.flt, st: s.st, at: s.step, expr: expr})
	return o, tr.evidence
}

// originClaim describes how an origin made the traced value.
func (d *diagnoser) originText(o origin) string {
	if o.file != nil && o.step >= 0 {
		if st := o.file.StmtAt(o.pos.Line); st != nil {
			return oneLine(o.file.Text(st))
		}
	}
	return ""
}

// explainNilMap: the map operand was nil; where was the map (or the struct
// holding it) made without it?
func (d *diagnoser) explainNilMap(ctx context.Context, s *panicSite, fn *finding) {
	op := s.file.Text(s.operand)
	o, ev := d.traceOperand(ctx, s, op)
	fn.evidence = append(fn.evidence, ev...)
	where := fmt.Sprintf("%s:%d", d.rel(s.flt.Steps[s.step].File), s.flt.Steps[s.step].Line)
	switch o.kind {
	case originComposite, originZero, originNil:
		fn.root, fn.fn, fn.fid = o.pos, o.f.FID.Func, o.f.FID
		fn.confidence = report.High
		src := d.originText(o)
		field := strings.TrimPrefix(o.suffix, ".")
		if field != "" && !strings.ContainsAny(field, ".[") {
			fn.summary = fmt.Sprintf("%s never makes the map %s: `%s` leaves it nil, and %s writes to it at %s",
				syntax.ShortFunc(o.f.FID.Func), field, src, syntax.ShortFunc(s.f.FID.Func), where)
			fn.explanation = fmt.Sprintf("`%s` at %s:%d builds the value without its %s field, so the map is nil. "+
				"Reading a nil map works, but the write `%s` in %s panics with %q. "+
				"Make the map where the value is built.", src, d.rel(o.pos.File), o.pos.Line, field, oneLine(s.file.Text(s.stmt)), syntax.ShortFunc(s.f.FID.Func), s.info.text)
		} else {
			fn.summary = fmt.Sprintf("the map %s is never made (`%s` at %s:%d); %s writes to it at %s",
				op, src, d.rel(o.pos.File), o.pos.Line, syntax.ShortFunc(s.f.FID.Func), where)
			fn.explanation = fmt.Sprintf("`%s` leaves the map nil; the write `%s` in %s then panics with %q. Make the map with make or a literal before writing to it.",
				src, oneLine(s.file.Text(s.stmt)), syntax.ShortFunc(s.f.FID.Func), s.info.text)
		}
		fn.fixes = d.nilMapFixes(o)
	default:
		fn.summary = fmt.Sprintf("%s writes to the nil map %s at %s", syntax.ShortFunc(s.f.FID.Func), op, where)
		fn.explanation = fmt.Sprintf("`%s` writes to %s, which is nil, so it panics with %q; adi could not trace where the map should have been made.",
			oneLine(s.file.Text(s.stmt)), op, s.info.text)
	}
}

// explainNilPointer: the pointer was nil; a function that returns nil on
// purpose (it has other, non-nil returns) makes the dereference the bug,
// a value built without the pointer makes its builder the bug.
func (d *diagnoser) explainNilPointer(ctx context.Context, s *panicSite, fn *finding) {
	op := s.file.Text(s.operand)
	o, ev := d.traceOperand(ctx, s, op)
	fn.evidence = append(fn.evidence, ev...)
	pos := s.flt.Steps[s.step].Pos
	where := fmt.Sprintf("%s:%d", d.rel(pos.File), pos.Line)
	stmt := oneLine(s.file.Text(s.stmt))
	switch {
	case o.kind == originNil && o.f != nil && o.f != s.f && d.returnsNonNil(o):
		fn.confidence = report.High
		fn.summary = fmt.Sprintf("%s uses %s without checking for nil at %s; %s returns nil for %s",
			syntax.ShortFunc(s.f.FID.Func), op, where, syntax.ShortFunc(o.f.FID.Func), argsText(o.f))
		fn.explanation = fmt.Sprintf("%s returns nil when it finds nothing (`%s` at %s:%d), and did so here. "+
			"%s dereferences the result in `%s` without checking, which panics with %q. "+
			"Handle the nil result before using it.", syntax.ShortFunc(o.f.FID.Func), d.originText(o), d.rel(o.pos.File), o.pos.Line,
			syntax.ShortFunc(s.f.FID.Func), stmt, s.info.text)
	case o.kind == originComposite || o.kind == originZero || o.kind == originNil:
		fn.root, fn.fn, fn.fid = o.pos, o.f.FID.Func, o.f.FID
		fn.confidence = report.High
		fn.summary = fmt.Sprintf("%s leaves %s nil (`%s`); %s dereferences it at %s",
			syntax.ShortFunc(o.f.FID.Func), op, d.originText(o), syntax.ShortFunc(s.f.FID.Func), where)
		fn.explanation = fmt.Sprintf("The pointer %s is nil from `%s` at %s:%d on; `%s` dereferences it and panics with %q.",
			op, d.originText(o), d.rel(o.pos.File), o.pos.Line, stmt, s.info.text)
	default:
		fn.summary = fmt.Sprintf("%s dereferences the nil pointer %s at %s", syntax.ShortFunc(s.f.FID.Func), op, where)
		fn.explanation = fmt.Sprintf("`%s` uses %s, which is nil, and panics with %q.", stmt, op, s.info.text)
	}
}

// returnsNonNil reports whether the function of origin o (a `return nil`)
// has other return statements that return something else: nil is one of
// its documented answers, not an accident.
func (d *diagnoser) returnsNonNil(o origin) bool {
	if o.file == nil {
		return false
	}
	fd := o.file.FuncDecl(o.f.Decl.Line)
	if fd == nil {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) > 0 {
			if id, ok := r.Results[0].(*ast.Ident); !ok || id.Name != "nil" {
				found = true
			}
		}
		return true
	})
	return found
}

// argsText renders a frame's arguments for a summary: "id=4".
func argsText(f *trace.Frame) string {
	var parts []string
	for _, a := range f.Args {
		if a.Kind == trace.KindPointer || a.Kind == trace.KindStruct || a.Kind == trace.KindSlice || a.Kind == trace.KindMap {
			continue
		}
		parts = append(parts, a.Name+"="+short(a.Text))
	}
	if len(parts) == 0 {
		return "this call"
	}
	return strings.Join(parts, ", ")
}

// explainIndex: the index was out of range. `x[len(x)]` is wrong where it
// stands; otherwise the names in the index are traced back and the one
// computed elsewhere (a count, a bound) is the suspect.
func (d *diagnoser) explainIndex(ctx context.Context, s *panicSite, fn *finding) {
	pos := s.flt.Steps[s.step].Pos
	where := fmt.Sprintf("%s:%d", d.rel(pos.File), pos.Line)
	idx := s.file.Text(s.operand)
	cont := ""
	if s.container != nil {
		cont = s.file.Text(s.container)
	}
	length := ""
	if s.info.length >= 0 && s.info.hasIndex {
		length = strconv.FormatInt(s.info.length, 10)
	}
	if call, ok := ast.Unparen(s.operand).(*ast.CallExpr); ok && cont != "" && isLenOf(call, cont) {
		fn.confidence = report.High
		fn.summary = fmt.Sprintf("%s indexes %s[len(%s)], one past its last element, at %s", syntax.ShortFunc(s.f.FID.Func), cont, cont, where)
		fn.explanation = fmt.Sprintf("The valid indexes of %s are 0 to len(%s)-1; `%s` reads index %s of %s elements and panics with %q. The last element is %s[len(%s)-1].",
			cont, cont, oneLine(s.file.Text(s.stmt)), s.value, length, s.info.text, cont, cont)
		if s.info.kind == panicIndex {
			fn.fixes = append(fn.fixes, fix{desc: "index the last element", edits: []edit{{
				file: s.file.Path, start: s.file.Offset(s.operand.End()), end: s.file.Offset(s.operand.End()), text: "-1"}}})
		}
		return
	}
	var best *origin
	for _, name := range idents(s.operand) {
		if _, ok := s.st.before(s.step)[name]; !ok {
			continue
		}
		o, ev := d.traceOperand(ctx, s, name)
		if o.kind == originComputed && (o.f != s.f || o.pos != pos) && best == nil {
			best = &o
			fn.evidence = append(fn.evidence, ev...)
		}
	}
	if best == nil {
		fn.summary = fmt.Sprintf("%s indexes %s with %s = %s, out of range, at %s", syntax.ShortFunc(s.f.FID.Func), cont, idx, s.value, where)
		fn.explanation = fmt.Sprintf("`%s` reads index %s of %s, which has %s elements, and panics with %q.",
			oneLine(s.file.Text(s.stmt)), s.value, cont, length, s.info.text)
		d.indexGuess(s, fn, length)
		return
	}
	o := *best
	fn.root, fn.fn, fn.fid = o.pos, o.f.FID.Func, o.f.FID
	fn.confidence = report.High
	src := d.originText(o)
	fn.summary = fmt.Sprintf("%s computes a count one too large (`%s`), so %s indexes past the end at %s",
		syntax.ShortFunc(o.f.FID.Func), src, syntax.ShortFunc(s.f.FID.Func), where)
	fn.explanation = fmt.Sprintf("The index %s = %s in `%s` comes from `%s` at %s:%d, through the values shown in the evidence. "+
		"%s has %s elements, so the run panics with %q; the value is wrong where it is computed, not where it is used.",
		idx, s.value, oneLine(s.file.Text(s.stmt)), src, d.rel(o.pos.File), o.pos.Line, cont, length, s.info.text)
	if o.node != nil {
		if f := ceilDivFix(o.file, o.node); f != nil {
			fn.summary = fmt.Sprintf("%s rounds up wrongly (`%s`): the count is one too large when the division is exact, so %s indexes past the end at %s",
				syntax.ShortFunc(o.f.FID.Func), src, syntax.ShortFunc(s.f.FID.Func), where)
			fn.fixes = append(fn.fixes, *f)
		}
	}
	d.indexGuess(s, fn, length)
}

// indexGuess adds to fn, for an index exactly one past the end (length
// elements), the edit that makes it one less where it is used (`c[or]` →
// `c[or-1]`, `c[i+1]` → `c[i]`): a guess, which only verification tells
// from a count wrong where it is made (the finding's root then). If it
// passes, the root is the indexing.
func (d *diagnoser) indexGuess(s *panicSite, fn *finding, length string) {
	if s.info.kind != panicIndex || s.container == nil || length == "" || s.value != length {
		return
	}
	var whole ast.Expr = s.operand
	ast.Inspect(s.stmt, func(n ast.Node) bool {
		if ix, ok := n.(*ast.IndexExpr); ok && ix.Index == s.operand {
			whole = ix
		}
		return whole == s.operand
	})
	fx, ok := dropOneFix(s.file, whole, s.operand)
	if !ok {
		fx = replaceFix(s.file, whole, s.operand, s.file.Text(s.operand)+"-1")
	}
	pos := s.flt.Steps[s.step].Pos
	fx.at, fx.atFID = &pos, s.f.FID
	cont := s.file.Text(s.container)
	fx.summary = fmt.Sprintf("%s indexes %s one past its end at %s:%d: %s makes the failing tests pass",
		syntax.ShortFunc(s.f.FID.Func), cont, d.rel(pos.File), pos.Line, fx.desc)
	fx.explanation = fmt.Sprintf("`%s` reads index %s of %s, which has %s elements, and panics with %q. "+
		"The index is one too large where it is used: with %s the failing command and the rest of the package's tests pass (verified on an overlay copy).",
		oneLine(s.file.Text(s.stmt)), s.value, cont, length, s.info.text, fx.desc)
	fn.fixes, fn.guessed = append(fn.fixes, fx), true
}

// sliceMatches reports whether slice expression x, evaluated over vars,
// has the bounds a slice bounds panic gave ("3:2", ":12", "::9", ":4:3",
// "5:4:"): an omitted low bound is 0, an omitted high bound the length.
func sliceMatches(file *syntax.File, x *ast.SliceExpr, vars map[string]*trace.Value, bounds string) bool {
	val := func(e ast.Expr, dflt string) (string, bool) {
		if e == nil {
			if dflt == "" {
				return "", false
			}
			return evalText(dflt, vars)
		}
		return evalText(file.Text(e), vars)
	}
	lo, okLo := val(x.Low, "0")
	hi, okHi := val(x.High, "len("+file.Text(x.X)+")")
	mx, okMax := val(x.Max, "")
	var forms []string
	if okHi {
		forms = append(forms, ":"+hi)
		if okLo {
			forms = append(forms, lo+":"+hi, lo+":"+hi+":")
		}
		if okMax {
			forms = append(forms, ":"+hi+":"+mx)
		}
	}
	if okMax {
		forms = append(forms, "::"+mx)
	}
	return slices.Contains(forms, bounds)
}

// explainSlice: a slice expression's bounds were out of range, which its
// bounds as the message gives them show. Its fixes drop a ±1 on a bound:
// `s[i+1:n-1]` → `s[i+1:n]`, and only verification decides.
func (d *diagnoser) explainSlice(s *panicSite, fn *finding) {
	pos := s.flt.Steps[s.step].Pos
	where := fmt.Sprintf("%s:%d", d.rel(pos.File), pos.Line)
	x := s.slice
	text := s.file.Text(x)
	vars := s.st.before(s.step)
	var parts []string
	for _, b := range []ast.Expr{x.Low, x.High, x.Max} {
		if b == nil {
			continue
		}
		if _, lit := ast.Unparen(b).(*ast.BasicLit); lit {
			continue
		}
		if v, ok := evalText(s.file.Text(b), vars); ok {
			parts = append(parts, s.file.Text(b)+" = "+v)
		}
	}
	why := "its low bound is past its high bound"
	if s.info.limit != "" {
		why = "a bound is past the " + strings.TrimSpace(s.info.text[strings.LastIndex(s.info.text, "with ")+len("with "):])
	}
	fn.summary = fmt.Sprintf("%s slices `%s` with bounds [%s] at %s: %s", syntax.ShortFunc(s.f.FID.Func), text, s.info.bounds, where, why)
	values := ""
	if len(parts) > 0 {
		values = " (" + strings.Join(parts, ", ") + ")"
	}
	fn.explanation = fmt.Sprintf("`%s` slices %s with bounds [%s]%s and panics with %q.",
		oneLine(s.file.Text(s.stmt)), s.file.Text(x.X), s.info.bounds, values, s.info.text)
	fn.evidence[len(fn.evidence)-1].Value = strings.Join(parts, ", ")
	for _, b := range []ast.Expr{x.High, x.Low, x.Max} {
		if fx, ok := dropOneFix(s.file, x, b); ok {
			fn.fixes, fn.guessed = append(fn.fixes, fx), true
		}
	}
}

// isLenOf reports whether call is len(x) for the expression text x.
func isLenOf(call *ast.CallExpr, x string) bool {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Name != "len" || len(call.Args) != 1 {
		return false
	}
	a := call.Args[0]
	return strings.ReplaceAll(exprString(a), " ", "") == strings.ReplaceAll(x, " ", "")
}

// explainDivide: the divisor was zero; where was it made?
func (d *diagnoser) explainDivide(ctx context.Context, s *panicSite, fn *finding) {
	pos := s.flt.Steps[s.step].Pos
	op := s.file.Text(s.operand)
	fn.summary = fmt.Sprintf("%s divides by %s = 0 at %s:%d", syntax.ShortFunc(s.f.FID.Func), op, d.rel(pos.File), pos.Line)
	fn.explanation = fmt.Sprintf("`%s` divides by %s, which is 0, and panics with %q.", oneLine(s.file.Text(s.stmt)), op, s.info.text)
	if rootIdent(s.operand) == nil {
		return
	}
	o, ev := d.traceOperand(ctx, s, op)
	fn.evidence = append(fn.evidence, ev...)
	if (o.kind == originComputed || o.kind == originLiteral) && o.f != nil && (o.f != s.f || o.pos != pos) {
		fn.root, fn.fn, fn.fid = o.pos, o.f.FID.Func, o.f.FID
		fn.explanation += fmt.Sprintf(" The zero comes from `%s` at %s:%d.", d.originText(o), d.rel(o.pos.File), o.pos.Line)
	}
}
