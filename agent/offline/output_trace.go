package offline

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The output rule's reading of the trace of the frame that built the
// rejected string (see rule_output.go): from the step that wrote the
// first wrong byte back to the statement that decided it, and the syntax
// it asks about (which statements write to the string, assign a variable,
// write constants).

// outputTrace is the trace of the frame that built a string, and where in
// it the string went wrong.
type outputTrace struct {
	d     *diagnoser
	file  *syntax.File
	st    *frameState
	frame *trace.Frame
	// name is the variable the string was built in; wrote the step that
	// wrote its first wrong byte (len(steps) if none did), lastWrite the
	// step that wrote before it.
	name             string
	wrote, lastWrite int
	// wrongByte is the first wrong byte, wantByte the one wanted there,
	// missing the bytes missing (quoted); gotByte the wrong byte itself,
	// missingRaw the bytes missing.
	wrongByte, wantByte, missing string
	gotByte, missingRaw          string
	// wanted is the wanted string from the first wrong byte on; got and
	// want the two strings, k the first wrong byte (set for a string
	// built by writes).
	wanted    string
	got, want string
	k         int
	stmts     map[int]ast.Stmt
}

// skippedWrite finds why bytes are missing: after the last right write, a
// branch not taken that writes the wanted bytes, else the first condition
// whose skipped branch writes to the string; with none, the write after
// the gap or the one before it (see below).
func (o *outputTrace) skippedWrite() (int, string) {
	steps := o.st.flt.Steps
	if j, claim := o.wantedWrite(o.lastWrite + 1); j >= 0 {
		return j, claim
	}
	for i := o.lastWrite + 1; i < o.wrote && i < len(steps); i++ {
		conds, branch, val := o.skipped(i, false)
		if branch == nil {
			continue
		}
		if w := writeIn(branch, o.name); w != nil {
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so `%s` (line %d) did not run", oneLine(steps[i].Stmt), val,
				oneLine(o.file.Text(w)), o.file.Line(w.Pos())))
		}
	}
	// No write was skipped: the write after the gap wrote too little at
	// its start, when the constants it writes follow the missing bytes
	// in the wanted string (`b.WriteString(" ")` for ", "); else the last
	// write before the gap at its end.
	if o.wrote < len(steps) {
		if lits, ok := literalBytes(o.stmt(o.wrote)); ok && strings.HasPrefix(o.wanted, o.missingRaw+string(lits)) {
			return o.wrote, fmt.Sprintf("`%s` wrote %s where %s was wanted", oneLine(steps[o.wrote].Stmt),
				strconv.Quote(string(lits)), strconv.Quote(o.missingRaw+string(lits)))
		}
	}
	if o.lastWrite >= 0 {
		return o.lastWrite, fmt.Sprintf("`%s` wrote the bytes up to the gap, and no condition after it skipped a write: %s should have come with them",
			oneLine(steps[o.lastWrite].Stmt), o.missing)
	}
	return -1, ""
}

// letThrough finds the condition that let the write of bytes too many run:
// the innermost if around the write, at its last run before it.
func (o *outputTrace) letThrough() (int, string) {
	steps := o.st.flt.Steps
	ws := steps[o.wrote]
	is := o.file.EnclosingIf(ws.Line)
	if is == nil {
		return -1, ""
	}
	line := o.file.Line(is.Pos())
	for i := o.wrote - 1; i > o.lastWrite; i-- {
		if steps[i].Line == line && steps[i].File == ws.File {
			return o.decided(i, []ast.Expr{is.Cond}, fmt.Sprintf("`%s` let `%s` (line %d) run", oneLine(steps[i].Stmt), oneLine(ws.Stmt), ws.Line))
		}
	}
	return -1, ""
}

