package offline

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// A string the frame returns as fmt.Sprintf made it, from a constant
// format (`return fmt.Sprintf("(%d; %d)", p.X, p.Y)`): the rejected string
// is the format's constant text with the verbs' values between, so the
// text that holds its first wrong byte is found by laying the format's
// constant pieces over it in order. A wrong byte of the constant text is
// the format's, and the fix writes the wanted bytes there; one of a
// verb's value, the variable's the verb printed.

// formatPiece is a run of a format's constant text: its bytes as printed
// and where it is in the format's value (from, to); escaped when it holds
// a %% (printed as %).
type formatPiece struct {
	text     string
	from, to int
	escaped  bool
}

// sprintfFormat returns the format literal, its constant pieces (one
// more than its verbs) and the verbs' arguments of a call fmt.Sprintf,
// Fprintf or Appendf with a constant format and an argument for each
// verb; ok is false for any other call, or a format whose verbs take
// their width or argument from elsewhere (`%*d`, `%[2]d`).
func sprintfFormat(e ast.Expr) (lit *ast.BasicLit, pieces []formatPiece, args []ast.Expr, ok bool) {
	call, isCall := ast.Unparen(e).(*ast.CallExpr)
	if !isCall || call.Ellipsis.IsValid() {
		return nil, nil, nil, false
	}
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel || !isIdent(sel.X, "fmt") {
		return nil, nil, nil, false
	}
	at := map[string]int{"Sprintf": 0, "Fprintf": 1, "Appendf": 1}
	first, known := at[sel.Sel.Name]
	if !known || len(call.Args) <= first {
		return nil, nil, nil, false
	}
	lit, isLit := call.Args[first].(*ast.BasicLit)
	if !isLit || lit.Kind != token.STRING {
		return nil, nil, nil, false
	}
	v, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, nil, nil, false
	}
	cur := formatPiece{}
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			cur.text += v[i : i+1]
			continue
		}
		if i+1 < len(v) && v[i+1] == '%' {
			cur.text += "%"
			cur.escaped = true
			i++
			continue
		}
		// A verb: flags, width, precision, then its letter.
		j := i + 1
		for j < len(v) && strings.IndexByte("+-# 0123456789.", v[j]) >= 0 {
			j++
		}
		if j >= len(v) || v[j] == '*' || v[j] == '[' {
			return nil, nil, nil, false
		}
		cur.to = i
		pieces = append(pieces, cur)
		cur = formatPiece{from: j + 1}
		i = j
	}
	cur.to = len(v)
	pieces = append(pieces, cur)
	args = call.Args[first+1:]
	if len(pieces)-1 != len(args) {
		return nil, nil, nil, false
	}
	return lit, pieces, args, true
}

// layFormat lays the constant pieces over s, which the format printed:
// the offsets of each in s, for every way they fit (a verb's value can
// hold a piece's text: `"%s %s"` over "a, b c"), up to maxLays, the
// pieces as far left as they go first; none when they do not fit (a
// piece between two verbs empty, or the first or last not where s starts
// or ends).
func layFormat(pieces []formatPiece, s string) [][]int {
	if len(pieces) == 0 || !strings.HasPrefix(s, pieces[0].text) || !strings.HasSuffix(s, pieces[len(pieces)-1].text) {
		return nil
	}
	var lays [][]int
	at := make([]int, len(pieces))
	// The ways the pieces between can fit are tried up to a bound: a
	// piece found many times in s, of a format with many verbs, makes
	// too many.
	tries := maxLayTries
	var lay func(i, pos int)
	lay = func(i, pos int) {
		if len(lays) >= maxLays || tries == 0 {
			return
		}
		tries--
		p := pieces[i].text
		if i == len(pieces)-1 {
			if x := len(s) - len(p); x >= pos && strings.HasSuffix(s, p) {
				at[i] = x
				lays = append(lays, slices.Clone(at))
			}
			return
		}
		if p == "" {
			return
		}
		for x := pos; x <= len(s); {
			y := strings.Index(s[x:], p)
			if y < 0 {
				return
			}
			at[i] = x + y
			lay(i+1, at[i]+len(p))
			x += y + 1
		}
	}
	if len(pieces) == 1 {
		if s == pieces[0].text {
			return [][]int{{0}}
		}
		return nil
	}
	lay(1, len(pieces[0].text))
	return lays
}

// maxLays bounds the ways of laying a format over what it printed that
// formatFinding reads, maxFormatFixes the fixes it proposes.
const (
	maxLays        = 16
	maxLayTries    = 10_000
	maxFormatFixes = 3
)

// formatFinding traces got's first wrong byte, k, into the constant text
// of the format of the fmt.Sprintf that frame p returns: the format wrote
// it, and the fixes write the wanted bytes in its place (for each way the
// format's pieces fit over got that puts the byte in one).
func (d *diagnoser) formatFinding(p *trace.Frame, file *syntax.File, st *frameState, got, want string, k, how, m int) *finding {
	steps := st.flt.Steps
	if len(steps) == 0 {
		return nil
	}
	ret, isRet := file.StmtAt(steps[len(steps)-1].Line).(*ast.ReturnStmt)
	if !isRet || len(ret.Results) != 1 {
		return nil
	}
	pc, fixes, ok := formatAt(file, ret.Results[0], got, want, 0, len(got), k, how)
	if !ok {
		return d.verbFinding(p, file, st, ret, got, want, k, how, m)
	}
	f := d.formatClaim(p, file, st, ret, pc, got, want, k, how, m)
	if len(fixes) > 0 {
		// Worked out from the bytes: offered only if the tests pass.
		// A format whose wanted bytes the tests refute is not where the
		// string went wrong (a value printed between its pieces may be):
		// the finding goes with its fixes.
		f.fixes, f.guessed, f.refutable = fixes, true, true
		f.explanation = f.detail + "."
	}
	return f
}

