package offline

import (
	"context"
	"fmt"
	"go/ast"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The value-receiver rule: a method with a value receiver that assigns to
// the receiver's fields changes a copy; the change is lost when the method
// returns (unless it returns the receiver). The trace shows the write in
// ΔS; the fix is a pointer receiver.

// receiverFindings looks for lost writes in the methods invoked in scope.
func (d *diagnoser) receiverFindings(ctx context.Context, scope []int32) []*finding {
	var out []*finding
	d.eachFunc(ctx, scope, func(f *trace.Frame, file *syntax.File, fd *ast.FuncDecl) {
		if fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 {
			return
		}
		recvType := fd.Recv.List[0].Type
		if _, ptr := recvType.(*ast.StarExpr); ptr {
			return
		}
		recv := fd.Recv.List[0].Names[0].Name
		write := receiverWrite(fd, recv)
		if write == nil || returnsIdent(fd, recv) {
			return
		}
		wline := file.Line(write.Pos())
		fnd := &finding{
			method: "value-receiver", root: trace.Pos{File: file.Path, Line: file.Line(fd.Pos())},
			fn: f.FID.Func, fid: f.FID, strength: strengthReceiver, confidence: report.Medium,
		}
		writeText := oneLine(file.Text(write))
		typ := file.Text(recvType)
		// The trace shows the write landing in the copy.
		if flt, _, err := d.flt(ctx, f); err == nil {
			for i, step := range flt.Steps {
				if step.Line != wline {
					continue
				}
				if c := changedVar(&flt.Steps[i], recv); c != nil {
					old := ""
					if c.Old != nil {
						old = c.Old.Text + " → "
					}
					fnd.evidence = append(fnd.evidence, d.evidence(f, step.Pos,
						fmt.Sprintf("`%s` changes %s, %s's own copy of the %s", writeText, recv, syntax.ShortFunc(f.FID.String()), typ),
						recv+": "+old+c.New.Text))
				}
				break
			}
		}
		fnd.evidence = append(fnd.evidence, d.evidence(f, trace.Pos{File: file.Path, Line: file.Line(fd.Pos())},
			fmt.Sprintf("%s has a value receiver (%s %s): the caller's %s is not changed", syntax.ShortFunc(f.FID.Func), recv, typ, typ), ""))
		fnd.summary = fmt.Sprintf("%s has a value receiver, so `%s` changes a copy and the caller's %s never changes (%s:%d)",
			syntax.ShortFunc(f.FID.Func), writeText, typ, d.rel(file.Path), file.Line(fd.Pos()))
		fnd.explanation = fmt.Sprintf("%s is declared on %s, not *%s, so it runs on a copy of the value it is called on. "+
			"`%s` at %s:%d updates that copy, which is dropped when the method returns; the caller's %s keeps its old value. "+
			"Give the method a pointer receiver.", syntax.ShortFunc(f.FID.Func), typ, typ, writeText, d.rel(file.Path), wline, typ)
		fnd.fixes = []fix{{
			desc:  fmt.Sprintf("`func (%s %s)` → `func (%s *%s)`", recv, typ, recv, typ),
			edits: []edit{{file: file.Path, start: file.Offset(recvType.Pos()), end: file.Offset(recvType.Pos()), text: "*"}},
		}}
		out = append(out, fnd)
	})
	return out
}

// receiverWrite returns the first statement of fd that assigns to a field
// of (or increments a field of) the receiver recv.
func receiverWrite(fd *ast.FuncDecl, recv string) ast.Stmt {
	var found ast.Stmt
	isRecvField := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id := rootIdent(sel)
		return id != nil && id.Name == recv
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if isRecvField(l) {
					found = s
				}
			}
		case *ast.IncDecStmt:
			if isRecvField(s.X) {
				found = s
			}
		}
		return true
	})
	return found
}

// returnsIdent reports whether fd returns the variable name (a method that
// returns its modified receiver is a builder, not a bug).
func returnsIdent(fd *ast.FuncDecl, name string) bool {
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok {
			for _, e := range r.Results {
				if id := rootIdent(e); id != nil && id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
