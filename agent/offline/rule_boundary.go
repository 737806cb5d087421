package offline

import (
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The boundary rule: an off-by-one shows as a comparison (in an if or a
// loop condition) that was evaluated on the failing path with both sides
// equal, the one case where < and <= (or > and >=) disagree. Such a
// comparison is a suspect; its fixes are the off-by-one edits (drop a ±1 on
// one side, flip the strictness), and only verification decides.

// maxBoundaryFLTs bounds the frames traced by the boundary rule.
const maxBoundaryFLTs = 8

// boundaryHit is a comparison seen at its bound.
type boundaryHit struct {
	f     *trace.Frame
	file  *syntax.File
	be    *ast.BinaryExpr
	pos   trace.Pos
	left  string
	right string
	value string
	loop  bool
	// args is set when the hit was found on the recorded arguments of an
	// invocation rather than in a trace.
	args bool
}

// boundaryFindings looks for comparisons met at their bound in the focus
// frames (traced) and, for comparisons over parameters only, in every
// invocation of scope (from the recorded arguments, without tracing).
func (d *diagnoser) boundaryFindings(ctx context.Context, focus, scope []int32) []*finding {
	var hits []*boundaryHit
	seen := map[string]bool{}
	add := func(h *boundaryHit) {
		key := fmt.Sprintf("%s:%d", h.file.Path, h.file.Offset(h.be.Pos()))
		if !seen[key] {
			seen[key] = true
			hits = append(hits, h)
		}
	}
	// traceOne looks for comparisons at their bound in the trace of frame
	// seq, and reports whether it found one.
	traceOne := func(seq int32) bool {
		f := d.rec.At(int(seq))
		flt, st, err := d.flt(ctx, f)
		if err != nil {
			return false
		}
		found := false
		for i, step := range flt.Steps {
			file, err := d.src.File(step.File)
			if err != nil {
				continue
			}
			node := file.StmtAt(step.Line)
			cond, loop := condOf(node)
			vars := st.afterStep(i)
			switch s := node.(type) {
			case *ast.IfStmt:
				vars = withInit(s.Init, file, st.before(i), vars)
			case *ast.ForStmt:
				if step.Visit == 1 {
					vars = withInit(s.Init, file, st.before(i), vars)
				} else {
					vars = withPost(s, &flt.Steps[i], vars)
				}
			}
			for _, be := range comparisons(cond) {
				l, r, vars := d.withCalls(file, node, be, &flt.Steps[i], vars)
				if eq, ok := evalBool("("+l+") == ("+r+")", vars); ok && eq {
					v, _ := evalText(l, vars)
					add(&boundaryHit{f: f, file: file, be: be, pos: step.Pos, left: file.Text(be.X), right: file.Text(be.Y), value: v, loop: loop})
					found = true
				}
			}
		}
		return found
	}
	// The first frame in focus of each function with a comparison, then,
	// for those whose first frame met no bound, the last: the state a
	// bound is met at is often reached by the last of a series of calls
	// (the cache full at the fifth Add, not the first).
	first := map[int]int32{}
	last := map[int]int32{}
	var order []int
	for _, seq := range focus {
		n := d.rec.FuncNumOf(int(seq))
		if _, ok := first[n]; !ok {
			if !d.compares(int(seq)) {
				first[n] = -1
				continue
			}
			first[n] = seq
			order = append(order, n)
		}
		last[n] = seq
	}
	traced := 0
	var again []int
	for _, n := range order {
		if traced >= maxBoundaryFLTs || ctx.Err() != nil {
			break
		}
		traced++
		if !traceOne(first[n]) && last[n] != first[n] {
			again = append(again, n)
		}
	}
	for _, n := range again {
		if traced >= maxBoundaryFLTs || ctx.Err() != nil {
			break
		}
		traced++
		traceOne(last[n])
	}
	for _, h := range d.argBoundaries(scope) {
		add(h)
	}
	var out []*finding
	for _, h := range hits {
		out = append(out, d.boundaryFinding(h))
	}
	return out
}

// compares reports whether the function of frame seq, declared outside
// the tests, has a comparison the boundary rule reads (see condOf).
func (d *diagnoser) compares(seq int) bool {
	decl := d.rec.DeclOf(d.rec.FuncOf(seq))
	if isTestFile(decl.File) {
		return false
	}
	file, err := d.src.File(decl.File)
	if err != nil {
		return false
	}
	fn, _ := file.FuncAt(decl.Line) // a declaration or a literal
	if fn == nil {
		return false
	}
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if st, ok := n.(ast.Stmt); ok && !found {
			if cond, _ := condOf(st); len(comparisons(cond)) > 0 {
				found = true
			}
		}
		return !found
	})
	return found
}

