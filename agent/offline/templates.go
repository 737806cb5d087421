package offline

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"github.com/adi-go/adi/agent/syntax"
)

// Fix templates. Each turns a diagnosed pattern into a minimal edit and is
// used only where the evidence shows the pattern; every fix is verified by
// re-running the tests before it is called a fix.

// exprString renders an expression in Go syntax.
func exprString(e ast.Expr) string { return types.ExprString(e) }

// nilMapFixes makes the map that was never made: for a composite literal
// that left the map field out (`return &Registry{}`), it adds the field
// with an empty map of the field's declared type; for a variable declared
// without a value (`var m map[string]int`), it gives it an empty map.
func (d *diagnoser) nilMapFixes(o origin) []fix {
	if o.file == nil || o.node == nil {
		return nil
	}
	switch o.kind {
	case originComposite:
		lit, ok := ast.Unparen(o.node).(*ast.CompositeLit)
		if u, isAddr := ast.Unparen(o.node).(*ast.UnaryExpr); isAddr {
			lit, ok = u.X.(*ast.CompositeLit)
		}
		field := strings.TrimPrefix(o.suffix, ".")
		if !ok || field == "" || strings.ContainsAny(field, ".[") {
			return nil
		}
		typ := d.fieldType(o.file, lit.Type, field)
		if typ == "" {
			return nil
		}
		if f := addField(o.file, lit, field, typ+"{}"); f != nil {
			f.desc = "make the map " + field + " where the value is built"
			return []fix{*f}
		}
	case originZero:
		st := o.file.StmtAt(o.pos.Line)
		ds, ok := st.(*ast.DeclStmt)
		if !ok || o.suffix != "" {
			return nil
		}
		gd := ds.Decl.(*ast.GenDecl)
		if len(gd.Specs) != 1 {
			return nil
		}
		vs, ok := gd.Specs[0].(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Type == nil || len(vs.Values) != 0 {
			return nil
		}
		typ := o.file.Text(vs.Type)
		return []fix{{desc: "make the map when it is declared", edits: []edit{{
			file: o.file.Path, start: o.file.Offset(vs.Names[0].End()), end: o.file.Offset(vs.Type.End()),
			text: " = " + typ + "{}"}}}}
	}
	return nil
}

// fieldType returns the source text of the type of field in the struct
// type named by typExpr, looked up in the package of file; "" when it is
// not a struct of that package.
func (d *diagnoser) fieldType(file *syntax.File, typExpr ast.Expr, field string) string {
	var name string
	switch t := typExpr.(type) {
	case *ast.Ident:
		name = t.Name
	case *ast.IndexExpr: // generic type
		if id, ok := t.X.(*ast.Ident); ok {
			name = id.Name
		}
	}
	if name == "" {
		return ""
	}
	dir := filepath.Dir(file.Path)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || isTestFile(e.Name()) {
			continue
		}
		f, err := d.src.File(filepath.Join(dir, e.Name()))
		if err != nil || f.AST.Name.Name != file.AST.Name.Name {
			continue
		}
		var typ string
		ast.Inspect(f.AST, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || typ != "" {
				return typ == ""
			}
			st, ok := ts.Type.(*ast.StructType)
			if ts.Name.Name != name || !ok {
				return false
			}
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					if n.Name == field {
						typ = f.Text(fl.Type)
					}
				}
			}
			return false
		})
		if typ != "" {
			return typ
		}
	}
	return ""
}

// addField adds "field: value" to a keyed (or empty) composite literal,
// on the literal's line or on a line of its own when the literal spans
// lines. Positional literals are left alone.
func addField(file *syntax.File, lit *ast.CompositeLit, field, value string) *fix {
	for _, el := range lit.Elts {
		if _, ok := el.(*ast.KeyValueExpr); !ok {
			return nil
		}
	}
	kv := field + ": " + value
	rb := file.Offset(lit.Rbrace)
	if len(lit.Elts) == 0 {
		return &fix{edits: []edit{{file: file.Path, start: rb, end: rb, text: kv}}}
	}
	last := lit.Elts[len(lit.Elts)-1]
	if file.Line(last.End()) == file.Line(lit.Rbrace) {
		end := file.Offset(last.End())
		return &fix{edits: []edit{{file: file.Path, start: end, end: end, text: ", " + kv}}}
	}
	// One element per line: add a line with the last element's indentation.
	line := file.LineText(file.Line(last.Pos()))
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	lineStart := rb - (file.Position(lit.Rbrace).Column - 1)
	return &fix{edits: []edit{{file: file.Path, start: lineStart, end: lineStart, text: indent + kv + ",\n"}}}
}

