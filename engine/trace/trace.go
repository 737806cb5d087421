// Package trace holds adi's data model: frame identifiers, recorded values,
// Frames, the Recording T of a whole run and the Frame Lifetime Traces (FLT)
// built for single invocations. It has no dependency on Delve: the recorder
// fills these structures, everything else (session, adapter, agent) reads them.
package trace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FID identifies one invocation of a function in a recorded run: Func is the
// fully qualified Go name as the runtime prints it (generic functions by their
// generic name), Index is the 1-based invocation count of Func in order of
// entry. Written "main.fib#3".
type FID struct {
	Func  string
	Index int
}

func (f FID) String() string {
	if f.Func == "" {
		return ""
	}
	return f.Func + "#" + strconv.Itoa(f.Index)
}

// IsZero reports whether f names no frame.
func (f FID) IsZero() bool { return f.Func == "" }

// ErrBadFID is returned by ParseFID for text that is not of the form FUNC#N.
var ErrBadFID = errors.New("malformed frame id")

// ParseFID parses "pkg.Func#N". N must be a positive integer.
func ParseFID(s string) (FID, error) {
	i := strings.LastIndexByte(s, '#')
	if i <= 0 || i == len(s)-1 {
		return FID{}, fmt.Errorf("%w %q: want FUNC#N, e.g. main.fib#3", ErrBadFID, s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return FID{}, fmt.Errorf("%w %q: the invocation index after '#' must be a positive integer", ErrBadFID, s)
	}
	return FID{Func: s[:i], Index: n}, nil
}

// Pos is a source position.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string {
	if p.File == "" {
		return "?"
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Exit says how a frame ended.
type Exit string

const (
	Returned Exit = "returned" // normal return, Results are valid
	Panicked Exit = "panicked" // unwound by a panic (recovered by a caller or not)
	Goexited Exit = "goexit"   // unwound by runtime.Goexit (t.FailNow, t.Fatal)
	Running  Exit = "running"  // still running when the run ended
	// Unrecorded: the recording stopped (frame limit) before the frame
	// ended, so how it ended is not known.
	Unrecorded Exit = "unrecorded"
)

// Frame is one entry of the index: one invocation of a user function.
type Frame struct {
	FID FID
	// Seq is the frame's position in the Recording (T).
	Seq int
	// Caller is the calling frame's FID, zero for a root frame. For the first
	// frame of a goroutine it is the frame that ran the go statement, and Spawn
	// is set.
	Caller FID
	Spawn  bool
	// Indirect is set when library code stands between the caller and this
	// frame (sort.Slice calling a less function, t.Run a subtest).
	Indirect  bool
	Goroutine int64
	// CallSite is where the caller called (or spawned) this frame.
	CallSite Pos
	// Decl is where the function is declared.
	Decl    Pos
	Args    []Value
	Results []Value
	Exit    Exit
	// Panic is the rendered panic value for Exit == Panicked.
	Panic string
	// EntrySeq and ExitSeq order entries and exits of all frames of the run.
	EntrySeq, ExitSeq uint64
	// SpawnSeq orders a spawned frame by when its go statement ran (its
	// goroutine may start later, and after goroutines created after it).
	SpawnSeq uint64

	// Parent is the Seq of the caller, -1 for a root frame (the callees are
	// Recording.Children).
	Parent int
}

// Change is one element of ΔS: a variable created (Old == nil) or changed.
type Change struct {
	Var string
	Old *Value
	New Value
}

// Step is one executed statement of an FLT.
type Step struct {
	Pos
	Stmt    string
	Changes []Change
	Callees []FID
	// Iteration numbers the step's enclosing loop iteration when it is part of
	// a loop (0 outside loops); set by loop summarisation.
	Iteration int
	// Visit is how many times the frame had arrived at this line, this
	// arrival included: the k of execute(fid, line, k). It counts the
	// steps that loop summarisation left out too.
	Visit int
}

// Skip summarises loop iterations left out of an FLT's steps.
type Skip struct {
	// After is the index in Steps after which the iterations were left out.
	After int `json:"after"`
	// Line is the loop header line.
	Line       int `json:"line"`
	Iterations int `json:"iterations"`
	Steps      int `json:"steps"`
	// Callees made by the skipped steps, so that none is lost to navigation.
	Callees []FID `json:"callees,omitempty"`
	// Changes is what the skipped steps did to the frame's variables, as
	// one step would: each variable they changed, in the order of its
	// first change, from its value before them (Old) to its value after
	// them (New). Replaying the kept steps' changes and these gives the
	// variables at every kept step.
	Changes []Change `json:"changes,omitempty"`
}

// FLT is the Frame Lifetime Trace of one invocation.
type FLT struct {
	Frame   *Frame
	Steps   []Step
	Skipped []Skip
	// Truncated is set when the step limit cut the trace; Note says why.
	Truncated bool
	Note      string
}