// condOf returns the condition of an if or for statement, or the value
// of an assignment or a return of one value (`evict := n >= max`,
// `return i < len(s)`): comparisons decide there as well.
func condOf(st ast.Stmt) (cond ast.Expr, loop bool) {
	switch s := st.(type) {
	case *ast.IfStmt:
		return s.Cond, false
	case *ast.ForStmt:
		return s.Cond, true
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			return s.Rhs[0], false
		}
	case *ast.ReturnStmt:
		if len(s.Results) == 1 {
			return s.Results[0], false
		}
	}
	return nil, false
}

// withCalls returns the sides of comparison be, of statement stmt, with
// its calls replaced by names that vars (copied) binds to what the calls
// returned in step: `c.list.Len() >= c.size` is evaluated with the result
// of the Len frame the step called. The calls by a name are bound when
// the step called as many functions by that name as the statement has
// calls of it, and the frame has one result.
func (d *diagnoser) withCalls(file *syntax.File, stmt ast.Node, be *ast.BinaryExpr, step *trace.Step, vars map[string]*trace.Value) (l, r string, _ map[string]*trace.Value) {
	l, r = file.Text(be.X), file.Text(be.Y)
	// The statement's calls in the order they are made: a call's
	// arguments' calls first, then left to right (as Go evaluates them),
	// which is the order their ends have in the text. The k-th call by a
	// name is the step's k-th callee by that name.
	var all []*ast.CallExpr
	ast.Inspect(stmt, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			all = append(all, x)
		}
		return true
	})
	slices.SortFunc(all, func(a, b *ast.CallExpr) int { return cmp.Compare(a.End(), b.End()) })
	calls := map[string]int{}
	nth := map[*ast.CallExpr]int{}
	for _, c := range all {
		name := callName(c)
		nth[c] = calls[name]
		calls[name]++
	}
	callees := map[string][]trace.FID{}
	for _, fid := range step.Callees {
		name := calleeName(fid)
		callees[name] = append(callees[name], fid)
	}
	var out map[string]*trace.Value
	bind := func(side ast.Expr) string {
		text := file.Text(side)
		base := file.Offset(side.Pos())
		// Replaced from the last call back, so that offsets hold.
		var found []*ast.CallExpr
		ast.Inspect(side, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				found = append(found, x)
				return false
			}
			return true
		})
		for k := len(found) - 1; k >= 0; k-- {
			call := found[k]
			name := callName(call)
			if name == "" || calls[name] != len(callees[name]) {
				continue
			}
			fr := d.frame(callees[name][nth[call]])
			if fr == nil || len(fr.Results) != 1 {
				continue
			}
			if out == nil {
				out = maps.Clone(vars)
			}
			bound := fmt.Sprintf("adi_call_%d", len(out)-len(vars))
			res := fr.Results[0]
			res.Name = bound
			out[bound] = &res
			s, e := file.Offset(call.Pos())-base, file.Offset(call.End())-base
			text = text[:s] + bound + text[e:]
		}
		return text
	}
	l, r = bind(be.X), bind(be.Y)
	if out == nil {
		return l, r, vars
	}
	return l, r, out
}

// calleeName is the name of the function or method a frame runs, as
// callName gives it for the call (Len for container/list.(*List).Len,
// Map for pkg.Map[...]).
func calleeName(fid trace.FID) string {
	fn := strings.TrimSuffix(fid.Func, "[...]")
	return fn[strings.LastIndexByte(fn, '.')+1:]
}

// callName is the name of the function or method a call calls (Len for
// c.list.Len()), "" for a call of a function value made by an expression.
func callName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr: // a generic function instantiated: f[int](x)
		return callName(&ast.CallExpr{Fun: f.X})
	case *ast.IndexListExpr:
		return callName(&ast.CallExpr{Fun: f.X})
	}
	return ""
}

// comparisons returns the ordering comparisons of a condition, looking
// through &&, ||, ! and parentheses.
func comparisons(cond ast.Expr) []*ast.BinaryExpr {
	var out []*ast.BinaryExpr
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.ParenExpr:
			walk(x.X)
		case *ast.UnaryExpr:
			if x.Op == token.NOT {
				walk(x.X)
			}
		case *ast.BinaryExpr:
			switch x.Op {
			case token.LAND, token.LOR:
				walk(x.X)
				walk(x.Y)
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				out = append(out, x)
			}
		}
	}
	if cond != nil {
		walk(cond)
	}
	return out
}

