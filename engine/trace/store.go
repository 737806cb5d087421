package trace

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"sync"
	"unsafe"
)

// The frames of a Recording are kept in a column store: one pointer-free
// row of 48 bytes per frame, the callee lists as one array of Seqs, and the
// recorded values as pointer-free rows with their text in one byte arena.
// Strings that repeat (function names, value names and types, file names)
// are interned. A *Frame is made from the store when it is asked for (At,
// Lookup): the garbage collector never scans the index, and a run of a
// million frames takes some 56 bytes a frame plus its values. A recorder
// may leave a frame's values where it found them instead (a ValueSource,
// see source.go): the row then holds their reference and count. Entry and
// exit sequence numbers and goroutine ids are kept in 32 bits: far more
// than the frames a recording can hold (the recorders stop at a frame
// limit, the record file at 2 GiB).

// row is one frame in the store.
type row struct {
	fn, index uint32 // FID: Func is r.funcs[fn].name
	// parent is the caller's Seq, -1 for a root frame; before Index,
	// pendingCaller for a frame whose caller is named by FID only (in
	// r.callers).
	parent    int32
	goroutine int32
	site      uint32 // call site: r.poss[site]
	entry     uint32
	exit      uint32
	// args and results are where the frame's arguments and results start
	// in r.vals, or their reference in r.source (inSource).
	args    uint32
	results uint32
	// kids is where the frame's callees end in r.kids (Index); they start
	// where the previous frame's end.
	kids        uint32
	nargs, nres uint16
	exitKind    uint8
	flags       uint8
	// inSource says which of the frame's values are in r.source
	// (srcArgs, srcResults). A byte apart from flags: a debugger that
	// fills values (SetArgs) writes it under the values' lock, while
	// others read flags without it.
	inSource uint8
}

const pendingCaller = -2

// The bits of row.inSource: the arguments or results are in r.source (see
// ValueSource).
const (
	srcArgs = 1 << iota
	srcResults
)

// Frame flags.
const (
	flagSpawn = 1 << iota
	flagIndirect
	// flagRecovered: the panic that unwound the frame was recovered.
	flagRecovered
	// flagUnlisted: a direct callee of the frame was dropped and not
	// listed (see SetCalleesUnlisted).
	flagUnlisted
	// flagListed: the frame has an entry in droppedKids.
	flagListed
	// flagInList: the frame is listed among its caller's dropped
	// callees (see SetInList).
	flagInList
)

var exitKinds = [...]Exit{Running, Returned, Panicked, Goexited, Unrecorded}

// exitCode is e's index in exitKinds.
func exitCode(e Exit) uint8 {
	switch e {
	case Returned:
		return 1
	case Panicked:
		return 2
	case Goexited:
		return 3
	case Unrecorded:
		return 4
	}
	return 0 // Running
}

// fnInfo is a recorded function.
type fnInfo struct {
	name string
	decl Pos
	// frames are the Seqs of its frames in order of entry (so by
	// FID.Index), made by Index; count is how many there are, kept as
	// frames are entered and dropped (Index lays the lists out by the
	// counts, without a pass over the rows to count them).
	frames []int32
	count  int32
	// params and results name the values of its frames that are in
	// r.source (see SetValueNames).
	params, results []string
}

// vrow is one recorded value in the store.
type vrow struct {
	name, typ  uint32 // r.strs
	text, size uint32 // the text: see textOf (valBits: the value; valStr: an interned string)
	kind       uint8
	flags      uint8 // valNil, valCut, valDeep, valBits, valStr
	// lens is where the value's length and capacity are in r.lens, plus
	// one; 0 when both are 0 (most values: numbers, booleans).
	lens uint32
}

const (
	valNil = 1 << iota
	valCut
	// valDeep: the value has children or an error, in r.deep.
	valDeep
	// valBits: the value is an integer or a boolean whose bits are in
	// text (low half) and size (high half); its text is made when read.
	valBits
	// valStr: the value's text is r.strs[text] (see AppendInterned).
	valStr
)

var valueKinds = [...]Kind{"", KindBool, KindInt, KindUint, KindFloat, KindComplex, KindString,
	KindPointer, KindStruct, KindArray, KindSlice, KindMap, KindChan, KindFunc, KindInterface, KindOther}

// The kindCodes of the kinds of values kept by their bits (valBits).
const (
	kindBool = 1
	kindInt  = 2
	kindUint = 3
)

// kindCode is k's index in valueKinds (KindOther's for a kind not there).
func kindCode(k Kind) uint8 {
	switch k {
	case "":
		return 0
	case KindBool:
		return 1
	case KindInt:
		return 2
	case KindUint:
		return 3
	case KindFloat:
		return 4
	case KindComplex:
		return 5
	case KindString:
		return 6
	case KindPointer:
		return 7
	case KindStruct:
		return 8
	case KindArray:
		return 9
	case KindSlice:
		return 10
	case KindMap:
		return 11
	case KindChan:
		return 12
	case KindFunc:
		return 13
	case KindInterface:
		return 14
	}
	return 15 // KindOther
}

// deepValue is what a value row cannot hold.
type deepValue struct {
	children []Value
	err      string
	kind     Kind // exact, also outside valueKinds
}

// store is the column store of a Recording.
type store struct {
	rows []row
	kids []int32
	// byFn holds the frames of every function, by function (fnInfo.frames
	// are its parts).
	byFn  []int32
	funcs []fnInfo
	fnIDs map[string]uint32
	poss  []Pos
	posID map[Pos]uint32
	vals  []vrow
	lens  [][2]int64 // lengths and capacities of values (vrow.lens)
	// text holds the values' text in blocks of up to textBlock bytes
	// (a longer text has a block of its own): filled blocks are never
	// copied. spare are empty blocks to fill first (a spilled
	// recording's mapped ones).
	text  [][]byte
	spare [][]byte
	strs  []string
	strID map[string]uint32
	// Side tables of the few frames that need them.
	deep     map[uint32]*deepValue
	panics   map[int32]string
	spawnSeq map[int32]uint32
	// within holds, for the frames that ran while a recorder dropped
	// frames past its frame limit, how many frames of their function it
	// dropped on their goroutine meanwhile (see SetDroppedWithin);
	// withinLast is the last such frame (a frame dropped after it has
	// no entry, which DropLast, called per frame, does not look up).
	within     map[int32]int32
	withinLast int32
	// droppedKids lists, for the frames whose direct callees a recorder
	// dropped past its frame limit, those callees (see AddDroppedCallee;
	// flagListed marks those frames). Their runs number droppedRuns, at
	// most maxDroppedRuns when that is not 0 (see LimitDroppedCallees).
	droppedKids    map[int32]*droppedKids
	droppedRuns    int
	maxDroppedRuns int
	// callers are the callers named by FID of frames added with
	// pendingCaller (Add), and, after Index, of frames whose caller is
	// not in the recording.
	callers map[int32]FID
	// source holds the values of the frames with srcArgs or srcResults.
	source ValueSource
	// mem is set when rows, kids, vals and text are mapped (Spill,
	// OffHeap).
	mem *mapping
	// Until uncounted is set, each row's kids counts its callees and
	// callees counts the rows with a caller, kept as frames are entered,
	// dropped or linked to a spawner: Index then spares the pass that
	// counts them (a recorder adds a million frames as fast as it can,
	// and the index is made as the target ends). Index sets it (kids are
	// then where callee lists end), and so does whatever links frames
	// otherwise.
	uncounted bool
	callees   int
}

