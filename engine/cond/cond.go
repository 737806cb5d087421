// Package cond compiles and evaluates breakpoint conditions over the values
// adi recorded for a frame.
//
// A condition is a Go boolean expression over the frame's arguments and
// results, parsed with go/parser. The language is a subset of Go expressions:
// literals, names, parentheses, unary ! - + and *p, arithmetic (+ - * / % and
// the bitwise & | ^ &^ on integers, + also on strings), comparisons, && and ||
// with short-circuit, len(x), field selection (through pointers and
// interfaces) and indexing of strings, arrays, slices and maps.
//
// It is more lenient than Go where that helps a debugger: numbers of different
// types compare and combine by value, integer arithmetic is exact (it does not
// wrap or overflow), and interfaces are looked through for their dynamic
// value. Comparing a cut string gives an answer whenever the recorded prefix
// and length decide it, and an error wrapping ErrCut otherwise.
package cond

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// Cond is a compiled condition. It is immutable: one Cond may be evaluated
// by several goroutines at once.
type Cond struct {
	src   string
	what  string // "condition" or "expression", for messages
	expr  ast.Expr
	file  *token.File
	names []string
	lits  map[*ast.BasicLit]value
}

// Compile parses src. A condition that does not parse, or uses a construct
// outside the supported language, gives an error wrapping ErrSyntax whose
// message says where: `condition "n >" does not parse: 1:4: expected operand,
// found 'EOF'`. An empty condition does not parse either.
func Compile(src string) (*Cond, error) { return compile(src, "condition") }

// String returns the source text of the condition.
func (c *Cond) String() string { return c.src }

// Names returns the top-level identifiers the condition reads, sorted and
// without duplicates. The constants true, false and nil and the builtin len
// (when called) are not names.
func (c *Cond) Names() []string { return slices.Clone(c.names) }

// Check returns an *UnknownNameError (with Known set to known) for the first
// name of c, in sorted order, that is not in known, and nil when known has
// them all. Use it to reject a breakpoint before any frame is evaluated.
func Check(c *Cond, known []string) error {
	for _, n := range c.names {
		if !slices.Contains(known, n) {
			k := slices.Clone(known)
			if k == nil {
				k = []string{}
			}
			return &UnknownNameError{Name: n, Known: k, what: c.what}
		}
	}
	return nil
}

// Eval evaluates the condition with lookup resolving names to recorded
// values (the frame's arguments and results). The result must be a boolean.
// A name lookup does not know gives an *UnknownNameError with Known nil: call
// Check first to name the frame's names. Operands of && and || that the
// short-circuit skips are not evaluated, so `p != nil && p.X > 1` is false for
// a nil p.
func (c *Cond) Eval(lookup func(name string) (*trace.Value, bool)) (ok bool, err error) {
	defer recoverError(c, &err)
	ev := evaluator{c: c, lookup: lookup}
	v, err := ev.eval(c.expr)
	if err != nil {
		return false, err
	}
	v, err = ev.scalar(v)
	if err != nil {
		return false, err
	}
	if v.kind != trace.KindBool {
		return false, errorf(ErrType, "condition %s is %s, not bool", c.src, v.typ)
	}
	return boolOf(v), nil
}

// Evaluate evaluates any expression of the condition language, not only a
// boolean one, and returns its value rendered like trace.Value.Text: a
// recorded value as its recorded Text, a computed one as Go-like syntax
// (42, 1.5, "abc", true). Errors are those of Compile and Eval, with
// "expression" in place of "condition" in their messages.
func Evaluate(src string, lookup func(name string) (*trace.Value, bool)) (text string, err error) {
	c, err := compile(src, "expression")
	if err != nil {
		return "", err
	}
	defer recoverError(c, &err)
	ev := evaluator{c: c, lookup: lookup}
	v, err := ev.eval(c.expr)
	if err != nil {
		return "", err
	}
	return v.render(), nil
}

// recoverError turns a panic (a bug) into an error so that a bad condition
// never takes the debugger down.
func recoverError(c *Cond, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error evaluating %s %q: %v", c.what, c.src, r)
	}
}

