package source

import (
	"go/ast"
	"go/build"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Function literals are named by the compiler per enclosing function, in
// the order it reads them, which is source order, leaving out the literals of
// code it drops as dead (cmd/compile/internal/noder, writer.stmts, ifStmt,
// forStmt, switchStmt, staticBool, terminates). Literals of package-level
// variable initialisers belong to the package's init function and are read
// in initialisation order (types.Info.InitOrder), and init functions are
// numbered init.0, init.1… over the package's files. So naming needs the
// whole package and the constant values of conditions: the package is
// type-checked with go/types, imports stubbed (only unsafe and the
// runtime.GOOS/GOARCH constants are known; a condition depending on another
// package is taken as not constant).

// pkgKey identifies the package a file is analysed with.
type pkgKey struct {
	dir  string
	name string // package clause
	test bool   // the analysed file is a _test.go file
}

type fileStamp struct {
	name string
	mod  time.Time
	size int64
}

// pkgEntry is the analysis of one package: the functions of each of its
// files, names relative to the package.
type pkgEntry struct {
	stamps []fileStamp
	funcs  map[string][]Func // by absolute path
}

// pkgAnalysis returns the current analysis of the package of e.
func (c *Cache) pkgAnalysis(e *fileEntry) *pkgEntry {
	dir := filepath.Dir(e.path)
	key := pkgKey{dir: dir, name: e.ast.Name.Name, test: strings.HasSuffix(e.path, "_test.go")}
	stamps := c.dirStamps(dir)
	if stamps == nil {
		stamps = []fileStamp{{filepath.Base(e.path), e.mod, e.size}}
	}
	c.mu.Lock()
	p := c.pkgs[key]
	c.mu.Unlock()
	if p != nil && slices.Equal(p.stamps, stamps) && p.funcs[e.path] != nil {
		return p
	}
	p = analyse(e, key, stamps, c.actual)
	c.mu.Lock()
	c.pkgs[key] = p
	c.mu.Unlock()
	return p
}

// dirStamps lists the .go files of dir with their stamps, as the overlay
// has them (see Overlay): the files it adds are in, those it deletes out,
// and those it replaces have their replacement's stamp.
func (c *Cache) dirStamps(dir string) []fileStamp {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := map[string]bool{}
	for _, d := range ents {
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") {
			names[d.Name()] = true
		}
	}
	c.mu.Lock()
	for p := range c.replace {
		if filepath.Dir(p) == dir && strings.HasSuffix(p, ".go") {
			names[filepath.Base(p)] = true
		}
	}
	c.mu.Unlock()
	var out []fileStamp
	for _, name := range slices.Sorted(maps.Keys(names)) {
		read := c.actual(filepath.Join(dir, name))
		if read == "" {
			continue
		}
		fi, err := os.Stat(read)
		if err != nil || fi.IsDir() {
			continue
		}
		out = append(out, fileStamp{name, fi.ModTime(), fi.Size()})
	}
	return out
}

