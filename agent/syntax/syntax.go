// Package syntax reads the target's Go files for the diagnosers: each file
// parsed once into a Cache, and the questions the rules and the LLM's
// source tool ask of it — the function around a line, the statement on a
// line, a node's text — plus the short forms of runtime function names.
package syntax

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"sync"
)

// Cache parses Go files on demand and answers questions about their
// syntax: the function around a line, the statement on a line, an
// expression's text. One diagnosis owns one Cache.
type Cache struct {
	fset  *token.FileSet
	mu    sync.Mutex
	files map[string]*File
	// replace maps absolute paths to the files that replace them (""
	// deletes them): see Overlay.
	replace map[string]string
}

// Overlay makes the cache read each file that replace names (by absolute
// path) from its replacement, as the go command built the target with
// -overlay (see target.SplitOverlay), and a file replaced by "" deleted:
// the syntax is that of the lines that ran, which the traces show. Call it
// before the first File.
func (s *Cache) Overlay(replace map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replace = replace
}

// File is one parsed file.
type File struct {
	// Path is the file's absolute path; its content is the overlay's
	// replacement when there is one (see Overlay).
	Path string
	// Src is its content and AST its syntax tree (partial when the file
	// does not parse completely).
	Src []byte
	AST *ast.File
	tf  *token.File
	err error
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{fset: token.NewFileSet(), files: map[string]*File{}}
}

// File returns the parsed file at path (absolute), parsing it once.
func (s *Cache) File(path string) (*File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[path]; ok {
		return f, f.err
	}
	f := &File{Path: path}
	s.files[path] = f
	read, ok := s.replace[path]
	switch {
	case !ok:
		f.Src, f.err = os.ReadFile(path)
	case read == "":
		f.err = &os.PathError{Op: "open", Path: path, Err: errDeleted}
	default:
		f.Src, f.err = os.ReadFile(read)
	}
	if f.err != nil {
		return f, f.err
	}
	f.AST, f.err = parser.ParseFile(s.fset, path, f.Src, parser.ParseComments|parser.SkipObjectResolution)
	if f.AST != nil {
		f.tf = s.fset.File(f.AST.Pos())
	}
	if f.err != nil && f.AST != nil && f.tf != nil {
		f.err = nil // partial syntax is still useful
	}
	return f, f.err
}

// errDeleted is the error of a file that the build's overlay deletes.
var errDeleted = fmt.Errorf("%w (deleted by the build's -overlay)", os.ErrNotExist)

// Line returns the 1-based line of pos.
func (f *File) Line(pos token.Pos) int { return f.tf.Line(pos) }

// Position returns the file, line and column of pos.
func (f *File) Position(pos token.Pos) token.Position { return f.tf.Position(pos) }

// Offset returns the byte offset of pos.
func (f *File) Offset(pos token.Pos) int { return f.tf.Offset(pos) }

// Text returns the source of n.
func (f *File) Text(n ast.Node) string {
	return string(f.Src[f.Offset(n.Pos()):f.Offset(n.End())])
}

// LineText returns line n without its newline ("" when out of range).
func (f *File) LineText(n int) string {
	lines := strings.Split(string(f.Src), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// FuncAt returns the innermost function (declaration or literal) whose
// span holds line, and its declaration if it is one.
func (f *File) FuncAt(line int) (fn ast.Node, decl *ast.FuncDecl) {
	ast.Inspect(f.AST, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if f.Line(n.Pos()) > line || f.Line(n.End()) < line {
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

// FuncDecl returns the declaration of the function declared at line (a
// FuncDecl starting there), or nil.
func (f *File) FuncDecl(line int) *ast.FuncDecl {
	for _, d := range f.AST.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && f.Line(fd.Pos()) <= line && line <= f.Line(fd.Name.Pos()) {
			return fd
		}
	}
	return nil
}

// StmtAt returns the outermost statement starting on line (blocks
// excluded), or nil. For "for i := 0; i < n; i++ {" that is the ForStmt,
// not its init.
func (f *File) StmtAt(line int) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(f.AST, func(n ast.Node) bool {
		if n == nil || found != nil {
			return false
		}
		if f.Line(n.Pos()) > line || f.Line(n.End()) < line {
			return false
		}
		if st, ok := n.(ast.Stmt); ok && f.Line(n.Pos()) == line {
			if _, block := n.(*ast.BlockStmt); !block {
				found = st
				return false
			}
		}
		return true
	})
	return found
}

// EnclosingIf returns the innermost if statement whose body (or else
// branch) holds line.
func (f *File) EnclosingIf(line int) *ast.IfStmt {
	var found *ast.IfStmt
	ast.Inspect(f.AST, func(n ast.Node) bool {
		if n == nil || f.Line(n.Pos()) > line || f.Line(n.End()) < line {
			return false
		}
		if is, ok := n.(*ast.IfStmt); ok && f.Line(is.Body.Lbrace) <= line {
			found = is
		}
		return true
	})
	return found
}

// FuncName is the short name of a runtime function name: "Add" for
// "main.(*Registry).Add", "func1" for "main.main.func1", "Map" for
// "pkg.Map[...]".
func FuncName(full string) string {
	full = strings.TrimSuffix(full, "[...]")
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		full = full[i+1:]
	}
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		full = full[i+1:]
	}
	return full
}

// ShortFunc drops the package path of a runtime function name:
// "github.com/x/y/pkg.(*T).M" becomes "pkg.(*T).M".
func ShortFunc(full string) string {
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		return full[i+1:]
	}
	return full
}
