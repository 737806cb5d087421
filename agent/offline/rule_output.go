package offline

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// The output rule: a test compared a string that a function of the module
// built with the one it wants, and the two differ. The function's trace,
// with every loop iteration kept, shows the string grow statement by
// statement, so the first byte that differs has a step: the one that
// wrote it (a wrong byte, or bytes too many), or, for bytes too few, the
// step that wrote the next one, with the steps since the last right write
// before it. The string is followed to that function through the calls
// that returned it, or its bytes, and into the calls that appended the
// first wrong byte to the bytes they were given. The statement that
// decided is the suspect:
//
//   - a branch not taken (an if, a switch's case) whose write writes the
//     wanted bytes;
//   - bytes too few: the first condition after the last right write whose
//     skipped branch writes to the string, else that last write;
//   - a wrong byte: the assignment that last changed the value written,
//     or, when the value came as it was (a range variable), the condition
//     whose skipped branch would have changed it, else the write itself;
//   - bytes too many: the condition that let the write run;
//   - of a condition that reads a flag set in an earlier iteration or
//     before the loop, the flag's assignment;
//   - of a returned concatenation, the operand that holds the wrong byte,
//     as a variable written.
//
// Where the trace cannot show who wrote the byte (room appended for a
// library call to fill in, a slice made at full length and filled by
// index, a string cut back) the rule names nothing. It finds where, not
// how: it proposes no fix.

// maxOutputFailures bounds the failed checks the rule traces.
const maxOutputFailures = 2

// outputFindings looks, for the first failed checks of a string, where the
// string went wrong.
func (d *diagnoser) outputFindings(ctx context.Context, fails []failure) []*finding {
	tried := 0
	for _, fl := range fails {
		got, want, w, ok := d.gotWant(fl)
		if !ok {
			continue
		}
		if tried++; tried > maxOutputFailures || ctx.Err() != nil {
			break
		}
		if f := d.outputFinding(ctx, fl.test, w, got, want); f != nil {
			return []*finding{f}
		}
	}
	return nil
}

// gotWant returns the string a failed check rejected, the one it wanted,
// and the frame whose result the rejected one is.
func (d *diagnoser) gotWant(fl failure) (got, want string, w *trace.Frame, ok bool) {
	st := d.states[fl.test.FID]
	if st == nil || fl.ifStep < 0 || fl.cond == "" {
		return "", "", nil, false
	}
	for _, f := range fl.wrong {
		if s, n, ok := stringValue(resultValue(f, 0)); ok && n == len(s) {
			got, w = s, f
			break
		}
	}
	e := parseExpr(fl.cond)
	if e == nil {
		return "", "", nil, false
	}
	// The sides of the comparison, or the arguments of a helper's call
	// (assert.Equal(t, want, got)).
	var strs []string
	for _, side := range comparedSides(e) {
		strs = appendString(strs, side, st.afterStep(fl.ifStep))
	}
	if call, isCall := ast.Unparen(e).(*ast.CallExpr); isCall {
		for _, a := range call.Args {
			strs = appendString(strs, exprString(a), st.afterStep(fl.ifStep))
		}
	}
	if w == nil {
		// No call of the check's made the value: a table of results
		// computed before (`{"1,000", Comma(1000), "1,000"}`). The
		// rejected one is the side a call of the module under the test
		// returned, when only one side is.
		root := d.testFrameOf(fl.test)
		for _, s := range strs {
			if s == "" {
				continue
			}
			if f := d.firstReturning(root, nil, s); f != nil {
				if w != nil {
					return "", "", nil, false
				}
				got, w = s, f
			}
		}
		if w == nil {
			return "", "", nil, false
		}
	}
	for _, s := range strs {
		if s != got {
			return got, s, w, true
		}
	}
	return "", "", nil, false
}

// appendString appends to strs the string that the expression side has
// over vars, if it is a string the recording kept whole.
func appendString(strs []string, side string, vars map[string]*trace.Value) []string {
	text, ok := evalText(side, vars)
	if !ok {
		return strs
	}
	s, err := strconv.Unquote(text)
	if err != nil || slices.Contains(strs, s) {
		return strs
	}
	return append(strs, s)
}

// testFrameOf returns the outermost frame of the test files among f and
// its callers: the test function whose helper f may be.
func (d *diagnoser) testFrameOf(f *trace.Frame) *trace.Frame {
	for seq := d.rec.ParentOf(f.Seq); seq >= 0; seq = d.rec.ParentOf(seq) {
		p := d.rec.At(seq)
		if !isTestFile(p.Decl.File) {
			break
		}
		f = p
	}
	return f
}

