package offline

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// The output rule's fixes: edits of the constants of the statement it
// blames that would make it write what the test wants. They are worked
// out from the bytes (the rejected string against the wanted one), so
// each is a guess that verification confirms or refutes: offered only
// when the tests pass with it (see finding.guessed).

// outputFixes returns the edits of step root's statement that would mend
// got at its first wrong byte, k (how: wrong, or bytes missing): the bytes a
// write of constants writes made the wanted ones (`append(b, ':')` →
// `append(b, '=')`, `b.WriteString(" ")` → `b.WriteString(", ")`), the
// constant of an update that made a written byte wrong (`v -= 'B'` →
// `v -= 'A'`), the format of a formatted write (`fmt.Fprintf(&b, "%s:%s",
// k, v)` → "%s=%s"), the base a number is written in
// (`strconv.AppendInt(buf, p, 16)` → 10).
func (o *outputTrace) outputFixes(root int, got, want string, k, how int) []fix {
	stmt := o.stmt(root)
	if stmt == nil {
		return nil
	}
	var fixes []fix
	switch {
	case how == outputWrong && root == o.wrote:
		// The wanted bytes where the write wrote its own, as many; or,
		// for a string literal, up to where the wanted string goes on as
		// the rejected one does after the write (a separator written
		// short, " " for ", ", makes every byte after it wrong): first
		// the one that keeps the string's length, when the two are as
		// long.
		same, ok1 := o.rewriteLiterals(stmt, got, func(lo, n int) (string, bool) {
			if k < lo || k >= lo+n || lo+n > len(want) {
				return "", false
			}
			return want[lo : lo+n], true
		})
		resync, ok2 := o.rewriteLiterals(stmt, got, func(lo, n int) (string, bool) {
			if k < lo || k >= lo+n {
				return "", false
			}
			return resynced(got, want, lo, lo+n)
		})
		cands := []struct {
			fx fix
			ok bool
		}{{same, ok1}, {resync, ok2}}
		if len(got) != len(want) {
			cands[0], cands[1] = cands[1], cands[0]
		}
		for _, c := range cands {
			if c.ok && (len(fixes) == 0 || fixes[0].desc != c.fx.desc) {
				fixes = append(fixes, c.fx)
			}
		}
		_, fmtFixes, _ := o.writtenFormat(stmt)
		fixes = append(fixes, fmtFixes...)
		fixes = append(fixes, o.baseFixes(stmt)...)
	case how == outputMissing && root == o.wrote:
		// The write after the gap wrote its constants without the
		// missing bytes before them (see skippedWrite).
		if fx, ok := o.rewriteLiterals(stmt, got, func(lo, n int) (string, bool) {
			if lo != k || !strings.HasPrefix(o.wanted, o.missingRaw+got[lo:lo+n]) {
				return "", false
			}
			return o.missingRaw + got[lo:lo+n], true
		}); ok {
			fixes = append(fixes, fx)
		}
	case how == outputWrong:
		if fx, ok := o.updateFix(stmt, got[k], want[k]); ok {
			fixes = append(fixes, fx)
		}
	}
	return fixes
}

// rewriteLiterals makes the constants that stmt, a write of constants
// (see literalArgs), writes into the bytes that to says they should have
// been, given where in got they are (lo) and how many (n): a write of one
// string literal can write any bytes; one of runes or bytes, as many.
func (o *outputTrace) rewriteLiterals(stmt ast.Stmt, got string, to func(lo, n int) (string, bool)) (fix, bool) {
	lits, ok := literalArgs(stmt)
	if !ok {
		return fix{}, false
	}
	wrote, _ := literalBytes(stmt)
	n, end := len(wrote), o.lenAfter(o.wrote)
	lo := end - n
	if n == 0 || lo < 0 || end > len(got) || got[lo:end] != string(wrote) {
		return fix{}, false
	}
	want, ok := to(lo, n)
	oneString := len(lits) == 1 && lits[0].Kind == token.STRING
	if !ok || want == string(wrote) || len(want) != n && !oneString {
		return fix{}, false
	}
	text, base := o.file.Text(stmt), o.file.Offset(stmt.Pos())
	var edits []edit
	next := n // where the bytes of the literals after lits[i] start
	for i := len(lits) - 1; i >= 0; i-- {
		lit := lits[i]
		b, _ := litBytes(lit)
		at := next - len(b)
		next = at
		var repl string
		switch {
		case oneString:
			repl = strconv.Quote(want)
		case lit.Kind == token.STRING:
			repl = strconv.Quote(want[at : at+len(b)])
		default:
			repl = byteLit(want[at], lit.Kind)
		}
		if repl == lit.Value {
			continue
		}
		s, e := o.file.Offset(lit.Pos()), o.file.Offset(lit.End())
		edits = append(edits, edit{file: o.file.Path, start: s, end: e, text: repl})
		text = text[:s-base] + repl + text[e-base:]
	}
	if len(edits) == 0 {
		return fix{}, false
	}
	return fix{desc: fmt.Sprintf("`%s` → `%s`", oneLine(o.file.Text(stmt)), oneLine(text)), edits: edits}, true
}