// maxArgFrames bounds the invocations whose arguments are checked.
const maxArgFrames = 5000

// argBoundaries finds comparisons over parameters only (which the function
// never assigns) that some invocation of scope met at their bound: the
// base case of a recursion, checked on all of its calls without tracing
// any.
func (d *diagnoser) argBoundaries(scope []int32) []*boundaryHit {
	var out []*boundaryHit
	// By function number: its frames, or nil for a function of a test
	// file; order lists the numbers by first frame.
	byFunc := make([][]int32, d.rec.NumFuncs())
	inTest := make([]bool, d.rec.NumFuncs())
	var order []int
	for _, seq := range scope[:min(len(scope), maxArgFrames)] {
		n := d.rec.FuncNumOf(int(seq))
		if inTest[n] {
			continue
		}
		if byFunc[n] == nil {
			if isTestFile(d.rec.DeclOf(d.rec.FuncOf(int(seq))).File) {
				inTest[n] = true
				continue
			}
			order = append(order, n)
		}
		byFunc[n] = append(byFunc[n], seq)
	}
	for _, n := range order {
		seqs := byFunc[n]
		decl := d.rec.DeclOf(d.rec.FuncOf(int(seqs[0])))
		file, err := d.src.File(decl.File)
		if err != nil {
			continue
		}
		fd := file.FuncDecl(decl.Line)
		if fd == nil {
			continue
		}
		// The frames are made when a comparison needs their arguments,
		// each once.
		frames := make([]*trace.Frame, len(seqs))
		frame := func(i int) *trace.Frame {
			if frames[i] == nil {
				frames[i] = d.rec.At(int(seqs[i]))
			}
			return frames[i]
		}
		_, params := d.paramNames(frame(0))
		assigned := assignedNames(fd.Body)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			st, ok := n.(ast.Stmt)
			if !ok {
				return true
			}
			cond, loop := condOf(st)
			for _, be := range comparisons(cond) {
				names := idents(be)
				if len(names) == 0 || !onlyParams(names, params, assigned) {
					continue
				}
				l, r := file.Text(be.X), file.Text(be.Y)
				for k := range seqs {
					f := frame(k)
					vars := map[string]*trace.Value{}
					for i := range f.Args {
						vars[f.Args[i].Name] = &f.Args[i]
					}
					if eq, ok := evalBool("("+l+") == ("+r+")", vars); ok && eq {
						v, _ := evalText(l, vars)
						out = append(out, &boundaryHit{f: f, file: file, be: be,
							pos: trace.Pos{File: file.Path, Line: file.Line(be.Pos())}, left: l, right: r, value: v, loop: loop, args: true})
						break
					}
				}
			}
			return true
		})
	}
	return out
}

// assignedNames returns the names a function body assigns or increments.
func assignedNames(body *ast.BlockStmt) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					out[id.Name] = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := s.X.(*ast.Ident); ok {
				out[id.Name] = true
			}
		case *ast.UnaryExpr:
			if id, ok := s.X.(*ast.Ident); ok && s.Op == token.AND {
				out[id.Name] = true // its address escapes
			}
		}
		return true
	})
	return out
}

// onlyParams reports whether every name is a parameter never assigned.
func onlyParams(names, params []string, assigned map[string]bool) bool {
	for _, n := range names {
		found := false
		for _, p := range params {
			if p == n {
				found = true
			}
		}
		if !found || assigned[n] {
			return false
		}
	}
	return true
}

// flipped returns the comparison operator with the opposite strictness.
func flipped(op token.Token) string {
	switch op {
	case token.LSS:
		return "<="
	case token.LEQ:
		return "<"
	case token.GTR:
		return ">="
	case token.GEQ:
		return ">"
	}
	return op.String()
}