// GoroutineStart is a goroutine of the run and its first recorded frame.
type GoroutineStart struct {
	ID    int64
	First int // Seq
}

// Goroutines lists the goroutines that ran recorded frames, by id, each
// with its first frame.
func (r *Recording) Goroutines() []GoroutineStart {
	if p := r.starts.Load(); p != nil {
		return *p
	}
	first := map[int32]int{}
	for seq := range r.rows {
		if _, ok := first[r.rows[seq].goroutine]; !ok {
			first[r.rows[seq].goroutine] = seq
		}
	}
	out := make([]GoroutineStart, 0, len(first))
	for g, seq := range first {
		out = append(out, GoroutineStart{ID: int64(g), First: seq})
	}
	slices.SortFunc(out, func(a, b GoroutineStart) int { return cmp.Compare(a.ID, b.ID) })
	if r.indexed {
		r.starts.Store(&out)
	}
	return out
}

// Len is the number of frames.
func (r *Recording) Len() int { return len(r.rows) }

// Grow makes room for frames more frames and values more values.
func (r *Recording) Grow(frames, values int) {
	r.rows = slices.Grow(r.rows, frames)
	r.vals = slices.Grow(r.vals, values)
}

// Str is an interned string of a Recording.
type Str uint32

// Intern returns s's id in r.
func (r *Recording) Intern(s string) Str {
	if r.strID == nil {
		r.strID = map[string]uint32{"": 0}
		r.strs = append(r.strs[:0], "")
	}
	id, ok := r.strID[s]
	if !ok {
		id = uint32(len(r.strs))
		r.strs = append(r.strs, s)
		r.strID[s] = id
	}
	return Str(id)
}

// FuncID returns the id of function name, declared at decl (the decl of
// its first frame counts).
func (r *Recording) FuncID(name string, decl Pos) uint32 {
	if r.fnIDs == nil {
		r.fnIDs = map[string]uint32{}
	}
	id, ok := r.fnIDs[name]
	if !ok {
		id = uint32(len(r.funcs))
		r.funcs = append(r.funcs, fnInfo{name: name, decl: decl})
		r.fnIDs[name] = id
		r.indexed = false
	}
	return id
}

// PosID returns the id of position p (0 for the zero Pos).
func (r *Recording) PosID(p Pos) uint32 {
	if r.posID == nil {
		r.posID = map[Pos]uint32{{}: 0}
		r.poss = append(r.poss[:0], Pos{})
	}
	id, ok := r.posID[p]
	if !ok {
		id = uint32(len(r.poss))
		r.poss = append(r.poss, p)
		r.posID[p] = id
	}
	return id
}

// Entry is a frame as a recorder adds it with Enter: functions and
// positions by their ids in the recording.
type Entry struct {
	Func  uint32 // FuncID
	Index int
	// Parent is the caller's Seq, -1 for a root frame.
	Parent    int
	Goroutine int64
	CallSite  uint32 // PosID; 0 (PosID of the zero Pos) when unknown
	Spawn     bool
	Indirect  bool
	EntrySeq  uint64
	// SpawnSeq: see Frame.SpawnSeq.
	SpawnSeq uint64
}

// ownRows is how many rows ahead of the one it writes Enter asks for a
// line of rows to write (see own): a few microseconds of frames.
const ownRows = 32

// Enter adds a running frame and returns its Seq. (A pointer: recorders
// add frames by the million, and an Entry is large to copy.)
func (r *Recording) Enter(e *Entry) int {
	if r.posID == nil {
		// Id 0, the zero Pos, is a call site before any PosID: a
		// recorder leaves a root frame's call site at 0.
		r.PosID(Pos{})
	}
	seq := len(r.rows)
	if len(r.rows) == cap(r.rows) {
		r.growRows()
	}
	// The row is written in place: one made apart and copied is read
	// back in 16-byte loads before its narrower stores are done, a stall
	// on each (a tenth of Enter's time in a profile of fib's records).
	r.rows = append(r.rows, row{})
	w := &r.rows[seq]
	if seq+ownRows < cap(r.rows) {
		own(unsafe.Add(unsafe.Pointer(w), ownRows*int(unsafe.Sizeof(row{}))))
	}
	w.fn, w.index, w.parent = e.Func, uint32(e.Index), int32(e.Parent)
	w.goroutine, w.site, w.entry = int32(e.Goroutine), e.CallSite, uint32(e.EntrySeq)
	if e.Spawn {
		w.flags |= flagSpawn
		if e.SpawnSeq > 0 {
			r.setSpawnSeq(seq, e.SpawnSeq)
		}
	}
	if e.Indirect {
		w.flags |= flagIndirect
	}
	r.countCallee(w.parent, seq, 1)
	r.funcs[e.Func].count++
	r.indexed = false
	if seq%aheadEvery == 0 && r.mem != nil {
		r.mem.grew(seq)
	}
	return seq
}

// DropLast removes the frame added last, which must have no values in the
// store (see StoresValues), no callee and no spawn: a recorder past its
// frame limit drops a frame that is done with as it ends (see the
// instrumenting recorder's builder), so that a run far longer than the
// limit takes the memory of the frames it keeps. Its panic value goes
// with it.
func (r *Recording) DropLast() {
	seq := len(r.rows) - 1
	r.countCallee(r.rows[seq].parent, seq, -1)
	r.funcs[r.rows[seq].fn].count--
	delete(r.panics, int32(seq))
	if int32(seq) <= r.withinLast && len(r.within) > 0 {
		delete(r.within, int32(seq))
	}
	if r.rows[seq].flags&flagListed != 0 {
		r.droppedRuns -= len(r.droppedKids[int32(seq)].runs)
		delete(r.droppedKids, int32(seq))
	}
	r.rows = r.rows[:seq]
	r.indexed = false
}

// SetDroppedWithin says that frame seq, which returned, ran while the
// recorder dropped frames past its frame limit, n of them of seq's
// function on its goroutine: EntriesWithin then counts them with the
// frames kept.
func (r *Recording) SetDroppedWithin(seq, n int) {
	if r.within == nil {
		r.within = map[int32]int32{}
	}
	r.within[int32(seq)] = int32(n)
	r.withinLast = max(r.withinLast, int32(seq))
}

// DroppedCallee is a run of direct callees of a frame that the recorder
// dropped past its frame limit as they returned: the N callees at places
// At to At+N-1 among the frame's direct callees (those neither spawned nor
// called by library code, kept or dropped, in order of entry), each of the
// function Func and having entered Within frames of it on its goroutine
// (its recursive calls, at any depth; see EntriesWithin), or -1 when that
// is not known (a callee that a recovered panic unwound, dropped by Keep).
type DroppedCallee struct {
	At, N  int
	Func   string
	Within int
}

// droppedKids is what a recording holds of a frame's dropped callees: the
// runs, and cut, the first place at which a callee dropped was not listed
// (-1: none), the runs having reached their limit.
type droppedKids struct {
	runs []droppedRun
	cut  int32
}

// droppedRun is a DroppedCallee by FuncID, in 16 bytes.
type droppedRun struct {
	at, n  int32
	fn     uint32
	within int32
}

// LimitDroppedCallees bounds the runs of dropped callees that the
// recording holds, for all its frames, to n (see AddDroppedCallee): a
// frame kept that calls a function millions of times past the frame limit
// (a loop of main) would otherwise hold as many entries.
func (r *Recording) LimitDroppedCallees(n int) {
	r.maxDroppedRuns = n
}