// analyse parses the files of e's package, each read from the file that
// actual names (see Cache.actual), and names their functions.
func analyse(e *fileEntry, key pkgKey, stamps []fileStamp, actual func(string) string) *pkgEntry {
	fset := token.NewFileSet()
	self := filepath.Base(e.path)
	var regular, tests []*ast.File
	paths := map[*ast.File]string{}
	selfSeen := false
	add := func(name string, f *ast.File) {
		paths[f] = filepath.Join(key.dir, name)
		if strings.HasSuffix(name, "_test.go") {
			tests = append(tests, f)
		} else {
			regular = append(regular, f)
		}
	}
	// Build constraints are read from the files as the overlay has them.
	bctx := build.Default
	bctx.OpenFile = func(p string) (io.ReadCloser, error) { return os.Open(actual(p)) }
	for _, st := range stamps {
		isTest := strings.HasSuffix(st.name, "_test.go")
		if st.name == self {
			selfSeen = true
		} else {
			if isTest && !key.test {
				continue
			}
			if ok, err := bctx.MatchFile(key.dir, st.name); err != nil || !ok {
				continue
			}
		}
		path := filepath.Join(key.dir, st.name)
		var src any
		switch read := actual(path); {
		case st.name == self:
			src = e.src
		case read != path:
			b, err := os.ReadFile(read)
			if err != nil {
				continue
			}
			src = b
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil || f == nil || f.Name == nil || f.Name.Name != key.name {
			continue
		}
		add(st.name, f)
	}
	if !selfSeen { // the directory could not be listed
		if f, err := parser.ParseFile(fset, e.path, e.src, parser.SkipObjectResolution); err == nil {
			add(self, f)
		}
	}
	files := append(regular, tests...)

	info := typeCheck(fset, key.name, files)
	n := &namer{fset: fset, info: info, names: map[*ast.FuncLit]string{}}

	// Package-level initialisers, in initialisation order; those the type
	// checker left out follow in source order.
	var inits []ast.Expr
	done := map[ast.Expr]bool{}
	if info != nil {
		for _, in := range info.InitOrder {
			if in.Rhs != nil && !done[in.Rhs] {
				inits = append(inits, in.Rhs)
				done[in.Rhs] = true
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if !done[v] {
						inits = append(inits, v)
						done[v] = true
					}
				}
			}
		}
	}
	initCtx := &scope{outer: "init"}
	for _, x := range inits {
		n.expr(x, initCtx)
	}

	// Declared functions; init functions are numbered over the package.
	p := &pkgEntry{stamps: stamps, funcs: map[string][]Func{}}
	initN := 0
	for _, f := range files {
		path := paths[f]
		var fns []Func
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := declName(fd)
			if fd.Recv == nil && fd.Name.Name == "init" {
				name = "init." + strconv.Itoa(initN)
				initN++
			}
			if fd.Name.Name == "_" || fd.Body == nil {
				continue
			}
			fns = append(fns, n.makeFunc(path, fd, fd.Body, name))
			n.stmts(fd.Body.List, &scope{outer: name})
		}
		// Function literals, declared or package-level.
		ast.Inspect(f, func(x ast.Node) bool {
			if fl, ok := x.(*ast.FuncLit); ok {
				if name, ok := n.names[fl]; ok {
					fns = append(fns, n.makeFunc(path, fl, fl.Body, name))
				}
			}
			return true
		})
		slices.SortStableFunc(fns, func(a, b Func) int {
			if a.Start != b.Start {
				return a.Start - b.Start
			}
			return b.End - a.End
		})
		if fns == nil {
			fns = []Func{}
		}
		p.funcs[path] = fns
	}
	if p.funcs[e.path] == nil {
		p.funcs[e.path] = []Func{}
	}
	return p
}

// declName is the package-relative runtime name of a declared function.
func declName(fd *ast.FuncDecl) string {
	name := fd.Name.Name
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
			name += "[...]"
		}
		return name
	}
	t := fd.Recv.List[0].Type
	for {
		p, ok := t.(*ast.ParenExpr)
		if !ok {
			break
		}
		t = p.X
	}
	ptr := false
	if s, ok := t.(*ast.StarExpr); ok {
		ptr = true
		t = s.X
		for {
			p, ok := t.(*ast.ParenExpr)
			if !ok {
				break
			}
			t = p.X
		}
	}
	var recv string
	switch x := t.(type) {
	case *ast.Ident:
		recv = x.Name
	case *ast.IndexExpr:
		recv = typeName(x.X) + "[...]"
	case *ast.IndexListExpr:
		recv = typeName(x.X) + "[...]"
	default:
		recv = typeName(t)
	}
	if ptr {
		recv = "(*" + recv + ")"
	}
	return recv + "." + name
}

func typeName(x ast.Expr) string {
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// typeCheck type-checks files for constant values, the builtin panic and the
// initialisation order; errors (there are many, imports are stubs) are
// ignored. It returns nil if the checker fails.
func typeCheck(fset *token.FileSet, name string, files []*ast.File) (info *types.Info) {
	defer func() {
		if recover() != nil {
			info = nil
		}
	}()
	info = &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	conf := types.Config{
		Importer:    &stubImporter{pkgs: map[string]*types.Package{}},
		Error:       func(error) {},
		FakeImportC: true,
	}
	conf.Check(name, fset, files, info)
	return info
}

// stubImporter provides empty packages, except unsafe and the build
// context's runtime.GOOS and runtime.GOARCH.
type stubImporter struct{ pkgs map[string]*types.Package }

func (s *stubImporter) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p := s.pkgs[path]; p != nil {
		return p, nil
	}
	p := types.NewPackage(path, guessName(path))
	if path == "runtime" {
		str := types.Typ[types.String]
		p.Scope().Insert(types.NewConst(token.NoPos, p, "GOOS", str, constant.MakeString(build.Default.GOOS)))
		p.Scope().Insert(types.NewConst(token.NoPos, p, "GOARCH", str, constant.MakeString(build.Default.GOARCH)))
	}
	p.MarkComplete()
	s.pkgs[path] = p
	return p, nil
}

// guessName guesses a package's name from its import path.
func guessName(path string) string {
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	return name
}

// scope is a function being named into: literals directly inside it are
// outer+".func"+N for a declared function (or init), outer+"."+N for a
// literal.
type scope struct {
	outer   string
	literal bool
	n       int
}

