package cond

import (
	"go/ast"
	"go/constant"
	"go/token"
	"math"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

func (e *evaluator) unary(op token.Token, x value, expr string) (value, error) {
	x, err := e.scalar(x)
	if err != nil {
		return value{}, err
	}
	switch {
	case op == token.NOT && x.kind == trace.KindBool:
		return boolValue(!boolOf(x), expr), nil
	case op == token.NOT:
		return value{}, errorf(ErrType, "operator ! needs a bool: %s is %s", x.expr, x.typ)
	case !isNumber(x):
		return value{}, errorf(ErrType, "operator %s needs a number: %s is %s", op, x.expr, x.typ)
	}
	v := x
	v.expr, v.rec = expr, nil
	if op == token.SUB {
		if isFloat64(x) {
			v.f = -x.f
		} else {
			v.c = constant.UnaryOp(token.SUB, x.c, 0)
		}
	}
	return v, nil
}

func (e *evaluator) binary(n *ast.BinaryExpr) (value, error) {
	expr := e.c.text(n)
	x, err := e.eval(n.X)
	if err != nil {
		return value{}, err
	}
	if n.Op == token.LAND || n.Op == token.LOR {
		b, err := e.boolOperand(n.Op, x)
		if err != nil {
			return value{}, err
		}
		if b == (n.Op == token.LOR) { // short-circuit
			return boolValue(b, expr), nil
		}
		y, err := e.eval(n.Y)
		if err != nil {
			return value{}, err
		}
		b, err = e.boolOperand(n.Op, y)
		return boolValue(b, expr), err
	}
	y, err := e.eval(n.Y)
	if err != nil {
		return value{}, err
	}
	switch n.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		b, err := e.compare(n.Op, x, y, expr)
		return boolValue(b, expr), err
	}
	return e.arith(n.Op, x, y, expr)
}

func (e *evaluator) boolOperand(op token.Token, v value) (bool, error) {
	v, err := e.scalar(v)
	if err != nil {
		return false, err
	}
	if v.kind != trace.KindBool {
		return false, errorf(ErrType, "operator %s needs booleans: %s is %s", op, v.expr, v.typ)
	}
	return boolOf(v), nil
}

func (e *evaluator) compare(op token.Token, x, y value, expr string) (bool, error) {
	eq := op == token.EQL || op == token.NEQ
	if x.kind == kindNil || y.kind == kindNil {
		return compareNil(op, x, y, expr)
	}
	x, err := e.dynamic(x)
	if err != nil {
		return false, err
	}
	if y, err = e.dynamic(y); err != nil {
		return false, err
	}
	if isNilInterface(x) || isNilInterface(y) {
		if !eq {
			return false, errorf(ErrType, "operator %s is not defined on a nil interface (in %s)", op, expr)
		}
		return (isNilInterface(x) && isNilInterface(y)) == (op == token.EQL), nil
	}
	if x.bad != nil {
		return false, x.bad
	}
	if y.bad != nil {
		return false, y.bad
	}
	switch {
	case isNumber(x) && isNumber(y):
		return compareNumbers(op, x, y), nil
	case x.kind == trace.KindString && y.kind == trace.KindString:
		return compareStrings(op, x, y, expr)
	case x.kind == trace.KindBool && y.kind == trace.KindBool:
		if !eq {
			return false, errorf(ErrType, "operator %s is not defined on bool (in %s)", op, expr)
		}
		return (boolOf(x) == boolOf(y)) == (op == token.EQL), nil
	case isScalar(x) && isScalar(y):
		return false, errorf(ErrType, "cannot compare %s (%s) and %s (%s)", x.expr, x.typ, y.expr, y.typ)
	}
	return false, errorf(ErrType, "cannot compare %s (%s) and %s (%s): conditions compare numbers, strings and booleans, and pointers, slices, maps, chans, funcs and interfaces with nil",
		x.expr, x.typ, y.expr, y.typ)
}

// compareNil compares with the nil literal, using the recorded Nil.
func compareNil(op token.Token, x, y value, expr string) (bool, error) {
	if op != token.EQL && op != token.NEQ {
		return false, errorf(ErrType, "operator %s is not defined on nil (in %s)", op, expr)
	}
	v := x
	if x.kind == kindNil {
		v = y
	}
	if v.kind == kindNil {
		return false, errorf(ErrType, "cannot compare nil and nil")
	}
	if v.rec == nil || !isNilable(v.kind) {
		return false, errorf(ErrType, "cannot compare %s (%s) with nil", v.expr, v.typ)
	}
	return v.rec.Nil == (op == token.EQL), nil
}

// compareNumbers compares by value whatever the types: typed floats as
// float64 (NaN compares false), everything else exactly.
func compareNumbers(op token.Token, x, y value) bool {
	if isFloat64(x) || isFloat64(y) {
		a, b := float64Of(x), float64Of(y)
		switch op {
		case token.EQL:
			return a == b
		case token.NEQ:
			return a != b
		case token.LSS:
			return a < b
		case token.LEQ:
			return a <= b
		case token.GTR:
			return a > b
		}
		return a >= b
	}
	return constant.Compare(x.c, op, y.c)
}