// wrongValue finds what made the written byte wrong: the last assignment
// that changed a variable the write reads; else the condition whose
// skipped branch would have changed one, traced to the assignment that
// decided it.
func (o *outputTrace) wrongValue() (int, string) {
	ws := o.st.flt.Steps[o.wrote]
	stmt := o.stmt(o.wrote)
	if stmt == nil {
		return -1, ""
	}
	from := o.writeIteration()
	if j, claim := o.wantedWrite(from); j >= 0 {
		return j, claim
	}
	if j, claim := o.wrongVar(writtenVars(stmt, o.name)); j >= 0 {
		return j, claim
	}
	// Nothing changed what it wrote, nor skipped a change: the write
	// itself, unless it writes constants that are not the wrong byte (a
	// placeholder, `append(str, 0, 0, 0, 0)`, that a call then fills in).
	lits, constant := literalBytes(stmt)
	if constant && !bytes.Contains(lits, []byte(o.gotByte)) {
		return -1, ""
	}
	if constant {
		return o.wrote, fmt.Sprintf("`%s` wrote %s where %s belongs, a constant of its own", oneLine(ws.Stmt), o.wrongByte, o.wantByte)
	}
	if pc, _, ok := o.writtenFormat(stmt); ok {
		return o.wrote, fmt.Sprintf("the format of `%s` writes %s, with %s where %s belongs", oneLine(ws.Stmt), strconv.Quote(pc.text), o.wrongByte, o.wantByte)
	}
	return o.wrote, fmt.Sprintf("`%s` wrote %s where %s belongs, from values no statement before it changed",
		oneLine(ws.Stmt), o.wrongByte, o.wantByte)
}

// writeIteration returns the first step of the iteration that wrote the
// wrong byte, or the step after the last right write if that is later:
// the branches that decided the byte are those it ran.
func (o *outputTrace) writeIteration() int {
	if h := o.iterationOf(o.wrote); h > o.lastWrite {
		return h
	}
	return o.lastWrite + 1
}

// wrongVar finds what made one of the variables read, which step wrote
// wrong, wrong: its last assignment, if that changed it, else the
// condition whose skipped branch would have (see wrongValue); -1 if
// neither.
func (o *outputTrace) wrongVar(read []string) (int, string) {
	steps := o.st.flt.Steps
	ws := steps[o.wrote]
	for _, x := range read {
		if j := o.lastAssign(x, o.wrote); j >= 0 && isUpdate(o.stmt(j)) {
			return j, fmt.Sprintf("`%s` made %s %s, which `%s` (line %d) wrote", oneLine(steps[j].Stmt), x,
				o.valueAfter(j, x), oneLine(ws.Stmt), ws.Line)
		}
	}
	from := o.writeIteration()
	for i := from; i < o.wrote; i++ {
		conds, branch, val := o.skipped(i, false)
		if branch == nil {
			continue
		}
		for _, x := range read {
			if !assigns(branch, x) {
				continue
			}
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so %s was not changed before `%s` (line %d) wrote it",
				oneLine(steps[i].Stmt), val, x, oneLine(ws.Stmt), ws.Line))
		}
	}
	return -1, ""
}

// wantedWrite finds, from step from on, a branch that did not run whose write writes constants the wanted string
// has at the first wrong byte (`case '\t': out = append(out, '\\', 't')`
// not taken): the branch that should have run.
func (o *outputTrace) wantedWrite(from int) (int, string) {
	if o.wanted == "" {
		return -1, ""
	}
	steps := o.st.flt.Steps
	for i := from; i < o.wrote && i < len(steps); i++ {
		conds, branch, val := o.skipped(i, true)
		if branch == nil {
			continue
		}
		w := writeIn(branch, o.name)
		if w == nil {
			continue
		}
		if lits, ok := literalBytes(w); ok && strings.HasPrefix(o.wanted, string(lits)) {
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so `%s` (line %d), which writes the %s wanted there, did not run",
				oneLine(steps[i].Stmt), val, oneLine(o.file.Text(w)), o.file.Line(w.Pos()), strconv.Quote(string(lits))))
		}
	}
	return -1, ""
}