type namer struct {
	fset  *token.FileSet
	info  *types.Info
	names map[*ast.FuncLit]string
}

func (n *namer) line(p token.Pos) int {
	return n.fset.PositionFor(p, false).Line
}

func (n *namer) makeFunc(path string, decl ast.Node, body *ast.BlockStmt, name string) Func {
	f := Func{
		Name:      name,
		File:      path,
		Start:     n.line(decl.Pos()),
		End:       n.line(decl.End()),
		BodyStart: n.line(body.Lbrace),
		BodyEnd:   n.line(body.Rbrace),
	}
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			f.Loops = append(f.Loops, Loop{Header: n.line(x.For), Start: n.line(x.Pos()), End: n.line(x.End())})
		case *ast.RangeStmt:
			f.Loops = append(f.Loops, Loop{Header: n.line(x.For), Start: n.line(x.Pos()), End: n.line(x.End())})
		}
		return true
	})
	return f
}

// lit names a function literal in scope s and names the literals of its
// body.
func (n *namer) lit(fl *ast.FuncLit, s *scope) {
	s.n++
	sep := ".func"
	if s.literal {
		sep = "."
	}
	name := s.outer + sep + strconv.Itoa(s.n)
	n.names[fl] = name
	if fl.Body != nil {
		n.stmts(fl.Body.List, &scope{outer: name, literal: true})
	}
}

// expr names the literals of an expression (or of any node that holds no
// statements but those of function literals), in source order.
func (n *namer) expr(x ast.Node, s *scope) {
	if x == nil {
		return
	}
	ast.Inspect(x, func(y ast.Node) bool {
		if fl, ok := y.(*ast.FuncLit); ok {
			n.lit(fl, s)
			return false
		}
		return true
	})
}

// stmts follows writer.stmts: statements after a terminating statement are
// dropped, unless a label follows.
func (n *namer) stmts(list []ast.Stmt, s *scope) {
	lastLabel := -1
	for i, st := range list {
		if _, ok := st.(*ast.LabeledStmt); ok {
			lastLabel = i
		}
	}
	dead := false
	for i, st := range list {
		if dead && i > lastLabel {
			if _, ok := st.(*ast.LabeledStmt); !ok {
				continue
			}
		}
		n.stmt(st, s)
		dead = n.terminates(st)
	}
}

func (n *namer) stmt(st ast.Stmt, s *scope) {
	switch st := st.(type) {
	case nil:
	case *ast.BlockStmt:
		n.stmts(st.List, s)
	case *ast.LabeledStmt:
		n.stmt(st.Stmt, s)
	case *ast.IfStmt:
		n.stmt(st.Init, s)
		c, cond := n.staticBool(st.Cond)
		n.expr(cond, s)
		if c >= 0 {
			n.stmts(st.Body.List, s)
		}
		if c <= 0 {
			n.stmt(st.Else, s)
		}
	case *ast.ForStmt:
		cond, post, body := st.Cond, st.Post, st.Body.List
		if cond != nil {
			var c int
			if c, cond = n.staticBool(cond); c < 0 {
				post, body = nil, nil
			}
		}
		n.stmt(st.Init, s)
		n.expr(cond, s)
		n.stmt(post, s)
		n.stmts(body, s)
	case *ast.RangeStmt:
		n.expr(st.Key, s)
		n.expr(st.Value, s)
		n.expr(st.X, s)
		n.stmts(st.Body.List, s)
	case *ast.SwitchStmt:
		n.stmt(st.Init, s)
		n.expr(st.Tag, s)
		for _, cl := range n.liveClauses(st) {
			cc := cl.(*ast.CaseClause)
			for _, x := range cc.List { // constant (no literal) when reduced
				n.expr(x, s)
			}
			n.stmts(cc.Body, s)
		}
	case *ast.TypeSwitchStmt:
		n.stmt(st.Init, s)
		n.stmt(st.Assign, s)
		for _, cl := range st.Body.List {
			n.stmts(cl.(*ast.CaseClause).Body, s)
		}
	case *ast.SelectStmt:
		for _, cl := range st.Body.List {
			cc := cl.(*ast.CommClause)
			n.stmt(cc.Comm, s)
			n.stmts(cc.Body, s)
		}
	default:
		n.expr(st, s)
	}
}

// liveClauses returns the clauses of a switch statement the compiler keeps.
func (n *namer) liveClauses(st *ast.SwitchStmt) []ast.Stmt {
	target, ok := n.switchTarget(st)
	if !ok {
		return st.Body.List
	}
	if target == nil {
		return nil
	}
	return []ast.Stmt{target}
}

