package offline

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// maxHops bounds one backward trace.
const maxHops = 16

// originKind says how a traced value came to be.
type originKind int

const (
	originUnknown   originKind = iota
	originLiteral              // a constant written in the source
	originComposite            // a composite literal (omitted fields are zero)
	originNil                  // the nil literal
	originComputed             // an expression computed at that statement
	originLibrary              // the result of a call the recording does not hold
	originZero                 // a variable declared without a value
	originOutside              // an argument of a root frame: from outside the recording
)

// origin is where a traced value was made: a statement of a frame.
type origin struct {
	kind originKind
	f    *trace.Frame
	// step is the index of the statement in f's FLT (-1 when unknown).
	step int
	pos  trace.Pos
	// file and node are the source of the statement and of the expression
	// that made the value (node may be nil).
	file *syntax.File
	node ast.Expr
	// suffix is the part of the traced expression below the made value
	// (".ports" when a struct literal made the Registry whose ports field
	// was traced).
	suffix string
}

// tracked is an expression of frame f as it was just before step at of f's
// FLT ran.
type tracked struct {
	f    *trace.Frame
	flt  *trace.FLT
	st   *frameState
	at   int
	expr string
}

// tracer follows a value backwards through frame traces, collecting the
// evidence of each hop.
type tracer struct {
	d        *diagnoser
	evidence []report.Evidence
	hops     int
}

// back returns where the value of t.expr came from: the ΔS that assigned
// it in its frame, else the argument it came in through (continuing in the
// caller), following callees that returned it and copies of it.
func (tr *tracer) back(ctx context.Context, t tracked) origin {
	unknown := origin{kind: originUnknown, f: t.f, step: t.at, pos: stepPos(t.flt, t.at)}
	tr.hops++
	if tr.hops > maxHops || ctx.Err() != nil {
		return unknown
	}
	e := parseExpr(t.expr)
	root := rootIdent(e)
	if root == nil {
		unknown.kind = originComputed
		return unknown
	}
	for j := min(t.at, len(t.flt.Steps)) - 1; j >= 0; j-- {
		c := changedVar(&t.flt.Steps[j], root.Name)
		if c == nil {
			continue
		}
		if c.Old != nil && t.expr != root.Name {
			// The variable existed before: only a change of the traced
			// part (r.ports, not r.order) is the assignment we want.
			b, ok1 := evalText(t.expr, t.st.before(j))
			a, ok2 := evalText(t.expr, t.st.afterStep(j))
			if ok1 && ok2 && a == b {
				continue
			}
		}
		return tr.assigned(ctx, t, j, root.Name)
	}
	if slices.Contains(argNames(t.f), root.Name) {
		return tr.fromCaller(ctx, t, root.Name)
	}
	return unknown
}

// suffixOf returns what expr adds below its root variable: ".ports" for
// "r.ports", "" for "r" or for expressions that are not a plain chain.
func suffixOf(expr, root string) string {
	if strings.HasPrefix(expr, root) && len(expr) > len(root) {
		rest := expr[len(root):]
		if rest[0] == '.' || rest[0] == '[' {
			return rest
		}
	}
	return ""
}

// stepPos returns the position of step i of flt (the frame's declaration
// when there is no such step).
func stepPos(flt *trace.FLT, i int) trace.Pos {
	if i >= 0 && i < len(flt.Steps) {
		return flt.Steps[i].Pos
	}
	return flt.Frame.Decl
}