// AddDroppedCallee says that the n direct callees at places at to at+n-1
// (see DroppedCallee) of frame seq, of function fn (a FuncID), each of
// which made within recursive calls, were dropped past the frame limit: a
// debugger stepping over those calls can then skip their recursive calls
// as it does a kept callee's. Callees must be added in the order of their
// places. Those that follow the last run of the same function and count
// extend it; those that would need a run past the limit
// (LimitDroppedCallees) are not listed, nor is any later callee of the
// frame: the frame's callees are known up to that place (see
// DroppedCallees, CutDroppedCallees). The callees of a frame go with it
// when it is dropped (DropLast); Keep adds those it drops.
func (r *Recording) AddDroppedCallee(seq, at, n int, fn uint32, within int) {
	d := r.droppedOf(seq)
	if d.cut >= 0 {
		return
	}
	if k := len(d.runs); k > 0 {
		last := &d.runs[k-1]
		if last.fn == fn && last.within == int32(within) && int(last.at+last.n) == at {
			last.n += int32(n)
			return
		}
	}
	if r.maxDroppedRuns > 0 && r.droppedRuns >= r.maxDroppedRuns {
		d.cut = int32(at)
		return
	}
	d.runs = append(d.runs, droppedRun{at: int32(at), n: int32(n), fn: fn, within: int32(within)})
	r.droppedRuns++
}

// CutDroppedCallees says that the direct callees of frame seq dropped
// past the frame limit from place at on are not listed (a recorder's own
// bound on them): DroppedCallees knows them up to that place.
func (r *Recording) CutDroppedCallees(seq, at int) {
	if d := r.droppedOf(seq); d.cut < 0 || int32(at) < d.cut {
		d.cut = int32(at)
	}
}

// droppedOf returns the entry of frame seq in droppedKids, made if need be.
func (r *Recording) droppedOf(seq int) *droppedKids {
	if r.droppedKids == nil {
		r.droppedKids = map[int32]*droppedKids{}
	}
	d := r.droppedKids[int32(seq)]
	if d == nil {
		d = &droppedKids{cut: -1}
		r.droppedKids[int32(seq)] = d
		r.rows[seq].flags |= flagListed
	}
	return d
}

// SetInList says that frame seq, which the recorder is to drop past its
// frame limit, is listed among its caller's dropped callees already
// (AddDroppedCallee): Keep, dropping it, does not place it again, and
// keeping it (a caller of a frame on the failing path), makes its caller's
// dropped callees not known (SetCalleesUnlisted).
func (r *Recording) SetInList(seq int) {
	r.rows[seq].flags |= flagInList
}

// InList reports whether frame seq is listed among its caller's dropped
// callees (SetInList).
func (r *Recording) InList(seq int) bool { return r.rows[seq].flags&flagInList != 0 }

// SetCalleesUnlisted says that a direct callee of frame seq was dropped
// past the frame limit and not listed (AddDroppedCallee): the callees
// dropped of seq are then not known (DroppedCallees), and Keep does not
// place those it drops.
func (r *Recording) SetCalleesUnlisted(seq int) {
	r.rows[seq].flags |= flagUnlisted
}

// DroppedCallees returns the direct callees of frame seq that were dropped
// past the frame limit, as runs in the order of their places (see
// AddDroppedCallee), and cut, the first place whose callee is not known
// (one dropped that was not listed, and the places after it), or -1 when
// every callee dropped is listed.
func (r *Recording) DroppedCallees(seq int) (runs []DroppedCallee, cut int) {
	if r.rows[seq].flags&flagUnlisted != 0 {
		return nil, 0
	}
	d := r.droppedKids[int32(seq)]
	if d == nil {
		return nil, -1
	}
	for _, w := range d.runs {
		runs = append(runs, DroppedCallee{At: int(w.at), N: int(w.n), Func: r.funcs[w.fn].name, Within: int(w.within)})
	}
	return runs, int(d.cut)
}

// SetSpawn makes frame seq the first frame of a goroutine that frame
// parent created, by the go statement at call site site (a PosID),
// spawnSeq being the statement's run order (see Frame.SpawnSeq): a
// recorder that linked the frame before it knew which go statement
// created its goroutine corrects the link.
func (r *Recording) SetSpawn(seq, parent int, site uint32, spawnSeq uint64) {
	w := &r.rows[seq]
	r.countCallee(w.parent, seq, -1)
	r.countCallee(int32(parent), seq, 1)
	w.parent, w.site = int32(parent), site
	w.flags = w.flags&^flagIndirect | flagSpawn
	r.setSpawnSeq(seq, spawnSeq)
	r.indexed = false
}

// countCallee counts (by +1 or -1) frame seq among the callees of its
// caller parent, while the counts are kept (see store.uncounted). A
// caller entered after its callee stops the counting: Index counts in
// order.
func (r *Recording) countCallee(parent int32, seq, by int) {
	if r.uncounted || parent < 0 {
		return
	}
	if int(parent) >= seq {
		r.uncounted = true
		return
	}
	r.rows[parent].kids += uint32(by)
	r.callees += by
}

func (r *Recording) setSpawnSeq(seq int, s uint64) {
	if r.spawnSeq == nil {
		r.spawnSeq = map[int32]uint32{}
	}
	r.spawnSeq[int32(seq)] = uint32(s)
}

// Add adds a frame as it is (its Seq and Parent are ignored: the caller is
// found by FID when the recording is indexed) and returns its Seq.
func (r *Recording) Add(f *Frame) int {
	seq := r.Enter(&Entry{
		Func: r.FuncID(f.FID.Func, f.Decl), Index: f.FID.Index, Parent: -1,
		Goroutine: f.Goroutine, CallSite: r.PosID(f.CallSite),
		Spawn: f.Spawn, Indirect: f.Indirect, EntrySeq: f.EntrySeq, SpawnSeq: f.SpawnSeq,
	})
	if !f.Caller.IsZero() {
		r.rows[seq].parent = pendingCaller
		if r.callers == nil {
			r.callers = map[int32]FID{}
		}
		r.callers[int32(seq)] = f.Caller
	}
	r.SetArgs(seq, f.Args)
	r.SetExit(seq, f.Exit, f.ExitSeq)
	r.SetResults(seq, f.Results)
	if f.Panic != "" {
		r.SetPanic(seq, f.Panic)
	}
	return seq
}

// SetExit records how frame seq ended, and when.
func (r *Recording) SetExit(seq int, e Exit, exitSeq uint64) {
	w := &r.rows[seq]
	w.exitKind = exitCode(e)
	w.exit = uint32(exitSeq)
}

// SetPanic sets the rendered panic value of a frame that panicked.
func (r *Recording) SetPanic(seq int, text string) {
	if r.panics == nil {
		r.panics = map[int32]string{}
	}
	r.panics[int32(seq)] = text
}

// SetArgs sets the arguments of frame seq. Like SetResults, SetArg and
// SetResult, it may be called while other goroutines read frames (a
// debugger fills in the values it read, see Recording's vmu).
func (r *Recording) SetArgs(seq int, vs []Value) {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	r.setArgs(seq, vs)
}

func (r *Recording) setArgs(seq int, vs []Value) {
	w := &r.rows[seq]
	w.args, w.nargs = r.appendValues(vs)
	w.inSource &^= srcArgs
}

// SetResults sets the results of frame seq.
func (r *Recording) SetResults(seq int, vs []Value) {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	r.setResults(seq, vs)
}

func (r *Recording) setResults(seq int, vs []Value) {
	w := &r.rows[seq]
	w.results, w.nres = r.appendValues(vs)
	w.inSource &^= srcResults
}

