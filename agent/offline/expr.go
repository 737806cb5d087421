package offline

import (
	"go/ast"
	"go/parser"
)

// rootIdent returns the identifier at the base of a selector, index,
// star or paren chain ("r" for r.ports, "s" for s.items[0], "T" for a
// receiver's *T[K, V]), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// idents returns the distinct variable names an expression reads, in order
// of appearance, leaving out the names of called functions, selected
// fields, package qualifiers, types in conversions and the predeclared
// constants.
func idents(e ast.Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch x := n.(type) {
		case nil:
		case *ast.Ident:
			switch x.Name {
			case "nil", "true", "false", "iota", "_":
				return
			}
			if !seen[x.Name] {
				seen[x.Name] = true
				out = append(out, x.Name)
			}
		case *ast.SelectorExpr:
			walk(x.X)
		case *ast.CallExpr:
			if _, ok := x.Fun.(*ast.Ident); !ok {
				walk(x.Fun)
			}
			for _, a := range x.Args {
				walk(a)
			}
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				walk(el)
			}
		case *ast.KeyValueExpr:
			walk(x.Value)
		case *ast.FuncLit:
		default:
			ast.Inspect(n, func(m ast.Node) bool {
				if m == n {
					return true
				}
				if m != nil {
					walk(m)
				}
				return false
			})
		}
	}
	walk(e)
	return out
}

// parseExpr parses a Go expression, nil when it does not parse.
func parseExpr(s string) ast.Expr {
	e, err := parser.ParseExpr(s)
	if err != nil {
		return nil
	}
	return e
}

// identCall splits a call x.Name(…) made on a name (a variable or a
// package): ok is false for any other call.
func identCall(call *ast.CallExpr) (x *ast.Ident, name string, ok bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, "", false
	}
	x, ok = sel.X.(*ast.Ident)
	if !ok {
		return nil, "", false
	}
	return x, sel.Sel.Name, true
}
