package instrument

import (
	"encoding/binary"
	"errors"
	"fmt"
	"go/constant"
	"go/token"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Record kinds, as the runtime writes them (see rt/rt.go).
const (
	recGoid    = 0
	RecEnter   = 1
	RecExit    = 2
	RecGo      = 3
	RecGInfo   = 4
	RecRecover = 5
	recType    = 6
	recStop    = 7
)

// maxSites bounds the site numbers the reader keeps a PC for (the
// instrumenter numbers one site per function).
const maxSites = 1 << 22

// Value tags.
const (
	TagInt = iota + 1
	TagUint
	TagFloat
	TagFalse
	TagTrue
	TagString
	TagNil
	TagNonNil
	TagLen
	TagOther
	TagComplex
	// TagNamed is a non-nil *testing.T (B, F) with its name (Text, of
	// Len bytes), written as a string is.
	TagNamed
)

const chunkSize = 64 << 10

// ChunkSize is the size of the chunks the runtime writes the file in, at
// multiples of it: no record, and so no record's values, crosses from one
// to the next.
const ChunkSize = chunkSize

// The chunk header (see package adirt's chunkHdr): entries (4 bytes),
// values (4), flags (1, then 3 unused), the number of times the chunk was
// taken again (4), the state (8).
const (
	hdrSize  = 32
	hdrFlags = 8
	hdrGen   = 12
	hdrState = 16
)

// Chunk flags.
const (
	hdrUsed  = 1
	hdrScan  = 2
	hdrDone  = 8
	hdrTypes = 16
	hdrCtl   = 32
)

// The fields of a chunk's state: whether a record is being written, the
// end of the last complete one and its number.
const (
	stateBusy = 1
	stateEnd  = 1
	stateLast = 18
	endMask   = 1<<17 - 1
)

// chunkState reads the state of the chunk starting at h.
func chunkState(h unsafe.Pointer) (busy bool, end int, last uint64) {
	st := atomic.LoadUint64((*uint64)(unsafe.Add(h, hdrState)))
	return st&stateBusy != 0, int(st >> stateEnd & endMask), st >> stateLast
}

// The control chunk: the record counter, and the free list of chunks
// handed back (see package adirt's ctlFree): the count handed back, the
// count the runtime took, the reader's progress (the number of the last
// record read while chunks go back, 0 before it looks, readStopped when
// none goes back), the time the target waited for it, and the ring of
// chunk numbers.
const (
	ctlSeq      = 64
	ctlFreeHead = 128
	ctlFreeTail = 192
	ctlRead     = 256
	ctlWaited   = 320
	ctlFree     = 384
	ctlSlots    = (chunkSize - ctlFree) / 4
	readStopped = ^uint64(0)
)

// mapPopulate is Linux's MAP_POPULATE.
const mapPopulate = 0x8000

// Type is a type the runtime named.
type Type struct {
	Name string // as the debug information spells it
	Kind string // reflect.Kind's name
}

// Value is one recorded argument or result.
type Value struct {
	// Type is set by ReadTrace; File.Each leaves it zero (see File.Type):
	// a recording's values share a handful of types.
	Type Type
	// TypeID numbers the value's type within the file (the same type,
	// the same number).
	TypeID uint32
	Tag    byte
	Int    int64
	Uint   uint64
	// Text is a string's bytes (up to the bound), or a float's or complex
	// number's text.
	Text string
	// Len is a string's, slice's, map's or channel's length; Cap a slice's
	// or channel's capacity.
	Len, Cap int64
}

// Link is one frame of the stack between a frame and its caller.
type Link struct {
	PC  uint64 // return address into the frame
	Off uint64 // the frame's frame pointer, from the stack top
}

// Record is one event of the run.
type Record struct {
	Kind byte
	// Seq is the record's number, in the order the records were written
	// across goroutines. An exit takes none of its own: its Seq is the
	// number of the last record numbered before it (exits of goroutines
	// running at once can share one).
	Seq  uint64
	Goid int64
	// Enter: the site, a PC in the function, the return address into its
	// caller, the frame's and its caller's offsets, the frames between
	// the innermost open frame and this one when it is not the caller.
	Site      int
	PC        uint64
	CallerPC  uint64
	Off       uint64
	CallerOff uint64
	Chain     []Link
	// Enter: arguments; exit: results (nil when the File leaves values
	// in the file: see File.LazyValues).
	Values []Value
	// ValuesAt and ValuesEnd are the offsets in the file of the record's
	// first value and of the end of its last, NValues the number of its
	// values (see File.ValuesAt). Recycled says that its chunk goes back
	// to the runtime once read (see File.Recycle): values kept must be
	// copied during the call.
	ValuesAt, ValuesEnd, NValues int
	Recycled                     bool
	// GInfo: the creator of the goroutine.
	Parent      int64
	Creator     string // function
	CreatorSite string // file:line of the go statement
	ParentStack string // the parent's traceback, for a creator outside the module
	// Recover: the recovered value's text; Unwinding is set when it is
	// the value of a panic that is unwinding the frame whose exit is the
	// goroutine's previous record, read by its exit hook, and not (yet)
	// recovered: the panics that library code recovers have no other.
	Text      string
	Unwinding bool
}

// Trace is a read record file.
type Trace struct {
	Records []Record
	// Stopped is set when the runtime stopped recording at its file limit.
	Stopped bool
	// StopSeq: see File.StopSeq.
	StopSeq uint64
	// Bytes is the size of the file.
	Bytes int64
}

// ReadTrace reads the records the runtime wrote to path, in order, into
// memory (see File for a run too large for that).
func ReadTrace(path string) (*Trace, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Trace{Bytes: f.Bytes}
	err = f.Each(func(r *Record) error {
		c := *r
		c.Values = append([]Value(nil), r.Values...)
		for i := range c.Values {
			c.Values[i].Type = f.Type(c.Values[i].TypeID)
		}
		c.Chain = append([]Link(nil), r.Chain...)
		t.Records = append(t.Records, c)
		return nil
	})
	t.Stopped, t.StopSeq = f.Stopped, f.StopSeq
	return t, err
}

// File is a record file, mapped into memory (pages the kernel can drop
// and read again), read record by record in order: a recording larger than
// memory is never all in memory at once. A File opened with OpenLive is
// read while the target writes it (see Poll).
type File struct {
	data   []byte
	types  []Type // by id
	sitePC []uint64
	// Enters is the number of RecEnter records, Values the number of
	// values of all records (Open's first pass).
	Enters, Values int
	// Stopped is set when the runtime stopped recording at its file limit.
	Stopped bool
	// StopSeq, when Stopped, is the number of the last record numbered
	// before the runtime stopped: those are all in the file, and a record
	// lost since is numbered after them.
	StopSeq uint64
	// Bytes is the size of the file.
	Bytes int64
	// LazyValues makes Each and Poll read over the values of records,
	// leaving Record.Values nil: a reader that keeps only where they are
	// (Record.ValuesAt) decodes them later with ValuesAt.
	LazyValues bool
	path       string

	// fd is the file being written (OpenLive), whose size Poll reads.
	fd *os.File
	// chunks are the chunks seen so far, by number (nil: not a chunk of
	// records); scan the numbers of those whose header Poll reads.
	chunks []*cursor
	scan   []int
	// typeChunks are the chunks of type records, and how far each is
	// read.
	typeChunks []typeChunk
	// heap holds the cursors with a record to hand over.
	heap cursorHeap

	// Recycle makes Poll hand back to the runtime (of a File from
	// OpenLive), to be written again, the chunks it reads while the
	// target runs, once it has read them through: their records say so
	// (Record.Recycled). Set it before the first Poll; StopRecycle turns
	// it off. Recycled counts the chunks Poll has handed back.
	Recycle  bool
	Recycled int
	// Waited is the time the target's goroutines waited, in all, for Poll
	// to hand chunks back (the runtime's file grew to the size it waits
	// at, see package adirt's waitReader), known once the target has
	// ended (the final Poll), the File is closed, or, for a File from
	// Open, as it opens.
	Waited time.Duration
	// read is the number of the last record Poll handed over.
	read uint64

	// ctl is the control chunk, mapped writable (nil if the file is not,
	// and once the target has ended); handed the chunks handed back and
	// not yet taken again, by number, with the gen they had.
	ctl    []byte
	handed map[int]uint32
}

type typeChunk struct{ start, read int }

// OpenFile maps the record file at path and reads it once through for the
// types, the counts of entries and values, and errors.
func OpenFile(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the record file: %w", err)
	}
	defer fd.Close()
	return Open(fd)
}