// assigned continues a trace at step j of t's frame, which set root.
func (tr *tracer) assigned(ctx context.Context, t tracked, j int, root string) origin {
	d := tr.d
	step := &t.flt.Steps[j]
	here := origin{kind: originComputed, f: t.f, step: j, pos: step.Pos}
	file, err := d.src.File(step.File)
	if err != nil {
		here.kind = originUnknown
		return here
	}
	here.file = file
	node := file.StmtAt(step.Line)
	val, _ := evalText(t.expr, t.st.afterStep(j))
	suffix := suffixOf(t.expr, root)
	stmtText := strings.TrimSpace(step.Stmt)
	if node != nil {
		stmtText = oneLine(file.Text(node))
	}
	tr.evidence = append(tr.evidence, d.evidence(t.f, step.Pos,
		fmt.Sprintf("`%s` sets %s", stmtText, root), t.expr+" = "+val))
	switch n := node.(type) {
	case *ast.ForStmt:
		// A loop variable got its value from the loop: what let it reach
		// that value is the loop's bound.
		if n.Cond == nil {
			return here
		}
		for _, b := range idents(n.Cond) {
			if b == root {
				continue
			}
			if _, ok := t.st.afterStep(j)[b]; !ok {
				continue
			}
			bv, _ := evalText(b, t.st.afterStep(j))
			tr.evidence = append(tr.evidence, d.evidence(t.f, step.Pos,
				fmt.Sprintf("the loop runs while `%s`, so its bound %s let %s reach %s", file.Text(n.Cond), b, root, val), b+" = "+bv))
			return tr.back(ctx, tracked{f: t.f, flt: t.flt, st: t.st, at: j, expr: b})
		}
		here.node = n.Cond
		return here
	case *ast.RangeStmt:
		if x := rootIdent(n.X); x != nil && x.Name != root {
			return tr.back(ctx, tracked{f: t.f, flt: t.flt, st: t.st, at: j, expr: file.Text(n.X)})
		}
		return here
	case *ast.AssignStmt:
		if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
			here.node = n.Rhs[0]
			return here
		}
		k := -1
		for i, l := range n.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == root {
				k = i
			}
		}
		if k < 0 {
			return here
		}
		rhs, res := n.Rhs[0], k
		if len(n.Rhs) == len(n.Lhs) {
			rhs, res = n.Rhs[k], 0
		}
		return tr.fromExpr(ctx, t, j, file, rhs, res, suffix)
	case *ast.DeclStmt:
		gd, ok := n.Decl.(*ast.GenDecl)
		if !ok {
			return here
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, name := range vs.Names {
				if name.Name != root {
					continue
				}
				if len(vs.Values) == 0 {
					here.kind = originZero
					return here
				}
				rhs, res := vs.Values[0], i
				if len(vs.Values) == len(vs.Names) {
					rhs, res = vs.Values[i], 0
				}
				return tr.fromExpr(ctx, t, j, file, rhs, res, suffix)
			}
		}
	}
	return here
}

// fromExpr continues a trace at an expression that made the value at step
// j of t's frame: a call (into its callee), a copy of another variable, or
// a literal (the origin).
func (tr *tracer) fromExpr(ctx context.Context, t tracked, j int, file *syntax.File, rhs ast.Expr, res int, suffix string) origin {
	here := origin{kind: originComputed, f: t.f, step: j, pos: t.flt.Steps[j].Pos, file: file, node: rhs, suffix: suffix}
	switch x := ast.Unparen(rhs).(type) {
	case *ast.CallExpr:
		callee := tr.d.calleeOf(&t.flt.Steps[j], x)
		if callee == nil {
			here.kind = originLibrary
			return here
		}
		return tr.intoCallee(ctx, callee, res, suffix)
	case *ast.Ident:
		if x.Name == "nil" {
			here.kind = originNil
			return here
		}
		return tr.back(ctx, tracked{f: t.f, flt: t.flt, st: t.st, at: j, expr: x.Name + suffix})
	case *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
		if rootIdent(x) == nil {
			return here
		}
		return tr.back(ctx, tracked{f: t.f, flt: t.flt, st: t.st, at: j, expr: file.Text(x) + suffix})
	case *ast.CompositeLit:
		here.kind = originComposite
	case *ast.UnaryExpr:
		if _, ok := x.X.(*ast.CompositeLit); ok && x.Op == token.AND {
			here.kind = originComposite
		}
	case *ast.BasicLit:
		here.kind = originLiteral
	}
	return here
}

// intoCallee continues a trace in the callee that returned the value (its
// result number res), at its return statement.
func (tr *tracer) intoCallee(ctx context.Context, callee *trace.Frame, res int, suffix string) origin {
	d := tr.d
	unknown := origin{kind: originUnknown, f: callee, step: -1, pos: callee.Decl}
	flt, st, err := d.flt(ctx, callee)
	if err != nil {
		return unknown
	}
	rv := resultValue(callee, res)
	ret, r := -1, (*ast.ReturnStmt)(nil)
	var file *syntax.File
	for i := len(flt.Steps) - 1; i >= 0 && ret < 0; i-- {
		f, err := d.src.File(flt.Steps[i].File)
		if err != nil {
			continue
		}
		if rs, ok := f.StmtAt(flt.Steps[i].Line).(*ast.ReturnStmt); ok {
			ret, r, file = i, rs, f
		}
	}
	if ret < 0 {
		return unknown
	}
	val := ""
	if rv != nil {
		val = rv.Text
	}
	tr.evidence = append(tr.evidence, d.evidence(callee, flt.Steps[ret].Pos,
		fmt.Sprintf("returns it: `%s`", oneLine(file.Text(r))), "returned "+val))
	t := tracked{f: callee, flt: flt, st: st, at: ret}
	if len(r.Results) == 0 {
		// A bare return of named results.
		if rv == nil {
			return unknown
		}
		t.expr = strings.TrimPrefix(rv.Name, "~") + suffix
		return tr.back(ctx, t)
	}
	rhs, idx := r.Results[0], res
	if len(r.Results) == len(callee.Results) || len(r.Results) > 1 {
		if res >= len(r.Results) {
			return unknown
		}
		rhs, idx = r.Results[res], 0
	}
	return tr.fromExpr(ctx, t, ret, file, rhs, idx, suffix)
}

