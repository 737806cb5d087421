package source

import (
	"fmt"
	"go/ast"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Func is a function, method or function literal of a source file. Lines are
// 1-based lines of the file.
type Func struct {
	// Name is the name the runtime prints (runtime.FuncForPC, panics):
	//   "main.F", "main.T.M", "main.(*T).M", "main.init.0" (init functions
	//   numbered across the package in file order),
	//   "main.Map[...]", "main.(*Stack[...]).Push" (generic functions and
	//   methods of generic types, whatever the instantiation),
	//   "main.F.func1", "main.F.func2" for the function literals directly
	//   inside F, in source order, "main.F.func2.1", "main.F.func2.2" for
	//   those inside F.func2 (and "main.F.func2.2.1" one level deeper),
	//   "main.init.func1" for literals in package-level variable
	//   initialisers (numbered in initialisation order).
	// The names are those of a build without inlining (-gcflags=all=-N -l,
	// as debuggers build); inlining adds the inlined callers' names.
	Name string
	File string
	// Start and End are the lines of the func keyword and the closing brace.
	Start, End int
	// BodyStart and BodyEnd are the lines of the body's braces.
	BodyStart, BodyEnd int
	// Loops are the for and range statements of the body (not of nested
	// function literals), outer loops before the loops they contain.
	Loops []Loop
}

// Contains reports whether line is within the function, header included.
func (f *Func) Contains(line int) bool { return f != nil && f.Start <= line && line <= f.End }

// Loop is a for or range statement.
type Loop struct {
	// Header is the line of the for keyword.
	Header int
	// Start and End are the lines of the whole statement.
	Start, End int
}

func (f Func) clone() Func {
	f.Loops = slices.Clone(f.Loops)
	return f
}

// qualify prefixes a package-relative name with the package path.
func qualify(pkgPath, rel string) string {
	if pkgPath == "" {
		return rel
	}
	return pkgPath + "." + rel
}

// Funcs returns every function, method and function literal of file that
// the compiler keeps, in source order, named as the runtime names them for a
// package with import path pkgPath as the runtime prints it ("main" for
// package main; see RuntimePkgPath). An empty pkgPath leaves names
// unqualified ("F.func1").
//
// Left out are functions without a body, blank functions ("func _()") and
// function literals in code the compiler drops as dead (after a return or
// panic, in "if false" and similar constant conditions), which are not in
// the binary. Bodies of range-over-func loops, which run as functions of
// their own named "F-range1", are not reported: their lines belong to the
// enclosing function.
//
// Numbering literals needs the package: the other files of the directory
// with the same package clause that match the build context (and for a
// _test.go file the package's test files) are read too.
func (c *Cache) Funcs(file string, pkgPath string) ([]Func, error) {
	e, err := c.file(file)
	if err != nil {
		return nil, err
	}
	if e.parseErr != nil {
		return nil, fmt.Errorf("cannot list the functions of %s: %w", e.name(), e.parseErr)
	}
	a := c.pkgAnalysis(e)
	rel := a.funcs[e.path]
	out := make([]Func, len(rel))
	for i, f := range rel {
		out[i] = f.clone()
		out[i].Name = qualify(pkgPath, f.Name)
	}
	return out, nil
}

// FuncAt returns the innermost function (declared or literal) containing
// line of file.
func (c *Cache) FuncAt(file string, line int, pkgPath string) (*Func, error) {
	e, err := c.file(file)
	if err != nil {
		return nil, err
	}
	if err := e.checkLine(line); err != nil {
		return nil, err
	}
	fns, err := c.Funcs(file, pkgPath)
	if err != nil {
		return nil, err
	}
	var best *Func
	for i := range fns {
		f := &fns[i]
		if !f.Contains(line) {
			continue
		}
		if best == nil || f.End-f.Start < best.End-best.Start {
			best = f
		}
	}
	if best == nil {
		return nil, kindErrorf(ErrNoFunc, "%s:%d is not inside any function", e.name(), line)
	}
	return best, nil
}

// FuncByName looks name up among the functions of files. Names match as
// the runtime prints them, and also:
//   - without the package path when that is pkgPath ("F.func1");
//   - with any text in brackets ("main.Map[go.shape.int]", Delve's spelling)
//     or none ("main.Map") for a generic function;
//   - with "%2e" for a dot in the package path's last element;
//   - a range-over-func body "main.F-range1" and the wrappers
//     "main.F.gowrap1"/"main.F.deferwrap1" resolve to the enclosing function.
func (c *Cache) FuncByName(files []string, name string, pkgPath string) (*Func, error) {
	if name == "" {
		return nil, kindErrorf(ErrNoFunc, "no function name given")
	}
	var all []Func
	var errs []string
	done := map[string]bool{}
	for _, f := range files {
		if abs, err := absPath(f); err == nil {
			if done[abs] {
				continue
			}
			done[abs] = true
		}
		fns, err := c.Funcs(f, pkgPath)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		all = append(all, fns...)
	}
	queries := []string{name}
	if base := stripWrapper(name); base != name {
		queries = append(queries, base)
	}
	for _, q := range queries {
		for _, strict := range []bool{true, false} {
			for _, cand := range []string{q, qualify(pkgPath, q)} {
				want := nameKey(cand, strict)
				var hits []int
				for i := range all {
					if nameKey(all[i].Name, strict) == want {
						hits = append(hits, i)
					}
				}
				switch len(hits) {
				case 0:
					continue
				case 1:
					f := all[hits[0]]
					return &f, nil
				default:
					var names []string
					for _, h := range hits {
						names = append(names, fmt.Sprintf("%s (%s:%d)", all[h].Name, filepath.Base(all[h].File), all[h].Start))
					}
					return nil, kindErrorf(ErrNoFunc, "%s is ambiguous: %s", name, strings.Join(names, ", "))
				}
			}
		}
	}
	var where []string
	for _, f := range files {
		where = append(where, filepath.Base(f))
	}
	msg := fmt.Sprintf("function %s is not declared in %s", name, strings.Join(where, ", "))
	if len(errs) > 0 {
		msg += " (" + strings.Join(errs, "; ") + ")"
	}
	return nil, kindErrorf(ErrNoFunc, "%s", msg)
}

// stripWrapper maps the name of a compiler-made function that runs code of
// an enclosing function (range-over-func body, go/defer wrapper) to the
// enclosing function's name.
func stripWrapper(name string) string {
	for {
		i := strings.LastIndexAny(name, ".-")
		if i < 0 {
			return name
		}
		suffix := name[i:]
		var prefix string
		switch {
		case strings.HasPrefix(suffix, "-range"):
			prefix = "-range"
		case strings.HasPrefix(suffix, ".gowrap"):
			prefix = ".gowrap"
		case strings.HasPrefix(suffix, ".deferwrap"):
			prefix = ".deferwrap"
		default:
			return name
		}
		digits := suffix[len(prefix):]
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return name
		}
		name = name[:i]
	}
}