// concatenation finds, when the frame returns a concatenation (`return
// strconv.Itoa(x) + suffix`), the operand holding byte k of got: the
// variable's name, or lit for a string literal; ok is false when the
// operands' values (one at most unknown, a call's) do not make got.
func concatenation(file *syntax.File, st *frameState, got string, k int) (x string, lit, ok bool) {
	steps := st.flt.Steps
	if len(steps) == 0 {
		return "", false, false
	}
	ret, isRet := file.StmtAt(steps[len(steps)-1].Line).(*ast.ReturnStmt)
	if !isRet || len(ret.Results) == 0 {
		return "", false, false
	}
	var operands []ast.Expr
	var flatten func(e ast.Expr)
	flatten = func(e ast.Expr) {
		if be, isAdd := ast.Unparen(e).(*ast.BinaryExpr); isAdd && be.Op == token.ADD {
			flatten(be.X)
			flatten(be.Y)
			return
		}
		operands = append(operands, ast.Unparen(e))
	}
	flatten(ret.Results[0])
	if len(operands) < 2 {
		return "", false, false
	}
	vars := st.before(len(steps) - 1)
	vals := make([]*string, len(operands))
	known, unknown := 0, 0
	for i, e := range operands {
		var v string
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			if e.Kind != token.STRING || err != nil {
				return "", false, false
			}
			v = s
		case *ast.Ident:
			s, n, ok := stringValue(vars[e.Name])
			if !ok || n != len(s) {
				return "", false, false
			}
			v = s
		default:
			unknown++
			continue
		}
		vals[i] = &v
		known += len(v)
	}
	if unknown > 1 || known > len(got) || unknown == 0 && known != len(got) {
		return "", false, false
	}
	off := 0
	for i, e := range operands {
		n := len(got) - known
		if vals[i] != nil {
			n = len(*vals[i])
			if got[off:off+n] != *vals[i] {
				return "", false, false
			}
		}
		if off <= k && k < off+n {
			switch e := e.(type) {
			case *ast.Ident:
				return e.Name, false, true
			case *ast.BasicLit:
				return "", true, true
			}
			return "", false, false
		}
		off += n
	}
	return "", false, false
}

// decided returns the step that decided the if of step i, with what
// happened: the if itself, or, when its condition reads a variable that
// carries state into the loop's iteration (set in an earlier iteration or
// before the loop: capNext, first), the assignment that last set it. A
// variable computed in the same iteration is part of the condition.
func (o *outputTrace) decided(i int, conds []ast.Expr, what string) (int, string) {
	h := o.iterationOf(i)
	if h < 0 {
		return i, what
	}
	steps := o.st.flt.Steps
	var names []string
	for _, c := range conds {
		names = append(names, idents(c)...)
	}
	for _, y := range names {
		j := o.lastAssign(y, i)
		if j < 0 || j >= h {
			continue
		}
		if _, ok := o.stmt(j).(*ast.AssignStmt); ok {
			return j, fmt.Sprintf("`%s` made %s %s; then %s", oneLine(steps[j].Stmt), y, o.valueAfter(j, y), what)
		}
	}
	return i, what
}

// iterationOf returns the step that began the iteration of the innermost
// loop around step i (its header's last step before it), -1 if step i is
// in no loop.
func (o *outputTrace) iterationOf(i int) int {
	steps := o.st.flt.Steps
	loop := innermostLoop(o.file, steps[i].Line)
	if loop == nil {
		return -1
	}
	header := o.file.Line(loop.Pos())
	for j := i - 1; j >= 0; j-- {
		if steps[j].Line == header && steps[j].File == steps[i].File {
			return j
		}
	}
	return -1
}

// innermostLoop returns the innermost for statement around line, nil if
// there is none.
func innermostLoop(file *syntax.File, line int) ast.Stmt {
	var loop ast.Stmt
	ast.Inspect(file.AST, func(n ast.Node) bool {
		if n == nil || file.Line(n.Pos()) > line || file.Line(n.End()) < line {
			return false
		}
		switch s := n.(type) {
		case *ast.ForStmt:
			loop = s
		case *ast.RangeStmt:
			loop = s
		case *ast.FuncLit:
			return false
		}
		return true
	})
	return loop
}