// boundaryFinding turns a hit into a finding with its off-by-one fixes.
func (d *diagnoser) boundaryFinding(h *boundaryHit) *finding {
	file, be := h.file, h.be
	line := file.Line(be.Pos())
	cmpText := file.Text(be)
	where := fmt.Sprintf("%s:%d", d.rel(file.Path), line)
	f := &finding{
		method: "boundary", root: trace.Pos{File: file.Path, Line: line}, fn: h.f.FID.Func, fid: h.f.FID,
		strength: strengthBoundary, confidence: report.Low,
	}
	kind := "condition"
	if h.loop {
		kind = "loop condition"
	}
	f.summary = fmt.Sprintf("the %s `%s` in %s (%s) met its bound exactly on the failing path (%s = %s = %s)",
		kind, cmpText, syntax.ShortFunc(h.f.FID.Func), where, h.left, h.right, h.value)
	f.detail = fmt.Sprintf("On the failing path `%s` in %s was evaluated with both sides equal to %s, the one value where %s and %s disagree.",
		cmpText, syntax.ShortFunc(h.f.FID.String()), h.value, be.Op, flipped(be.Op))
	f.explanation = f.detail + " An off-by-one bound there would explain the wrong result, but no off-by-one edit of it was verified."
	claim := fmt.Sprintf("`%s` is evaluated with %s = %s", cmpText, h.left, h.right)
	if h.args {
		claim = fmt.Sprintf("%s is called with %s, where `%s` meets its bound", syntax.ShortFunc(h.f.FID.String()), argsText(h.f), cmpText)
	}
	val := fmt.Sprintf("%s = %s, %s = %s", h.left, h.value, h.right, h.value)
	if _, lit := ast.Unparen(be.Y).(*ast.BasicLit); lit {
		val = fmt.Sprintf("%s = %s", h.left, h.value)
	}
	f.evidence = append(f.evidence, d.evidence(h.f, h.pos, claim, val))
	// Drop a ±1 on either side: `i < n-1` → `i < n`.
	for _, side := range []ast.Expr{be.Y, be.X} {
		if fx, ok := dropOneFix(file, be, side); ok {
			f.fixes = append(f.fixes, fx)
		}
	}
	// Flip the strictness: `lo < hi` → `lo <= hi`.
	op := flipped(be.Op)
	f.fixes = append(f.fixes, fix{
		desc: fmt.Sprintf("`%s` → `%s %s %s`", cmpText, file.Text(be.X), op, file.Text(be.Y)),
		edits: []edit{{file: file.Path, start: file.Offset(be.OpPos), end: file.Offset(be.OpPos) + len(be.Op.String()),
			text: op}},
	})
	return f
}

// replaceIn returns the text of outer with its part inner replaced.
func replaceIn(file *syntax.File, outer, inner ast.Node, repl string) string {
	o := file.Text(outer)
	s, e := file.Offset(inner.Pos())-file.Offset(outer.Pos()), file.Offset(inner.End())-file.Offset(outer.Pos())
	return o[:s] + repl + o[e:]
}

// withInit binds in vars, the variables after an if statement or a
// loop's first header step, the integers the statement's init declares
// (`r := m + 1`, `i := 1`), evaluated over before, the variables before
// it. The debugger shows a variable from the line after its declaration:
// when the condition was false, or a panic ended the frame in it, no later
// line of the variable's scope ran to show it on, and the step's variables
// hold none, or an earlier statement's of that name.
func withInit(init ast.Stmt, file *syntax.File, before, vars map[string]*trace.Value) map[string]*trace.Value {
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) {
		return vars
	}
	var out map[string]*trace.Value
	for i, lhs := range as.Lhs {
		id, ok := lhs.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		text, ok := evalText(file.Text(as.Rhs[i]), before)
		if !ok {
			continue
		}
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			continue
		}
		if out == nil {
			out = maps.Clone(vars)
		}
		out[id.Name] = &trace.Value{Name: id.Name, Type: "int", Kind: trace.KindInt, Text: text}
	}
	if out == nil {
		return vars
	}
	return out
}

// withPost applies a loop's `i++` or `i--` post statement to the variables
// of a header step that shows no change of i. Go 1.22 gives each iteration
// its own i, so when the loop exits the recording no longer sees the
// incremented i: the condition was evaluated with i+1, not with the last
// recorded i.
func withPost(fs *ast.ForStmt, step *trace.Step, vars map[string]*trace.Value) map[string]*trace.Value {
	inc, ok := fs.Post.(*ast.IncDecStmt)
	if !ok {
		return vars
	}
	id, ok := inc.X.(*ast.Ident)
	if !ok || changedVar(step, id.Name) != nil {
		return vars
	}
	v, ok := vars[id.Name]
	if !ok || v.Kind != trace.KindInt {
		return vars
	}
	n, err := strconv.ParseInt(v.Text, 10, 64)
	if err != nil {
		return vars
	}
	if inc.Tok == token.INC {
		n++
	} else {
		n--
	}
	nv := *v
	nv.Text = strconv.FormatInt(n, 10)
	out := maps.Clone(vars)
	out[id.Name] = &nv
	return out
}
