package trace

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