// vars shows, as they were before step i ran, the variables of the
// innermost loop around it (which iteration it was) and those its
// statement reads.
func (o *outputTrace) vars(i int) string {
	var names []string
	switch l := innermostLoop(o.file, o.st.flt.Steps[i].Line).(type) {
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{l.Key, l.Value} {
			if id, ok := e.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok {
			for _, e := range as.Lhs {
				names = append(names, idents(e)...)
			}
		}
	}
	names = append(names, idents(o.exprOf(i))...)
	before := o.st.before(i)
	var out []string
	for _, x := range names {
		if v, ok := before[x]; ok && x != o.name && !slicesContainsPrefix(out, x+" = ") {
			out = append(out, x+" = "+v.Text)
		}
	}
	return strings.Join(out, ", ")
}

// skipped returns, when step i is an if or (with cases) a switch's case
// whose branch did not run, the condition (the case's expressions), that
// branch and the condition's value; a nil branch otherwise. A skipped
// else if is a step of its own. Cases are for the wanted bytes' search
// only: of a switch whose cases all write, all but one are skipped in
// every run.
func (o *outputTrace) skipped(i int, cases bool) ([]ast.Expr, ast.Node, bool) {
	steps := o.st.flt.Steps
	if i+1 >= len(steps) || steps[i+1].File != steps[i].File {
		return nil, nil, false
	}
	next := steps[i+1].Line
	switch s := o.stmt(i).(type) {
	case *ast.IfStmt:
		if o.file.Line(s.Pos()) != steps[i].Line {
			return nil, nil, false
		}
		if !(o.file.Line(s.Body.Lbrace) < next && next < o.file.Line(s.Body.Rbrace)) {
			return []ast.Expr{s.Cond}, s.Body, false
		}
		if blk, ok := s.Else.(*ast.BlockStmt); ok {
			return []ast.Expr{s.Cond}, blk, true
		}
	case *ast.CaseClause:
		// A case's body runs on the lines after its colon.
		if cases && len(s.Body) > 0 && !(o.file.Line(s.Colon) < next && next <= o.file.Line(s.End())) {
			return s.List, &ast.BlockStmt{List: s.Body}, false
		}
	}
	return nil, nil, false
}

// lastAssign returns the last step before step `before` that assigned the
// variable x (whether or not its value changed), a loop's header that sets
// it included; -1 if none did.
func (o *outputTrace) lastAssign(x string, before int) int {
	for j := before - 1; j >= 0; j-- {
		if setsVar(o.stmt(j), x) {
			return j
		}
	}
	return -1
}

// valueAfter renders the variable x after step j.
func (o *outputTrace) valueAfter(j int, x string) string {
	if v, ok := o.st.afterStep(j)[x]; ok {
		return v.Text
	}
	return "?"
}

// stmt returns the statement of step i (cached by line: the rule looks up
// the same lines again and again).
func (o *outputTrace) stmt(i int) ast.Stmt {
	st := o.st.flt.Steps[i]
	if st.File != o.file.Path {
		return nil
	}
	if s, ok := o.stmts[st.Line]; ok {
		return s
	}
	if o.stmts == nil {
		o.stmts = map[int]ast.Stmt{}
	}
	s := o.file.StmtAt(st.Line)
	o.stmts[st.Line] = s
	return s
}

// exprOf returns what step i's statement reads: an if's condition, an
// assignment's right side, a call's arguments.
func (o *outputTrace) exprOf(i int) ast.Expr {
	switch s := o.file.StmtAt(o.st.flt.Steps[i].Line).(type) {
	case *ast.IfStmt:
		return s.Cond
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			return s.Rhs[0]
		}
	case *ast.IncDecStmt:
		return s.X
	case *ast.ExprStmt:
		return s.X
	}
	return nil
}

// writeIn returns the first statement of n that writes to the string in
// variable name: a Write… method called on it, an assignment to it
// (s += …, buf = append(buf, …)), fmt.Fprint… into it.
func writeIn(n ast.Node, name string) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		switch s := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			if call, ok := s.X.(*ast.CallExpr); ok && writesTo(call, name) {
				found = s
			}
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					found = s
				}
			}
		}
		return true
	})
	return found
}

// writesTo reports whether call writes to the string in variable name.
func writesTo(call *ast.CallExpr, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && strings.HasPrefix(sel.Sel.Name, "Write") {
		return true
	}
	if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Fprint") && len(call.Args) > 0 {
		w := call.Args[0]
		if u, ok := w.(*ast.UnaryExpr); ok && u.Op == token.AND {
			w = u.X // fmt.Fprintf(&buf, …)
		}
		if root := rootIdent(w); root != nil && root.Name == name {
			return true
		}
	}
	return false
}