// SetArg replaces argument i of frame seq (the debugger read what the
// instrumenting recorder kept only the shape of). The frame's arguments
// move to the store if they were in the value source.
func (r *Recording) SetArg(seq, i int, v Value) {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	args := r.argsOf(seq)
	if i < len(args) {
		args[i] = v
		r.setArgs(seq, args)
	}
}

// SetResult replaces result i of frame seq.
func (r *Recording) SetResult(seq, i int, v Value) {
	r.vmu.Lock()
	defer r.vmu.Unlock()
	res := r.resultsOf(seq)
	if i < len(res) {
		res[i] = v
		r.setResults(seq, res)
	}
}

// AttachValues makes the values added with AppendValue since first the
// arguments of frame seq, or with results its results.
func (r *Recording) AttachValues(seq int, first uint32, results bool) {
	n := uint16(min(uint32(len(r.vals))-first, math.MaxUint16))
	w := &r.rows[seq]
	if results {
		w.results, w.nres = first, n
		w.inSource &^= srcResults
	} else {
		w.args, w.nargs = first, n
		w.inSource &^= srcArgs
	}
}

// Values is the number of values added so far: the first of the next
// ones (see AttachValues).
func (r *Recording) Values() uint32 { return uint32(len(r.vals)) }

// AppendValue adds a basic or shallow value (see AttachValues): its name and
// type interned, its text copied.
func (r *Recording) AppendValue(name, typ Str, k Kind, text []byte, n, c int64, isNil, cut bool) {
	v := vrow{name: uint32(name), typ: uint32(typ), text: r.appendText(text), size: uint32(len(text)),
		kind: kindCode(k), lens: r.lenCap(n, c)}
	if isNil {
		v.flags |= valNil
	}
	if cut {
		v.flags |= valCut
	}
	r.addVal(v)
}

// AppendInt adds a value of kind KindInt (see AttachValues) whose text
// is x's decimal digits. The row keeps x, not the text, which is made when
// the value is read: most recorded values are numbers, and the
// instrumenting recorder adds them by the million.
func (r *Recording) AppendInt(name, typ Str, x int64) {
	r.appendBits(name, typ, kindInt, uint64(x))
}

// AppendUint is AppendInt for a value of kind KindUint.
func (r *Recording) AppendUint(name, typ Str, x uint64) {
	r.appendBits(name, typ, kindUint, x)
}

// AppendBool is AppendInt for a value of kind KindBool (its text true or
// false).
func (r *Recording) AppendBool(name, typ Str, b bool) {
	var x uint64
	if b {
		x = 1
	}
	r.appendBits(name, typ, kindBool, x)
}

// appendBits adds a value row with valBits: kind is its kindCode.
func (r *Recording) appendBits(name, typ Str, kind uint8, x uint64) {
	r.addVal(vrow{name: uint32(name), typ: uint32(typ), text: uint32(x), size: uint32(x >> 32),
		kind: kind, flags: valBits})
}

// AppendInterned is AppendValue for a value whose text is the interned
// string text: values that render alike (nil, a pointer or a struct
// without their contents) share it.
func (r *Recording) AppendInterned(name, typ Str, k Kind, text Str, n, c int64, isNil, cut bool) {
	v := vrow{name: uint32(name), typ: uint32(typ), text: uint32(text), kind: kindCode(k), flags: valStr, lens: r.lenCap(n, c)}
	if isNil {
		v.flags |= valNil
	}
	if cut {
		v.flags |= valCut
	}
	r.addVal(v)
}

// addVal appends a value row.
func (r *Recording) addVal(v vrow) {
	if len(r.vals) == cap(r.vals) {
		r.growVals()
	}
	r.vals = append(r.vals, v)
}

func (r *Recording) appendValues(vs []Value) (uint32, uint16) {
	first := uint32(len(r.vals))
	for i := range vs {
		if i == math.MaxUint16 {
			break
		}
		v := &vs[i]
		w := vrow{name: uint32(r.Intern(v.Name)), typ: uint32(r.Intern(v.Type)),
			text: r.appendText([]byte(v.Text)), size: uint32(len(v.Text)), kind: kindCode(v.Kind), lens: r.lenCap(v.Len, v.Cap)}
		if v.Nil {
			w.flags |= valNil
		}
		if v.Cut {
			w.flags |= valCut
		}
		if len(v.Children) > 0 || v.Error != "" || valueKinds[w.kind] != v.Kind {
			w.flags |= valDeep
			if r.deep == nil {
				r.deep = map[uint32]*deepValue{}
			}
			r.deep[uint32(len(r.vals))] = &deepValue{children: v.Children, err: v.Error, kind: v.Kind}
		}
		r.addVal(w)
	}
	return first, uint16(len(r.vals) - int(first))
}

const textBits = 20
const textBlock = 1 << textBits

// appendText stores a value's text and returns vrow.text: the block's
// index above textBits bits, the text's offset in the block below.
func (r *store) appendText(b []byte) uint32 {
	n := len(r.text)
	if n == 0 || cap(r.text[n-1])-len(r.text[n-1]) < len(b) {
		if len(r.spare) > 0 && len(b) <= cap(r.spare[0]) {
			r.text = append(r.text, r.spare[0])
			r.spare = r.spare[1:]
		} else {
			// Blocks double from 4 KiB to textBlock: a small recording
			// keeps small ones.
			size := 4 << 10
			if n > 0 {
				size = min(2*cap(r.text[n-1]), textBlock)
			}
			r.text = append(r.text, make([]byte, 0, max(size, len(b))))
		}
		n++
	}
	last := &r.text[n-1]
	at := uint32(n-1)<<textBits | uint32(len(*last))
	*last = append(*last, b...)
	return at
}

// valueText is the text of value w.
func (r *store) valueText(w *vrow) string {
	if w.flags&valStr != 0 {
		return r.strs[w.text]
	}
	if w.flags&valBits == 0 {
		return string(r.textOf(w))
	}
	bits := uint64(w.size)<<32 | uint64(w.text)
	switch w.kind {
	case kindInt:
		return strconv.FormatInt(int64(bits), 10)
	case kindUint:
		return strconv.FormatUint(bits, 10)
	}
	return strconv.FormatBool(bits != 0)
}

// textOf is the text of value w, kept in r.text (without valBits or
// valStr).
func (r *store) textOf(w *vrow) []byte {
	b := r.text[w.text>>textBits]
	off := w.text & (textBlock - 1)
	return b[off : off+w.size]
}

// lenCap stores a value's length and capacity, and returns vrow.lens.
func (r *Recording) lenCap(n, c int64) uint32 {
	if n == 0 && c == 0 {
		return 0
	}
	r.lens = append(r.lens, [2]int64{n, c})
	return uint32(len(r.lens))
}

// values makes the n values from first.
func (r *Recording) values(first uint32, n uint16) []Value {
	if n == 0 {
		return nil
	}
	out := make([]Value, n)
	for i := range out {
		k := first + uint32(i)
		w := &r.vals[k]
		v := &out[i]
		v.Name, v.Type, v.Kind = r.strs[w.name], r.strs[w.typ], valueKinds[w.kind]
		v.Text = r.valueText(w)
		if w.lens > 0 {
			v.Len, v.Cap = r.lens[w.lens-1][0], r.lens[w.lens-1][1]
		}
		v.Nil, v.Cut = w.flags&valNil != 0, w.flags&valCut != 0
		if w.flags&valDeep != 0 {
			d := r.deep[k]
			v.Children, v.Error, v.Kind = d.children, d.err, d.kind
		}
	}
	return out
}