// fromCaller continues a trace of argument name of t's frame in its caller,
// at the statement that made the call.
func (tr *tracer) fromCaller(ctx context.Context, t tracked, name string) origin {
	d := tr.d
	outside := origin{kind: originOutside, f: t.f, step: -1, pos: t.f.Decl}
	if t.f.Parent < 0 {
		return outside
	}
	caller := d.rec.At(t.f.Parent)
	cflt, cst, err := d.flt(ctx, caller)
	if err != nil {
		return origin{kind: originUnknown, f: t.f, step: -1, pos: t.f.Decl}
	}
	k := callStep(cflt, t.f.FID)
	if k < 0 {
		d.note(fmt.Sprintf("the call of %s in %s was left out of its trace (a summarised loop iteration)", t.f.FID, caller.FID))
		return origin{kind: originUnknown, f: caller, step: -1, pos: t.f.CallSite}
	}
	step := &cflt.Steps[k]
	file, err := d.src.File(step.File)
	if err != nil {
		return origin{kind: originUnknown, f: caller, step: k, pos: step.Pos}
	}
	arg := d.argExpr(file, file.StmtAt(step.Line), t.f, name)
	if arg == nil {
		return origin{kind: originUnknown, f: caller, step: k, pos: step.Pos}
	}
	suffix := suffixOf(t.expr, name)
	expr := file.Text(arg) + suffix
	val, _ := evalText(expr, cst.before(k))
	if val == "" {
		val, _ = evalText(t.expr, t.st.entry)
	}
	tr.evidence = append(tr.evidence, d.evidence(caller, step.Pos,
		fmt.Sprintf("passes %s to %s as %s", file.Text(arg), syntax.ShortFunc(t.f.FID.String()), name), expr+" = "+val))
	return tr.fromExpr(ctx, tracked{f: caller, flt: cflt, st: cst, at: k}, k, file, arg, 0, suffix)
}

// callStep returns the index of the step of flt that called fid, or -1.
func callStep(flt *trace.FLT, fid trace.FID) int {
	for i := len(flt.Steps) - 1; i >= 0; i-- {
		if slices.Contains(flt.Steps[i].Callees, fid) {
			return i
		}
	}
	return -1
}

// calleeOf returns the recorded callee of step st made by call, matched by
// the called function's name; nil for a call of a function the recording
// does not hold (the standard library).
func (d *diagnoser) calleeOf(st *trace.Step, call *ast.CallExpr) *trace.Frame {
	name := ""
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = fn.Name
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	case *ast.IndexExpr: // generic instantiation f[T](x)
		if id := rootIdent(fn.X); id != nil {
			name = id.Name
			if sel, ok := fn.X.(*ast.SelectorExpr); ok {
				name = sel.Sel.Name
			}
		}
	}
	var found *trace.Frame
	for _, fid := range st.Callees {
		if syntax.FuncName(fid.Func) == name {
			found = d.frame(fid)
		}
	}
	return found
}

// argExpr returns the expression stmt passes to callee for its parameter
// name: the receiver of a method call, or the matching argument.
func (d *diagnoser) argExpr(file *syntax.File, stmt ast.Stmt, callee *trace.Frame, name string) ast.Expr {
	if stmt == nil {
		return nil
	}
	want := syntax.FuncName(callee.FID.Func)
	var call *ast.CallExpr
	ast.Inspect(stmt, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || call != nil {
			return call == nil
		}
		switch fn := ast.Unparen(c.Fun).(type) {
		case *ast.Ident:
			if fn.Name == want {
				call = c
			}
		case *ast.SelectorExpr:
			if fn.Sel.Name == want {
				call = c
			}
		}
		return call == nil
	})
	if call == nil {
		return nil
	}
	recv, params := d.paramNames(callee)
	if recv != "" && name == recv {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	i := slices.Index(params, name)
	if i < 0 || i >= len(call.Args) {
		return nil
	}
	return call.Args[i]
}

// paramNames returns the receiver name and parameter names of frame f's
// function, from its declaration (or, for a function literal, from the
// recorded arguments).
func (d *diagnoser) paramNames(f *trace.Frame) (recv string, params []string) {
	file, err := d.src.File(f.Decl.File)
	if err == nil {
		if fd := file.FuncDecl(f.Decl.Line); fd != nil {
			if fd.Recv != nil && len(fd.Recv.List) > 0 && len(fd.Recv.List[0].Names) > 0 {
				recv = fd.Recv.List[0].Names[0].Name
			}
			for _, fl := range fd.Type.Params.List {
				if len(fl.Names) == 0 {
					params = append(params, "_")
				}
				for _, n := range fl.Names {
					params = append(params, n.Name)
				}
			}
			return recv, params
		}
	}
	return "", argNames(f)
}

// oneLine collapses a statement's source to one line.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}