// resynced returns what a write of got[lo:end] should have written for
// got to go on after it as want does: want from lo up to the first place
// after lo where the next bytes of got follow (as many of the next four
// as want has: later writes may be wrong too), or the rest of want when
// the write was the last.
func resynced(got, want string, lo, end int) (string, bool) {
	if lo >= len(want) {
		return "", false
	}
	if end == len(got) {
		return want[lo:], true
	}
	for r := min(4, len(got)-end); r > 0; r-- {
		if x := strings.Index(want[lo+1:], got[end:end+r]); x >= 0 {
			return want[lo : lo+1+x], true
		}
	}
	return "", false
}

// byteLit is the literal of byte b in the kind of the one it replaces: a
// rune literal, or an integer.
func byteLit(b byte, kind token.Token) string {
	if kind == token.CHAR {
		return strconv.QuoteRuneToASCII(rune(b))
	}
	return strconv.Itoa(int(b))
}

// writtenFormat finds the string's first wrong byte in the constant text
// of the format of a write (`fmt.Fprintf(&b, "%s:%s;", k, v)`, `s :=
// fmt.Sprintf(…)`), with its fixes (see formatAt); ok is false when the
// write has no format, or the byte is not its.
func (o *outputTrace) writtenFormat(stmt ast.Stmt) (pc formatPiece, fixes []fix, ok bool) {
	var call ast.Expr
	ast.Inspect(stmt, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && call == nil {
			if _, _, _, ok := sprintfFormat(c); ok {
				call = c
			}
		}
		return call == nil
	})
	lo, end := o.lenBefore(o.wrote), o.lenAfter(o.wrote)
	if call == nil || lo > end || end > len(o.got) {
		return formatPiece{}, nil, false
	}
	return formatAt(o.file, call, o.got, o.want, lo, end, o.k, outputWrong)
}

// lenBefore is how long the string being built is before step i.
func (o *outputTrace) lenBefore(i int) int {
	if i == 0 {
		_, n, _ := builtBytes(o.st.entry[o.name])
		return n
	}
	return o.lenAfter(i - 1)
}

// lenAfter is how long the string being built is after step i.
func (o *outputTrace) lenAfter(i int) int {
	_, n, _ := builtBytes(o.st.afterStep(i)[o.name])
	return n
}

// updateFix changes the constant of an update of the byte written (`v -=
// 'B'`, `c += 3`) by what the written byte is off by: got it, want was
// wanted.
func (o *outputTrace) updateFix(stmt ast.Stmt, got, want byte) (fix, bool) {
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || (as.Tok != token.ADD_ASSIGN && as.Tok != token.SUB_ASSIGN) {
		return fix{}, false
	}
	lit, ok := as.Rhs[0].(*ast.BasicLit)
	if !ok {
		return fix{}, false
	}
	var c int64
	switch lit.Kind {
	case token.CHAR:
		v, _, _, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		if err != nil {
			return fix{}, false
		}
		c = int64(v)
	case token.INT:
		v, err := strconv.ParseInt(lit.Value, 0, 64)
		if err != nil {
			return fix{}, false
		}
		c = v
	default:
		return fix{}, false
	}
	// v -= c wrote got: v -= c + (got - want) writes want; v += c, the
	// other way.
	d := int64(got) - int64(want)
	if as.Tok == token.ADD_ASSIGN {
		d = -d
	}
	c += d
	if c < 0 {
		return fix{}, false
	}
	repl := strconv.FormatInt(c, 10)
	if lit.Kind == token.CHAR {
		repl = strconv.QuoteRuneToASCII(rune(c))
	}
	return fix{
		desc:  fmt.Sprintf("`%s` → `%s %s %s`", oneLine(o.file.Text(as)), o.file.Text(as.Lhs[0]), as.Tok, repl),
		edits: []edit{{file: o.file.Path, start: o.file.Offset(lit.Pos()), end: o.file.Offset(lit.End()), text: repl}},
	}, true
}

// baseFixes are the other bases for the integer literal base of a number
// that stmt writes with strconv (AppendInt, FormatUint, …): decimal
// first.
func (o *outputTrace) baseFixes(stmt ast.Stmt) []fix {
	var fixes []fix
	ast.Inspect(stmt, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(fixes) > 0 {
			return len(fixes) == 0
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "strconv") {
			return true
		}
		at := map[string]int{"FormatInt": 1, "FormatUint": 1, "AppendInt": 2, "AppendUint": 2}[sel.Sel.Name]
		if at == 0 || len(call.Args) <= at {
			return true
		}
		lit, ok := call.Args[at].(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return true
		}
		for _, b := range []string{"10", "16", "8", "2"} {
			if b != lit.Value {
				fixes = append(fixes, replaceFix(o.file, call, lit, b))
			}
		}
		return false
	})
	return fixes
}

// isIdent reports whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