// At returns frame seq, made from the store: a new *Frame each call
// (changes to it stay in it; SetArg and SetResult change the recording).
func (r *Recording) At(seq int) *Frame {
	r.vmu.RLock()
	defer r.vmu.RUnlock()
	w := &r.rows[seq]
	fn := &r.funcs[w.fn]
	f := &Frame{
		FID:       FID{Func: fn.name, Index: int(w.index)},
		Seq:       seq,
		Parent:    int(w.parent),
		Spawn:     w.flags&flagSpawn != 0,
		Indirect:  w.flags&flagIndirect != 0,
		Goroutine: int64(w.goroutine),
		CallSite:  r.poss[w.site],
		Decl:      fn.decl,
		Args:      r.argsOf(seq),
		Results:   r.resultsOf(seq),
		Exit:      exitKinds[w.exitKind],
		EntrySeq:  uint64(w.entry),
		ExitSeq:   uint64(w.exit),
	}
	if w.parent >= 0 {
		p := &r.rows[w.parent]
		f.Caller = FID{Func: r.funcs[p.fn].name, Index: int(p.index)}
	} else {
		f.Parent = -1
		f.Caller = r.callers[int32(seq)]
	}
	if f.Spawn {
		f.SpawnSeq = uint64(r.spawnSeq[int32(seq)])
	}
	if f.Exit == Panicked {
		f.Panic = r.panics[int32(seq)]
	}
	return f
}

// All yields every frame in order of entry (each made by At).
func (r *Recording) All(yield func(*Frame) bool) {
	for i := range r.rows {
		if !yield(r.At(i)) {
			return
		}
	}
}

// held is the memory a column of n elements of size bytes, with room for
// c, takes: in the heap, its capacity; mapped, the pages it wrote (those
// past them are never touched).
func (r *Recording) held(n, c, size int) int {
	if r.mem != nil {
		return (n*size + pageSize - 1) &^ (pageSize - 1)
	}
	return c * size
}

// IndexBytes is what the index takes in memory, its values apart (see
// ValueBytes): the rows, the callee and per-function lists, the interned
// names and positions, and the side tables (map entries counted at their
// keys' and values' size, buckets aside).
func (r *Recording) IndexBytes() int {
	r.vmu.RLock() // the values' names and types are among r.strs
	defer r.vmu.RUnlock()
	n := r.held(len(r.rows), cap(r.rows), int(unsafe.Sizeof(row{}))) + r.held(len(r.kids), cap(r.kids), 4)
	for i := range r.funcs {
		fn := &r.funcs[i]
		n += int(unsafe.Sizeof(*fn)) + len(fn.name) + len(fn.decl.File) + cap(fn.frames)*4
		for _, s := range slices.Concat(fn.params, fn.results) {
			n += int(unsafe.Sizeof(s)) + len(s)
		}
	}
	n += cap(r.poss) * int(unsafe.Sizeof(Pos{}))
	for _, s := range r.strs {
		n += int(unsafe.Sizeof(s)) + len(s)
	}
	for _, s := range r.panics {
		n += 8 + int(unsafe.Sizeof(s)) + len(s)
	}
	n += 8*len(r.spawnSeq) + 24*len(r.callers) + 8*cap(r.panicked)
	return n
}

// ValueBytes is what the recorded values take in memory: their rows, their
// text, the values held apart (their children), and what the value source
// keeps for the values left in it (see ValueSource.Bytes).
func (r *Recording) ValueBytes() int {
	r.vmu.RLock()
	defer r.vmu.RUnlock()
	n := r.held(len(r.vals), cap(r.vals), int(unsafe.Sizeof(vrow{}))) + cap(r.lens)*16
	if r.source != nil {
		n += r.source.Bytes()
	}
	for _, b := range r.text {
		n += r.held(len(b), cap(b), 1)
	}
	for _, d := range r.deep {
		n += int(unsafe.Sizeof(*d))
		for _, c := range d.children {
			n += valueSize(&c)
		}
	}
	return n
}

func valueSize(v *Value) int {
	n := int(unsafe.Sizeof(*v)) + len(v.Text) + len(v.Name) + len(v.Type)
	for i := range v.Children {
		n += valueSize(&v.Children[i])
	}
	return n
}

// FIDOf returns the FID of frame seq.
func (r *Recording) FIDOf(seq int) FID {
	w := &r.rows[seq]
	return FID{Func: r.funcs[w.fn].name, Index: int(w.index)}
}

// DeclOf returns where function fn is declared.
func (r *Recording) DeclOf(fn string) Pos {
	if id, ok := r.fnIDs[fn]; ok {
		return r.funcs[id].decl
	}
	return Pos{}
}

// FuncOf returns the function of frame seq.
func (r *Recording) FuncOf(seq int) string { return r.funcs[r.rows[seq].fn].name }

// FuncNumOf returns the number of frame seq's function, below NumFuncs: a
// walk that visits each function once keeps a slice by it, not a map by
// name.
func (r *Recording) FuncNumOf(seq int) int { return int(r.rows[seq].fn) }

// NumFuncs bounds the numbers FuncNumOf returns.
func (r *Recording) NumFuncs() int { return len(r.funcs) }

// ParentOf returns the Seq of frame seq's caller, -1 for a root frame.
func (r *Recording) ParentOf(seq int) int {
	if p := r.rows[seq].parent; p >= 0 {
		return int(p)
	}
	return -1
}

// GoroutineOf returns the goroutine of frame seq.
func (r *Recording) GoroutineOf(seq int) int64 { return int64(r.rows[seq].goroutine) }

// PanicOf returns the panic value of frame seq ("" if none is known).
func (r *Recording) PanicOf(seq int) string { return r.panics[int32(seq)] }

// ExitOf returns how frame seq ended.
func (r *Recording) ExitOf(seq int) Exit { return exitKinds[r.rows[seq].exitKind] }

// IndirectOf reports whether library code called frame seq.
func (r *Recording) IndirectOf(seq int) bool { return r.rows[seq].flags&flagIndirect != 0 }

// CallSiteOf returns where frame seq was called from.
func (r *Recording) CallSiteOf(seq int) Pos { return r.poss[r.rows[seq].site] }

// SpawnOf reports whether frame seq is the first of a goroutine its
// caller spawned.
func (r *Recording) SpawnOf(seq int) bool { return r.rows[seq].flags&flagSpawn != 0 }

// SetRecovered says that the panic that unwound frame seq was recovered:
// the run went on.
func (r *Recording) SetRecovered(seq int) { r.rows[seq].flags |= flagRecovered }

// RecoveredOf reports whether frame seq was unwound by a panic that was
// recovered (see SetRecovered).
func (r *Recording) RecoveredOf(seq int) bool { return r.rows[seq].flags&flagRecovered != 0 }

// StoresValues reports whether values of frame seq are in the store (not
// in the value source: see AttachSource).
func (r *Recording) StoresValues(seq int) bool {
	w := &r.rows[seq]
	return w.nargs > 0 && w.inSource&srcArgs == 0 || w.nres > 0 && w.inSource&srcResults == 0
}

// Children returns the Seqs of frame seq's callees (and the first frames
// of the goroutines it spawned) in run order. The recording must be
// indexed. The slice is the recording's own, but for a spilled recording
// (a copy: the mapping goes with the recording).
func (r *Recording) Children(seq int) []int32 {
	if !r.indexed || seq < 0 || seq >= len(r.rows) {
		return nil
	}
	if r.mem != nil {
		return slices.Clone(r.kidsOf(seq))
	}
	return r.kidsOf(seq)
}

