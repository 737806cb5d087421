package offline

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"time"

	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// lastResultIsError tells whether the function that call calls returns an
// error as its last result; known is false when adi cannot tell. The call
// is made by step (its statement), with vars the frame's variables then.
// A function of the module is known by its recorded results (a callee of
// the step); a library function or method by its declaration in its
// package's source, where go list finds it (the standard library's in
// GOROOT): `file, _ := fn.FileLine(pc)` discards a line number,
// `data, _ := os.ReadFile(name)` an error. A method of an interface is not
// known.
func (d *diagnoser) lastResultIsError(ctx context.Context, file *syntax.File, call *ast.CallExpr, step *trace.Step, vars map[string]*trace.Value) (isErr, known bool) {
	var name string
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = fun.Name
	case *ast.SelectorExpr:
		name = fun.Sel.Name
	default:
		return false, false
	}
	for _, c := range step.Callees {
		if calleeName(c) != name {
			continue
		}
		if f, err := d.rec.Frame(c); err == nil && len(f.Results) > 0 {
			return f.Results[len(f.Results)-1].Type == "error", true
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false, false
	}
	pkg, recv := "", ""
	if p, _ := d.libraryFunc(file, call); p != "" {
		pkg = p
	} else if id, ok := sel.X.(*ast.Ident); ok && vars[id.Name] != nil {
		// A method of the value's type, "*runtime.Func" or
		// "example.com/x/y.T": the package is up to the last dot after
		// the last slash.
		typ := strings.TrimLeft(vars[id.Name].Type, "*")
		dot := strings.LastIndexByte(typ, '.')
		if dot < 0 || dot < strings.LastIndexByte(typ, '/') || strings.ContainsAny(typ, "[]{} ") {
			return false, false
		}
		pkg, recv = typ[:dot], typ[dot+1:]
	} else {
		return false, false
	}
	decl := d.declIn(ctx, pkg, recv, name)
	if decl == nil || decl.Type.Results == nil || len(decl.Type.Results.List) == 0 {
		return false, false
	}
	res := decl.Type.Results.List
	id, ok := res[len(res)-1].Type.(*ast.Ident)
	return ok && id.Name == "error", true
}

// declIn returns the declaration of function name of package pkg (an
// import path), a method of its type recv when recv is set; nil when its
// source cannot be found. Packages read are kept for the diagnosis.
func (d *diagnoser) declIn(ctx context.Context, pkg, recv, name string) *ast.FuncDecl {
	if d.decls == nil {
		d.decls = map[string]map[string]*ast.FuncDecl{}
	}
	decls, ok := d.decls[pkg]
	if !ok {
		decls = funcDecls(d.packageDir(ctx, pkg))
		d.decls[pkg] = decls
	}
	if recv != "" {
		name = recv + "." + name
	}
	return decls[name]
}

// packageDir returns the directory of package pkg's source (the standard
// library's in GOROOT), "" if it is not found: where go list finds it, run
// in the target's package, with its toolchain and module.
func (d *diagnoser) packageDir(ctx context.Context, pkg string) string {
	if d.pkg == nil {
		return ""
	}
	r := gocmd.Run(ctx, d.pkg.Dir, d.pkg.Target.Env, time.Minute, "go", "list", "-f", "{{.Dir}}", "--", pkg)
	if !r.OK() {
		return ""
	}
	return strings.TrimSpace(r.Stdout)
}

// funcDecls returns the functions declared in the Go files of dir (not
// its tests), by name: "F", or "T.M" for a method of T or *T. Files for
// other systems are read too: their declarations have the same
// signatures.
func funcDecls(dir string) map[string]*ast.FuncDecl {
	out := map[string]*ast.FuncDecl{}
	if dir == "" {
		return out
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, path := range names {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				key = recvName(fd.Recv.List[0].Type) + "." + key
			}
			if _, dup := out[key]; !dup {
				out[key] = fd
			}
		}
	}
	return out
}

// recvName is the name of a receiver's type: T for T, *T, T[K] and *T[K].
func recvName(e ast.Expr) string {
	if id := rootIdent(e); id != nil {
		return id.Name
	}
	return ""
}
