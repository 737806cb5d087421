package cond

import (
	"go/ast"
	"go/constant"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// evaluator evaluates one condition over one frame.
type evaluator struct {
	c      *Cond
	lookup func(name string) (*trace.Value, bool)
}

func (e *evaluator) eval(n ast.Expr) (value, error) {
	switch n := n.(type) {
	case *ast.BasicLit:
		return e.c.lits[n], nil
	case *ast.Ident:
		return e.ident(n.Name)
	case *ast.ParenExpr:
		return e.eval(n.X)
	case *ast.SelectorExpr:
		x, err := e.eval(n.X)
		if err != nil {
			return value{}, err
		}
		return e.field(x, n.Sel.Name, e.c.text(n))
	case *ast.IndexExpr:
		return e.index(n)
	case *ast.StarExpr:
		x, err := e.eval(n.X)
		if err != nil {
			return value{}, err
		}
		return e.star(x, e.c.text(n))
	case *ast.CallExpr: // only len, see validate
		x, err := e.eval(n.Args[0])
		if err != nil {
			return value{}, err
		}
		return e.len(x, e.c.text(n))
	case *ast.UnaryExpr:
		x, err := e.eval(n.X)
		if err != nil {
			return value{}, err
		}
		return e.unary(n.Op, x, e.c.text(n))
	case *ast.BinaryExpr:
		return e.binary(n)
	}
	return value{}, e.c.unsupported(n, e.c.text(n))
}

func (e *evaluator) ident(name string) (value, error) {
	switch name {
	case "true", "false":
		return boolValue(name == "true", name), nil
	case "nil":
		return value{expr: name, typ: "untyped nil", kind: kindNil, untyped: true}, nil
	}
	if e.lookup != nil {
		if rv, ok := e.lookup(name); ok && rv != nil {
			return recorded(rv, name)
		}
	}
	return value{}, &UnknownNameError{Name: name, what: e.c.what}
}

// child makes an operand of a recorded child of v (named expr).
func child(v *trace.Value, i int, expr string) (value, error) {
	return recorded(&v.Children[i], expr)
}

// dynamic looks through interfaces to their dynamic value. A nil interface
// is returned as is.
func (e *evaluator) dynamic(v value) (value, error) {
	for v.rec != nil && v.kind == trace.KindInterface && !v.rec.Nil {
		if len(v.rec.Children) == 0 {
			return value{}, errorf(ErrCut, "the dynamic value of %s (%s) was cut at recording time; %s", v.expr, v.typ, hintDepth)
		}
		w, err := child(v.rec, 0, v.expr)
		if err != nil {
			return value{}, err
		}
		v = w
	}
	return v, nil
}

func isNilInterface(v value) bool {
	return v.rec != nil && v.kind == trace.KindInterface && v.rec.Nil
}

// scalar looks through interfaces and reports a scalar that could not be
// decoded. The result may still be of any kind: callers check.
func (e *evaluator) scalar(v value) (value, error) {
	v, err := e.dynamic(v)
	if err != nil {
		return value{}, err
	}
	if isNilInterface(v) {
		return value{}, errorf(nil, "%s is nil", v.expr)
	}
	return v, v.bad
}

// pointee returns what the pointer v points to; use is the expression
// being evaluated, for the message.
func (e *evaluator) pointee(v value, use string) (value, error) {
	if v.rec.Nil {
		return value{}, errorf(nil, "cannot read %s: %s is nil", use, v.expr)
	}
	if len(v.rec.Children) == 0 {
		return value{}, errorf(ErrCut, "cannot read %s: what %s points to was cut at recording time; %s", use, v.expr, hintDepth)
	}
	return child(v.rec, 0, v.expr)
}

// deref looks through interfaces and pointers (any number of them).
func (e *evaluator) deref(v value, use string) (value, error) {
	for v.rec != nil {
		var err error
		switch v.kind {
		case trace.KindInterface:
			if v.rec.Nil {
				return value{}, errorf(nil, "cannot read %s: %s is nil", use, v.expr)
			}
			v, err = e.dynamic(v)
		case trace.KindPointer:
			v, err = e.pointee(v, use)
		default:
			return v, nil
		}
		if err != nil {
			return value{}, err
		}
	}
	return v, nil
}

func (e *evaluator) star(x value, expr string) (value, error) {
	x, err := e.dynamic(x)
	if err != nil {
		return value{}, err
	}
	if x.rec == nil || x.kind != trace.KindPointer {
		return value{}, errorf(ErrType, "cannot indirect %s (%s): it is not a pointer", x.expr, x.typ)
	}
	v, err := e.pointee(x, expr)
	v.expr = expr
	return v, err
}

func (e *evaluator) field(x value, name, expr string) (value, error) {
	s, err := e.deref(x, expr)
	if err != nil {
		return value{}, err
	}
	if s.rec == nil || s.kind != trace.KindStruct {
		return value{}, errorf(ErrType, "cannot read %s: %s is %s, not a struct", expr, x.expr, s.typ)
	}
	if f := findField(s.rec, name, 4); f != nil {
		return recorded(f, expr)
	}
	if s.rec.Cut && len(s.rec.Children) == 0 {
		// The depth limit stopped loading the fields. (A struct is also
		// Cut when only something inside a field was: its fields are there.)
		return value{}, errorf(ErrCut, "%s was cut at recording time; %s", expr, hintDepth)
	}
	var have []string
	for _, c := range s.rec.Children {
		have = append(have, c.Name)
	}
	return value{}, errorf(ErrType, "%s (%s) has no field %s; it has: %s", x.expr, s.typ, name, strings.Join(have, ", "))
}

// findField finds a field of a struct, directly or promoted from embedded
// structs (up to depth levels down).
func findField(s *trace.Value, name string, depth int) *trace.Value {
	if f, ok := s.Child(name); ok {
		return f
	}
	if depth == 0 {
		return nil
	}
	for i := range s.Children {
		c := &s.Children[i]
		if !embedded(c) {
			continue
		}
		if c.Kind == trace.KindPointer && !c.Nil && len(c.Children) == 1 {
			c = &c.Children[0]
		}
		if c.Kind == trace.KindStruct && c.Error == "" {
			if f := findField(c, name, depth-1); f != nil {
				return f
			}
		}
	}
	return nil
}

// embedded reports whether a struct field is embedded: named after its type.
func embedded(f *trace.Value) bool {
	t := strings.TrimPrefix(f.Type, "*")
	if i := strings.IndexByte(t, '['); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return t == f.Name
}

func (e *evaluator) len(x value, expr string) (value, error) {
	v, err := e.dynamic(x)
	if err != nil {
		return value{}, err
	}
	if v.rec != nil && v.kind == trace.KindPointer { // *[N]T
		if v.rec.Nil {
			return value{}, errorf(nil, "cannot read %s: %s is nil", expr, v.expr)
		}
		if len(v.rec.Children) == 1 && v.rec.Children[0].Kind == trace.KindArray {
			v, err = e.pointee(v, expr)
			if err != nil {
				return value{}, err
			}
		}
	}
	switch v.kind {
	case trace.KindString:
		if v.bad != nil && v.rec != nil {
			return intValue(v.rec.Len, expr), nil
		}
		return intValue(v.s.n, expr), nil
	case trace.KindSlice, trace.KindArray, trace.KindMap, trace.KindChan:
		return intValue(v.rec.Len, expr), nil
	}
	return value{}, errorf(ErrType, "invalid argument %s (%s) for len: want a string, array, slice, map or chan", x.expr, v.typ)
}

func (e *evaluator) index(n *ast.IndexExpr) (value, error) {
	expr := e.c.text(n)
	x, err := e.eval(n.X)
	if err != nil {
		return value{}, err
	}
	k, err := e.eval(n.Index)
	if err != nil {
		return value{}, err
	}
	if x, err = e.dynamic(x); err != nil {
		return value{}, err
	}
	if x.rec != nil && x.kind == trace.KindPointer { // *[N]T
		if x, err = e.pointee(x, expr); err != nil {
			return value{}, err
		}
	}
	switch x.kind {
	case trace.KindMap:
		return e.mapIndex(x, k, expr)
	case trace.KindString, trace.KindSlice, trace.KindArray:
	default:
		return value{}, errorf(ErrType, "cannot index %s (%s)", x.expr, x.typ)
	}
	i, err := e.intIndex(k, expr)
	if err != nil {
		return value{}, err
	}
	if x.kind == trace.KindString {
		return e.stringIndex(x, i, expr)
	}
	if i < 0 || i >= x.rec.Len {
		return value{}, errorf(nil, "index %d out of range for %s (length %d)", i, x.expr, x.rec.Len)
	}
	if c, ok := x.rec.Child("[" + strconv.FormatInt(i, 10) + "]"); ok {
		return recorded(c, expr)
	}
	return value{}, errorf(ErrCut, "%s was cut at recording time (%d of the %d elements of %s were recorded); %s",
		expr, len(x.rec.Children), x.rec.Len, x.expr, elemsHint(x.rec))
}

// elemsHint says which limit left elements of v out: the depth limit when
// none was loaded, the element limit otherwise.
func elemsHint(v *trace.Value) string {
	if len(v.Children) == 0 {
		return hintDepth
	}
	return hintElems
}

// intIndex returns an index operand as an int64.
func (e *evaluator) intIndex(k value, expr string) (int64, error) {
	k, err := e.scalar(k)
	if err != nil {
		return 0, err
	}
	if !isNumber(k) || isFloat64(k) {
		return 0, errorf(ErrType, "invalid index %s (%s) in %s: want an integer", k.expr, k.typ, expr)
	}
	c := constant.ToInt(k.c)
	i, exact := constant.Int64Val(c)
	if c.Kind() != constant.Int || !exact {
		return 0, errorf(ErrType, "invalid index %s in %s: want an integer", k.expr, expr)
	}
	return i, nil
}

func (e *evaluator) stringIndex(x value, i int64, expr string) (value, error) {
	if x.bad != nil {
		return value{}, x.bad
	}
	if i < 0 || i >= x.s.n {
		return value{}, errorf(nil, "index %d out of range for %s (length %d)", i, x.expr, x.s.n)
	}
	if i >= int64(len(x.s.known)) {
		return value{}, errorf(ErrCut, "%s was cut at recording time (%d of %d bytes recorded); %s",
			x.expr, len(x.s.known), x.s.n, hintString)
	}
	b := x.s.known[i]
	return value{expr: expr, typ: "byte", kind: trace.KindUint, c: constant.MakeUint64(uint64(b))}, nil
}

// mapIndex finds a map element by its key rendered as Text.
func (e *evaluator) mapIndex(m, k value, expr string) (value, error) {
	k, err := e.scalar(k)
	if err != nil {
		return value{}, err
	}
	var key string
	switch {
	case k.kind == trace.KindString && !k.s.complete():
		return value{}, errorf(ErrCut, "the key %s was cut at recording time (%d of %d bytes recorded); %s",
			k.expr, len(k.s.known), k.s.n, hintString)
	case k.rec != nil && k.rec.Cut:
		return value{}, errorf(ErrCut, "the key %s was cut at recording time; %s", k.expr, hintDepth)
	case k.kind == kindNil:
		key = "nil"
	default:
		key = k.render()
	}
	if c, ok := m.rec.Child(key); ok {
		return recorded(c, expr)
	}
	if k.kind == trace.KindString {
		// A long string key was recorded cut, as `"abc"…+N more`.
		for _, c := range m.rec.Children {
			if p, rest := cutPrefix(c.Name); rest != "" && strings.HasPrefix(k.s.known, p) {
				return value{}, errorf(ErrCut, "key %s of %s may be the recorded key %s, which was cut at recording time; %s",
					key, m.expr, c.Name, hintString)
			}
		}
	}
	if int64(len(m.rec.Children)) < m.rec.Len {
		return value{}, errorf(ErrCut, "key %s of %s was not recorded (%d of its %d entries were); %s",
			key, m.expr, len(m.rec.Children), m.rec.Len, elemsHint(m.rec))
	}
	return value{}, errorf(nil, "key %s not in map %s", key, m.expr)
}

// isNilable reports whether a kind has nil.
func isNilable(k trace.Kind) bool {
	switch k {
	case trace.KindPointer, trace.KindSlice, trace.KindMap, trace.KindChan, trace.KindFunc, trace.KindInterface:
		return true
	}
	return false
}