// stringValue returns what a recorded string value kept of the string and
// the string's length.
func stringValue(v *trace.Value) (s string, n int, ok bool) {
	if v == nil || v.Kind != trace.KindString {
		return "", 0, false
	}
	text := v.Text
	if v.Cut {
		i := strings.LastIndex(text, `"…+`)
		if i < 0 {
			return "", 0, false
		}
		text = text[:i+1]
	}
	s, err := strconv.Unquote(text)
	if err != nil {
		return "", 0, false
	}
	return s, max(len(s), int(v.Len)), true
}

// producer follows the rejected string down from frame w through the
// module's calls that returned it as it was (ToSnake returns ToDelimited's
// result, which returns ToScreamingDelimited's), or as the bytes of it
// (`return string(v.bytes())`): the deepest is where it was built.
func (d *diagnoser) producer(w *trace.Frame, got string) *trace.Frame {
	for depth := 0; depth < 16; depth++ {
		var next, bytesOf *trace.Frame
		for _, seq := range d.rec.Children(w.Seq) {
			c := d.rec.At(int(seq))
			if isTestFile(c.Decl.File) {
				continue
			}
			r := resultValue(c, 0)
			if s, n, ok := stringValue(r); ok && s == got && n == len(got) {
				next = c
			}
			// The recording keeps a slice's length, not its bytes: a
			// call given no bytes to append to (v.bytes(), not
			// appendPair(b, …), which wrote only its own part).
			if isBytes(r) && r.Len == int64(len(got)) && !slices.ContainsFunc(c.Args, func(a trace.Value) bool { return isBytes(&a) && a.Len > 0 }) {
				bytesOf = c
			}
		}
		if next == nil {
			next = bytesOf
		}
		if next == nil {
			return w
		}
		w = next
	}
	return w
}

// builder returns the source file of frame p, its trace with every loop
// iteration kept, and the variable it built got, or its first n bytes, in
// (see builderVar for lo; "" if none).
func (d *diagnoser) builder(ctx context.Context, p *trace.Frame, got string, lo, n int) (*syntax.File, *frameState, string) {
	if isTestFile(p.Decl.File) {
		return nil, nil, ""
	}
	file, err := d.src.File(p.Decl.File)
	if err != nil {
		return nil, nil, ""
	}
	flt, st, err := d.fltAll(ctx, p)
	if err != nil || flt.Truncated {
		return nil, nil, ""
	}
	return file, st, builderVar(st, got, lo, n)
}

// firstReturning returns the first frame of the module, under the test's
// frame and other than w (if not nil), whose result is got.
func (d *diagnoser) firstReturning(test, w *trace.Frame, got string) *trace.Frame {
	seqs := d.subtree(int32(test.Seq))
	slices.Sort(seqs)
	for _, seq := range seqs {
		f := d.rec.At(int(seq))
		if w != nil && f.Seq == w.Seq || isTestFile(f.Decl.File) {
			continue
		}
		if s, n, ok := stringValue(resultValue(f, 0)); ok && s == got && n == len(got) {
			return f
		}
	}
	return nil
}

// writer descends from p, which built got, into the calls of the module
// that appended to the bytes they were given (`b = appendPair(b, k, v)`,
// the recording keeping the lengths of both): the deepest that wrote byte
// k, or, for bytes missing at k, the deepest that wrote the bytes on both
// sides of the gap, is where the string went wrong.
func (d *diagnoser) writer(p *trace.Frame, k, how int) *trace.Frame {
	before := int64(k)
	if how == outputMissing {
		before = int64(k) - 1
	}
	for depth := 0; depth < 16; depth++ {
		var next *trace.Frame
		for _, seq := range d.rec.Children(p.Seq) {
			c := d.rec.At(int(seq))
			r := resultValue(c, 0)
			if isTestFile(c.Decl.File) || !isBytes(r) || r.Len <= int64(k) {
				continue
			}
			for i := range c.Args {
				if a := &c.Args[i]; isBytes(a) && a.Len <= before {
					next = c
					break
				}
			}
			if next != nil {
				break
			}
		}
		if next == nil {
			return p
		}
		p = next
	}
	return p
}

// isBytes reports whether v is a []byte.
func isBytes(v *trace.Value) bool {
	return v != nil && v.Kind == trace.KindSlice && (v.Type == "[]uint8" || v.Type == "[]byte")
}

