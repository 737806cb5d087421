package source

import (
	"go/ast"
	"go/token"
	"strings"
	"unicode/utf8"
)

// maxStmt caps the length, in characters, of a statement's text.
const maxStmt = 160

// Stmt returns the statement that starts at line of file as one line of
// text:
//
//   - the source of the outermost statement starting on the line (for
//     "if x := f(); x > 0 {" the if, not its init), whitespace collapsed and
//     comments removed;
//   - for a compound statement spanning several lines (if, for, switch,
//     select, block, case clause) only its header: "for i := 0; i < n; i++ {",
//     "case 3:", "} else {" or "} else if x > 0 {" for an else branch;
//   - for a simple statement holding a function literal whose body spans
//     several lines, the text up to that body's opening brace
//     ("defer func() {", "sort.Slice(xs, func(i, j int) bool {");
//   - any other statement spanning several lines joined on one line;
//   - a statement that fits on its line, compound or not, in full
//     ("if err != nil { return err }").
//
// Texts longer than 160 characters end in "…". When no statement starts on
// the line (a function header, a closing brace, a continuation line, a
// comment) the result is the trimmed line text.
func (c *Cache) Stmt(file string, line int) (string, error) {
	e, err := c.file(file)
	if err != nil {
		return "", err
	}
	if err := e.checkLine(line); err != nil {
		return "", err
	}
	e.stmtOnce.Do(e.buildStmts)
	if s, ok := e.stmts[line]; ok {
		return s, nil
	}
	return strings.TrimSpace(e.lineText(line)), nil
}

// buildStmts computes the statement text of every line on which a statement
// starts.
func (e *fileEntry) buildStmts() {
	e.stmts = map[int]string{}
	if e.ast == nil {
		return
	}
	type cand struct {
		depth int
		nodes []ast.Stmt
	}
	best := map[int]*cand{}
	elseOf := map[ast.Stmt]*ast.IfStmt{}
	var stack []ast.Node
	ast.Inspect(e.ast, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		if ifs, ok := n.(*ast.IfStmt); ok && ifs.Else != nil {
			elseOf[ifs.Else] = ifs
		}
		s, ok := n.(ast.Stmt)
		if !ok || !isCandidate(s, parent, elseOf) {
			return true
		}
		l := e.line(s.Pos())
		if l == 0 {
			return true
		}
		d := len(stack)
		switch b := best[l]; {
		case b == nil || d < b.depth:
			best[l] = &cand{depth: d, nodes: []ast.Stmt{s}}
		case d == b.depth:
			b.nodes = append(b.nodes, s)
		}
		return true
	})
	for l, b := range best {
		parts := make([]string, 0, len(b.nodes))
		for _, s := range b.nodes {
			if t := e.render(s, elseOf[s]); t != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) > 0 {
			e.stmts[l] = capText(strings.Join(parts, "; "))
		}
	}
}

// isCandidate reports whether s counts as a statement of its own: not an
// empty statement, not the block of a function or of a compound statement
// (an else block and a free-standing block do count).
func isCandidate(s ast.Stmt, parent ast.Node, elseOf map[ast.Stmt]*ast.IfStmt) bool {
	switch s := s.(type) {
	case *ast.EmptyStmt:
		return false
	case *ast.BadStmt:
		return false
	case *ast.BlockStmt:
		switch parent.(type) {
		case *ast.FuncDecl, *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt,
			*ast.TypeSwitchStmt, *ast.SelectStmt:
			return false
		case *ast.IfStmt:
			_, isElse := elseOf[s]
			return isElse
		}
	}
	return true
}

// render returns the one-line text of s; elseOf is the if statement s is the
// else branch of, if it is one.
func (e *fileEntry) render(s ast.Stmt, elseOf *ast.IfStmt) string {
	start := s.Pos()
	if elseOf != nil && e.line(elseOf.Body.Rbrace) == e.line(s.Pos()) {
		start = elseOf.Body.Rbrace
	}
	cut := s.End()
	if e.line(s.Pos()) != e.line(s.End()) {
		cut = e.headerEnd(s)
	}
	// A function literal whose body spans lines ends the text at its brace.
	ast.Inspect(s, func(n ast.Node) bool {
		fl, ok := n.(*ast.FuncLit)
		if !ok || fl.Body == nil {
			return true
		}
		if fl.Body.Lbrace < cut && e.line(fl.Body.Lbrace) != e.line(fl.Body.Rbrace) {
			cut = fl.Body.Lbrace + 1
		}
		return false
	})
	so, co := e.offset(start), e.offset(cut)
	if so < 0 || co > len(e.src) || so >= co {
		return ""
	}
	return collapse(e.src[so:co])
}

