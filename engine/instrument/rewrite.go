package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Site is one instrumented function (declaration or literal).
type Site struct {
	File string
	Line int
	// Params are the names of the receiver and the parameters, in order,
	// as the debug information names them; Results likewise.
	Params  []string
	Results []string
}

// rtName is the name the rewritten files import the runtime under.
const rtName = "__adirt"

// edit inserts text at offset off of the source, replacing del bytes.
type edit struct {
	off  int
	del  int
	text string
	seq  int
}

// rewriter rewrites one file.
type rewriter struct {
	fset  *token.FileSet
	src   []byte
	file  *ast.File
	tf    *token.File
	path  string
	edits []edit
	sites []Site
	first int // id of the file's first site
	notes []string
	// count: only the counting hook, at the entry (see rewriteFile).
	count bool
}

// rewriteFile returns the instrumented text of the file at path, whose
// sites are numbered from first, or a reason why the file is left as it
// is (skip != ""). With count, the text calls only the counting hook
// (adirt.C), at the entry of each function, for the debug build that
// re-executions run: nothing else of the program changes.
func rewriteFile(path string, src []byte, first int, rtImport string, count bool) (out []byte, sites []Site, notes []string, skip string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, nil, "does not parse: " + err.Error()
	}
	for _, imp := range f.Imports {
		if imp.Path.Value == `"C"` {
			return nil, nil, nil, "uses cgo (import \"C\")"
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			switch {
			case strings.HasPrefix(c.Text, "//line ") || strings.HasPrefix(c.Text, "/*line "):
				return nil, nil, nil, "has //line directives (generated code)"
			case strings.HasPrefix(c.Text, "//go:linkname"):
				return nil, nil, nil, "uses //go:linkname"
			}
		}
	}
	r := &rewriter{fset: fset, src: src, file: f, tf: fset.File(f.Pos()), path: path, first: first, count: count}
	ast.Inspect(f, r.visit)
	if len(r.sites) == 0 {
		return nil, nil, r.notes, "no function bodies to instrument"
	}
	r.add(r.off(f.Name.End()), fmt.Sprintf("; import %s %q", rtName, rtImport))
	// Last edit first; of edits at one offset, the later one first, so
	// that the text of the earlier one ends up in front.
	for i := range r.edits {
		r.edits[i].seq = i
	}
	sort.Slice(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		return a.off > b.off || a.off == b.off && a.seq > b.seq
	})
	b := append([]byte(nil), src...)
	for _, e := range r.edits {
		b = append(b[:e.off], append([]byte(e.text), b[e.off+e.del:]...)...)
	}
	if bytes.Count(b, []byte("\n")) != bytes.Count(src, []byte("\n")) {
		return nil, nil, nil, "internal error: the rewrite would move lines"
	}
	return b, r.sites, r.notes, ""
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

func (r *rewriter) add(off int, text string) {
	r.edits = append(r.edits, edit{off: off, text: text})
}

func (r *rewriter) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if n.Body == nil {
			return false // assembly or linkname: nothing to rewrite
		}
		if d := directive(n.Doc); d != "" {
			r.notes = append(r.notes, fmt.Sprintf("%s: func %s not instrumented (%s)", r.fset.Position(n.Pos()), n.Name.Name, d))
			return true
		}
		r.function(n.Recv, n.Type, n.Body)
	case *ast.FuncLit:
		r.function(nil, n.Type, n.Body)
	}
	if r.count {
		return true
	}
	switch n := n.(type) {
	case *ast.GoStmt:
		r.add(r.off(n.Pos()), rtName+".Go(); ")
	case *ast.DeferStmt:
		// (See function for how the target's own defers are kept from
		// being open-coded.) "defer recover()" must stay as it is:
		// wrapped, recover would be called when the defer statement runs.
		if isRecover(n.Call) {
			for _, a := range n.Call.Args {
				ast.Inspect(a, r.visit)
			}
			return false
		}
	case *ast.CallExpr:
		if isRecover(n) {
			r.add(r.off(n.Pos()), rtName+".Rec(")
			r.add(r.off(n.End()), ")")
		}
	}
	return true
}

// isRecover reports whether call is a call of the built-in recover.
func isRecover(call *ast.CallExpr) bool {
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "recover" && len(call.Args) == 0
}

// directive returns the first //go: directive of a function's comment that
// rules out hooks (see noHooks), "" if none.
func directive(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	for _, c := range doc.List {
		if d, ok := strings.CutPrefix(c.Text, "//go:"); ok && noHooks[strings.Fields(d + " ")[0]] {
			return strings.Fields(c.Text)[0]
		}
	}
	return ""
}

