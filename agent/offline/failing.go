package offline

import (
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// failure is one failed assertion of a test, read from its frame's trace:
// the if statement whose body called t.Errorf (or Fatal…), and the frames
// whose results it rejected.
type failure struct {
	test *trace.Frame
	// step is the t.Errorf step; ifStep the step of the if guarding it
	// (-1 when there is none), or the step before it when the if's line
	// is no stop (see ifStepOf); ifPos is the if's position.
	step, ifStep int
	ifPos        trace.Pos
	cond         string
	// wrong are the frames whose results fed the failed condition.
	wrong []*trace.Frame
	// message is what the test printed for this assertion.
	message string
}

// testFailRE matches the statements by which a test reports a failure;
// testLogRE those by which it logs (t.Logf), whose lines in the output
// read as a failure's do.
var (
	testFailRE = regexp.MustCompile(`\.(Errorf|Error|Fatalf|Fatal|Fail|FailNow)\(`)
	testLogRE  = regexp.MustCompile(`\.(Logf|Log)\(`)
)

// outputLineRE matches a test's report line: "    file_test.go:21: msg".
// The file is not always a test's: a helper of the module that does not
// call t.Helper() reports its own line (testutil.go:82).
var outputLineRE = regexp.MustCompile(`(?m)^\s+(\w[\w.-]*\.go):(\d+): (.*)$`)

// testRoots returns the Seqs of the frames of the failing tests' functions.
func (d *diagnoser) testRoots() []int32 {
	var out []int32
	for _, name := range d.rec.Outcome.FailedTests {
		if strings.Contains(name, "/") {
			continue
		}
		var seqs []int32
		for _, fn := range d.rec.Funcs() {
			if syntax.FuncName(fn) == name && isTestFile(d.rec.DeclOf(fn).File) {
				seqs = append(seqs, d.rec.InvocationSeqs(fn)...)
			}
		}
		slices.Sort(seqs) // in order of entry
		out = append(out, seqs...)
	}
	return out
}

// ranFailedTest reports whether the frame at seq ran a test that failed,
// by the name of the test its *testing.T argument runs; ok is false when
// it has none.
func (d *diagnoser) ranFailedTest(seq int) (failed, ok bool) {
	for _, a := range d.rec.At(seq).Args {
		name, whole, isTest := a.TestName()
		if !isTest {
			continue
		}
		for _, f := range d.rec.Outcome.FailedTests {
			if f == name || !whole && strings.HasPrefix(f, name) {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

// maxTestFLTs bounds the test-side frames traced to find the assertions.
const maxTestFLTs = 10

// failures finds the failed assertions in the traces of the failing tests'
// own frames (the test functions, their subtests' closures and helpers).
func (d *diagnoser) failures(ctx context.Context, roots []int32) []failure {
	type report struct {
		file string
		line int
		msg  string
	}
	var reports []report
	for _, m := range outputLineRE.FindAllStringSubmatch(d.rec.Outcome.Output(), -1) {
		n, _ := strconv.Atoi(m[2])
		reports = append(reports, report{m[1], n, m[3]})
	}
	// The frames whose function holds a reported line come first, then
	// the test files' frames.
	var cands, rest []int32
	holding := map[trace.Pos]bool{} // by function (its declaration)
	holds := func(decl trace.Pos) bool {
		h, ok := holding[decl]
		if ok {
			return h
		}
		if file, err := d.src.File(decl.File); err == nil {
			for _, r := range reports {
				if r.file != filepath.Base(decl.File) {
					continue
				}
				if fn, _ := file.FuncAt(r.line); fn != nil && file.Line(fn.Pos()) == decl.Line {
					h = true
				}
			}
		}
		holding[decl] = h
		return h
	}
	for _, seq := range d.subtree(roots...) {
		decl := d.declOf(seq)
		switch {
		case holds(decl):
			cands = append(cands, seq)
		case isTestFile(decl.File):
			rest = append(rest, seq)
		}
	}
	if len(cands) == 0 {
		cands = rest
	}
	// A subtest's frames say which subtest they run (the name of their
	// *testing.T): those of the failed tests come first, those of the
	// tests that passed last. Of each, a frame that t.Fatal
	// (runtime.Goexit) or a panic ended failed for sure: it comes first.
	rank := map[int32]int{}
	for _, seq := range cands {
		r := 0
		if d.rec.ExitOf(int(seq)) == trace.Returned {
			r = 1
		}
		if failed, ok := d.ranFailedTest(int(seq)); ok && failed {
			r -= 2
		} else if ok {
			r += 2
		}
		rank[seq] = r
	}
	slices.SortStableFunc(cands, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	// A frame's trace is built up to its first reported line only: the
	// first failed assertion is the evidence, and a table-driven test's
	// trace goes on for thousands of statements after it.
	// A table-driven test runs the line of a testify assertion once a
	// case: the visits of cases whose assertion held go by.
	reported := func(p trace.Pos, vals map[string]trace.Value) bool {
		for _, r := range reports {
			if r.line == p.Line && r.file == filepath.Base(p.File) {
				return !d.assertHolds(p, pointers(vals))
			}
		}
		return false
	}
	var out []failure
	used := make([]bool, len(reports))
	for i, seq := range cands {
		if len(reports) > 0 && !slices.Contains(used, false) {
			break // every report is found
		}
		if i >= maxTestFLTs {
			d.note(fmt.Sprintf("only %d of the failing tests' frames were searched for failed assertions", maxTestFLTs))
			break
		}
		f := d.rec.At(int(seq))
		flt, st, err := d.fltUntil(ctx, f, reported)
		if err != nil {
			continue
		}
		// By report: the first visit of its line whose assertion held,
		// taken when no visit failed (the values tell wrong: a want of
		// another type, equal in text).
		held := map[int]int{}
		for j, step := range flt.Steps {
			if n := len(out); n > 0 && out[n-1].test == f && d.sameStatement(flt, out[n-1].step, j) {
				// A call of t.Errorf over several lines runs its first
				// line again after an argument's call on the next.
				continue
			}
			// Reports come out in the order the assertions failed. A
			// report at a statement that is not t.Errorf is a call of a
			// helper (t.Helper() reports the caller's line), such as
			// testify's assert.Equal.
			report := -1
			for k, r := range reports {
				if !used[k] && r.file == filepath.Base(step.File) && r.line == step.Line {
					report = k
					break
				}
			}
			if report >= 0 && testLogRE.MatchString(step.Stmt) && !testFailRE.MatchString(step.Stmt) {
				used[report] = true // logged, not failed
				continue
			}
			if report >= 0 && d.assertHolds(step.Pos, st.before(j)) {
				if _, ok := held[report]; !ok {
					held[report] = j
				}
				continue
			}
			helper := d.panickedHelper(f, flt, j)
			if report < 0 && !testFailRE.MatchString(step.Stmt) && helper == nil {
				continue
			}
			fl := failure{test: f, step: j, ifStep: -1}
			switch {
			case report >= 0:
				fl.message, used[report] = reports[report].msg, true
			case helper != nil:
				fl.message = "panic: " + helper.Panic
			}
			d.assertion(flt, st, &fl)
			out = append(out, fl)
		}
		for k := range reports {
			if j, ok := held[k]; ok && !used[k] {
				fl := failure{test: f, step: j, ifStep: -1, message: reports[k].msg}
				used[k] = true
				d.assertion(flt, st, &fl)
				out = append(out, fl)
			}
		}
	}
	return out
}

// sameStatement reports whether step j of flt runs the statement of step
// i again, with only lines of that statement between them.
func (d *diagnoser) sameStatement(flt *trace.FLT, i, j int) bool {
	a := flt.Steps[i]
	if i >= j || flt.Steps[j].Pos != a.Pos {
		return false
	}
	file, err := d.src.File(a.File)
	if err != nil {
		return false
	}
	st := file.StmtAt(a.Line)
	if st == nil {
		return false
	}
	first, last := file.Line(st.Pos()), file.Line(st.End())
	for _, s := range flt.Steps[i+1 : j] {
		if s.File != a.File || s.Line < first || s.Line > last {
			return false
		}
	}
	return true
}

// assertHolds reports whether the testify assertion at p held, with vars
// the variables as it ran: assert.Equal(t, want, got), require.NoError(t,
// err), a.True(ok) on an *assert.Assertions, and their …f forms. False
// when the statement is no such assertion or a value is not known in full.
func (d *diagnoser) assertHolds(p trace.Pos, vars map[string]*trace.Value) bool {
	file, err := d.src.File(p.File)
	if err != nil {
		return false
	}
	es, ok := file.StmtAt(p.Line).(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	x, name, ok := identCall(call)
	if !ok {
		return false
	}
	args := call.Args
	if v, isVar := vars[x.Name]; isVar {
		// assert := assert.New(t): the methods take no t.
		if !strings.Contains(v.Type, "github.com/stretchr/testify/") {
			return false
		}
	} else {
		if x.Name != "assert" && x.Name != "require" || len(args) == 0 {
			return false
		}
		args = args[1:]
	}
	values := func(n int) ([]string, bool) {
		if len(args) < n {
			return nil, false
		}
		var out []string
		for _, a := range args[:n] {
			text, ok := evalText(file.Text(a), vars)
			if !ok || strings.Contains(text, "…") {
				return nil, false
			}
			out = append(out, text)
		}
		return out, true
	}
	if len(name) > 1 && strings.HasSuffix(name, "f") {
		name = name[:len(name)-1] // Equalf
	}
	switch name {
	case "Equal", "EqualValues", "Exactly", "NotEqual", "NotEqualValues":
		vs, ok := values(2)
		return ok && (vs[0] == vs[1]) == !strings.HasPrefix(name, "Not")
	case "True", "False", "Nil", "NoError", "NotNil", "Error":
		vs, ok := values(1)
		if !ok {
			return false
		}
		switch name {
		case "True":
			return vs[0] == "true"
		case "False":
			return vs[0] == "false"
		case "Nil", "NoError":
			return vs[0] == "nil"
		default:
			return vs[0] != "nil"
		}
	}
	return false
}

// pointers returns vars with pointers to its values, as the evaluator
// takes them.
func pointers(vars map[string]trace.Value) map[string]*trace.Value {
	out := make(map[string]*trace.Value, len(vars))
	for k := range vars {
		v := vars[k]
		out[k] = &v
	}
	return out
}

// panickedHelper returns, when test frame f ended in a panic at its step
// j, its last, the frame of the test's helper that the step called and
// that panicked: an assertion of the test failed (assert(t, got == want)
// panics when its condition is false), which the output reports with the
// panic's traceback only.
func (d *diagnoser) panickedHelper(f *trace.Frame, flt *trace.FLT, j int) *trace.Frame {
	if f.Exit != trace.Panicked || j != len(flt.Steps)-1 {
		return nil
	}
	for _, fid := range flt.Steps[j].Callees {
		if h := d.frame(fid); h != nil && h.Exit == trace.Panicked && isTestFile(h.Decl.File) {
			return h
		}
	}
	return nil
}

// assertion fills in the if statement guarding a failure and the frames
// whose results its condition read.
func (d *diagnoser) assertion(flt *trace.FLT, st *frameState, fl *failure) {
	step := flt.Steps[fl.step]
	file, err := d.src.File(step.File)
	if err != nil {
		return
	}
	// The checked expression: the condition of the if around t.Errorf,
	// else the arguments of a helper's call (check(t, got, want)).
	var cond ast.Expr
	if is := file.EnclosingIf(step.Line); is != nil {
		fl.ifStep = ifStepOf(flt, fl.step, file, is)
		fl.ifPos = trace.Pos{File: step.File, Line: file.Line(is.Pos())}
		cond = is.Cond
	} else if es, ok := file.StmtAt(step.Line).(*ast.ExprStmt); ok && !testFailRE.MatchString(step.Stmt) {
		fl.ifStep, fl.ifPos, cond = fl.step, step.Pos, es.X
	}
	if cond == nil || fl.ifStep < 0 {
		fl.wrong = d.moduleCallees(flt, 0, fl.step)
		return
	}
	fl.cond = file.Text(cond)
	vars := st.afterStep(fl.ifStep)
	seen := map[trace.FID]bool{}
	add := func(f *trace.Frame) {
		if f != nil && !seen[f.FID] && !isTestFile(f.Decl.File) {
			seen[f.FID] = true
			fl.wrong = append(fl.wrong, f)
		}
	}
	// A call of the condition (`if a.IsProperSubset(b)`) made the value
	// it checked: its frame, when the check's step recorded it.
	calls := map[string]bool{}
	ast.Inspect(cond, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			calls[callName(x)] = true
		}
		return true
	})
	for _, fid := range flt.Steps[fl.ifStep].Callees {
		if calls[calleeName(fid)] {
			add(d.frame(fid))
		}
	}
	if len(fl.wrong) > 0 {
		return
	}
	// The names of the condition assigned last before it (a test computes
	// what it checks right before checking it: got, not the fixture).
	latest := -1
	for _, name := range idents(cond) {
		if _, ok := vars[name]; !ok {
			continue
		}
		for j := fl.ifStep; j >= 0; j-- {
			if changedVar(&flt.Steps[j], name) != nil {
				if len(d.moduleCallees(flt, j, j+1)) > 0 {
					latest = max(latest, j)
				}
				break
			}
		}
	}
	for _, name := range idents(cond) {
		v, ok := vars[name]
		if !ok {
			continue
		}
		for j := fl.ifStep; j >= 0; j-- {
			if changedVar(&flt.Steps[j], name) == nil {
				continue
			}
			if j != latest {
				break
			}
			// The callee whose result is the value, else all of them.
			var match []*trace.Frame
			for _, fid := range flt.Steps[j].Callees {
				if f := d.frame(fid); f != nil && len(f.Results) > 0 && f.Results[0].Text == v.Text {
					match = append(match, f)
				}
			}
			if len(match) == 0 {
				for _, fid := range flt.Steps[j].Callees {
					match = append(match, d.frame(fid))
				}
			}
			for _, f := range match {
				add(f)
			}
			break
		}
	}
	if len(fl.wrong) == 0 {
		for _, fid := range flt.Steps[fl.ifStep].Callees {
			add(d.frame(fid))
		}
	}
}

// ifStepOf returns the step at which the if statement is, whose body (or
// else) holds step at, read its condition: the last step of the if's line
// before the body's steps. When the compiler marked no instruction of the
// if's line as a statement (`if actual != expected {` comparing two
// strings declared just before, in a -N -l build), no step stops there:
// the step before the body's then, after which the variables are those
// the condition read. -1 when there is no step before the body's.
func ifStepOf(flt *trace.FLT, at int, file *syntax.File, is *ast.IfStmt) int {
	ifLine, end := file.Line(is.Pos()), file.Line(is.End())
	i := at - 1
	for i >= 0 {
		st := flt.Steps[i]
		if st.File != flt.Steps[at].File || st.Line <= ifLine || st.Line > end {
			break
		}
		i--
	}
	return i
}

// moduleCallees returns the non-test frames called by steps [from, to).
func (d *diagnoser) moduleCallees(flt *trace.FLT, from, to int) []*trace.Frame {
	var out []*trace.Frame
	for i := from; i < to && i < len(flt.Steps); i++ {
		for _, fid := range flt.Steps[i].Callees {
			if f := d.frame(fid); f != nil && !isTestFile(f.Decl.File) {
				out = append(out, f)
			}
		}
	}
	return out
}

// failureEvidence describes a failed assertion: the condition, the values
// it compared and the frames they came from.
func (d *diagnoser) failureEvidence(fl failure) []report.Evidence {
	st := d.states[fl.test.FID]
	if st == nil {
		return nil
	}
	step := st.flt.Steps[fl.step]
	var out []report.Evidence
	if fl.ifStep >= 0 && fl.cond != "" {
		vars := st.afterStep(fl.ifStep)
		var vals []string
		if e := parseExpr(fl.cond); e != nil {
			for _, name := range idents(e) {
				if v, ok := vars[name]; ok && strings.HasPrefix(v.Type, "*testing.") {
					continue // t itself
				}
				if v, ok := evalText(name, vars); ok {
					vals = append(vals, name+" = "+v)
				}
			}
			for _, side := range comparedSides(e) {
				switch x := parseExpr(side).(type) {
				case *ast.BasicLit, *ast.Ident, nil:
					continue
				case *ast.UnaryExpr:
					if _, lit := x.X.(*ast.BasicLit); lit {
						continue // -5
					}
				}
				if v, ok := evalText(side, vars); ok && !slicesContainsPrefix(vals, side+" = ") {
					vals = append(vals, side+" = "+v)
				}
			}
		}
		var from []string
		for _, w := range fl.wrong {
			from = append(from, fmt.Sprintf("%s returned %s", syntax.ShortFunc(w.FID.String()), resultsText(w)))
		}
		claim := fmt.Sprintf("the test's check `%s` failed", fl.cond)
		if len(from) > 0 {
			claim += ": " + strings.Join(from, "; ")
		}
		out = append(out, d.evidence(fl.test, fl.ifPos, claim, strings.Join(vals, ", ")))
	}
	if fl.message != "" {
		out = append(out, d.evidence(fl.test, step.Pos, "the test reported", fl.message))
	}
	return out
}

// comparedSides returns the operands of the comparisons in a condition.
func comparedSides(e ast.Expr) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		if be, ok := n.(*ast.BinaryExpr); ok {
			switch be.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				out = append(out, exprString(be.X), exprString(be.Y))
			}
		}
		return true
	})
	return out
}

// slicesContainsPrefix reports whether some element of xs starts with p.
func slicesContainsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

// maxGetterFrames bounds the frames of a getter's subtree (`l.Len()`
// calling `l.list.Length()`).
const maxGetterFrames = 3

// mutators returns, for a failure whose wrong values came from getters
// (frames that called little: `n := l.recent.Len()`), the subtrees of the
// module calls the test made before on the same variables (`l.Add(1, 1)`):
// the state a getter reads was set by them, and the getter's own subtree
// holds nothing to suspect.
func (d *diagnoser) mutators(fl failure) []int32 {
	st := d.states[fl.test.FID]
	if st == nil || len(fl.wrong) == 0 {
		return nil
	}
	wrong := map[trace.FID]bool{}
	for _, w := range fl.wrong {
		if len(d.subtree(int32(w.Seq))) > maxGetterFrames {
			return nil // it computed something: its subtree is the place
		}
		wrong[w.FID] = true
	}
	steps := st.flt.Steps
	at := -1
	for i := min(fl.step, len(steps)-1); i >= 0 && at < 0; i-- {
		for _, fid := range steps[i].Callees {
			if wrong[fid] {
				at = i
			}
		}
	}
	if at < 0 {
		return nil
	}
	roots := d.callRoots(steps[at].Pos)
	if len(roots) == 0 {
		return nil
	}
	var seqs []int32
	for i := at - 1; i >= 0; i-- {
		shared := false
		for r := range d.callRoots(steps[i].Pos) {
			shared = shared || roots[r]
		}
		if !shared {
			continue
		}
		for _, fid := range steps[i].Callees {
			if f := d.frame(fid); f != nil && !isTestFile(f.Decl.File) {
				seqs = append(seqs, int32(f.Seq))
			}
		}
	}
	return d.subtree(seqs...)
}

// callRoots returns the variables the statement at pos calls methods on or
// passes to calls: l for `l.recent.Len()` and for `Len(l)`.
func (d *diagnoser) callRoots(pos trace.Pos) map[string]bool {
	file, err := d.src.File(pos.File)
	if err != nil {
		return nil
	}
	stmt := file.StmtAt(pos.Line)
	if stmt == nil {
		return nil
	}
	root := func(e ast.Expr) string {
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X // Len(&l)
		}
		if id := rootIdent(e); id != nil {
			return id.Name
		}
		return ""
	}
	out := map[string]bool{}
	ast.Inspect(stmt, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit, *ast.BlockStmt:
			return false
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				out[root(sel.X)] = true // a package's name is taken out below
			}
			for _, a := range x.Args {
				if r := root(a); r != "" {
					out[r] = true
				}
			}
		}
		return true
	})
	for _, imp := range file.AST.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		delete(out, name)
	}
	delete(out, "t")
	delete(out, "")
	return out
}