// builtBytes returns how long the string being built in v is and the bytes
// of it the recording kept: v is a string, a []byte, or a strings.Builder
// or bytes.Buffer (their buf), or a pointer to one of those two.
func builtBytes(v *trace.Value) (known []byte, n int, ok bool) {
	if v == nil {
		return nil, 0, false
	}
	switch v.Kind {
	case trace.KindPointer:
		if v.Nil || len(v.Children) != 1 || v.Children[0].Kind != trace.KindStruct {
			return nil, 0, false
		}
		return builtBytes(&v.Children[0])
	case trace.KindString:
		s, n, ok := stringValue(v)
		return []byte(s), n, ok
	case trace.KindSlice:
		if !isBytes(v) {
			return nil, 0, false
		}
		if v.Nil {
			return nil, 0, true
		}
		for _, c := range v.Children {
			b, err := strconv.ParseUint(c.Text, 10, 8)
			if err != nil {
				return nil, 0, false
			}
			known = append(known, byte(b))
		}
		return known, max(len(known), int(v.Len)), true
	case trace.KindStruct:
		if v.Type != "strings.Builder" && v.Type != "bytes.Buffer" {
			return nil, 0, false
		}
		if off, ok := v.Child("off"); ok && off.Text != "0" {
			return nil, 0, false
		}
		buf, ok := v.Child("buf")
		if !ok {
			return nil, 0, false
		}
		return builtBytes(buf)
	}
	return nil, 0, false
}

// builderVar returns the variable of the trace that holds the first n
// bytes of got as the frame returns, lo < n ≤ hi, and that its steps
// changed (not an argument handed back), "" if there is none. A call that
// appends to the bytes it was given may append the last ones as it
// returns (`return append(b, '\n')`): its variable holds fewer.
func builderVar(st *frameState, got string, lo, hi int) string {
	if len(st.flt.Steps) == 0 {
		return ""
	}
	last := st.before(len(st.flt.Steps) - 1)
	names := slices.Sorted(maps.Keys(last))
	for _, name := range names {
		known, n, ok := builtBytes(last[name])
		if !ok || n <= lo || n > hi || len(known) == 0 || !strings.HasPrefix(got, string(known)) {
			continue
		}
		for i := range st.flt.Steps {
			if changedVar(&st.flt.Steps[i], name) != nil {
				return name
			}
		}
	}
	return ""
}

// The ways a built string can first differ from the wanted one.
const (
	outputMissing = iota // bytes the wanted one has were not written
	outputExtra          // bytes it does not have were written
	outputWrong          // a byte was written for another
)

// outputDiff returns the first byte at which got differs from want, how
// and how many bytes: got "1_a2" against want "1_a_2" lacks one at 3.
func outputDiff(got, want string) (k, how, m int) {
	for k < len(got) && k < len(want) && got[k] == want[k] {
		k++
	}
	switch {
	case k == len(got):
		return k, outputMissing, len(want) - k
	case k == len(want):
		return k, outputExtra, len(got) - k
	}
	for m = 1; m <= 4; m++ {
		if k+m <= len(want) && got[k:] == want[k+m:] {
			return k, outputMissing, m
		}
		if k+m <= len(got) && got[k+m:] == want[k:] {
			return k, outputExtra, m
		}
	}
	return k, outputWrong, 1
}

// outputFinding traces the string got back into the trace of the frame
// that built it, below w.
func (d *diagnoser) outputFinding(ctx context.Context, test, w *trace.Frame, got, want string) *finding {
	k, how, m := outputDiff(got, want)
	p := d.producer(w, got)
	file, st, name := d.builder(ctx, p, got, len(got)-1, len(got))
	if name == "" && st != nil && how == outputWrong {
		if f := d.concatFinding(p, file, st, got, want, k); f != nil {
			return f
		}
	}
	if name == "" {
		// The string was made before the call the check read returned
		// it (Result.String returns the field Get filled in): the first
		// frame of the test's that returned it made it.
		q := d.firstReturning(test, w, got)
		if q == nil {
			return nil
		}
		p = d.producer(q, got)
		if file, st, name = d.builder(ctx, p, got, len(got)-1, len(got)); name == "" {
			return nil
		}
	}
	if q := d.writer(p, k, how); q != p {
		if qfile, qst, qname := d.builder(ctx, q, got, k, int(resultValue(q, 0).Len)); qname != "" {
			p, file, st, name = q, qfile, qst, qname
		}
	}
	flt := st.flt
	// wrote is the step that made the string longer than k (the end when
	// none did); lastWrite the step before it that wrote last.
	length := func(i int) int {
		_, n, _ := builtBytes(st.afterStep(i)[name])
		return n
	}
	steps := flt.Steps
	_, prev, _ := builtBytes(st.entry[name])
	if prev > k {
		return nil // written before the frame began
	}
	wrote, lastWrite := len(steps), -1
	for i := range steps {
		n := length(i)
		if n < prev {
			return nil // cut back: not a string built by appending
		}
		if n > k {
			wrote = i
			break
		}
		if n != prev {
			lastWrite = i
		}
		prev = n
	}
	if how != outputMissing && wrote == len(steps) {
		return nil
	}
	if wrote < len(steps) && allocates(file.StmtAt(steps[wrote].Line)) {
		// `output := make([]byte, count)`, filled in by index later:
		// its length says nothing of what was written where.
		return nil
	}
	o := &outputTrace{d: d, file: file, st: st, frame: p, name: name, wrote: wrote, lastWrite: lastWrite, wanted: want[k:]}
	switch how {
	case outputWrong:
		o.wrongByte, o.wantByte, o.gotByte = strconv.Quote(got[k:k+1]), strconv.Quote(want[k:k+1]), got[k:k+1]
	case outputMissing:
		o.missing = strconv.Quote(want[k : k+m])
	}
	var root int
	var claim string
	switch how {
	case outputMissing:
		root, claim = o.skippedWrite()
	case outputExtra:
		root, claim = o.letThrough()
	case outputWrong:
		root, claim = o.wrongValue()
	}
	if root < 0 {
		return nil
	}
	return o.finding(got, want, k, how, m, root, claim)
}