// nameKey normalises a function name for comparison: text in brackets
// becomes "[...]" (strict) or is removed, "%2e" becomes ".".
func nameKey(name string, strict bool) string {
	name = strings.ReplaceAll(name, "%2e", ".")
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			if depth == 0 && strict {
				b.WriteString("[...]")
			}
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RuntimePkgPath returns an import path as the runtime prints it in function
// names: dots in the last element, and a few other bytes, escaped
// ("gopkg.in/yaml.v3" → "gopkg.in/yaml%2ev3").
func RuntimePkgPath(importPath string) string {
	slash := strings.LastIndex(importPath, "/")
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(importPath); i++ {
		c := importPath[i]
		if c <= ' ' || (c == '.' && i > slash) || c == '%' || c == '"' || c >= 0x7F {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// StmtLines returns the sorted lines on which statements of fn's body start,
// not counting the statements of function literals inside it. It returns nil
// when fn is not found in file.
func (c *Cache) StmtLines(file string, fn *Func) []int {
	if fn == nil {
		return nil
	}
	e, err := c.file(file)
	if err != nil || e.ast == nil {
		return nil
	}
	var body *ast.BlockStmt
	ast.Inspect(e.ast, func(n ast.Node) bool {
		if body != nil {
			return false
		}
		var b *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			b = n.Body
		case *ast.FuncLit:
			b = n.Body
		default:
			return true
		}
		if b != nil && e.line(n.Pos()) == fn.Start && e.line(b.Lbrace) == fn.BodyStart && e.line(b.Rbrace) == fn.BodyEnd {
			body = b
			return false
		}
		return true
	})
	if body == nil {
		return nil
	}
	seen := map[int]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt, *ast.EmptyStmt, *ast.LabeledStmt, *ast.BadStmt:
			return true
		case ast.Stmt:
			if l := e.line(n.Pos()); l > 0 {
				seen[l] = true
			}
		}
		return true
	})
	lines := make([]int, 0, len(seen))
	for l := range seen {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	return lines
}