func compile(src, what string) (*Cond, error) {
	fset := token.NewFileSet()
	expr, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		msg := err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			msg = list[0].Error()
		}
		if strings.Contains(msg, "found '='") {
			msg += " (use == to compare)"
		}
		return nil, errorf(ErrSyntax, "%s %q does not parse: %s", what, src, msg)
	}
	c := &Cond{
		src:  src,
		what: what,
		expr: expr,
		file: fset.File(expr.Pos()),
		lits: map[*ast.BasicLit]value{},
	}
	names := map[string]bool{}
	if err := c.validate(expr, names); err != nil {
		return nil, err
	}
	for n := range names {
		c.names = append(c.names, n)
	}
	slices.Sort(c.names)
	return c, nil
}

// text returns the source of n.
func (c *Cond) text(n ast.Node) string {
	return c.src[c.file.Offset(n.Pos()):c.file.Offset(n.End())]
}

// validate rejects what the evaluator does not support, collects the names
// and converts the literals.
func (c *Cond) validate(n ast.Expr, names map[string]bool) error {
	switch n := n.(type) {
	case *ast.BasicLit:
		v, ok := literal(n.Kind, n.Value)
		if !ok {
			return c.unsupported(n, "the literal "+n.Value)
		}
		v.expr = n.Value
		c.lits[n] = v
		return nil
	case *ast.Ident:
		switch n.Name {
		case "true", "false", "nil":
		default:
			names[n.Name] = true
		}
		return nil
	case *ast.ParenExpr:
		return c.validate(n.X, names)
	case *ast.StarExpr:
		return c.validate(n.X, names)
	case *ast.UnaryExpr:
		switch n.Op {
		case token.NOT, token.SUB, token.ADD:
			return c.validate(n.X, names)
		case token.ARROW:
			return c.unsupported(n, "receiving from a channel")
		case token.AND:
			return c.unsupported(n, "taking an address (&)")
		}
		return c.unsupported(n, "the unary operator "+n.Op.String())
	case *ast.BinaryExpr:
		switch n.Op {
		case token.SHL, token.SHR:
			return c.unsupported(n, "the operator "+n.Op.String())
		}
		if err := c.validate(n.X, names); err != nil {
			return err
		}
		return c.validate(n.Y, names)
	case *ast.SelectorExpr:
		return c.validate(n.X, names)
	case *ast.IndexExpr:
		if err := c.validate(n.X, names); err != nil {
			return err
		}
		return c.validate(n.Index, names)
	case *ast.CallExpr:
		if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "len" {
			if len(n.Args) != 1 || n.Ellipsis.IsValid() {
				return c.errorAt(n, "len takes exactly one argument")
			}
			return c.validate(n.Args[0], names)
		}
		return c.unsupported(n, "calling "+c.text(n.Fun))
	case *ast.CompositeLit:
		return c.unsupported(n, "a composite literal")
	case *ast.FuncLit:
		return c.unsupported(n, "a function literal")
	case *ast.SliceExpr:
		return c.unsupported(n, "a slice expression")
	case *ast.TypeAssertExpr:
		return c.unsupported(n, "a type assertion")
	case *ast.IndexListExpr:
		return c.unsupported(n, "instantiating generics")
	case *ast.KeyValueExpr:
		return c.unsupported(n, "a key: value pair")
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType,
		*ast.StructType, *ast.InterfaceType, *ast.Ellipsis:
		return c.unsupported(n, "a type")
	}
	return c.unsupported(n, c.text(n))
}

func (c *Cond) unsupported(n ast.Node, what string) error {
	return c.errorAt(n, "%s is not supported in %ss; %s", what, c.what, supported)
}

func (c *Cond) errorAt(n ast.Node, format string, args ...any) error {
	p := c.file.Position(n.Pos())
	pos := strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	return errorf(ErrSyntax, "%s %q: %s: %s", c.what, c.src, pos, fmt.Sprintf(format, args...))
}