// concatFinding traces a wrong byte of got, which frame p returned as a
// concatenation, to the operand that holds it: a variable as a written
// one (see wrongVar), a literal as the return itself.
func (d *diagnoser) concatFinding(p *trace.Frame, file *syntax.File, st *frameState, got, want string, k int) *finding {
	x, lit, ok := concatenation(file, st, got, k)
	if !ok {
		return nil
	}
	ret := len(st.flt.Steps) - 1
	o := &outputTrace{d: d, file: file, st: st, frame: p, wrote: ret, lastWrite: -1,
		wrongByte: strconv.Quote(got[k : k+1]), wantByte: strconv.Quote(want[k : k+1]), gotByte: got[k : k+1]}
	root, claim := -1, ""
	if lit {
		root, claim = ret, fmt.Sprintf("a string literal of `%s` holds %s where %s belongs", oneLine(st.flt.Steps[ret].Stmt), o.wrongByte, o.wantByte)
	} else {
		root, claim = o.wrongVar([]string{x})
	}
	if root < 0 {
		return nil
	}
	return o.finding(got, want, k, outputWrong, 1, root, claim)
}

// finding is the output rule's finding: got, which the frame built where
// want was wanted, went wrong at byte k (how, m bytes), and step root did
// it, as claim says.
func (o *outputTrace) finding(got, want string, k, how, m, root int, claim string) *finding {
	d, p, steps, wrote := o.d, o.frame, o.st.flt.Steps, o.wrote
	pname := syntax.ShortFunc(p.FID.String())
	var what string
	switch how {
	case outputMissing:
		what = fmt.Sprintf("%s is missing", strconv.Quote(want[k:k+m]))
	case outputExtra:
		what = fmt.Sprintf("%s is too many", strconv.Quote(got[k:k+m]))
	default:
		what = fmt.Sprintf("%s stands for %s", strconv.Quote(got[k:k+1]), strconv.Quote(want[k:k+1]))
	}
	diff := fmt.Sprintf("%s built %s where the test wants %s: they first differ at byte %d, where %s",
		pname, strconv.Quote(got), strconv.Quote(want), k, what)
	rs := steps[root]
	f := &finding{
		method: "output", root: rs.Pos, fn: p.FID.Func, fid: p.FID,
		strength: strengthOutput, confidence: report.Medium,
	}
	f.evidence = append(f.evidence, d.evidence(p, steps[len(steps)-1].Pos, diff, ""))
	if wrote < len(steps) && wrote != root {
		ws := steps[wrote]
		f.evidence = append(f.evidence, d.evidence(p, ws.Pos,
			fmt.Sprintf("`%s` wrote byte %d", oneLine(ws.Stmt), k), o.vars(wrote)))
	}
	f.evidence = append(f.evidence, d.evidence(p, rs.Pos, claim, o.vars(root)))
	f.summary = fmt.Sprintf("%s built %s for %s: %s (%s:%d)", syntax.ShortFunc(p.FID.Func),
		strconv.Quote(got), strconv.Quote(want), claim, d.rel(rs.File), rs.Line)
	f.detail = diff + ". Following the trace of " + pname + " statement by statement, " + claim + "."
	f.explanation = f.detail + " adi has no fix template for this: the statement is where the wrong string was decided."
	return f
}