// ceilDivFix rewrites `a/b + 1`, a page count that is one too large when b
// divides a, as the rounded-up division `(a + b - 1) / b`.
func ceilDivFix(file *syntax.File, node ast.Expr) *fix {
	var found *fix
	ast.Inspect(node, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok || found != nil || be.Op != token.ADD {
			return found == nil
		}
		div, one := be.X, be.Y
		if !isOne(one) {
			div, one = be.Y, be.X
		}
		q, ok := ast.Unparen(div).(*ast.BinaryExpr)
		if !ok || q.Op != token.QUO || !isOne(one) {
			return true
		}
		a, b := file.Text(q.X), file.Text(q.Y)
		if _, simple := q.Y.(*ast.Ident); !simple {
			if _, lit := q.Y.(*ast.BasicLit); !lit {
				b = "(" + b + ")"
			}
		}
		found = &fix{desc: "round the division up", edits: []edit{{
			file: file.Path, start: file.Offset(be.Pos()), end: file.Offset(be.End()),
			text: "(" + a + " + " + b + " - 1) / " + b}}}
		return false
	})
	return found
}

// isOne reports whether e is the literal 1.
func isOne(e ast.Expr) bool {
	bl, ok := ast.Unparen(e).(*ast.BasicLit)
	return ok && bl.Kind == token.INT && bl.Value == "1"
}

// dropOneFix drops the ±1 of b (`n-1` → `n`), a part of outer, which the
// fix's description shows rewritten; ok is false when b is not x±1.
func dropOneFix(file *syntax.File, outer, b ast.Expr) (fix, bool) {
	pm, ok := ast.Unparen(b).(*ast.BinaryExpr)
	if b == nil || !ok || (pm.Op != token.ADD && pm.Op != token.SUB) || !isOne(pm.Y) {
		return fix{}, false
	}
	return replaceFix(file, outer, b, file.Text(pm.X)), true
}

// replaceFix replaces b, a part of outer, by repl.
func replaceFix(file *syntax.File, outer, b ast.Expr, repl string) fix {
	return fix{
		desc:  fmt.Sprintf("`%s` → `%s`", file.Text(outer), replaceIn(file, outer, b, repl)),
		edits: []edit{{file: file.Path, start: file.Offset(b.Pos()), end: file.Offset(b.End()), text: repl}},
	}
}

// maxSliceFixes bounds the off-by-one edits proposed for a statement the
// spectrum ranks first: each costs a verification.
const maxSliceFixes = 4

// sliceEndFixes are the off-by-one edits of the bounds of the slice
// expressions of stmt (function literals left out): a ±1 dropped where a
// bound has one, then the high bound one more and one less, then the low
// bound. `Mean(c[l/2-1 : l/2])`, the middle two of an even length meant,
// gets `c[l/2 : l/2]`, `c[l/2-1 : l/2+1]` and `c[l/2-1 : l/2-1]`.
func sliceEndFixes(file *syntax.File, stmt ast.Node) []fix {
	var drops, adds []fix
	ast.Inspect(stmt, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit, *ast.BlockStmt: // an if's or a loop's body is other statements
			return false
		case *ast.SliceExpr:
			for _, b := range []ast.Expr{x.High, x.Low} {
				if b == nil {
					continue
				}
				if fx, ok := dropOneFix(file, x, b); ok {
					drops = append(drops, fx)
					continue
				}
				t := file.Text(b)
				adds = append(adds, replaceFix(file, x, b, t+"+1"))
				if lit, ok := ast.Unparen(b).(*ast.BasicLit); !ok || lit.Value != "0" {
					adds = append(adds, replaceFix(file, x, b, t+"-1")) // not x[0-1:]
				}
			}
		}
		return true
	})
	out := append(drops, adds...)
	return out[:min(len(out), maxSliceFixes)]
}
