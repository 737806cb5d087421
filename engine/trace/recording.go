package trace

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// StackEntry is one frame of the stack of a panic or failure.
type StackEntry struct {
	Func string
	Pos  Pos
	// FID is set when the entry is a recorded frame.
	FID FID
}

// PanicInfo describes the panic that ended a run.
type PanicInfo struct {
	Value     string
	Goroutine int64
	Stack     []StackEntry
	// Frame is the FID of the innermost recorded frame that panicked.
	Frame FID
}

// Outcome is how a recorded run ended.
type Outcome struct {
	ExitCode    int
	Panic       *PanicInfo
	FailedTests []string
	Stdout      string
	Stderr      string
	// Killed is set when the run was stopped by adi (timeout, frame limit).
	Killed bool
}

// Output returns stdout followed by stderr.
func (o *Outcome) Output() string { return o.Stdout + o.Stderr }

// Recording is T: the frames of one run in order of entry, plus its outcome.
type Recording struct {
	Frames  []*Frame
	Outcome Outcome
	// Partial says why the recording is incomplete ("" when complete).
	Partial string

	// byFunc lists the Seqs of each function's frames in order of entry
	// (so by FID.Index): Lookup searches it, with no map of FIDs (which
	// would cost some 50 bytes a frame).
	byFunc  map[string][]int
	indexed bool
	// unordered is set when some function's frames are not in order of
	// FID.Index (no recorder makes such a recording): Lookup scans.
	unordered bool
	// panicked are the Seqs of the frames that panicked (few, usually):
	// renderings count the panicked callees of a wide frame from them.
	panicked []int
}

// Index builds the look-up tables and the Parent/Children links. The recorder
// calls it once all frames are in.
func (r *Recording) Index() {
	r.byFunc = make(map[string][]int)
	r.indexed, r.unordered = true, false
	r.panicked = r.panicked[:0]
	for i, f := range r.Frames {
		f.Seq = i
		f.Parent = -1
		f.Children = f.Children[:0]
		idx := r.byFunc[f.FID.Func]
		if n := len(idx); n > 0 && r.Frames[idx[n-1]].FID.Index >= f.FID.Index {
			r.unordered = true
		}
		r.byFunc[f.FID.Func] = append(idx, i)
		if f.Exit == Panicked {
			r.panicked = append(r.panicked, i)
		}
	}
	for i, f := range r.Frames {
		if f.Caller.IsZero() {
			continue
		}
		if p, ok := r.Lookup(f.Caller); ok {
			f.Parent = p.Seq
			p.Children = append(p.Children, i)
		}
	}
	byRunOrder := func(a, b int) int {
		return cmp.Compare(r.Frames[a].RunOrder(), r.Frames[b].RunOrder())
	}
	for _, f := range r.Frames {
		// Callees are appended in order of entry: only spawned ones can
		// be out of run order.
		if len(f.Children) > 1 && !slices.IsSortedFunc(f.Children, byRunOrder) {
			slices.SortStableFunc(f.Children, byRunOrder)
		}
	}
}

// RunOrder is when the caller made the call that started f: for a spawned
// frame, when its go statement ran (its goroutine may start later than
// goroutines created after it); else its entry.
func (f *Frame) RunOrder() uint64 {
	if f.Spawn && f.SpawnSeq > 0 {
		return f.SpawnSeq
	}
	return f.EntrySeq
}

// panickedAmong counts the frames among seqs, callees of parent, that
// panicked: from the list of panicked frames when it is the shorter (an
// indexed recording), else by looking at each.
func (r *Recording) panickedAmong(parent *Frame, seqs []int) int {
	n := 0
	if !r.indexed || len(r.panicked) >= len(seqs) {
		for _, i := range seqs {
			if r.Frames[i].Exit == Panicked {
				n++
			}
		}
		return n
	}
	for _, p := range r.panicked {
		if f := r.Frames[p]; f.Parent == parent.Seq && f.Exit == Panicked && slices.Contains(seqs, p) {
			n++
		}
	}
	return n
}

// Lookup returns the frame with the given FID.
func (r *Recording) Lookup(fid FID) (*Frame, bool) {
	idx := r.byFunc[fid.Func]
	// #k is the k-th invocation: unless frames were left out, it is the
	// k-th of the list; else a binary search finds it (the list is in
	// order of FID.Index), or a scan when that order is not kept.
	if k := fid.Index - 1; k >= 0 && k < len(idx) && r.Frames[idx[k]].FID == fid {
		return r.Frames[idx[k]], true
	}
	if r.unordered || !r.indexed {
		for _, seq := range idx {
			if r.Frames[seq].FID == fid {
				return r.Frames[seq], true
			}
		}
		return nil, false
	}
	k, ok := slices.BinarySearchFunc(idx, fid.Index, func(seq, want int) int {
		return cmp.Compare(r.Frames[seq].FID.Index, want)
	})
	if !ok {
		return nil, false
	}
	return r.Frames[idx[k]], true
}

// Invocations returns the frames of function fn in order of entry.
func (r *Recording) Invocations(fn string) []*Frame {
	idx := r.byFunc[fn]
	out := make([]*Frame, len(idx))
	for i, j := range idx {
		out[i] = r.Frames[j]
	}
	return out
}

// HasFunc reports whether fn was invoked in the run.
func (r *Recording) HasFunc(fn string) bool { return len(r.byFunc[fn]) > 0 }

// Funcs returns the names of all recorded functions, sorted.
func (r *Recording) Funcs() []string {
	out := make([]string, 0, len(r.byFunc))
	for fn := range r.byFunc {
		out = append(out, fn)
	}
	sort.Strings(out)
	return out
}

// UnknownFuncError is returned for a function name that the recording does
// not hold; Suggestions are the nearest recorded names.
type UnknownFuncError struct {
	Func        string
	Suggestions []string
}

func (e *UnknownFuncError) Error() string {
	msg := fmt.Sprintf("no function %q in the recording", e.Func)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, " or ") + "?"
	}
	return msg
}

// UnknownFIDError is returned for a frame id that the recording does not hold.
type UnknownFIDError struct {
	FID FID
	// Count is how many invocations the function has (0: never invoked).
	Count       int
	Suggestions []string
}

func (e *UnknownFIDError) Error() string {
	if e.Count > 0 {
		return fmt.Sprintf("no frame %s in the recording: %s was invoked %d time(s), use %s#1 to %s#%d",
			e.FID, e.FID.Func, e.Count, e.FID.Func, e.FID.Func, e.Count)
	}
	msg := fmt.Sprintf("no frame %s in the recording: %s was never invoked", e.FID, e.FID.Func)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, " or ") + "?"
	}
	return msg
}

// CheckFunc returns an *UnknownFuncError with suggestions when fn was not
// recorded.
func (r *Recording) CheckFunc(fn string) error {
	if r.HasFunc(fn) {
		return nil
	}
	return &UnknownFuncError{Func: fn, Suggestions: Nearest(fn, r.Funcs(), 3)}
}

// Frame returns the frame with the given FID or an *UnknownFIDError.
func (r *Recording) Frame(fid FID) (*Frame, error) {
	if f, ok := r.Lookup(fid); ok {
		return f, nil
	}
	e := &UnknownFIDError{FID: fid, Count: len(r.byFunc[fid.Func])}
	if e.Count == 0 {
		e.Suggestions = Nearest(fid.Func, r.Funcs(), 3)
	}
	return nil, e
}