// outputTrace is the trace of the frame that built a string, and where in
// it the string went wrong.
type outputTrace struct {
	d     *diagnoser
	file  *syntax.File
	st    *frameState
	frame *trace.Frame
	// name is the variable the string was built in; wrote the step that
	// wrote its first wrong byte (len(steps) if none did), lastWrite the
	// step that wrote before it.
	name             string
	wrote, lastWrite int
	// wrongByte is the first wrong byte, wantByte the one wanted there,
	// missing the bytes missing (quoted); gotByte the wrong byte itself.
	wrongByte, wantByte, missing string
	gotByte                      string
	// wanted is the wanted string from the first wrong byte on.
	wanted string
	stmts  map[int]ast.Stmt
}

// skippedWrite finds, after the last right write, the first condition whose
// skipped branch writes to the string.
func (o *outputTrace) skippedWrite() (int, string) {
	steps := o.st.flt.Steps
	if j, claim := o.wantedWrite(o.lastWrite + 1); j >= 0 {
		return j, claim
	}
	for i := o.lastWrite + 1; i < o.wrote && i < len(steps); i++ {
		conds, branch, val := o.skipped(i, false)
		if branch == nil {
			continue
		}
		if w := writeIn(branch, o.name); w != nil {
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so `%s` (line %d) did not run", oneLine(steps[i].Stmt), val,
				oneLine(o.file.Text(w)), o.file.Line(w.Pos())))
		}
	}
	// No write was skipped: the last write before the gap wrote too
	// little.
	if o.lastWrite >= 0 {
		return o.lastWrite, fmt.Sprintf("`%s` wrote the bytes up to the gap, and no condition after it skipped a write: %s should have come with them",
			oneLine(steps[o.lastWrite].Stmt), o.missing)
	}
	return -1, ""
}

// letThrough finds the condition that let the write of bytes too many run:
// the innermost if around the write, at its last run before it.
func (o *outputTrace) letThrough() (int, string) {
	steps := o.st.flt.Steps
	ws := steps[o.wrote]
	is := o.file.EnclosingIf(ws.Line)
	if is == nil {
		return -1, ""
	}
	line := o.file.Line(is.Pos())
	for i := o.wrote - 1; i > o.lastWrite; i-- {
		if steps[i].Line == line && steps[i].File == ws.File {
			return o.decided(i, []ast.Expr{is.Cond}, fmt.Sprintf("`%s` let `%s` (line %d) run", oneLine(steps[i].Stmt), oneLine(ws.Stmt), ws.Line))
		}
	}
	return -1, ""
}

// wrongValue finds what made the written byte wrong: the last assignment
// that changed a variable the write reads; else the condition whose
// skipped branch would have changed one, traced to the assignment that
// decided it.
func (o *outputTrace) wrongValue() (int, string) {
	ws := o.st.flt.Steps[o.wrote]
	stmt := o.file.StmtAt(ws.Line)
	if stmt == nil {
		return -1, ""
	}
	from := o.lastWrite + 1
	if h := o.iterationOf(o.wrote); h > o.lastWrite {
		from = h
	}
	if j, claim := o.wantedWrite(from); j >= 0 {
		return j, claim
	}
	if j, claim := o.wrongVar(writtenVars(stmt, o.name)); j >= 0 {
		return j, claim
	}
	// Nothing changed what it wrote, nor skipped a change: the write
	// itself, unless it writes constants that are not the wrong byte (a
	// placeholder, `append(str, 0, 0, 0, 0)`, that a call then fills in).
	if lits, ok := literalBytes(stmt); ok && !bytes.Contains(lits, []byte(o.gotByte)) {
		return -1, ""
	}
	return o.wrote, fmt.Sprintf("`%s` wrote %s where %s belongs, from values no statement before it changed",
		oneLine(ws.Stmt), o.wrongByte, o.wantByte)
}

// wrongVar finds what made one of the variables read, which step wrote
// wrong, wrong: its last assignment, if that changed it, else the
// condition whose skipped branch would have (see wrongValue); -1 if
// neither.
func (o *outputTrace) wrongVar(read []string) (int, string) {
	steps := o.st.flt.Steps
	ws := steps[o.wrote]
	for _, x := range read {
		if j := o.lastAssign(x, o.wrote); j >= 0 && isUpdate(o.stmt(j)) {
			return j, fmt.Sprintf("`%s` made %s %s, which `%s` (line %d) wrote", oneLine(steps[j].Stmt), x,
				o.valueAfter(j, x), oneLine(ws.Stmt), ws.Line)
		}
	}
	from := o.lastWrite + 1
	if h := o.iterationOf(o.wrote); h > o.lastWrite {
		from = h
	}
	for i := from; i < o.wrote; i++ {
		conds, branch, val := o.skipped(i, false)
		if branch == nil {
			continue
		}
		for _, x := range read {
			if !assigns(branch, x) {
				continue
			}
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so %s was not changed before `%s` (line %d) wrote it",
				oneLine(steps[i].Stmt), val, x, oneLine(ws.Stmt), ws.Line))
		}
	}
	return -1, ""
}