// kidsOf is Children's slice of r.kids: a frame's callees end at its
// kids, and start where the previous frame's end.
func (r *Recording) kidsOf(seq int) []int32 {
	start, end := uint32(0), r.rows[seq].kids
	if seq > 0 {
		start = r.rows[seq-1].kids
	}
	return r.kids[start:end:end]
}

// RunOrderOf is Frame.RunOrder of frame seq.
func (r *Recording) RunOrderOf(seq int) uint64 { return r.runOrder(int32(seq)) }

// EntrySeqOf is Frame.EntrySeq of frame seq.
func (r *Recording) EntrySeqOf(seq int) uint64 { return uint64(r.rows[seq].entry) }

// runOrder is Frame.RunOrder of frame seq.
func (r *Recording) runOrder(seq int32) uint64 {
	w := &r.rows[seq]
	if w.flags&flagSpawn != 0 {
		if s, ok := r.spawnSeq[seq]; ok && s > 0 {
			return uint64(s)
		}
	}
	return uint64(w.entry)
}

// Keep keeps the frames whose keep is set (a frame limit), and drops
// the others. A kept frame whose caller is dropped becomes a root frame,
// which names its caller by FID. The frames dropped count among the
// recursive calls of those kept above them, and are listed among the
// dropped callees of their callers kept (see keptCounts).
//
// The rows move down in place: a recording off the heap stays there
// (copying hundreds of thousands of rows to memory the process never
// touched costs it page faults, tens of milliseconds on some virtual
// machines). The values of the frames dropped stay where they are too,
// unreferenced: a recorder that drops frames past its limit as they end
// leaves few to Keep.
func (r *Recording) Keep(keep []bool) {
	for i := range keep {
		if w := &r.rows[i]; keep[i] && w.flags&flagInList != 0 && w.parent >= 0 {
			r.rows[w.parent].flags |= flagUnlisted
		}
	}
	if !slices.Contains(keep, false) {
		return
	}
	to := make([]int32, len(r.rows))
	n := int32(0)
	for i := range r.rows {
		to[i] = -1
		if keep[i] {
			to[i] = n
			n++
		} else {
			r.funcs[r.rows[i].fn].count--
		}
	}
	within, kids := r.keptCounts(keep, to)
	// The callers dropped are named while their rows are there.
	var callers map[int32]FID
	name := func(seq int32, c FID) {
		if callers == nil {
			callers = map[int32]FID{}
		}
		callers[seq] = c
	}
	for i, w := range r.rows {
		if keep[i] && w.parent >= 0 && to[w.parent] < 0 {
			p := &r.rows[w.parent]
			name(to[i], FID{Func: r.funcs[p.fn].name, Index: int(p.index)})
		}
	}
	for i, c := range r.callers {
		if seq := to[i]; seq >= 0 {
			name(seq, c)
		}
	}
	// Each row moves to a place at or before its own: the rows not moved
	// yet are past it.
	for i := range r.rows {
		if seq := to[i]; seq >= 0 {
			w := r.rows[i]
			if w.parent >= 0 {
				w.parent = to[w.parent]
			}
			r.rows[seq] = w
		}
	}
	r.rows = r.rows[:n]
	r.callers = callers
	r.panics = rekey(r.panics, to)
	r.spawnSeq = rekey(r.spawnSeq, to)
	r.within, r.withinLast = within, 0
	for seq := range within {
		r.withinLast = max(r.withinLast, seq)
	}
	r.droppedKids, r.droppedRuns = kids, 0
	for seq, d := range kids {
		r.rows[seq].flags |= flagListed
		r.droppedRuns += len(d.runs)
	}
	r.indexed, r.uncounted = false, true
}

// keptCounts returns, for Keep, the counts of recursive calls dropped (see
// SetDroppedWithin) and the lists of dropped callees (AddDroppedCallee) of
// the frames kept, by their new Seqs (to), with the frames that Keep drops
// added: a frame kept that returned counts those of its function entered
// on its goroutine below it, and a frame kept lists its direct callees
// dropped in their places (with their count of recursive calls, or -1
// for a callee that a recovered panic unwound).
func (r *Recording) keptCounts(keep []bool, to []int32) (within map[int32]int32, kids map[int32]*droppedKids) {
	// top is the first frame dropped on the way up from each frame
	// dropped: the parent of a top is kept, or there is none. Rows come
	// in order of entry, after their parents.
	type key struct {
		seq int32
		fn  uint32
	}
	top := make([]int32, len(r.rows))
	below := map[key]int32{}  // by top and function: the frames dropped below it on its goroutine
	counts := map[key]int32{} // by frame kept and function: the frames dropped below it on its goroutine
	kids = map[int32]*droppedKids{}
	for i := range r.rows {
		if keep[i] {
			continue
		}
		w := &r.rows[i]
		t := int32(i)
		if p := w.parent; p >= 0 && !keep[p] {
			t = top[p]
			if r.rows[t].goroutine == w.goroutine {
				below[key{t, w.fn}]++
			}
		}
		top[i] = t
		if p := r.rows[t].parent; p >= 0 && r.rows[p].goroutine == w.goroutine {
			counts[key{p, w.fn}]++
		}
		if p := w.parent; t == int32(i) && p >= 0 && w.flags&(flagSpawn|flagIndirect|flagInList) == 0 && r.rows[p].flags&flagUnlisted == 0 {
			kids[p] = nil // listed below
		}
	}
	within = map[int32]int32{}
	for i, n := range r.within {
		if to[i] >= 0 {
			within[i] = n
		}
	}
	// A frame kept counts those dropped below the frames kept below it.
	for k, n := range counts {
		g := r.rows[k.seq].goroutine
		for a := k.seq; a >= 0 && r.rows[a].goroutine == g; a = r.rows[a].parent {
			if w := &r.rows[a]; w.fn == k.fn && w.exitKind == exitCode(Returned) {
				within[a] += n
			}
		}
	}
	// The direct callees of the callers of the frames dropped, in order.
	callees := map[int32][]int32{}
	for i := range r.rows {
		w := &r.rows[i]
		if _, ok := kids[w.parent]; ok && w.parent >= 0 && w.flags&(flagSpawn|flagIndirect) == 0 {
			callees[w.parent] = append(callees[w.parent], int32(i))
		}
	}
	// Their places: past those of the callees dropped before.
	for p, cs := range callees {
		old := r.droppedKids[p]
		if old == nil {
			old = &droppedKids{cut: -1}
		}
		var added []droppedRun
		place, run := int32(0), 0
		for _, c := range cs {
			for run < len(old.runs) && old.runs[run].at <= place {
				place = max(place, old.runs[run].at+old.runs[run].n)
				run++
			}
			if old.cut >= 0 && place >= old.cut {
				break
			}
			if r.rows[c].flags&flagInList != 0 {
				continue // in a run already, skipped above when its place comes
			}
			if d := &r.rows[c]; !keep[c] {
				n := int32(-1)
				if d.exitKind == exitCode(Returned) {
					n = r.within[c] + below[key{c, d.fn}]
				}
				added = append(added, droppedRun{at: place, n: 1, fn: d.fn, within: n})
			}
			place++
		}
		kids[p] = &droppedKids{runs: mergeRuns(old.runs, added), cut: old.cut}
	}
	for p, d := range r.droppedKids {
		if _, ok := kids[p]; !ok {
			kids[p] = d
		}
	}
	return rekey(within, to), rekey(kids, to)
}