// compareStrings compares strings, deciding with the known prefixes and full
// lengths when one of them was cut.
func compareStrings(op token.Token, x, y value, expr string) (bool, error) {
	a, b := x.s, y.s
	if op == token.EQL || op == token.NEQ {
		if a.n != b.n {
			return op == token.NEQ, nil
		}
	}
	r, ok := orderStrings(a, b)
	if !ok {
		cut := x
		if cut.s.complete() {
			cut = y
		}
		return false, errorf(ErrCut, "%s was cut at recording time (%d of %d bytes recorded), so %s cannot be decided; %s",
			cut.expr, len(cut.s.known), cut.s.n, expr, hintString)
	}
	switch op {
	case token.EQL:
		return r == 0, nil
	case token.NEQ:
		return r != 0, nil
	case token.LSS:
		return r < 0, nil
	case token.LEQ:
		return r <= 0, nil
	case token.GTR:
		return r > 0, nil
	}
	return r >= 0, nil
}

// orderStrings compares two possibly cut strings; ok is false when the
// recorded parts do not decide.
func orderStrings(a, b strVal) (r int, ok bool) {
	m := min(len(a.known), len(b.known))
	if r := strings.Compare(a.known[:m], b.known[:m]); r != 0 {
		return r, true
	}
	switch {
	case a.complete() && b.complete():
		return strings.Compare(a.known, b.known), true
	case a.complete() && len(a.known) == m:
		return -1, true // a is a proper prefix of b
	case b.complete() && len(b.known) == m:
		return 1, true
	}
	return 0, false
}

// arith applies + - * / % & | ^ &^.
func (e *evaluator) arith(op token.Token, x, y value, expr string) (value, error) {
	x, err := e.scalar(x)
	if err != nil {
		return value{}, err
	}
	if y, err = e.scalar(y); err != nil {
		return value{}, err
	}
	switch {
	case x.kind == trace.KindString && y.kind == trace.KindString:
		if op != token.ADD {
			return value{}, errorf(ErrType, "operator %s is not defined on strings (in %s)", op, expr)
		}
		s := strVal{known: x.s.known, n: x.s.n + y.s.n}
		if x.s.complete() {
			s.known += y.s.known
		}
		v := stringValue(s, typed(x, y).typ, x.untyped && y.untyped)
		v.expr = expr
		return v, nil
	case !isNumber(x) || !isNumber(y):
		if isScalar(x) && isScalar(y) && x.kind != y.kind {
			return value{}, errorf(ErrType, "mismatched types %s and %s in %s", x.typ, y.typ, expr)
		}
		bad := x
		if isNumber(x) {
			bad = y
		}
		return value{}, errorf(ErrType, "operator %s is not defined on %s (%s)", op, bad.expr, bad.typ)
	case isFloat64(x) || isFloat64(y):
		return floatArith(op, x, y, expr)
	}
	return constArith(op, x, y, expr)
}

// typed returns the operand whose type a result takes: the typed one, x when
// both are (the language compares numbers of different types by value).
func typed(x, y value) value {
	if x.untyped && !y.untyped {
		return y
	}
	return x
}

func floatArith(op token.Token, x, y value, expr string) (value, error) {
	a, b := float64Of(x), float64Of(y)
	var f float64
	switch op {
	case token.ADD:
		f = a + b
	case token.SUB:
		f = a - b
	case token.MUL:
		f = a * b
	case token.QUO:
		f = a / b
	default:
		return value{}, errorf(ErrType, "operator %s is not defined on floats (in %s)", op, expr)
	}
	t := x
	if !isFloat64(x) {
		t = y
	}
	return value{expr: expr, typ: t.typ, kind: trace.KindFloat, f: f}, nil
}

// constArith computes exactly on integers and untyped floats. An untyped
// float with an integer value combined with an integer counts as an integer,
// as in Go (n / 2.0 divides integers).
func constArith(op token.Token, x, y value, expr string) (value, error) {
	xc, yc := x.c, y.c
	if isInteger(y) && !isInteger(x) {
		if c := constant.ToInt(xc); c.Kind() == constant.Int && !y.untyped {
			xc = c
		}
	}
	if isInteger(x) && !isInteger(y) {
		if c := constant.ToInt(yc); c.Kind() == constant.Int && !x.untyped {
			yc = c
		}
	}
	ints := xc.Kind() == constant.Int && yc.Kind() == constant.Int
	switch op {
	case token.ADD, token.SUB, token.MUL:
	case token.QUO, token.REM:
		if constant.Sign(yc) == 0 {
			return value{}, errorf(nil, "division by zero in %s", expr)
		}
		if ints && op == token.QUO {
			op = token.QUO_ASSIGN // integer division
		}
		if !ints && op == token.REM {
			return value{}, errorf(ErrType, "operator %% is not defined on floats (in %s)", expr)
		}
	case token.AND, token.OR, token.XOR, token.AND_NOT:
		if !ints {
			return value{}, errorf(ErrType, "operator %s is not defined on floats (in %s)", op, expr)
		}
	default:
		return value{}, errorf(ErrType, "operator %s is not supported (in %s)", op, expr)
	}
	c := constant.BinaryOp(xc, op, yc)
	t := typed(x, y)
	v := value{expr: expr, typ: t.typ, kind: t.kind, untyped: x.untyped && y.untyped, c: c}
	if c.Kind() == constant.Float {
		v.kind = trace.KindFloat
		if isInteger(t) {
			// n * 1.5: Go rejects it, conditions compute it exactly.
			v.typ, v.untyped = "untyped float", true
		}
	} else if v.kind == trace.KindFloat {
		v.c = constant.ToFloat(c)
	}
	if f, _ := constant.Float64Val(v.c); v.kind == trace.KindFloat && math.IsInf(f, 0) {
		return value{}, errorf(nil, "%s overflows float64", expr)
	}
	return v, nil
}