// verbFinding traces got's first wrong byte, k, which a verb of the format
// of the fmt.Sprintf that frame p returns printed (in every way the
// format's pieces fit over got), to the variable the verb printed, as a
// variable written (see wrongVar): `cents %= 10` for "$%d.%02d".
func (d *diagnoser) verbFinding(p *trace.Frame, file *syntax.File, st *frameState, ret *ast.ReturnStmt, got, want string, k, how, m int) *finding {
	_, pieces, args, _ := sprintfFormat(ret.Results[0])
	verb := -1
	for _, at := range layFormat(pieces, got) {
		v := -1
		for i := range args {
			if from, to := at[i]+len(pieces[i].text), at[i+1]; from <= k && k < to {
				v = i
			}
		}
		if v < 0 || verb >= 0 && v != verb {
			return nil
		}
		verb = v
	}
	if verb < 0 {
		return nil
	}
	x, isVar := ast.Unparen(args[verb]).(*ast.Ident)
	if !isVar {
		return nil
	}
	o := &outputTrace{d: d, file: file, st: st, frame: p, wrote: len(st.flt.Steps) - 1, lastWrite: -1}
	if how == outputWrong {
		o.wrongByte, o.wantByte, o.gotByte = strconv.Quote(got[k:k+1]), strconv.Quote(want[k:k+1]), got[k:k+1]
	}
	root, claim := o.wrongVar([]string{x.Name})
	if root < 0 {
		return nil
	}
	return o.finding(got, want, k, how, m, root, claim)
}

// formatAt finds got's first wrong byte, k, in the constant text of the
// format of call (see sprintfFormat), which printed got[lo:end]: the
// piece that holds it in the first way the pieces fit over the printed
// bytes that puts it in one, and the fixes of each such way; ok is false
// when no way does.
func formatAt(file *syntax.File, call ast.Expr, got, want string, lo, end, k, how int) (pc formatPiece, fixes []fix, ok bool) {
	lit, pieces, _, isFormat := sprintfFormat(call)
	if !isFormat {
		return formatPiece{}, nil, false
	}
	for _, at := range layFormat(pieces, got[lo:end]) {
		for i, p := range pieces {
			from, to := lo+at[i], lo+at[i]+len(p.text)
			if k < from || k > to || k == to && (how != outputMissing || to == from) {
				continue
			}
			if !ok {
				pc, ok = p, true
			}
			for _, fx := range formatFixes(file, call, lit, p, got, want, from, to) {
				if len(fixes) < maxFormatFixes && !slices.ContainsFunc(fixes, func(x fix) bool { return x.desc == fx.desc }) {
					fixes = append(fixes, fx)
				}
			}
		}
	}
	return pc, fixes, ok
}

// formatClaim is the finding that the format's piece pc wrote got's first
// wrong byte, k.
func (d *diagnoser) formatClaim(p *trace.Frame, file *syntax.File, st *frameState, ret *ast.ReturnStmt, pc formatPiece, got, want string, k, how, m int) *finding {
	o := &outputTrace{d: d, file: file, st: st, frame: p, wrote: len(st.flt.Steps) - 1, lastWrite: -1}
	claim := fmt.Sprintf("the format of `%s` writes %s", oneLine(file.Text(ret)), strconv.Quote(pc.text))
	switch how {
	case outputWrong:
		claim += fmt.Sprintf(", with %s where %s belongs", strconv.Quote(got[k:k+1]), strconv.Quote(want[k:k+1]))
	case outputMissing:
		claim += fmt.Sprintf(", without the %s wanted at byte %d", strconv.Quote(want[k:k+m]), k)
	case outputExtra:
		claim += fmt.Sprintf(", with %s too many", strconv.Quote(got[k:k+m]))
	}
	return o.finding(got, want, k, how, m, o.wrote, claim)
}

// formatFixes are the call with the piece pc of its format lit, printed
// at got[start:end], replaced by the bytes want has there: as many, or up
// to where want goes on as got does after it (see resynced). None for a
// piece with a %% (its bytes are not the format's).
func formatFixes(file *syntax.File, call ast.Expr, lit *ast.BasicLit, pc formatPiece, got, want string, start, end int) []fix {
	if pc.escaped {
		return nil
	}
	v, _ := strconv.Unquote(lit.Value)
	var texts []string
	if len(got) == len(want) && end <= len(want) {
		texts = append(texts, want[start:end])
	}
	if s, ok := resynced(got, want, start, end); ok && (len(texts) == 0 || s != texts[0]) {
		if len(got) == len(want) {
			texts = append(texts, s)
		} else {
			texts = append([]string{s}, texts...)
		}
	}
	var fixes []fix
	for _, t := range texts {
		if t == pc.text {
			continue
		}
		nv := v[:pc.from] + strings.ReplaceAll(t, "%", "%%") + v[pc.to:]
		repl := strconv.Quote(nv)
		if strings.HasPrefix(lit.Value, "`") && !strings.ContainsAny(nv, "`\r") {
			repl = "`" + nv + "`"
		}
		fixes = append(fixes, replaceFix(file, call, lit, repl))
	}
	return fixes
}