// writtenVars returns the variables a write to the string in name reads for
// what it writes: a Write call's arguments, an assignment's right side.
func writtenVars(stmt ast.Stmt, name string) []string {
	var e []ast.Expr
	switch s := stmt.(type) {
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			e = call.Args
		}
	case *ast.AssignStmt:
		e = s.Rhs
	}
	var out []string
	for _, x := range e {
		for _, id := range idents(x) {
			if id != name {
				out = append(out, id)
			}
		}
	}
	return out
}

// allocates reports whether stmt makes a slice, whose bytes are zeros
// until written by index (`output := make([]byte, count)`).
func allocates(stmt ast.Stmt) bool {
	var rhs []ast.Expr
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		rhs = s.Rhs
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range gd.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					rhs = append(rhs, vs.Values...)
				}
			}
		}
	}
	for _, e := range rhs {
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && callName(call) == "make" {
			return true
		}
	}
	return false
}

// literalBytes returns the bytes a write of constants writes (`append(b,
// '=', 0)`, `b.WriteString(", ")`); ok is false when it writes anything
// else.
func literalBytes(stmt ast.Stmt) ([]byte, bool) {
	lits, ok := literalArgs(stmt)
	if !ok {
		return nil, false
	}
	var out []byte
	for _, lit := range lits {
		b, ok := litBytes(lit)
		if !ok {
			return nil, false
		}
		out = append(out, b...)
	}
	return out, true
}

// literalArgs returns the arguments of a write of constants (see
// literalBytes), in order; ok is false when stmt writes anything else.
func literalArgs(stmt ast.Stmt) ([]*ast.BasicLit, bool) {
	var args []ast.Expr
	switch s := stmt.(type) {
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		args = call.Args
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			return nil, false
		}
		call, ok := s.Rhs[0].(*ast.CallExpr)
		if !ok || callName(call) != "append" || len(call.Args) < 2 {
			return nil, false
		}
		args = call.Args[1:]
	default:
		return nil, false
	}
	lits := make([]*ast.BasicLit, len(args))
	for i, a := range args {
		lit, ok := a.(*ast.BasicLit)
		if !ok {
			return nil, false
		}
		lits[i] = lit
	}
	return lits, len(lits) > 0
}

// litBytes returns the bytes a constant argument of a write writes: a
// string's, or the one byte of a rune or integer below 256.
func litBytes(lit *ast.BasicLit) ([]byte, bool) {
	switch lit.Kind {
	case token.STRING:
		v, err := strconv.Unquote(lit.Value)
		return []byte(v), err == nil
	case token.CHAR:
		v, _, _, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		return []byte{byte(v)}, err == nil && v <= 0xff
	case token.INT:
		v, err := strconv.ParseUint(lit.Value, 0, 8)
		return []byte{byte(v)}, err == nil
	}
	return nil, false
}

// isUpdate reports whether stmt changes a variable that exists already (=,
// op=, ++, --), rather than declaring one or being a loop's header.
func isUpdate(stmt ast.Stmt) bool {
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	case *ast.IncDecStmt:
		return true
	}
	return false
}

// setsVar reports whether stmt itself (not a statement in its body) sets
// the variable x: an assignment or declaration, ++ or --, a loop header.
func setsVar(stmt ast.Stmt, x string) bool {
	is := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == x
	}
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		return slices.ContainsFunc(s.Lhs, is)
	case *ast.IncDecStmt:
		return is(s.X)
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok {
			return false
		}
		for _, sp := range gd.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, n := range vs.Names {
					if n.Name == x {
						return true
					}
				}
			}
		}
	case *ast.RangeStmt:
		return s.Key != nil && is(s.Key) || s.Value != nil && is(s.Value)
	case *ast.ForStmt:
		return s.Init != nil && setsVar(s.Init, x) || s.Post != nil && setsVar(s.Post, x)
	}
	return false
}

// assigns reports whether n assigns to the variable x.
func assigns(n ast.Node, x string) bool {
	found := false
	ast.Inspect(n, func(c ast.Node) bool {
		switch s := c.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == x {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := s.X.(*ast.Ident); ok && id.Name == x {
				found = true
			}
		}
		return !found
	})
	return found
}
