package trace

import (
	"strconv"
	"strings"
)

// Kind classifies a recorded value the way Go's reflect does, coarsely.
type Kind string

const (
	KindBool      Kind = "bool"
	KindInt       Kind = "int"
	KindUint      Kind = "uint"
	KindFloat     Kind = "float"
	KindComplex   Kind = "complex"
	KindString    Kind = "string"
	KindPointer   Kind = "pointer"
	KindStruct    Kind = "struct"
	KindArray     Kind = "array"
	KindSlice     Kind = "slice"
	KindMap       Kind = "map"
	KindChan      Kind = "chan"
	KindFunc      Kind = "func"
	KindInterface Kind = "interface"
	KindOther     Kind = "other"
)

// Value is a recorded Go value, rendered within the recording's limits.
//
// Text is the value as one line of Go-like syntax (strings quoted, structs as
// T{F: v}, pointers as &T{...} or nil); where a limit cut it, Text carries a
// marker ("…+12 more") and Cut is set. Children hold the structure behind the
// text for clients that expand values: struct fields, array, slice and map
// elements (a map element's Name is its rendered key), a pointer's pointee, an
// interface's dynamic value.
type Value struct {
	Name     string
	Type     string
	Kind     Kind
	Text     string
	Len      int64 // strings, arrays, slices, maps, channels: the full length
	Cap      int64 // slices and channels
	Nil      bool  // nil pointer, slice, map, channel, func or interface
	Cut      bool
	Children []Value
	// Error is set when the debugger could not read the value.
	Error string
}

// Child returns the child named name.
func (v *Value) Child(name string) (*Value, bool) {
	for i := range v.Children {
		if v.Children[i].Name == name {
			return &v.Children[i], true
		}
	}
	return nil, false
}

// Shallow reports whether v is a composite value recorded without its
// contents (the instrumenting recorder keeps only kind, nil-ness and length;
// the debugger fills the rest in when the frame is re-executed).
func (v *Value) Shallow() bool {
	switch v.Kind {
	case KindPointer, KindStruct, KindArray, KindSlice, KindMap,
		KindChan, KindFunc, KindInterface, KindOther:
		return v.Cut && len(v.Children) == 0 && !v.Nil
	}
	return false
}

// Same reports whether two recorded values show the same thing: the same type
// and the same rendering. It is how re-executions are checked against the index.
func (v *Value) Same(w *Value) bool {
	if v.Kind == KindChan && w.Kind == KindChan {
		// How full a channel is depends on goroutine scheduling, not on
		// the program's logic: only its identity and capacity count.
		return v.Type == w.Type && v.Nil == w.Nil && v.Cap == w.Cap
	}
	return v.Type == w.Type && v.Text == w.Text
}

// AppendStringText appends the text of a string value of n bytes of which s
// was recorded: quoted, with how much more there was when it was cut (and
// says whether it was).
func AppendStringText(b []byte, s string, n int64) ([]byte, bool) {
	b = strconv.AppendQuote(b, s)
	more := n - int64(len(s))
	if more <= 0 {
		return b, false
	}
	b = append(b, "…+"...)
	b = strconv.AppendInt(b, more, 10)
	return append(b, " more"...), true
}

// IsTestType reports whether typ is *testing.T, *testing.B or *testing.F.
func IsTestType(typ string) bool {
	return typ == "*testing.T" || typ == "*testing.B" || typ == "*testing.F"
}

// A test's *testing.T (B, F) shows the name of the test it runs, which says
// which subtest a frame runs: &testing.T{name: "TestParse/quoted", …}. Both
// recorders show it so.
const testNameOpen, testNameClose = "{name: ", ", …}"

// AppendTestText appends the text of a non-nil value of type typ, a test's
// *testing.T (B, F), whose name was recorded as name, of n bytes (see
// AppendStringText). It says whether the name was cut.
func AppendTestText(b []byte, typ, name string, n int64) ([]byte, bool) {
	b = append(b, '&')
	b = append(b, strings.TrimPrefix(typ, "*")...)
	b = append(b, testNameOpen...)
	b, cut := AppendStringText(b, name, n)
	return append(b, testNameClose...), cut
}

// TestName returns the name of the test that v, a *testing.T (B, F) shown
// by AppendTestText, runs; whole is false when the name was cut (name is
// then its beginning).
func (v *Value) TestName() (name string, whole, ok bool) {
	if !IsTestType(v.Type) {
		return "", false, false
	}
	q, ok := strings.CutPrefix(v.Text, "&"+strings.TrimPrefix(v.Type, "*")+testNameOpen)
	if !ok {
		return "", false, false
	}
	if q, ok = strings.CutSuffix(q, testNameClose); !ok {
		return "", false, false
	}
	whole = true
	if i := strings.LastIndex(q, `"…+`); i >= 0 && strings.HasSuffix(q, " more") {
		q, whole = q[:i+1], false
	}
	name, err := strconv.Unquote(q)
	if err != nil {
		return "", false, false
	}
	return name, whole, true
}