// headerEnd is the end of the header of a compound statement spanning
// several lines (just past its opening brace or colon); for a simple
// statement it is the statement's end.
func (e *fileEntry) headerEnd(s ast.Stmt) token.Pos {
	switch s := s.(type) {
	case *ast.IfStmt:
		return s.Body.Lbrace + 1
	case *ast.ForStmt:
		return s.Body.Lbrace + 1
	case *ast.RangeStmt:
		return s.Body.Lbrace + 1
	case *ast.SwitchStmt:
		return s.Body.Lbrace + 1
	case *ast.TypeSwitchStmt:
		return s.Body.Lbrace + 1
	case *ast.SelectStmt:
		return s.Body.Lbrace + 1
	case *ast.BlockStmt:
		return s.Lbrace + 1
	case *ast.CaseClause:
		return s.Colon + 1
	case *ast.CommClause:
		return s.Colon + 1
	case *ast.LabeledStmt:
		if s.Stmt != nil && e.line(s.Stmt.Pos()) == e.line(s.Pos()) {
			if _, empty := s.Stmt.(*ast.EmptyStmt); !empty {
				if e.line(s.Stmt.Pos()) == e.line(s.Stmt.End()) {
					return s.Stmt.End()
				}
				return e.headerEnd(s.Stmt)
			}
		}
		return s.Colon + 1
	}
	return s.End()
}

// collapse turns source text into one line: comments are dropped and every
// run of white space outside string and rune literals becomes one space (or
// none just inside brackets, and a trailing comma before a closing bracket
// on another line is dropped, as gofmt writes a one-line list).
func collapse(src []byte) string {
	var b strings.Builder
	pendingSpace, pendingNewline := false, false
	flush := func(next byte) {
		if pendingSpace && b.Len() > 0 {
			out := b.String()
			last := out[len(out)-1]
			closing := next == ')' || next == ']' || next == '}'
			if closing && pendingNewline && last == ',' {
				s := out[:len(out)-1]
				b.Reset()
				b.WriteString(s)
				last = 0
				if len(s) > 0 {
					last = s[len(s)-1]
				}
			}
			opening := last == '(' || last == '[' || last == '{'
			if !(pendingNewline && (opening || closing)) {
				b.WriteByte(' ')
			}
		}
		pendingSpace, pendingNewline = false, false
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			pendingSpace = true
			if c == '\n' {
				pendingNewline = true
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i-- // let the newline be seen
			pendingSpace = true
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(string(src[i+2:]), "*/")
			if end < 0 {
				i = len(src)
			} else {
				if strings.Contains(string(src[i:i+2+end]), "\n") {
					pendingNewline = true
				}
				i += 2 + end + 1
			}
			pendingSpace = true
		case c == '"' || c == '\'' || c == '`':
			flush(c)
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(src) {
				j = len(src) - 1
			}
			lit := string(src[i : j+1])
			if c == '`' {
				lit = strings.NewReplacer("\r", "", "\n", " ").Replace(lit)
			}
			b.WriteString(lit)
			i = j
		default:
			flush(c)
			b.WriteByte(c)
		}
	}
	return b.String()
}

// capText cuts s to maxStmt characters, the last being "…".
func capText(s string) string {
	if utf8.RuneCountInString(s) <= maxStmt {
		return s
	}
	n := 0
	for i := range s {
		if n == maxStmt-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// StmtStart returns the first line of the statement that line continues:
// for a simple statement written over several lines (a composite literal, a
// call with its arguments on lines of their own) every line after its first
// belongs to it, except lines inside a function literal, which have
// statements of their own. For any other line it returns line.
func (c *Cache) StmtStart(file string, line int) int {
	e, err := c.file(file)
	if err != nil || e.ast == nil {
		return line
	}
	e.contOnce.Do(e.buildContinuations)
	if s, ok := e.cont[line]; ok {
		return s
	}
	return line
}

// buildContinuations maps the continuation lines of multi-line simple
// statements to their first line.
func (e *fileEntry) buildContinuations() {
	e.cont = map[int]int{}
	ast.Inspect(e.ast, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.AssignStmt, *ast.ExprStmt, *ast.ReturnStmt, *ast.DeclStmt, *ast.IncDecStmt,
			*ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
		default:
			return true
		}
		start, end := e.line(n.Pos()), e.line(n.End())
		if start == 0 || end <= start {
			return true
		}
		inLit := map[int]bool{}
		ast.Inspect(n, func(m ast.Node) bool {
			if fl, ok := m.(*ast.FuncLit); ok && fl.Body != nil {
				for l := e.line(fl.Body.Lbrace) + 1; l <= e.line(fl.Body.Rbrace); l++ {
					inLit[l] = true
				}
			}
			return true
		})
		for l := start + 1; l <= end; l++ {
			if !inLit[l] {
				e.cont[l] = start
			}
		}
		return true // function literals inside have statements too
	})
}
