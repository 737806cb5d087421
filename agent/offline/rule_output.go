package offline

import (
	"context"
	"fmt"
	"go/ast"
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
//     as a variable written;
//   - of a returned fmt.Sprintf, the format's constant text that holds it,
//     or the variable printed there, as a variable written (see
//     output_format.go).
//
// Where the trace cannot show who wrote the byte (room appended for a
// library call to fill in, a slice made at full length and filled by
// index, a string cut back) the rule names nothing. Where the statement
// it names writes or updates constants, it proposes the constants that
// would have made the wanted bytes (see outputFixes).

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
	if name == "" && st != nil {
		if f := d.formatFinding(p, file, st, got, want, k, how, m); f != nil {
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
	o := &outputTrace{d: d, file: file, st: st, frame: p, name: name, wrote: wrote, lastWrite: lastWrite, wanted: want[k:], got: got, want: want, k: k}
	switch how {
	case outputWrong:
		o.wrongByte, o.wantByte, o.gotByte = strconv.Quote(got[k:k+1]), strconv.Quote(want[k:k+1]), got[k:k+1]
	case outputMissing:
		o.missingRaw = want[k : k+m]
		o.missing = strconv.Quote(o.missingRaw)
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
	if fixes := o.outputFixes(root, got, want, k, how); len(fixes) > 0 {
		// Worked out from the bytes: offered only if the tests pass.
		f.fixes, f.guessed = fixes, true
		f.explanation = f.detail + "."
	}
	return f
}