// wantedWrite finds, from step from on, a branch that did not run whose write writes constants the wanted string
// has at the first wrong byte (`case '\t': out = append(out, '\\', 't')`
// not taken): the branch that should have run.
func (o *outputTrace) wantedWrite(from int) (int, string) {
	if o.wanted == "" {
		return -1, ""
	}
	steps := o.st.flt.Steps
	for i := from; i < o.wrote && i < len(steps); i++ {
		conds, branch, val := o.skipped(i, true)
		if branch == nil {
			continue
		}
		w := writeIn(branch, o.name)
		if w == nil {
			continue
		}
		if lits, ok := literalBytes(w); ok && strings.HasPrefix(o.wanted, string(lits)) {
			return o.decided(i, conds, fmt.Sprintf("`%s` was %v, so `%s` (line %d), which writes the %s wanted there, did not run",
				oneLine(steps[i].Stmt), val, oneLine(o.file.Text(w)), o.file.Line(w.Pos()), strconv.Quote(string(lits))))
		}
	}
	return -1, ""
}

// concatenation finds, when the frame returns a concatenation (`return
// strconv.Itoa(x) + suffix`), the operand holding byte k of got: the
// variable's name, or lit for a string literal; ok is false when the
// operands' values (one at most unknown, a call's) do not make got.
func concatenation(file *syntax.File, st *frameState, got string, k int) (x string, lit, ok bool) {
	steps := st.flt.Steps
	if len(steps) == 0 {
		return "", false, false
	}
	ret, isRet := file.StmtAt(steps[len(steps)-1].Line).(*ast.ReturnStmt)
	if !isRet || len(ret.Results) == 0 {
		return "", false, false
	}
	var operands []ast.Expr
	var flatten func(e ast.Expr)
	flatten = func(e ast.Expr) {
		if be, isAdd := ast.Unparen(e).(*ast.BinaryExpr); isAdd && be.Op == token.ADD {
			flatten(be.X)
			flatten(be.Y)
			return
		}
		operands = append(operands, ast.Unparen(e))
	}
	flatten(ret.Results[0])
	if len(operands) < 2 {
		return "", false, false
	}
	vars := st.before(len(steps) - 1)
	vals := make([]*string, len(operands))
	known, unknown := 0, 0
	for i, e := range operands {
		var v string
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			if e.Kind != token.STRING || err != nil {
				return "", false, false
			}
			v = s
		case *ast.Ident:
			s, n, ok := stringValue(vars[e.Name])
			if !ok || n != len(s) {
				return "", false, false
			}
			v = s
		default:
			unknown++
			continue
		}
		vals[i] = &v
		known += len(v)
	}
	if unknown > 1 || known > len(got) || unknown == 0 && known != len(got) {
		return "", false, false
	}
	off := 0
	for i, e := range operands {
		n := len(got) - known
		if vals[i] != nil {
			n = len(*vals[i])
			if got[off:off+n] != *vals[i] {
				return "", false, false
			}
		}
		if off <= k && k < off+n {
			switch e := e.(type) {
			case *ast.Ident:
				return e.Name, false, true
			case *ast.BasicLit:
				return "", true, true
			}
			return "", false, false
		}
		off += n
	}
	return "", false, false
}

// decided returns the step that decided the if of step i, with what
// happened: the if itself, or, when its condition reads a variable that
// carries state into the loop's iteration (set in an earlier iteration or
// before the loop: capNext, first), the assignment that last set it. A
// variable computed in the same iteration is part of the condition.
func (o *outputTrace) decided(i int, conds []ast.Expr, what string) (int, string) {
	h := o.iterationOf(i)
	if h < 0 {
		return i, what
	}
	steps := o.st.flt.Steps
	var names []string
	for _, c := range conds {
		names = append(names, idents(c)...)
	}
	for _, y := range names {
		j := o.lastAssign(y, i)
		if j < 0 || j >= h {
			continue
		}
		if _, ok := o.stmt(j).(*ast.AssignStmt); ok {
			return j, fmt.Sprintf("`%s` made %s %s; then %s", oneLine(steps[j].Stmt), y, o.valueAfter(j, y), what)
		}
	}
	return i, what
}