// switchTarget follows writer.switchStmt: for a constant tag (or none) and
// constant cases, the one clause always taken (nil for none); ok is false
// when the switch is not reduced.
func (n *namer) switchTarget(st *ast.SwitchStmt) (target *ast.CaseClause, ok bool) {
	var tag constant.Value
	if st.Tag != nil {
		tag = n.constValue(st.Tag)
	} else {
		tag = constant.MakeBool(true)
	}
	if tag == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil { // incomparable constants: not reduced
			target, ok = nil, false
		}
	}()
outer:
	for _, cl := range st.Body.List {
		cc := cl.(*ast.CaseClause)
		if cc.List == nil {
			target = cc
		}
		for _, x := range cc.List {
			v := n.constValue(x)
			if v == nil {
				return nil, false
			}
			if constant.Compare(tag, token.EQL, v) {
				target = cc
				break outer
			}
		}
	}
	if target != nil && hasFallthrough(target.Body) {
		return nil, false
	}
	return target, true
}

func hasFallthrough(list []ast.Stmt) bool {
	st := lastNonEmpty(list)
	for {
		l, ok := st.(*ast.LabeledStmt)
		if !ok {
			break
		}
		st = l.Stmt
	}
	b, ok := st.(*ast.BranchStmt)
	return ok && b.Tok == token.FALLTHROUGH
}

func lastNonEmpty(list []ast.Stmt) ast.Stmt {
	for i := len(list) - 1; i >= 0; i-- {
		if _, ok := list[i].(*ast.EmptyStmt); !ok {
			return list[i]
		}
	}
	return nil
}

func (n *namer) constValue(x ast.Expr) constant.Value {
	if n.info == nil || x == nil {
		return nil
	}
	tv, ok := n.info.Types[x]
	if !ok {
		return nil
	}
	return tv.Value
}

// staticBool follows the compiler's staticBool: +1 for a condition always
// true, -1 always false, 0 unknown, and the expression the compiler keeps
// (it drops the operand of && and || that cannot matter).
func (n *namer) staticBool(x ast.Expr) (int, ast.Expr) {
	if v := n.constValue(x); v != nil && v.Kind() == constant.Bool {
		if constant.BoolVal(v) {
			return +1, x
		}
		return -1, x
	}
	switch e := x.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			c, sub := n.staticBool(e.X)
			cp := *e
			cp.X = sub
			return c, &cp
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			c, xx := n.staticBool(e.X)
			if c < 0 {
				return c, xx
			}
			d, yy := n.staticBool(e.Y)
			if c > 0 || d < 0 {
				if n.constValue(xx) != nil {
					return d, yy
				}
				cp := *e
				cp.X, cp.Y = xx, yy
				return d, &cp
			}
			cp := *e
			cp.X, cp.Y = xx, yy
			return 0, &cp
		case token.LOR:
			c, xx := n.staticBool(e.X)
			if c > 0 {
				return c, xx
			}
			d, yy := n.staticBool(e.Y)
			if c < 0 || d > 0 {
				if n.constValue(xx) != nil {
					return d, yy
				}
				cp := *e
				cp.X, cp.Y = xx, yy
				return d, &cp
			}
			cp := *e
			cp.X, cp.Y = xx, yy
			return 0, &cp
		}
	}
	return 0, x
}

// terminates follows the compiler's terminates.
func (n *namer) terminates(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.BranchStmt:
		return st.Tok == token.GOTO
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		x := st.X
		for {
			p, ok := x.(*ast.ParenExpr)
			if !ok {
				break
			}
			x = p.X
		}
		if call, ok := x.(*ast.CallExpr); ok {
			return n.isBuiltinPanic(call.Fun)
		}
	case *ast.IfStmt:
		c, _ := n.staticBool(st.Cond)
		var els bool
		if st.Else != nil {
			els = n.terminates(st.Else)
		}
		return (c < 0 || n.terminates(st.Body)) && (c > 0 || els)
	case *ast.BlockStmt:
		return n.terminates(lastNonEmpty(st.List))
	}
	return false
}

func (n *namer) isBuiltinPanic(fun ast.Expr) bool {
	for {
		p, ok := fun.(*ast.ParenExpr)
		if !ok {
			break
		}
		fun = p.X
	}
	id, ok := fun.(*ast.Ident)
	if !ok || id.Name != "panic" {
		return false
	}
	if n.info == nil {
		return true
	}
	obj, ok := n.info.Uses[id]
	if !ok {
		return true
	}
	b, ok := obj.(*types.Builtin)
	return ok && b.Name() == "panic"
}