// noHooks are the compiler directives under which a function cannot call
// the hooks: nosplit (the hooks need a stack check and more stack than a
// nosplit chain may use), the runtime's own (systemstack, write barriers),
// and those that change how arguments are passed or kept (uintptrescapes,
// cgo_unsafe_args), whose addresses the hooks take. Any other directive
// leaves a function instrumentable: noinline, norace, nocheckptr, and
// those the compiler does not know and ignores (//go:inline).
var noHooks = map[string]bool{
	"nosplit": true, "systemstack": true, "nowritebarrier": true, "nowritebarrierrec": true,
	"yeswritebarrierrec": true, "uintptrescapes": true, "cgo_unsafe_args": true,
	"uintptrkeepalive": true, "noescape": true,
}

// function inserts the hooks after the opening brace of body.
func (r *rewriter) function(recv *ast.FieldList, typ *ast.FuncType, body *ast.BlockStmt) {
	id := r.first + len(r.sites)
	site := Site{File: r.path, Line: r.fset.Position(body.Lbrace).Line}
	if typ.Func.IsValid() {
		site.Line = r.fset.Position(typ.Func).Line
	}
	if r.count {
		r.add(r.off(body.Lbrace)+1, " "+rtName+".C();")
		r.sites = append(r.sites, site)
		return
	}
	var args, res []string
	k := 0
	for _, fl := range []*ast.FieldList{recv, typ.Params} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			if len(f.Names) == 0 {
				name := fmt.Sprintf("__adi_p%d", k)
				r.add(r.off(f.Type.Pos()), name+" ")
				args = append(args, "&"+name)
				site.Params = append(site.Params, fmt.Sprintf("~p%d", k))
				k++
				continue
			}
			for _, n := range f.Names {
				name := n.Name
				if name == "_" {
					name = fmt.Sprintf("__adi_p%d", k)
					r.edits = append(r.edits, edit{off: r.off(n.Pos()), del: 1, text: name})
				}
				args = append(args, "&"+name)
				site.Params = append(site.Params, n.Name)
				k++
			}
		}
	}
	if typ.Results != nil {
		paren := typ.Results.Opening.IsValid()
		if !paren {
			r.add(r.off(typ.Results.Pos()), "(")
		}
		i := 0
		for _, f := range typ.Results.List {
			if len(f.Names) == 0 {
				name := fmt.Sprintf("__adi_r%d", i)
				r.add(r.off(f.Type.Pos()), name+" ")
				res = append(res, "&"+name)
				site.Results = append(site.Results, "~r"+strconv.Itoa(i))
				i++
				continue
			}
			for _, n := range f.Names {
				name := n.Name
				shown := name
				if name == "_" {
					name = fmt.Sprintf("__adi_r%d", i)
					shown = "~r" + strconv.Itoa(i)
					r.edits = append(r.edits, edit{off: r.off(n.Pos()), del: 1, text: name})
				}
				res = append(res, "&"+name)
				site.Results = append(site.Results, shown)
				i++
			}
		}
		if !paren {
			r.add(r.off(typ.Results.End()), ")")
		}
	}
	var b strings.Builder
	b.WriteString(" __adi := ")
	b.WriteString(rtName)
	if len(args) <= 4 {
		fmt.Fprintf(&b, ".E%d(%d", len(args), id)
	} else {
		fmt.Fprintf(&b, ".EN(%d", id)
	}
	for _, a := range args {
		b.WriteString(", " + a)
	}
	b.WriteString("); defer " + rtName)
	if len(res) <= 3 {
		fmt.Fprintf(&b, ".X%d(__adi", len(res))
	} else {
		b.WriteString(".XN(__adi")
	}
	for _, a := range res {
		b.WriteString(", " + a)
	}
	b.WriteString(");")
	if hasDefer(body) {
		// The function's own defers must not be open-coded: the deferred
		// calls are then made by runtime.deferreturn, at the line of the
		// return, as in the debug build the Delve recorder runs (-N has no
		// open-coded defers). The compiler does not open-code the defers
		// of a function whose returns times defers exceed 15: returns that
		// never run (Never is false, which the compiler cannot know) make
		// eight more. Unlike a defer in a loop, which the compiler does
		// not open-code either, these keep the defers' records and the
		// variables their calls use on the stack. The exit hook's own
		// defer stays open-coded in every function without a defer
		// statement.
		b.WriteString(strings.Repeat(" if "+rtName+".Never { return };", openDeferReturns))
	}
	r.add(r.off(body.Lbrace)+1, b.String())
	r.sites = append(r.sites, site)
}

// openDeferReturns is the number of returns that never run which keep a
// function with two defers or more from having them open-coded (the
// compiler's bound is 15 for returns times defers).
const openDeferReturns = 8

// hasDefer reports whether body has a defer statement of its own (not of
// a function literal in it).
func hasDefer(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}