// iterationOf returns the step that began the iteration of the innermost
// loop around step i (its header's last step before it), -1 if step i is
// in no loop.
func (o *outputTrace) iterationOf(i int) int {
	steps := o.st.flt.Steps
	loop := innermostLoop(o.file, steps[i].Line)
	if loop == nil {
		return -1
	}
	header := o.file.Line(loop.Pos())
	for j := i - 1; j >= 0; j-- {
		if steps[j].Line == header && steps[j].File == steps[i].File {
			return j
		}
	}
	return -1
}

// innermostLoop returns the innermost for statement around line, nil if
// there is none.
func innermostLoop(file *syntax.File, line int) ast.Stmt {
	var loop ast.Stmt
	ast.Inspect(file.AST, func(n ast.Node) bool {
		if n == nil || file.Line(n.Pos()) > line || file.Line(n.End()) < line {
			return false
		}
		switch s := n.(type) {
		case *ast.ForStmt:
			loop = s
		case *ast.RangeStmt:
			loop = s
		case *ast.FuncLit:
			return false
		}
		return true
	})
	return loop
}

// vars shows, as they were before step i ran, the variables of the
// innermost loop around it (which iteration it was) and those its
// statement reads.
func (o *outputTrace) vars(i int) string {
	var names []string
	switch l := innermostLoop(o.file, o.st.flt.Steps[i].Line).(type) {
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{l.Key, l.Value} {
			if id, ok := e.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok {
			for _, e := range as.Lhs {
				names = append(names, idents(e)...)
			}
		}
	}
	names = append(names, idents(o.exprOf(i))...)
	before := o.st.before(i)
	var out []string
	for _, x := range names {
		if v, ok := before[x]; ok && x != o.name && !slicesContainsPrefix(out, x+" = ") {
			out = append(out, x+" = "+v.Text)
		}
	}
	return strings.Join(out, ", ")
}

// skipped returns, when step i is an if or (with cases) a switch's case
// whose branch did not run, the condition (the case's expressions), that
// branch and the condition's value; a nil branch otherwise. A skipped
// else if is a step of its own. Cases are for the wanted bytes' search
// only: of a switch whose cases all write, all but one are skipped in
// every run.
func (o *outputTrace) skipped(i int, cases bool) ([]ast.Expr, ast.Node, bool) {
	steps := o.st.flt.Steps
	if i+1 >= len(steps) || steps[i+1].File != steps[i].File {
		return nil, nil, false
	}
	next := steps[i+1].Line
	switch s := o.stmt(i).(type) {
	case *ast.IfStmt:
		if o.file.Line(s.Pos()) != steps[i].Line {
			return nil, nil, false
		}
		if !(o.file.Line(s.Body.Lbrace) < next && next < o.file.Line(s.Body.Rbrace)) {
			return []ast.Expr{s.Cond}, s.Body, false
		}
		if blk, ok := s.Else.(*ast.BlockStmt); ok {
			return []ast.Expr{s.Cond}, blk, true
		}
	case *ast.CaseClause:
		// A case's body runs on the lines after its colon.
		if cases && len(s.Body) > 0 && !(o.file.Line(s.Colon) < next && next <= o.file.Line(s.End())) {
			return s.List, &ast.BlockStmt{List: s.Body}, false
		}
	}
	return nil, nil, false
}

// lastAssign returns the last step before step `before` that assigned the
// variable x (whether or not its value changed), a loop's header that sets
// it included; -1 if none did.
func (o *outputTrace) lastAssign(x string, before int) int {
	for j := before - 1; j >= 0; j-- {
		if setsVar(o.stmt(j), x) {
			return j
		}
	}
	return -1
}

// valueAfter renders the variable x after step j.
func (o *outputTrace) valueAfter(j int, x string) string {
	if v, ok := o.st.afterStep(j)[x]; ok {
		return v.Text
	}
	return "?"
}

// stmt returns the statement of step i (cached by line: the rule looks up
// the same lines again and again).
func (o *outputTrace) stmt(i int) ast.Stmt {
	st := o.st.flt.Steps[i]
	if st.File != o.file.Path {
		return nil
	}
	if s, ok := o.stmts[st.Line]; ok {
		return s
	}
	if o.stmts == nil {
		o.stmts = map[int]ast.Stmt{}
	}
	s := o.file.StmtAt(st.Line)
	o.stmts[st.Line] = s
	return s
}

// exprOf returns what step i's statement reads: an if's condition, an
// assignment's right side, a call's arguments.
func (o *outputTrace) exprOf(i int) ast.Expr {
	switch s := o.file.StmtAt(o.st.flt.Steps[i].Line).(type) {
	case *ast.IfStmt:
		return s.Cond
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			return s.Rhs[0]
		}
	case *ast.IncDecStmt:
		return s.X
	case *ast.ExprStmt:
		return s.X
	}
	return nil
}

