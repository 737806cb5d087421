package offline

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The ends rule: a function that reads one end of a slice and then cuts
// the other end off (`v = s[0]` then `s = s[:len(s)-1]`, or `v =
// s[len(s)-1]` then `s = s[1:]`) hands out an element that stays and drops
// one nobody read: a stack popped from the bottom, a queue from the back.
// The frames of the function show the element read; the fix reads the
// end that is cut off, and verification decides.

// endsFindings looks for reads of one end of a slice that another
// statement of the same function cuts off at the other end.
func (d *diagnoser) endsFindings(ctx context.Context, scope []int32) []*finding {
	var out []*finding
	d.eachFunc(ctx, scope, func(f *trace.Frame, file *syntax.File, fd *ast.FuncDecl) {
		m := endsMismatch(file, fd)
		if m == nil {
			return
		}
		readLine, cutLine := file.Line(m.read.Pos()), file.Line(m.cut.Pos())
		readText, cutText := oneLine(file.Text(m.read)), oneLine(file.Text(m.cut))
		readEnd, cutEnd := "first", "last"
		fixed := "len(" + m.slice + ")-1"
		if !m.first {
			readEnd, cutEnd, fixed = "last", "first", "0"
		}
		name := syntax.ShortFunc(f.FID.Func)
		fnd := &finding{
			method: "slice-ends", root: trace.Pos{File: file.Path, Line: readLine},
			fn: f.FID.Func, fid: f.FID, strength: strengthEnds, confidence: report.Medium,
		}
		claim := fmt.Sprintf("`%s` reads the %s element of %s, and `%s` (line %d) cuts off the %s",
			readText, readEnd, m.slice, cutText, cutLine, cutEnd)
		value := ""
		if flt, _, err := d.flt(ctx, f); err == nil {
			for i := range flt.Steps {
				if st := &flt.Steps[i]; st.Line == readLine && len(st.Changes) > 0 {
					c := st.Changes[0]
					value = c.Var + ": " + c.New.Text
					break
				}
			}
		}
		fnd.evidence = append(fnd.evidence, d.evidence(f, trace.Pos{File: file.Path, Line: readLine}, claim, value))
		// What the calls handed out, one after another.
		var results []string
		var last *trace.Frame
		for i := 1; i <= 4; i++ {
			g, ok := d.rec.Lookup(trace.FID{Func: f.FID.Func, Index: i})
			if !ok || len(g.Results) == 0 {
				break
			}
			results = append(results, g.Results[0].Text)
			last = g
		}
		if len(results) > 1 {
			fnd.evidence = append(fnd.evidence, d.evidence(last, trace.Pos{File: file.Path, Line: file.Line(fd.Pos())},
				fmt.Sprintf("the first %d calls of %s returned %s", len(results), name, strings.Join(results, ", ")), ""))
		}
		fnd.summary = fmt.Sprintf("%s reads the %s element of %s but removes the %s (%s:%d)",
			name, readEnd, m.slice, cutEnd, d.rel(file.Path), readLine)
		fnd.explanation = fmt.Sprintf("`%s` at %s:%d takes the %s element of %s, while `%s` at line %d removes the %s one. "+
			"The element handed out stays in %s, and the one removed is never seen: each call hands out the same end "+
			"while the other shrinks. Read the end that is removed: %s[%s].",
			readText, d.rel(file.Path), readLine, readEnd, m.slice, cutText, cutLine, cutEnd, m.slice, m.slice, fixed)
		fnd.fixes = []fix{{
			desc: fmt.Sprintf("`%s` → `%s[%s]`", oneLine(file.Text(m.index)), m.slice, fixed),
			edits: []edit{{file: file.Path, start: file.Offset(m.index.Index.Pos()), end: file.Offset(m.index.Index.End()),
				text: fixed}},
		}}
		out = append(out, fnd)
	})
	return out
}

// endsHit is a read of one end of a slice that a later statement cuts off
// at the other end.
type endsHit struct {
	read  ast.Stmt       // the statement that reads
	index *ast.IndexExpr // the element read
	cut   *ast.AssignStmt
	slice string // the slice's expression
	first bool   // the read is of the first element (the cut drops the last)
}

// endsMismatch returns the first read in fd of one end of a slice (s[0]
// or s[len(s)-1]) that a later assignment of fd cuts off at the other
// end (s = s[:len(s)-1] or s = s[1:]), nil if there is none. Function
// literals are left out: they run apart.
func endsMismatch(file *syntax.File, fd *ast.FuncDecl) *endsHit {
	if fd.Body == nil {
		return nil
	}
	text := func(e ast.Expr) string { return oneLine(file.Text(e)) }
	// The cuts: of which slice, and whether they drop its last element.
	type cut struct {
		stmt  *ast.AssignStmt
		slice string
		last  bool
	}
	var cuts []cut
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		a, ok := n.(*ast.AssignStmt)
		if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return true
		}
		se, ok := ast.Unparen(a.Rhs[0]).(*ast.SliceExpr)
		if !ok || se.Max != nil || text(se.X) != text(a.Lhs[0]) {
			return true
		}
		s := text(se.X)
		switch {
		case se.Low == nil && se.High != nil && isLenMinusOne(se.High, s, text):
			cuts = append(cuts, cut{a, s, true})
		case se.High == nil && isIntLit(se.Low, "1"):
			cuts = append(cuts, cut{a, s, false})
		}
		return true
	})
	if len(cuts) == 0 {
		return nil
	}
	var hit *endsHit
	var stmt ast.Stmt
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if hit != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case ast.Stmt:
			stmt = n
		case *ast.IndexExpr:
			s := text(n.X)
			first := isIntLit(n.Index, "0")
			if !first && !isLenMinusOne(n.Index, s, text) {
				return true
			}
			for _, c := range cuts {
				// A cut of the other end, after the read; not an element
				// written (a write, or a heap's pop or a swap-remove,
				// which moves the last element to the first).
				if c.slice == s && c.last == first && c.stmt.Pos() > n.Pos() && !written(fd.Body, text(n), text) {
					hit = &endsHit{read: stmt, index: n, cut: c.stmt, slice: s, first: first}
					return false
				}
			}
		}
		return true
	})
	return hit
}

// isLenMinusOne reports whether e is len(s)-1.
func isLenMinusOne(e ast.Expr, s string, text func(ast.Expr) string) bool {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != token.SUB || !isIntLit(b.Y, "1") {
		return false
	}
	c, ok := ast.Unparen(b.X).(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	fn, ok := c.Fun.(*ast.Ident)
	return ok && fn.Name == "len" && text(c.Args[0]) == s
}

// isIntLit reports whether e is the integer literal v.
func isIntLit(e ast.Expr, v string) bool {
	l, ok := ast.Unparen(e).(*ast.BasicLit)
	return ok && l.Kind == token.INT && l.Value == v
}

// written reports whether some assignment of body writes the element
// whose text is elem.
func written(body *ast.BlockStmt, elem string, text func(ast.Expr) string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok {
			for _, l := range a.Lhs {
				found = found || text(l) == elem
			}
		}
		return !found
	})
	return found
}
