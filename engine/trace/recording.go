package trace

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
// The frames are in a column store (see store.go): Len counts them, At and
// Lookup make a *Frame of one.
type Recording struct {
	store
	Outcome Outcome
	// Partial says why the recording is incomplete ("" when complete).
	Partial string
	// Dropped is set when a limit of the recorder (of frames, of the
	// record file's size) left frames of the run out (Partial says which).
	Dropped bool
	// CompleteBefore is, when Dropped, a point of the run order before
	// which the recording is whole: every frame entered before it (with
	// an EntrySeq below it) is in the recording. 0 when the recorder
	// knows of no such point.
	CompleteBefore uint64

	indexed bool
	// unordered is set when some function's frames are not in order of
	// FID.Index (no recorder makes such a recording): Lookup scans.
	unordered bool
	// panicked are the Seqs of the frames that panicked (few, usually):
	// renderings count the panicked callees of a wide frame from them.
	panicked []int
	// starts caches Goroutines (nil until asked, reset by Index).
	starts atomic.Pointer[[]GoroutineStart]
	// vmu guards the values (the value store and the rows' value
	// fields) once the recording is shared: a debugger fills in the
	// values it read at a re-execution (SetArgs and the like) while
	// others read frames (At). A recorder adds frames and values before
	// the recording is shared, without it.
	vmu sync.RWMutex
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
// panicked: from the list of panicked frames when it is the shorter, else
// by looking at each.
func (r *Recording) panickedAmong(parent int, seqs []int32) int {
	n := 0
	if len(r.panicked) >= len(seqs) {
		for _, i := range seqs {
			if r.ExitOf(int(i)) == Panicked {
				n++
			}
		}
		return n
	}
	for _, p := range r.panicked {
		if r.ParentOf(p) == parent && slices.Contains(seqs, int32(p)) {
			n++
		}
	}
	return n
}

// Lookup returns the frame with the given FID.
func (r *Recording) Lookup(fid FID) (*Frame, bool) {
	seq, ok := r.find(fid)
	if !ok {
		return nil, false
	}
	return r.At(seq), true
}

// Invocations returns the frames of function fn in order of entry.
func (r *Recording) Invocations(fn string) []*Frame {
	seqs := r.InvocationSeqs(fn)
	out := make([]*Frame, len(seqs))
	for i, j := range seqs {
		out[i] = r.At(int(j))
	}
	return out
}

// InvocationSeqs returns the Seqs of the frames of function fn in order of
// entry; the slice is the recording's own. The recording must be indexed.
func (r *Recording) InvocationSeqs(fn string) []int32 {
	id, ok := r.fnIDs[fn]
	if !ok {
		return nil
	}
	return r.funcs[id].frames
}

// HasFunc reports whether fn was invoked in the run.
func (r *Recording) HasFunc(fn string) bool {
	id, ok := r.fnIDs[fn]
	if !ok {
		return false
	}
	if !r.indexed {
		for i := range r.rows {
			if r.rows[i].fn == id {
				return true
			}
		}
		return false
	}
	return len(r.funcs[id].frames) > 0
}

// Funcs returns the names of all recorded functions, sorted.
func (r *Recording) Funcs() []string {
	out := make([]string, 0, len(r.funcs))
	for fn := range r.fnIDs {
		if r.HasFunc(fn) {
			out = append(out, fn)
		}
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
	e := &UnknownFIDError{FID: fid, Count: len(r.InvocationSeqs(fid.Func))}
	if e.Count == 0 {
		e.Suggestions = Nearest(fid.Func, r.Funcs(), 3)
	}
	return nil, e
}
