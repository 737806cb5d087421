package agent

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"sync"

	"github.com/adi-go/adi/engine/trace"
)

// sources parses Go files on demand and answers questions about their
// syntax: the function around a line, the statement on a line, an
// expression's text. One diagnosis owns one sources.
type sources struct {
	fset  *token.FileSet
	mu    sync.Mutex
	files map[string]*srcFile
}

// srcFile is one parsed file.
type srcFile struct {
	path string
	src  []byte
	ast  *ast.File
	tf   *token.File
	err  error
}

// newSources returns an empty cache.
func newSources() *sources {
	return &sources{fset: token.NewFileSet(), files: map[string]*srcFile{}}
}

// file returns the parsed file at path (absolute), parsing it once.
func (s *sources) file(path string) (*srcFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[path]; ok {
		return f, f.err
	}
	f := &srcFile{path: path}
	s.files[path] = f
	f.src, f.err = os.ReadFile(path)
	if f.err != nil {
		return f, f.err
	}
	f.ast, f.err = parser.ParseFile(s.fset, path, f.src, parser.ParseComments|parser.SkipObjectResolution)
	if f.ast != nil {
		f.tf = s.fset.File(f.ast.Pos())
	}
	if f.err != nil && f.ast != nil && f.tf != nil {
		f.err = nil // partial syntax is still useful
	}
	return f, f.err
}

// line returns the 1-based line of pos.
func (f *srcFile) line(pos token.Pos) int { return f.tf.Line(pos) }

// offset returns the byte offset of pos.
func (f *srcFile) offset(pos token.Pos) int { return f.tf.Offset(pos) }

// text returns the source of n.
func (f *srcFile) text(n ast.Node) string {
	return string(f.src[f.offset(n.Pos()):f.offset(n.End())])
}

// lineText returns line n without its newline ("" when out of range).
func (f *srcFile) lineText(n int) string {
	lines := strings.Split(string(f.src), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// funcAt returns the innermost function (declaration or literal) whose
// span holds line, and its declaration if it is one.
func (f *srcFile) funcAt(line int) (fn ast.Node, decl *ast.FuncDecl) {
	ast.Inspect(f.ast, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if f.line(n.Pos()) > line || f.line(n.End()) < line {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				fn, decl = n, n
			}
		case *ast.FuncLit:
			fn = n
		}
		return true
	})
	return fn, decl
}

// funcDecl returns the declaration of the function declared at line (a
// FuncDecl starting there), or nil.
func (f *srcFile) funcDecl(line int) *ast.FuncDecl {
	for _, d := range f.ast.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && f.line(fd.Pos()) <= line && line <= f.line(fd.Name.Pos()) {
			return fd
		}
	}
	return nil
}

// stmtAt returns the outermost statement starting on line (blocks
// excluded), or nil. For "for i := 0; i < n; i++ {" that is the ForStmt,
// not its init.
func (f *srcFile) stmtAt(line int) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(f.ast, func(n ast.Node) bool {
		if n == nil || found != nil {
			return false
		}
		if f.line(n.Pos()) > line || f.line(n.End()) < line {
			return false
		}
		if st, ok := n.(ast.Stmt); ok && f.line(n.Pos()) == line {
			if _, block := n.(*ast.BlockStmt); !block {
				found = st
				return false
			}
		}
		return true
	})
	return found
}

// enclosingIf returns the innermost if statement whose body (or else
// branch) holds line.
func (f *srcFile) enclosingIf(line int) *ast.IfStmt {
	var found *ast.IfStmt
	ast.Inspect(f.ast, func(n ast.Node) bool {
		if n == nil || f.line(n.Pos()) > line || f.line(n.End()) < line {
			return false
		}
		if is, ok := n.(*ast.IfStmt); ok && f.line(is.Body.Lbrace) <= line {
			found = is
		}
		return true
	})
	return found
}

// funcName is the short name of a runtime function name: "Add" for
// "main.(*Registry).Add", "func1" for "main.main.func1", "Map" for
// "pkg.Map[...]".
func funcName(full string) string {
	full = strings.TrimSuffix(full, "[...]")
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		full = full[i+1:]
	}
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		full = full[i+1:]
	}
	return full
}

// shortFunc drops the package path of a runtime function name:
// "github.com/x/y/pkg.(*T).M" becomes "pkg.(*T).M".
func shortFunc(full string) string {
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		return full[i+1:]
	}
	return full
}

// rootIdent returns the identifier at the base of a selector, index,
// star or paren chain ("r" for r.ports, "s" for s.items[0]), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
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

// eachFunc calls visit once for each function of scope outside the test
// files, with its source file and declaration: the walk every source rule
// starts with.
func (d *diagnoser) eachFunc(ctx context.Context, scope []*trace.Frame, visit func(f *trace.Frame, file *srcFile, fd *ast.FuncDecl)) {
	done := map[string]bool{}
	for _, f := range scope {
		if done[f.FID.Func] || isTestFile(f.Decl.File) || ctx.Err() != nil {
			continue
		}
		done[f.FID.Func] = true
		file, err := d.src.file(f.Decl.File)
		if err != nil {
			continue
		}
		if fd := file.funcDecl(f.Decl.Line); fd != nil {
			visit(f, file, fd)
		}
	}
}