// mergeRuns merges two lists of runs sorted by place, joining runs that
// follow each other with the same function and count.
func mergeRuns(a, b []droppedRun) []droppedRun {
	out := make([]droppedRun, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		var d droppedRun
		if len(b) == 0 || len(a) > 0 && a[0].at < b[0].at {
			d, a = a[0], a[1:]
		} else {
			d, b = b[0], b[1:]
		}
		if n := len(out); n > 0 && out[n-1].fn == d.fn && out[n-1].within == d.within && out[n-1].at+out[n-1].n == d.at {
			out[n-1].n += d.n
			continue
		}
		out = append(out, d)
	}
	return out
}

// rekey moves the entries of m, by Seq, to the Seqs to gives them; those
// of frames dropped go.
func rekey[V any](m map[int32]V, to []int32) map[int32]V {
	if len(m) == 0 {
		return m
	}
	out := make(map[int32]V, len(m))
	for i, v := range m {
		if seq := to[i]; seq >= 0 {
			out[seq] = v
		}
	}
	return out
}

// Index makes the per-function lists and the callee lists, and finds the
// callers named by FID. The recorder calls it once all frames are in.
// The two kinds of lists are made side by side, when no caller is named by
// FID (the callee lists need the callers, which are found from the
// per-function lists): with a million frames, each takes milliseconds.
func (r *Recording) Index() {
	if r.mem != nil {
		// No rows come after: the helper that faults them in ends
		// once the lists it makes present for Index are made, and
		// what it made past them goes back.
		defer func() { r.mem.settle(len(r.rows), len(r.kids), len(r.byFn), len(r.vals)) }()
	}
	r.indexed, r.unordered = true, false
	r.starts.Store(nil)
	if len(r.callers) == 0 {
		var wg sync.WaitGroup
		wg.Go(r.indexFuncs)
		r.indexKids()
		wg.Wait()
		return
	}
	r.indexFuncs()
	r.uncounted = true
	// Callers named by FID.
	for seq, c := range r.callers {
		w := &r.rows[seq]
		if w.parent != pendingCaller {
			continue
		}
		w.parent = -1
		if p, ok := r.find(c); ok {
			w.parent = int32(p)
			delete(r.callers, seq)
		}
	}
	r.indexKids()
}

// indexFuncs makes the per-function lists, and the list of the frames
// that panicked. The lists are parts of one array, r.byFn.
func (r *Recording) indexFuncs() {
	r.panicked = r.panicked[:0]
	// On the heap, new lists: those of an earlier Index stay as they were.
	r.byFn = r.seqs(nil, len(r.rows), true)
	n := int32(0)
	for id := range r.funcs {
		k := r.funcs[id].count
		r.funcs[id].frames = r.byFn[n : n : n+k]
		n += k
	}
	for i := range r.rows {
		w := &r.rows[i]
		fn := &r.funcs[w.fn]
		if n := len(fn.frames); n > 0 && r.rows[fn.frames[n-1]].index >= w.index {
			r.unordered = true
		}
		fn.frames = append(fn.frames, int32(i))
		if w.exitKind == exitCode(Panicked) {
			r.panicked = append(r.panicked, i)
		}
	}
}

// indexKids makes the callee lists, in r.kids: each row's kids is first
// its count of callees, then where its callees start, then, as each is
// placed, where they end. Then the lists are ordered by run order where a
// spawned frame broke the order of entry. No memory but r.kids: the index
// of a large run is built as its target ends, and fresh pages cost more
// than the passes over the rows.
func (r *Recording) indexKids() {
	// Counted as the frames came, in order (see store.uncounted), or
	// here in one pass with every caller before its callees: a row is
	// cleared before its first callee counts.
	ordered, total := true, r.callees
	if r.uncounted {
		total = 0
		for i := range r.rows {
			r.rows[i].kids = 0
			if p := r.rows[i].parent; p >= 0 {
				if int(p) >= i {
					ordered = false
				}
				r.rows[p].kids++
				total++
			}
		}
	}
	if !ordered {
		for i := range r.rows {
			r.rows[i].kids = 0
		}
		for i := range r.rows {
			if p := r.rows[i].parent; p >= 0 {
				r.rows[p].kids++
			}
		}
	}
	// From here on, kids are where the callee lists end.
	r.uncounted = true
	r.kids = r.seqs(r.kids, total, false)
	start := uint32(0)
	if ordered {
		// A caller's start is set before its first callee is placed.
		for i := range r.rows {
			w := &r.rows[i]
			n := w.kids
			w.kids = start
			start += n
			if p := w.parent; p >= 0 {
				r.kids[r.rows[p].kids] = int32(i)
				r.rows[p].kids++
			}
		}
	} else {
		for i := range r.rows {
			w := &r.rows[i]
			n := w.kids
			w.kids = start
			start += n
		}
		for i := range r.rows {
			if p := r.rows[i].parent; p >= 0 {
				r.kids[r.rows[p].kids] = int32(i)
				r.rows[p].kids++
			}
		}
	}
	byRunOrder := func(a, b int32) int { return cmp.Compare(r.runOrder(a), r.runOrder(b)) }
	spawners := map[int32]bool{}
	for seq := range r.spawnSeq {
		if p := r.rows[seq].parent; p >= 0 {
			spawners[p] = true
		}
	}
	for p := range spawners {
		if kids := r.kidsOf(int(p)); !slices.IsSortedFunc(kids, byRunOrder) {
			slices.SortStableFunc(kids, byRunOrder)
		}
	}
}

// find returns the Seq of the frame with the given FID.
func (r *Recording) find(fid FID) (int, bool) {
	id, ok := r.fnIDs[fid.Func]
	if !ok {
		return 0, false
	}
	fn := &r.funcs[id]
	if !r.indexed {
		for i := range r.rows {
			if w := &r.rows[i]; w.fn == id && int(w.index) == fid.Index {
				return i, true
			}
		}
		return 0, false
	}
	idx := fn.frames
	// #k is the k-th invocation: unless frames were left out, it is the
	// k-th of the list; else a binary search finds it (the list is in
	// order of FID.Index), or a scan when that order is not kept.
	if k := fid.Index - 1; k >= 0 && k < len(idx) && int(r.rows[idx[k]].index) == fid.Index {
		return int(idx[k]), true
	}
	if r.unordered {
		for _, seq := range idx {
			if int(r.rows[seq].index) == fid.Index {
				return int(seq), true
			}
		}
		return 0, false
	}
	k, ok := slices.BinarySearchFunc(idx, fid.Index, func(seq int32, want int) int {
		return cmp.Compare(int(r.rows[seq].index), want)
	})
	if !ok {
		return 0, false
	}
	return int(idx[k]), true
}

// Find returns the Seq of the frame with the given FID.
func (r *Recording) Find(fid FID) (int, bool) { return r.find(fid) }

// NewRecording makes an indexed recording of frames, given in order of
// entry with their callers by FID (tests and tools build small recordings
// so).
func NewRecording(frames ...*Frame) *Recording {
	r := &Recording{}
	for _, f := range frames {
		r.Add(f)
	}
	r.Index()
	return r
}

// wholeBefore reports whether every frame entered before the point at of
// the run order is in the recording.
func (r *Recording) wholeBefore(at uint64) bool {
	return !r.Dropped || at < r.CompleteBefore
}