// Open is OpenFile for an open record file (a memfd the target wrote); the
// caller closes fd, which the File does not need.
func Open(fd *os.File) (*File, error) {
	fi, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	f := &File{Bytes: fi.Size(), path: fd.Name()}
	if fi.Size() > 0 {
		// MAP_POPULATE: the pages are mapped at once, not by a fault each.
		f.data, err = syscall.Mmap(int(fd.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
		if err != nil {
			return nil, fmt.Errorf("mapping the record file: %w", err)
		}
	}
	for start := 0; start < len(f.data); start += chunkSize {
		c := f.cursor(start)
		flags := c.d.b[hdrFlags]
		switch {
		case flags&hdrTypes != 0:
			f.addTypeChunk(start)
			continue
		case flags&(hdrUsed|hdrScan|hdrCtl) == hdrUsed:
			// Nothing to see but counts, which the header gives.
			f.Enters += int(binary.LittleEndian.Uint32(c.d.b[0:]))
			f.Values += int(binary.LittleEndian.Uint32(c.d.b[4:]))
			continue
		case flags&hdrCtl != 0:
			if start == 0 && len(f.data) >= chunkSize {
				f.Waited = time.Duration(binary.LittleEndian.Uint64(f.data[ctlWaited:]))
			}
			continue
		}
		c.d.skip = true
		for {
			r, err := c.next()
			if err != nil {
				f.Close()
				return nil, err
			}
			if r == nil {
				break
			}
			if r.Kind == RecEnter {
				f.Enters++
			}
		}
		f.noteStop(c)
		f.Values += c.d.nvals
	}
	f.sitePC = f.sitePC[:0] // the first pass's: Poll finds them again
	return f, nil
}

// OpenLive maps the record file fd that a running target writes, up to
// limit bytes (the runtime's file limit), for Poll. The caller keeps fd
// open until the File is closed.
func OpenLive(fd *os.File, limit int64) (*File, error) {
	f := &File{path: fd.Name(), fd: fd}
	// Past the file's end the mapping is never read: Poll reads the
	// file's size first.
	m, err := syscall.Mmap(int(fd.Fd()), 0, int(limit+chunkSize), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the record file: %w", err)
	}
	f.data = m
	// The free list is written through a mapping of its own: the rest
	// of the file is only read.
	if c, err := syscall.Mmap(int(fd.Fd()), 0, chunkSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err == nil {
		f.ctl = c
	}
	return f, nil
}

// Maps reports whether addr is in the file's mapping.
func (f *File) Maps(addr uintptr) bool {
	in := func(m []byte) bool {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		return len(m) > 0 && addr >= base && addr-base < uintptr(len(m))
	}
	return in(f.data) || in(f.ctl)
}

// Type returns the type numbered id, as the records read so far name it
// (the zero Type for a number not named yet).
func (f *File) Type(id uint32) Type {
	if int(id) >= len(f.types) || f.types[id] == (Type{}) {
		f.readTypes()
	}
	if int(id) < len(f.types) {
		return f.types[id]
	}
	return Type{}
}

// addTypeChunk adds the chunk of type records at start to those
// readTypes reads, once.
func (f *File) addTypeChunk(start int) {
	for _, tc := range f.typeChunks {
		if tc.start == start {
			return
		}
	}
	f.typeChunks = append(f.typeChunks, typeChunk{start: start, read: hdrSize})
}

// typeStr reads a string of a type record.
func typeStr(b []byte, i int) (string, int) {
	_, i = uv(b, i)
	n, i := uv(b, i)
	if i > len(b) || n > uint64(len(b)-i) {
		return "", len(b) + 1
	}
	return string(b[i : i+int(n)]), i + int(n)
}

// readTypes reads the type records written since the last call: a type's
// record is complete before any record with a value of the type.
func (f *File) readTypes() {
	for k := range f.typeChunks {
		tc := &f.typeChunks[k]
		b := f.data[tc.start : tc.start+chunkSize]
		_, end, _ := chunkState(unsafe.Pointer(&b[0]))
		end = min(end, len(b))
		for i := tc.read; i < end; {
			k, j := uv(b, i)
			if k != recType {
				break
			}
			var tid uint64
			var name, kind string
			tid, j = uv(b, j)
			name, j = typeStr(b, j)
			kind, j = typeStr(b, j)
			if j > end || tid >= maxTypes {
				break
			}
			if n := int(tid) + 1; n > len(f.types) {
				f.types = append(f.types, make([]Type, n-len(f.types))...)
			}
			f.types[tid] = Type{Name: name, Kind: kind}
			i, tc.read = j, j
		}
	}
}

// NumTypes bounds the numbers of the types the records read so far name.
func (f *File) NumTypes() int {
	f.readTypes()
	return len(f.types)
}

// Close unmaps the file.
func (f *File) Close() error {
	f.releaseCtl()
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data = nil
	return err
}

// StopRecycle hands no more chunks back: the records read from now on
// keep their values in the file, those of chunks read in part too
// (Record.Recycled is false). A final Poll calls it: the target has
// ended. A reader that learns of the end during a long Poll calls it
// then, as one that would rather keep values in the file than copy them.
func (f *File) StopRecycle() {
	f.Recycle = false
	f.progress(0, true)
	for _, c := range f.chunks {
		if c != nil {
			c.rec.Recycled = false
		}
	}
}

// progress tells the runtime, while chunks go back, how far the records
// are read: up to the one numbered read (1 before the first); stop says
// that none goes back any more (the runtime waits for the reader no more).
func (f *File) progress(read uint64, stop bool) {
	if f.ctl == nil || f.Bytes < chunkSize || !f.Recycle && !stop {
		return
	}
	if stop {
		read = readStopped
	} else {
		read = max(read, 1)
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&f.ctl[ctlRead])), read)
}

// progressEvery is how often (in records) a long Poll tells the runtime
// how far it has read.
const progressEvery = 4096

// releaseCtl unmaps the control chunk, once it has read the time the
// target waited and told the runtime to wait no more, if the file holds
// the chunk (a target killed as it started may have written nothing: past
// the file's end, the mapping cannot be read or written).
func (f *File) releaseCtl() {
	if f.ctl == nil {
		return
	}
	if f.stat() == nil && f.Bytes >= chunkSize {
		f.progress(0, true)
		f.Waited = time.Duration(atomic.LoadInt64((*int64)(unsafe.Pointer(&f.ctl[ctlWaited]))))
	}
	syscall.Munmap(f.ctl)
	f.ctl = nil
}

// handBack puts chunk n, read through, on the free list, unless the list
// is full; the chunk is then read again once the runtime has taken it
// (its gen changed).
func (f *File) handBack(n int, h unsafe.Pointer) bool {
	if !f.Recycle || f.ctl == nil {
		return false
	}
	ctl := unsafe.Pointer(&f.ctl[0])
	head := (*atomic.Uint64)(unsafe.Add(ctl, ctlFreeHead))
	tail := (*atomic.Uint64)(unsafe.Add(ctl, ctlFreeTail))
	hd := head.Load()
	if hd-tail.Load() >= ctlSlots {
		return false
	}
	if f.handed == nil {
		f.handed = map[int]uint32{}
	}
	f.handed[n] = atomic.LoadUint32((*uint32)(unsafe.Add(h, hdrGen)))
	f.chunks[n] = nil
	*(*uint32)(unsafe.Add(ctl, ctlFree+4*(hd%ctlSlots))) = uint32(n)
	head.Store(hd + 1)
	f.Recycled++
	return true
}

// cursor reads the records of the chunk at offset start, up to bound.
type cursor struct {
	d     decoder
	start int
	bound int
	rec   Record
	// key orders rec among the records of every chunk (see order).
	key     uint64
	stopped bool
	stopSeq uint64 // see File.StopSeq
	// ready is set while the cursor is in the heap; whole when bound is
	// where the chunk's records end (its goroutine had left it).
	ready, whole bool
	path         string
}

func (f *File) cursor(start int) *cursor {
	end := min(start+chunkSize, len(f.data), int(f.Bytes))
	b := padded(f.data[start:end])
	_, bound, _ := chunkState(unsafe.Pointer(&b[0]))
	bound = min(bound, len(b))
	return &cursor{d: decoder{b: b, i: hdrSize, sitePC: &f.sitePC, base: start, lazy: f.LazyValues},
		start: start, bound: bound, path: f.path}
}

// padded returns a chunk shorter than the runtime's chunks (the stop
// record past the end of the file, or a file cut short) copied with zeros
// after it: uv reads 9 bytes at a time, and the runtime keeps more room
// than that after every record of a whole chunk.
func padded(b []byte) []byte {
	if len(b) == chunkSize {
		return b
	}
	p := make([]byte, max(len(b), hdrSize)+16)
	copy(p, b)
	return p
}

// next decodes the chunk's next record into c.rec (nil at the end of the
// chunk). The record's slices are reused by the next call.
func (c *cursor) next() (*Record, error) {
	d := &c.d
	for {
		if d.i >= c.bound || d.b[d.i] == 0 || c.stopped {
			return nil, nil
		}
		h, i := uv(d.b, d.i)
		d.i = i
		k := byte(h & 7)
		switch k {
		case recStop:
			c.stopped = true
			c.stopSeq, d.i = uv(d.b, d.i)
			return nil, nil
		case recGoid:
			d.goid, d.i = sv(d.b, d.i)
			if d.i > len(d.b) {
				return nil, c.errorf(errShort)
			}
			continue
		}
		d.slab = d.slab[:0]
		c.rec.Seq = d.last + h>>3
		d.last = c.rec.Seq
		c.key = order(c.rec.Seq, k)
		if err := d.record(k, &c.rec); err != nil {
			return nil, c.errorf(err)
		}
		return &c.rec, nil
	}
}

// order is the key that orders a record of kind k numbered seq: an exit,
// which carries the number of the last record numbered before it, comes
// after that record and before the next.
func order(seq uint64, k byte) uint64 {
	if k == RecExit {
		return seq<<1 | 1
	}
	return seq << 1
}

// noteStop notes the stop record that cursor c read, if it read one.
func (f *File) noteStop(c *cursor) {
	if c.stopped {
		f.Stopped, f.StopSeq = true, c.stopSeq
	}
}

func (c *cursor) errorf(err error) error {
	return fmt.Errorf("record file %s, offset %d: %w", c.path, c.start+c.d.i, err)
}

// Each calls fn for every record in order of Seq (of a file the target has
// finished writing; Poll hands them over as they are written). The record
// and its slices are valid during the call only. The values' Type is left
// zero (see File.Type).
func (f *File) Each(fn func(*Record) error) error {
	_, err := f.Poll(true, fn)
	return err
}

// Poll calls fn, in order of Seq, for the records written since the last
// call that every record before them is written too, and returns their
// number; final says that the target has ended (every complete record is
// then handed over). The record and its slices are valid during the call
// only. An exit comes after the record whose number it carries (see
// Record.Seq), and before the next, unless it was not written yet when
// Poll read its chunk: it then comes at a later call, after records
// numbered since, which its goroutine ran at the same time as it (a record
// that followed it, through its goroutine's sync with another, is numbered
// after the exit was written, and Poll sees that it was).
//
// Which records are written: the runtime marks a chunk busy before a
// record of it takes its number, and writes the end and number of the
// record in the chunk's header before it clears the mark. Poll reads the
// record counter, then the file's size, then the headers: every record
// numbered up to the counter was then complete, but for the busy chunks',
// whose complete records end at their header's end and number.
func (f *File) Poll(final bool, fn func(*Record) error) (int, error) {
	w := uint64(math.MaxUint64)
	size := len(f.data)
	if f.fd != nil {
		if f.Bytes < chunkSize {
			// The control chunk is not there yet (past the file's end,
			// the mapping cannot be read).
			if err := f.stat(); err != nil || f.Bytes < chunkSize {
				return 0, err
			}
		}
		if !final {
			w = atomic.LoadUint64((*uint64)(unsafe.Pointer(&f.data[ctlSeq])))
		}
		// The runtime hands out the chunks in order: while the last one
		// known is not used, the file has not grown (with a chunk used).
		if n := len(f.chunks); final || n == 0 || f.used(n-1) {
			if err := f.stat(); err != nil {
				return 0, err
			}
		}
		size = int(f.Bytes)
		if f.read == 0 {
			// The runtime learns whether to wait for this reader.
			f.progress(0, !f.Recycle)
		}
	}
	// The chunks the file grew by. A partial one (the stop record past
	// the end) is read once the target has ended.
	for n := len(f.chunks); (n+1)*chunkSize <= size || final && n*chunkSize < size; n++ {
		f.chunks = append(f.chunks, nil)
		f.scan = append(f.scan, n)
	}
	if final && f.Recycle {
		f.StopRecycle()
	}
	keep := f.scan[:0]
	for _, n := range f.scan {
		start := n * chunkSize
		if size-start < hdrSize {
			continue // a file cut short
		}
		h := unsafe.Pointer(&f.data[start])
		if gen, ok := f.handed[n]; ok {
			if atomic.LoadUint32((*uint32)(unsafe.Add(h, hdrGen))) == gen {
				keep = append(keep, n) // not taken again yet
				continue
			}
			delete(f.handed, n)
		}
		flags := uint8(atomic.LoadUint32((*uint32)(unsafe.Add(h, hdrFlags))))
		if flags&hdrUsed == 0 {
			keep = append(keep, n)
			continue
		}
		if flags&(hdrCtl|hdrTypes) != 0 {
			if flags&hdrTypes != 0 {
				f.addTypeChunk(start)
			}
			continue
		}
		busy, end, last := chunkState(h)
		if busy && !final {
			w = min(w, last)
		}
		c := f.chunks[n]
		if c == nil {
			c = f.cursor(start)
			c.rec.Recycled = f.Recycle && f.ctl != nil
			f.chunks[n] = c
		}
		c.bound = min(end, len(c.d.b))
		c.whole = flags&hdrDone != 0 && !busy
		if !c.ready {
			r, err := c.next()
			if err != nil {
				return 0, err
			}
			if r != nil {
				c.ready = true
				f.heap = append(f.heap, c)
				f.heap.up(len(f.heap) - 1)
			}
		}
		f.noteStop(c)
		// A chunk its goroutine has left, read to its end, has nothing
		// more to give: it is handed back, or forgotten.
		if c.ready || flags&hdrDone == 0 || busy || c.d.i < c.bound || c.stopped ||
			!final && c.rec.Recycled && f.handBack(n, h) {
			keep = append(keep, n)
		}
	}
	f.scan = keep
	if final {
		// Nothing more goes back to the runtime.
		f.releaseCtl()
	}
	return f.merge(w, fn)
}

// used reports whether chunk n is used.
func (f *File) used(n int) bool {
	flags := atomic.LoadUint32((*uint32)(unsafe.Pointer(&f.data[n*chunkSize+hdrFlags])))
	return flags&hdrUsed != 0
}

// stat reads the size of a file being written into f.Bytes (as much as
// is mapped).
func (f *File) stat() error {
	fi, err := f.fd.Stat()
	if err != nil {
		return fmt.Errorf("reading the record file: %w", err)
	}
	f.Bytes = min(fi.Size(), int64(len(f.data)))
	return nil
}

// merge hands over the records of the cursors in the heap numbered up to
// w, in order.
func (f *File) merge(w uint64, fn func(*Record) error) (int, error) {
	h := f.heap
	defer func() { f.heap = h }()
	count := 0
	// read is the number of the last record handed over, which the
	// runtime learns every few thousand records (a batch can be long).
	read := f.read
	defer func() {
		f.read = read
		f.progress(read, false)
	}()
	// Records numbered up to w, and the exits after them.
	upTo := order(w, RecExit)
	if w == math.MaxUint64 {
		upTo = w
	}
	for len(h) > 0 && h[0].key <= upTo {
		c := h[0]
		// The chunk's records come first up to the first record of the
		// others (the usual case: a goroutine's records follow one
		// another).
		until := upTo
		if len(h) > 1 {
			until = min(until, h[1].key)
		}
		if len(h) > 2 {
			until = min(until, h[2].key)
		}
		for {
			r := &c.rec
			if r.Kind == RecEnter && r.PC == 0 && r.Site >= 0 && r.Site < len(f.sitePC) {
				// Known by now: the site's first record came before.
				r.PC = f.sitePC[r.Site]
			}
			if err := fn(r); err != nil {
				return count, err
			}
			count++
			// An exit written late (its goroutine ran at once with
			// those of the records handed over before it) carries an
			// older number.
			read = max(read, r.Seq)
			if count%progressEvery == 0 {
				f.progress(read, false)
			}
			r, err := c.next()
			if err != nil {
				return count, err
			}
			if r == nil {
				f.noteStop(c)
				c.ready = false
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
				h.down(0)
				// A chunk read through goes back at once, for the
				// runtime's next: the scan of the next Poll comes after
				// the whole batch, which may be long.
				if c.whole && !c.stopped && c.d.i >= c.bound && c.rec.Recycled {
					f.handBack(c.start/chunkSize, unsafe.Pointer(&f.data[c.start]))
				}
				break
			}
			if c.key > until {
				h.down(0)
				break
			}
		}
	}
	return count, nil
}

// cursorHeap orders chunks by the key of their current record, smallest
// first (container/heap's interface calls cost more than the rest of the
// merge).
type cursorHeap []*cursor

// up moves the cursor at i up to its place.
func (h cursorHeap) up(i int) {
	c := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].key <= c.key {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = c
}

// down moves the cursor at i down to its place.
func (h cursorHeap) down(i int) {
	if i >= len(h) {
		return
	}
	c := h[i]
	for {
		m := 2*i + 1
		if m >= len(h) {
			break
		}
		if r := m + 1; r < len(h) && h[r].key < h[m].key {
			m = r
		}
		if c.key < h[m].key {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = c
}

type decoder struct {
	b []byte
	i int
	// sitePC is by site (below maxSites) a PC in its function (written once per site,
	// shared by the cursors).
	sitePC *[]uint64
	// last is the number of the chunk's last record, goid the goroutine
	// of its records, lastPC the last caller's or exit's PC, lastOff the
	// last entry's or exit's frame offset.
	last            uint64
	goid            int64
	lastPC, lastOff uint64
	// slab is where the values of records are allocated from, in bulk.
	slab []Value
	// text is where strings are allocated from, in bulk (see str).
	text []byte
	// skip is set to read over values.
	skip bool
	// lazy is set to read over values only (see File.LazyValues); borrow
	// to make strings of the chunk's bytes rather than copies (see
	// File.ValuesAt).
	lazy, borrow bool
	// base is the offset of the chunk in the file.
	base int
	// dirty is set when the record last decoded has fields that those of
	// entries and exits do not set.
	dirty bool
	// nvals counts the values read.
	nvals int
}

var errShort = errors.New("truncated record")

// The decoding functions take the chunk b and the index i of what they
// read, and return the index after it: b and i stay in registers. An index
// past len(b) means that the chunk ended inside the record.

// uv reads a prefix varint (see package adirt) with one 8-byte load: a
// number the runtime wrote is followed by at least 8 bytes of its chunk
// (see padded). An index past the end says that the record is truncated.
func uv(b []byte, i int) (uint64, int) {
	if i < 0 || i > len(b)-9 {
		return 0, len(b) + 1
	}
	w := binary.LittleEndian.Uint64(b[i : i+8])
	if w&0xff != 0 {
		n := bits.TrailingZeros64(w) + 1
		return w << (64 - 8*n) >> (64 - 7*n), i + n
	}
	return binary.LittleEndian.Uint64(b[i+1 : i+9]), i + 9
}

// fld reads a grouped number of size code c: 1, 2, 4 or 8 bytes.
func fld(b []byte, i int, c byte) (uint64, int) {
	if i < 0 || i > len(b)-8 {
		return 0, len(b) + 1
	}
	sh := 64 - 8<<(c&3)
	return binary.LittleEndian.Uint64(b[i:i+8]) << sh >> sh, i + 1<<(c&3)
}

// small reads a one-byte varint (a count).
func small(b []byte, i int) (int, int) {
	if uint(i) >= uint(len(b)) || b[i]&1 == 0 {
		return 0, len(b) + 1
	}
	return int(b[i] >> 1), i + 1
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// sv reads a zigzag-encoded signed varint.
func sv(b []byte, i int) (int64, int) {
	u, i := uv(b, i)
	return int64(u>>1) ^ -int64(u&1), i
}

// skipv reads over n varints.
func skipv(b []byte, i, n int) int {
	for ; n > 0 && i < len(b); n-- {
		if c := b[i]; c != 0 {
			i += bits.TrailingZeros8(c) + 1
		} else {
			i += 9
		}
	}
	if n > 0 {
		return len(b) + 1
	}
	return i
}

func byte1(b []byte, i int) (byte, int) {
	if i < 0 || i >= len(b) {
		return 0, len(b) + 1
	}
	return b[i], i + 1
}

// str reads a string (only its length if !keep); full is its length
// before the runtime's bound cut it.
func (d *decoder) str(b []byte, i int, keep bool) (s string, full int64, _ int) {
	f, i := uv(b, i)
	n, i := uv(b, i)
	if i > len(b) || n > uint64(len(b)-i) {
		return "", 0, len(b) + 1
	}
	if keep {
		s = d.string(b[i : i+int(n)])
	}
	return s, int64(f), i + int(n)
}

// string copies b into a string allocated in bulk with others: the bytes
// of d.text below its length are never written again, so the strings made
// from them stay as they are.
func (d *decoder) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if d.borrow {
		return unsafe.String(&b[0], len(b))
	}
	if len(b) > 1024 {
		return string(b)
	}
	if cap(d.text)-len(d.text) < len(b) {
		d.text = make([]byte, 0, 16<<10)
	}
	start := len(d.text)
	d.text = append(d.text, b...)
	return unsafe.String(&d.text[start], len(b))
}

// maxTypes bounds the type numbers of a file (the runtime numbers the
// types it names from 1).
const maxTypes = 1 << 20

// record decodes the rest of a record of kind k into r (its Seq read),
// reusing r.Chain.
func (d *decoder) record(k byte, r *Record) error {
	if d.dirty {
		*r = Record{Seq: r.Seq, Chain: r.Chain, Recycled: r.Recycled}
		d.dirty = false
	}
	// The fields of entries and exits; the others are zero but after a
	// record of another kind (dirty).
	r.Kind, r.Goid, r.Site, r.PC, r.CallerPC, r.Off, r.CallerOff = k, d.goid, 0, 0, 0, 0, 0
	r.Chain, r.Values, r.ValuesAt, r.ValuesEnd, r.NValues = r.Chain[:0], nil, 0, 0, 0
	b, i := d.b, d.i
	var err error
	switch k {
	case RecEnter:
		// The grouped numbers (see package adirt's enter).
		var desc byte
		var site, offd, pcz, offz uint64
		desc, i = byte1(b, i)
		site, i = fld(b, i, desc)
		offd, i = fld(b, i, desc>>2)
		pcz, i = fld(b, i, desc>>4)
		offz, i = fld(b, i, desc>>6)
		d.lastOff += uint64(unzigzag(offd))
		r.Off = d.lastOff
		r.Site = int(site >> 1)
		if site&1 != 0 {
			r.PC, i = uv(b, i)
			// A site past any instrumenter's table is a damaged record:
			// its PC is not kept.
			if pcs := d.sitePC; r.Site >= 0 && r.Site < maxSites {
				if r.Site >= len(*pcs) {
					*pcs = append(*pcs, make([]uint64, r.Site+1-len(*pcs))...)
				}
				(*pcs)[r.Site] = r.PC
			}
		} else if !d.skip && r.Site >= 0 && r.Site < len(*d.sitePC) {
			r.PC = (*d.sitePC)[r.Site]
		}
		d.lastPC += uint64(unzigzag(pcz))
		r.CallerPC = d.lastPC
		r.CallerOff = uint64(int64(r.Off) - unzigzag(offz))
		// The count of values << 1 | whether a chain follows.
		var nv, n int
		nv, i = small(b, i)
		if nv&1 != 0 {
			n, i = small(b, i)
		}
		switch {
		case n > maxChain:
			err = fmt.Errorf("a chain of %d frames", n)
		case d.skip:
			i = skipv(b, i, 2*n)
		default:
			for ; n > 0; n-- {
				var l Link
				l.PC, i = uv(b, i)
				l.Off, i = uv(b, i)
				r.Chain = append(r.Chain, l)
			}
		}
		if err == nil {
			r.Values, i, err = d.values(b, i, nv>>1, r)
		}
	case RecExit:
		// The descriptor's high bits count the values, 15: the count
		// follows.
		var desc byte
		var offd, pcz uint64
		desc, i = byte1(b, i)
		offd, i = fld(b, i, desc)
		pcz, i = fld(b, i, desc>>2)
		d.lastOff += uint64(unzigzag(offd))
		r.Off = d.lastOff
		d.lastPC += uint64(unzigzag(pcz))
		r.PC = d.lastPC
		n := int(desc >> 4)
		if n == exitCounts {
			n, i = small(b, i)
		}
		r.Values, i, err = d.values(b, i, n, r)
	case RecGo:
		r.PC, i = uv(b, i)
	case RecGInfo:
		d.dirty = true
		d.goid, i = sv(b, i)
		r.Goid = d.goid
		r.Parent, i = sv(b, i)
		r.Creator, _, i = d.str(b, i, true)
		r.CreatorSite, _, i = d.str(b, i, true)
		r.ParentStack, _, i = d.str(b, i, true)
	case RecRecover:
		d.dirty = true
		r.Text, _, i = d.str(b, i, true)
		var u byte
		u, i = byte1(b, i)
		r.Unwinding = u == 1
	default:
		err = fmt.Errorf("unknown record kind %d", k)
	}
	d.i = i
	if err == nil && i > len(b) {
		err = errShort
	}
	return err
}

// maxChain bounds the frames between a frame and its caller (the
// runtime's maxChain).
const maxChain = 64

// exitCounts is the count of an exit's values that says the count follows
// (the runtime's exitCounts).
const exitCounts = 15

// values reads the n values of record r (only over them when d.skip or
// d.lazy), and says where they are in r.ValuesAt and
// r.NValues: see package adirt's value.
func (d *decoder) values(b []byte, i, n int, r *Record) ([]Value, int, error) {
	if n > 64 {
		return nil, i, fmt.Errorf("%d values in one record", n)
	}
	if n == 0 || i > len(b) {
		return nil, i, nil
	}
	d.nvals += n
	var vs []Value
	var end int
	var err error
	if d.skip || d.lazy {
		if n == 1 && i < len(b) {
			// One value of a fixed size (most are): read over it here.
			desc := b[i]
			switch desc & 15 {
			case TagInt, TagUint:
				end = i + 1 + 1<<(desc>>4&3) + 1<<(desc>>6&3)
			case TagNil, TagNonNil, TagFalse, TagTrue, TagOther:
				end = i + 1 + 1<<(desc>>4&3)
			default:
				end, err = skipValues(b, i, n)
			}
			if end > len(b) {
				end, err = len(b)+1, errShort
			}
		} else {
			end, err = skipValues(b, i, n)
		}
	} else {
		vs, end, err = d.decodeValues(b, i, n)
	}
	r.ValuesAt, r.ValuesEnd, r.NValues = d.base+i, d.base+end, n
	return vs, end, err
}

// skipValues reads over n values at i: their sizes are in their
// descriptors, but for the strings'.
func skipValues(b []byte, i, n int) (int, error) {
	for ; n > 0; n-- {
		if i >= len(b) {
			return len(b) + 1, errShort
		}
		desc := b[i]
		i += 1 + 1<<(desc>>4&3) // the descriptor, the type number
		switch desc & 15 {
		case TagInt, TagUint:
			i += 1 << (desc >> 6 & 3)
		case TagString, TagNamed:
			var m uint64
			m, i = uv(b, i+1<<(desc>>6&3))
			if i > len(b) || m > uint64(len(b)-i) {
				return len(b) + 1, errShort
			}
			i += int(m)
		case TagLen:
			i = skipv(b, i+1<<(desc>>6&3), 1)
		case TagFloat:
			i = skipStr(b, i)
		case TagComplex:
			i = skipStr(b, skipStr(b, i))
		case TagNil, TagNonNil, TagFalse, TagTrue, TagOther:
		default:
			return i, fmt.Errorf("unknown value tag %d", desc&15)
		}
	}
	if i > len(b) {
		return len(b) + 1, errShort
	}
	return i, nil
}

// skipStr reads over a string (see decoder.str).
func skipStr(b []byte, i int) int {
	_, i = uv(b, i)
	n, i := uv(b, i)
	if i > len(b) || n > uint64(len(b)-i) {
		return len(b) + 1
	}
	return i + int(n)
}

// decodeValues reads n values at i.
func (d *decoder) decodeValues(b []byte, i, n int) ([]Value, int, error) {
	if len(d.slab)+n > cap(d.slab) {
		d.slab = make([]Value, 0, max(64, n))
	}
	// Decoded past the slab's length, which takes them in only when they
	// are kept.
	start := len(d.slab)
	vs := d.slab[start : start+n]
	for k := range vs {
		if i >= len(b) {
			return nil, len(b) + 1, errShort
		}
		desc := b[i]
		var x uint64
		x, i = fld(b, i+1, desc>>4)
		v := &vs[k]
		// A type number past any type's is a damaged one: it names none.
		*v = Value{Tag: desc & 15, TypeID: uint32(min(x, maxTypes))}
		switch v.Tag {
		case TagInt:
			x, i = fld(b, i, desc>>6)
			v.Int = unzigzag(x)
		case TagUint:
			v.Uint, i = fld(b, i, desc>>6)
		case TagString, TagNamed:
			var m uint64
			x, i = fld(b, i, desc>>6)
			v.Len = int64(x)
			m, i = uv(b, i)
			if i > len(b) || m > uint64(len(b)-i) {
				return nil, len(b) + 1, errShort
			}
			v.Text = d.string(b[i : i+int(m)])
			i += int(m)
		case TagLen:
			x, i = fld(b, i, desc>>6)
			v.Len = int64(x)
			x, i = uv(b, i)
			v.Cap = int64(x)
		case TagFloat:
			var f string
			f, _, i = d.str(b, i, true)
			v.Text = floatText(f)
		case TagComplex:
			var re, im string
			re, _, i = d.str(b, i, true)
			im, _, i = d.str(b, i, true)
			v.Text = complexText(re, im)
		case TagNil, TagNonNil, TagFalse, TagTrue, TagOther:
		default:
			return nil, i, fmt.Errorf("unknown value tag %d", v.Tag)
		}
	}
	d.slab = d.slab[:start+n]
	return vs[:n:n], i, nil
}

// floatText renders a float as Delve does (strconv's 'f' format, the
// fewest digits that read back as the same number: -9223372036854776000,
// 0.0000001; 0 for -0), from the runtime's text ('g': -9.223372036854776e+18,
// 1e-07), which is bounded in length. The 'g' text of a float32 is the
// fewest digits of its own precision, which print the same as a float64.
func floatText(g string) string {
	f, err := strconv.ParseFloat(g, 64)
	switch {
	case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
		return g // +Inf, -Inf and NaN, as Delve writes them
	case f == 0:
		return "0" // Delve's number (a go/constant) has no sign of zero
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// complexText renders a complex number of the runtime's real and imaginary
// parts ('g' texts) as Delve does: a go/constant made of the two, printed
// with six significant digits, "unknown" when a part is infinite or NaN.
func complexText(re, im string) string {
	r, err1 := strconv.ParseFloat(re, 64)
	i, err2 := strconv.ParseFloat(im, 64)
	if err1 != nil || err2 != nil {
		return "(" + re + " + " + im + "i)"
	}
	return constant.BinaryOp(constant.MakeFloat64(r), token.ADD, constant.MakeImag(constant.MakeFloat64(i))).String()
}

// String renders a value's payload for messages.
func (v Value) String() string {
	switch v.Tag {
	case TagInt:
		return strconv.FormatInt(v.Int, 10)
	case TagUint:
		return strconv.FormatUint(v.Uint, 10)
	case TagString, TagNamed:
		return strconv.Quote(v.Text)
	}
	return v.Text
}

// ValuesEnd returns the offset in the file just past the n values at
// offset at (see ValuesAt), whose end the record that held them gave
// (Record.ValuesEnd).
func (f *File) ValuesEnd(at, n int) (int, error) {
	start := at &^ (chunkSize - 1)
	if at-start < hdrSize || at >= int(f.Bytes) || n <= 0 || n > 64 {
		return 0, fmt.Errorf("record file %s: no %d values at offset %d", f.path, n, at)
	}
	end := min(start+chunkSize, int(f.Bytes))
	i, err := skipValues(padded(f.data[start:end]), at-start, n)
	if err != nil {
		return 0, fmt.Errorf("record file %s, offset %d: %w", f.path, at, err)
	}
	return start + i, nil
}

// ValuesAt appends to dst the n values at offset at of the file, where a
// record read with LazyValues has them (Record.ValuesAt and NValues). The
// values' Type is left zero (see File.Type); the Text of a string or a number is the file's
// own bytes, valid until the File is closed (copy what is kept). ValuesAt
// may be called from several goroutines at once.
func (f *File) ValuesAt(dst []Value, at, n int) ([]Value, error) {
	start := at &^ (chunkSize - 1)
	if at-start < hdrSize || at >= int(f.Bytes) || n <= 0 || n > 64 {
		return dst, fmt.Errorf("record file %s: no %d values at offset %d", f.path, n, at)
	}
	end := min(start+chunkSize, int(f.Bytes))
	dst, err := DecodeValues(dst, padded(f.data[start:end]), at-start, n)
	if err != nil {
		return dst, fmt.Errorf("record file %s, offset %d: %w", f.path, at, err)
	}
	return dst, nil
}

// ValuesBytes returns the bytes of the values of a record read with
// LazyValues (from Record.ValuesAt to ValuesEnd), for a reader that
// copies them (see Recycle); nil if they are not in the file. Up to 8
// bytes of the file that follow them are in its capacity, for a copy a
// word at a time; they are read only, as the whole mapping is.
func (f *File) ValuesBytes(at, end int) []byte {
	if at < 0 || at > end || end > int(f.Bytes) || end > len(f.data) {
		return nil
	}
	return f.data[at:end:min(end+8, int(f.Bytes), len(f.data))]
}

// DecodeValues is ValuesAt for values copied out of the file: it appends
// to dst the n values at offset at of b, which has at least ValuesSlack
// bytes after them. The Text of a string or a number is b's own bytes.
func DecodeValues(dst []Value, b []byte, at, n int) ([]Value, error) {
	dst = slices.Grow(dst, n)
	d := decoder{b: b, borrow: true, slab: dst[len(dst):len(dst)]}
	vs, i, err := d.decodeValues(d.b, at, n)
	if err == nil && i > len(d.b) {
		err = errShort
	}
	if err != nil {
		return dst, err
	}
	return dst[:len(dst)+len(vs)], nil
}

// ValuesSlack is how far past its values the decoder may read (see uv and
// fld).
const ValuesSlack = 16