// writeIn returns the first statement of n that writes to the string in
// variable name: a Write… method called on it, an assignment to it
// (s += …, buf = append(buf, …)), fmt.Fprint… into it.
func writeIn(n ast.Node, name string) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		switch s := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			if call, ok := s.X.(*ast.CallExpr); ok && writesTo(call, name) {
				found = s
			}
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					found = s
				}
			}
		}
		return true
	})
	return found
}

// writesTo reports whether call writes to the string in variable name.
func writesTo(call *ast.CallExpr, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && strings.HasPrefix(sel.Sel.Name, "Write") {
		return true
	}
	if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Fprint") && len(call.Args) > 0 {
		w := call.Args[0]
		if u, ok := w.(*ast.UnaryExpr); ok && u.Op == token.AND {
			w = u.X // fmt.Fprintf(&buf, …)
		}
		if root := rootIdent(w); root != nil && root.Name == name {
			return true
		}
	}
	return false
}

// writtenVars returns the variables a write to the string in name reads for
// what it writes: a Write call's arguments, an assignment's right side.
func writtenVars(stmt ast.Stmt, name string) []string {
	var e []ast.Expr
	switch s := stmt.(type) {
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			e = call.Args
		}
	case *ast.AssignStmt:
		e = s.Rhs
	}
	var out []string
	for _, x := range e {
		for _, id := range idents(x) {
			if id != name {
				out = append(out, id)
			}
		}
	}
	return out
}

// allocates reports whether stmt makes a slice, whose bytes are zeros
// until written by index (`output := make([]byte, count)`).
func allocates(stmt ast.Stmt) bool {
	var rhs []ast.Expr
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		rhs = s.Rhs
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range gd.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					rhs = append(rhs, vs.Values...)
				}
			}
		}
	}
	for _, e := range rhs {
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && callName(call) == "make" {
			return true
		}
	}
	return false
}

// literalBytes returns the bytes a write of constants writes (`append(b,
// '=', 0)`, `b.WriteString(", ")`); ok is false when it writes anything
// else.
func literalBytes(stmt ast.Stmt) ([]byte, bool) {
	var args []ast.Expr
	switch s := stmt.(type) {
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		args = call.Args
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			return nil, false
		}
		call, ok := s.Rhs[0].(*ast.CallExpr)
		if !ok || callName(call) != "append" || len(call.Args) < 2 {
			return nil, false
		}
		args = call.Args[1:]
	default:
		return nil, false
	}
	var out []byte
	for _, a := range args {
		lit, ok := a.(*ast.BasicLit)
		if !ok {
			return nil, false
		}
		switch lit.Kind {
		case token.STRING:
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, false
			}
			out = append(out, v...)
		case token.CHAR:
			v, _, _, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
			if err != nil || v > 0xff {
				return nil, false
			}
			out = append(out, byte(v))
		case token.INT:
			v, err := strconv.ParseUint(lit.Value, 0, 8)
			if err != nil {
				return nil, false
			}
			out = append(out, byte(v))
		default:
			return nil, false
		}
	}
	return out, len(args) > 0
}

// isUpdate reports whether stmt changes a variable that exists already (=,
// op=, ++, --), rather than declaring one or being a loop's header.
func isUpdate(stmt ast.Stmt) bool {
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	case *ast.IncDecStmt:
		return true
	}
	return false
}

// setsVar reports whether stmt itself (not a statement in its body) sets
// the variable x: an assignment or declaration, ++ or --, a loop header.
func setsVar(stmt ast.Stmt, x string) bool {
	is := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == x
	}
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		return slices.ContainsFunc(s.Lhs, is)
	case *ast.IncDecStmt:
		return is(s.X)
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok {
			return false
		}
		for _, sp := range gd.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, n := range vs.Names {
					if n.Name == x {
						return true
					}
				}
			}
		}
	case *ast.RangeStmt:
		return s.Key != nil && is(s.Key) || s.Value != nil && is(s.Value)
	case *ast.ForStmt:
		return s.Init != nil && setsVar(s.Init, x) || s.Post != nil && setsVar(s.Post, x)
	}
	return false
}

// assigns reports whether n assigns to the variable x.
func assigns(n ast.Node, x string) bool {
	found := false
	ast.Inspect(n, func(c ast.Node) bool {
		switch s := c.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == x {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := s.X.(*ast.Ident); ok && id.Name == x {
				found = true
			}
		}
		return !found
	})
	return found
}
