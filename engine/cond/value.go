package cond

import (
	"go/constant"
	"go/token"
	"math"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// kindNil is the kind of the nil literal.
const kindNil trace.Kind = "nil"

// value is an operand during evaluation: a recorded value (rec set) or a
// computed one. Scalars are decoded: booleans and integers (typed or untyped)
// and untyped floats in c, typed floats in f (so that they behave like Go's
// float64, infinities and NaN included), strings in s.
type value struct {
	expr    string // source text, for messages
	typ     string // Go type, or "untyped int", "untyped float"…
	kind    trace.Kind
	untyped bool
	rec     *trace.Value

	c constant.Value
	f float64
	s strVal
	// bad is the error reading a scalar's Text, reported when it is used.
	bad error
}

// strVal is a string of which the first len(known) bytes are known and n is
// the full length: a cut string knows only a prefix.
type strVal struct {
	known string
	n     int64
}

func (s strVal) complete() bool { return int64(len(s.known)) >= s.n }

func (s strVal) render() string {
	q := strconv.Quote(s.known)
	if s.complete() {
		return q
	}
	return q + "…+" + strconv.FormatInt(s.n-int64(len(s.known)), 10) + " more"
}

// literal converts a Go literal.
func literal(kind token.Token, lit string) (value, bool) {
	switch kind {
	case token.INT, token.FLOAT, token.CHAR:
		c := constant.MakeFromLiteral(lit, kind, 0)
		if c.Kind() == constant.Unknown {
			return value{}, false
		}
		v := value{typ: "untyped int", kind: trace.KindInt, untyped: true, c: c}
		switch kind {
		case token.FLOAT:
			v.typ, v.kind = "untyped float", trace.KindFloat
		case token.CHAR:
			v.typ = "untyped rune"
		}
		return v, true
	case token.STRING:
		s, err := strconv.Unquote(lit)
		if err != nil {
			return value{}, false
		}
		return stringValue(strVal{s, int64(len(s))}, "untyped string", true), true
	}
	return value{}, false
}

func boolValue(b bool, expr string) value {
	return value{expr: expr, typ: "bool", kind: trace.KindBool, c: constant.MakeBool(b)}
}

func stringValue(s strVal, typ string, untyped bool) value {
	return value{typ: typ, kind: trace.KindString, untyped: untyped, s: s}
}

func intValue(n int64, expr string) value {
	return value{expr: expr, typ: "int", kind: trace.KindInt, c: constant.MakeInt64(n)}
}

func boolOf(v value) bool { return constant.BoolVal(v.c) }

// recorded makes an operand of a recorded value, decoding scalars from Text.
// A value the debugger could not read is an error here, whatever its use.
func recorded(rv *trace.Value, expr string) (value, error) {
	if rv.Error != "" {
		return value{}, errorf(nil, "cannot read %s: %s", expr, rv.Error)
	}
	v := value{expr: expr, typ: rv.Type, kind: rv.Kind, rec: rv}
	if v.typ == "" {
		v.typ = string(rv.Kind)
	}
	text := strings.TrimSpace(rv.Text)
	notNumber := func() error {
		return errorf(ErrType, "%s (%s) was recorded as %s, which is not a number", expr, v.typ, rv.Text)
	}
	switch rv.Kind {
	case trace.KindBool:
		switch text {
		case "true", "false":
			v.c = constant.MakeBool(text == "true")
		default:
			v.bad = errorf(ErrType, "%s (%s) was recorded as %s, which is not true or false", expr, v.typ, rv.Text)
		}
	case trace.KindInt:
		n, err := strconv.ParseInt(text, 0, 64)
		v.c = constant.MakeInt64(n)
		if err != nil {
			v.bad = notNumber()
		}
	case trace.KindUint:
		n, err := strconv.ParseUint(text, 0, 64)
		v.c = constant.MakeUint64(n)
		if err != nil {
			v.bad = notNumber()
		}
	case trace.KindFloat:
		f, err := strconv.ParseFloat(text, 64)
		v.f = f
		if err != nil {
			v.bad = notNumber()
		}
	case trace.KindString:
		v.s, v.bad = decodeString(rv, expr)
	case trace.KindComplex:
		v.bad = errorf(ErrType, "%s is %s: complex numbers are not supported in conditions", expr, v.typ)
	}
	return v, nil
}

// decodeString reads a recorded string: all of it, or the prefix a cut
// string kept (Text `"abc"…+N more`) with its full length from Len.
func decodeString(rv *trace.Value, expr string) (strVal, error) {
	if !rv.Cut {
		s, err := strconv.Unquote(rv.Text)
		if err != nil {
			return strVal{}, errorf(ErrType, "%s was recorded as %s, which is not a quoted string", expr, rv.Text)
		}
		return strVal{s, int64(len(s))}, nil
	}
	s, rest := cutPrefix(rv.Text)
	n := rv.Len
	if n <= int64(len(s)) {
		// No usable length: take the marker's "+N more", or at least
		// say that something is missing.
		more := strings.TrimSuffix(strings.TrimPrefix(rest, "…+"), " more")
		m, err := strconv.ParseInt(more, 10, 64)
		if err != nil || m < 1 {
			m = 1
		}
		n = int64(len(s)) + m
	}
	return strVal{s, n}, nil
}

// cutPrefix returns the known prefix of a cut string's Text and what
// follows the quoted part. The Text is `"abc"…+N more` when the string limit
// cut the string, and may itself have been cut inside the quotes (`"abc…`)
// when it was too long to display; the prefix is then what unquotes, possibly
// nothing.
func cutPrefix(text string) (prefix, rest string) {
	if q, err := strconv.QuotedPrefix(text); err == nil {
		if s, err := strconv.Unquote(q); err == nil {
			return s, text[len(q):]
		}
	}
	t := strings.TrimSuffix(text, "…")
	for drop := 0; drop <= 12 && drop < len(t); drop++ {
		c := t[:len(t)-drop]
		if n := len(c) - len(strings.TrimRight(c, `\`)); n%2 == 1 {
			continue // c ends inside an escape: \" would be a quote
		}
		if s, err := strconv.Unquote(c + `"`); err == nil {
			return s, ""
		}
	}
	return "", ""
}

func isNumber(v value) bool {
	return v.kind == trace.KindInt || v.kind == trace.KindUint || v.kind == trace.KindFloat
}

func isInteger(v value) bool { return v.kind == trace.KindInt || v.kind == trace.KindUint }

// isFloat64 reports whether v is a typed float, held in v.f.
func isFloat64(v value) bool { return v.kind == trace.KindFloat && !v.untyped }

func isScalar(v value) bool {
	return isNumber(v) || v.kind == trace.KindString || v.kind == trace.KindBool
}

// float64Of returns a number as a float64.
func float64Of(v value) float64 {
	if isFloat64(v) {
		return v.f
	}
	f, _ := constant.Float64Val(v.c)
	return f
}

// render returns v like trace.Value.Text.
func (v value) render() string {
	switch {
	case v.rec != nil:
		return v.rec.Text
	case v.kind == kindNil:
		return "nil"
	case v.kind == trace.KindString:
		return v.s.render()
	case isFloat64(v):
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case v.kind == trace.KindFloat:
		f, _ := constant.Float64Val(v.c)
		if math.IsInf(f, 0) {
			return v.c.String()
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case v.c != nil:
		return v.c.ExactString()
	}
	return v.typ
}
