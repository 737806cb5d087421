package trace

import "math"

// ValueSource holds the arguments and results of frames outside the store,
// where a recorder found them (the instrumenting recorder's record file),
// and makes them when they are read. A recorder that leaves values there
// saves decoding, rendering and copying millions of values of which a
// session reads a few hundred.
//
// A frame names its values by a reference of the source's and their count
// (see AttachSource); their names are its function's (see SetValueNames).
// The source must not refer to the Recording (it is often what the
// Recording's collection releases), and must allow calls from several
// goroutines at once.
type ValueSource interface {
	// AppendValues appends to dst the n values at ref, named by names
	// (a value past the end of names has no name).
	AppendValues(dst []Value, ref uint32, n int, names []string) []Value
	// Bytes is what the source keeps in memory for the recording's values
	// (ValueBytes counts it).
	Bytes() int
}

// SetValueSource makes s the source of the values attached with
// AttachSource.
func (r *Recording) SetValueSource(s ValueSource) { r.source = s }

// SetValueNames names the parameters and results of function fn (a
// FuncID) for its frames whose values are in the value source: names are
// the same for all of a function's frames, and are kept once.
func (r *Recording) SetValueNames(fn uint32, params, results []string) {
	r.funcs[fn].params, r.funcs[fn].results = params, results
}

// AttachSource makes the n values at ref in the value source (see
// SetValueSource) the arguments of frame seq, or with results its results.
func (r *Recording) AttachSource(seq int, ref uint32, n int, results bool) {
	w := &r.rows[seq]
	k := uint16(min(n, math.MaxUint16))
	if results {
		w.results, w.nres = ref, k
		w.inSource |= srcResults
	} else {
		w.args, w.nargs = ref, k
		w.inSource |= srcArgs
	}
}

// SourceOf returns the reference in the value source and the count of the
// arguments of frame seq, or with results its results; ok is false when
// they are not in the source.
func (r *Recording) SourceOf(seq int, results bool) (ref uint32, n int, ok bool) {
	w := &r.rows[seq]
	if results {
		return w.results, int(w.nres), w.inSource&srcResults != 0
	}
	return w.args, int(w.nargs), w.inSource&srcArgs != 0
}

// argsOf makes the arguments of frame seq.
func (r *Recording) argsOf(seq int) []Value {
	w := &r.rows[seq]
	if w.inSource&srcArgs != 0 {
		return r.sourceValues(w.args, w.nargs, r.funcs[w.fn].params)
	}
	return r.values(w.args, w.nargs)
}

// resultsOf makes the results of frame seq.
func (r *Recording) resultsOf(seq int) []Value {
	w := &r.rows[seq]
	if w.inSource&srcResults != 0 {
		return r.sourceValues(w.results, w.nres, r.funcs[w.fn].results)
	}
	return r.values(w.results, w.nres)
}

// sourceValues makes the n values at ref in the value source.
func (r *Recording) sourceValues(ref uint32, n uint16, names []string) []Value {
	if n == 0 {
		return nil
	}
	return r.source.AppendValues(make([]Value, 0, n), ref, int(n), names)
}