// RunsAlone reports whether frame seq and every frame it called (directly
// or not) or spawned ended by returning, or by the panic that ended the
// run (the frame of Outcome.Panic and its callers), and no other frame of
// its function ran meanwhile: none was entered before seq ended and left
// after seq was entered, on any goroutine. panics reports that the run's
// panic ended seq or a frame below it. The recording must be indexed and
// whole while seq ran (see Dropped and CompleteBefore), else RunsAlone
// says false.
func (r *Recording) RunsAlone(seq int) (alone, panics bool) {
	if !r.indexed || seq < 0 || seq >= len(r.rows) {
		return false, false
	}
	// The frames the run's panic unwound (a recovered panic elsewhere
	// ended frames as Panicked too: those are not ended cleanly).
	var unwound map[int32]bool
	if p := r.Outcome.Panic; p != nil {
		if s, ok := r.find(p.Frame); ok {
			unwound = map[int32]bool{}
			for ; s >= 0 && exitKinds[r.rows[s].exitKind] == Panicked; s = r.ParentOf(s) {
				unwound[int32(s)] = true
			}
		}
	}
	ended := func(k int32) bool {
		switch exitKinds[r.rows[k].exitKind] {
		case Returned:
			return true
		case Panicked:
			panics = panics || unwound[k]
			return unwound[k]
		}
		return false
	}
	f := &r.rows[seq]
	if !ended(int32(seq)) {
		return false, false
	}
	// A frame the run's panic ended lasts to the end of the run when the
	// recorder did not see it go (the Delve recorder's: the process died).
	end := f.exit
	if end == 0 && unwound[int32(seq)] {
		end = math.MaxUint32
	}
	if end == 0 || !r.wholeBefore(uint64(end)) {
		return false, false
	}
	for _, o := range r.funcs[f.fn].frames {
		g := &r.rows[o]
		if int(o) != seq && g.entry < end && (g.exit == 0 || g.exit > f.entry) {
			return false, false
		}
	}
	todo := slices.Clone(r.kidsOf(seq))
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !ended(k) {
			return false, false
		}
		todo = append(todo, r.kidsOf(int(k))...)
	}
	return true, panics
}

// EntriesBetween returns how many frames of frame seq's function were
// entered after frame from and up to seq, seq included: the entries of
// the function a re-execution stopped at from's entry counts to reach
// seq. ok is false when the recording cannot say: it left out frames
// entered before seq (see Dropped and CompleteBefore), but for frames of
// one function, which their invocation numbers count; or from was not
// entered before seq.
func (r *Recording) EntriesBetween(from, seq int) (n int, ok bool) {
	if !r.indexed || from < 0 || seq < 0 || from >= len(r.rows) || seq >= len(r.rows) {
		return 0, false
	}
	lo, hi := r.rows[from].entry, r.rows[seq].entry
	if lo >= hi {
		return 0, false
	}
	if r.rows[from].fn == r.rows[seq].fn {
		// Invocation numbers count the frames a recorder left out too.
		return int(r.rows[seq].index - r.rows[from].index), true
	}
	if !r.wholeBefore(uint64(hi)) {
		return 0, false
	}
	frames := r.funcs[r.rows[seq].fn].frames // in order of entry
	after := func(entry uint32) int {
		i, _ := slices.BinarySearchFunc(frames, entry, func(s int32, e uint32) int { return cmp.Compare(r.rows[s].entry, e) })
		if i < len(frames) && r.rows[frames[i]].entry == entry {
			i++
		}
		return i
	}
	return after(hi) - after(lo), true
}

// EntriesBetweenOn is EntriesBetween counting only the entries on the
// goroutine of from, which must be seq's: a goroutine's own calls do not
// depend on how the scheduler interleaves it with others (parallel tests).
func (r *Recording) EntriesBetweenOn(from, seq int) (n int, ok bool) {
	if _, ok := r.EntriesBetween(from, seq); !ok || r.rows[from].goroutine != r.rows[seq].goroutine || !r.wholeBefore(uint64(r.rows[seq].entry)) {
		return 0, false
	}
	lo, hi, g := r.rows[from].entry, r.rows[seq].entry, r.rows[seq].goroutine
	frames := r.funcs[r.rows[seq].fn].frames // in order of entry
	i, _ := slices.BinarySearchFunc(frames, lo, func(s int32, e uint32) int { return cmp.Compare(r.rows[s].entry, e) })
	for ; i < len(frames) && r.rows[frames[i]].entry <= hi; i++ {
		if w := &r.rows[frames[i]]; w.entry > lo && w.goroutine == g {
			n++
		}
	}
	return n, true
}

// EntriesWithin returns how many frames of frame seq's function were
// entered on its goroutine while seq ran (its recursive calls, at any
// depth), and the last of them (-1: none, or one of those dropped past
// the frame limit). ok is false when the recording cannot say: seq did
// not return, or frames were left out before its exit that the recorder
// did not count (see SetDroppedWithin).
func (r *Recording) EntriesWithin(seq int) (n, last int, ok bool) {
	if !r.indexed || seq < 0 || seq >= len(r.rows) {
		return 0, -1, false
	}
	w := &r.rows[seq]
	dropped, counted := r.within[int32(seq)]
	if w.exitKind != exitCode(Returned) || !counted && !r.wholeBefore(uint64(w.exit)) {
		return 0, -1, false
	}
	last = -1
	frames := r.funcs[w.fn].frames // in order of entry
	i, _ := slices.BinarySearchFunc(frames, w.entry, func(s int32, e uint32) int { return cmp.Compare(r.rows[s].entry, e) })
	for ; i < len(frames) && r.rows[frames[i]].entry < w.exit; i++ {
		if k := &r.rows[frames[i]]; k.entry > w.entry && k.goroutine == w.goroutine {
			n, last = n+1, int(frames[i])
		}
	}
	if dropped > 0 {
		n, last = n+int(dropped), -1
	}
	return n, last, true
}

// SpawnsBefore returns how many goroutines frame from's goroutine created,
// after from was entered, up to and with the goroutine of frame seq, which
// from created: seq is the first frame of a goroutine, and from its
// caller (Frame.Spawn). The re-execution that stopped at from's entry
// counts these creations to learn seq's goroutine, on which it then counts
// seq's function's entries alone, whatever the scheduler does with the
// goroutines (parallel subtests: t.Run creates one for each). ok is false
// when the recording cannot say (it left frames out). The goroutines that
// library code created for itself, running no function of the recording,
// are not counted: a re-execution that meets one reaches another frame,
// whose arguments then differ.
func (r *Recording) SpawnsBefore(from, seq int) (n int, ok bool) {
	if !r.indexed || r.Dropped || from < 0 || seq < 0 || from >= len(r.rows) || seq >= len(r.rows) ||
		r.rows[seq].flags&flagSpawn == 0 || int(r.rows[seq].parent) != from {
		return 0, false
	}
	g, lo, hi := r.rows[from].goroutine, uint64(r.rows[from].entry), r.runOrder(int32(seq))
	// The frames on from's goroutine from from on, and the goroutines
	// they created.
	todo := []int32{int32(from)}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, c := range r.kidsOf(int(k)) {
			if r.rows[c].goroutine == g {
				todo = append(todo, c)
			} else if r.rows[c].flags&flagSpawn != 0 {
				if o := r.runOrder(c); o > lo && o <= hi {
					n++
				}
			}
		}
	}
	return n, true
}

// OnGoroutines reports whether frames of fn (a function of the recording)
// ran on more than one goroutine: how its invocations are numbered then
// depends on the scheduler.
func (r *Recording) OnGoroutines(fn string) bool {
	id, ok := r.fnIDs[fn]
	if !ok {
		return false
	}
	frames := r.funcs[id].frames
	for _, s := range frames {
		if r.rows[s].goroutine != r.rows[frames[0]].goroutine {
			return true
		}
	}
	return false
}
