package instrument

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sort"
	"strconv"
	"syscall"
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
)

const chunkSize = 64 << 10

// Type is a type the runtime named.
type Type struct {
	Name string // as the debug information spells it
	Kind string // reflect.Kind's name
}

// Value is one recorded argument or result.
type Value struct {
	Type Type
	// TypeID numbers Type within the file (the same type, the same
	// number).
	TypeID uint64
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
	// Enter: arguments; exit: results.
	Values []Value
	// GInfo: the creator of the goroutine.
	Parent      int64
	Creator     string // function
	CreatorSite string // file:line of the go statement
	ParentStack string // the parent's traceback, for a creator outside the module
	// Recover: the recovered value's text.
	Text string
}

// Trace is a read record file.
type Trace struct {
	Records []Record
	// Stopped is set when the runtime stopped recording at its file limit.
	Stopped bool
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
	t := &Trace{Bytes: f.Bytes, Stopped: f.Stopped}
	err = f.Each(func(r *Record) error {
		c := *r
		c.Values = append([]Value(nil), r.Values...)
		c.Chain = append([]Link(nil), r.Chain...)
		t.Records = append(t.Records, c)
		return nil
	})
	return t, err
}

// File is a record file, mapped into memory (pages the kernel can drop
// and read again), read record by record in order: a recording larger than
// memory is never all in memory at once.
type File struct {
	data   []byte
	types  *[]Type // by id
	sitePC map[int]uint64
	// Spawns are the RecGo and RecGInfo records, in order.
	Spawns []Record
	// Enters is the number of RecEnter records, Values the number of
	// values of all records.
	Enters, Values int
	// Stopped is set when the runtime stopped recording at its file limit.
	Stopped bool
	// Bytes is the size of the file.
	Bytes int64
	path  string
}

// OpenFile maps the record file at path and reads it once through for the
// types, the spawns and errors.
func OpenFile(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the record file: %w", err)
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	f := &File{types: new([]Type), sitePC: map[int]uint64{}, Bytes: fi.Size(), path: path}
	if fi.Size() > 0 {
		f.data, err = syscall.Mmap(int(fd.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("mapping the record file: %w", err)
		}
	}
	for start := 0; start < len(f.data); start += chunkSize {
		c := f.cursor(start)
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
			switch r.Kind {
			case RecEnter:
				f.Enters++
			case RecGo, RecGInfo:
				r.Chain = nil
				f.Spawns = append(f.Spawns, *r)
			}
		}
		f.Stopped = f.Stopped || c.stopped
		f.Values += c.d.nvals
	}
	sort.Slice(f.Spawns, func(i, j int) bool { return f.Spawns[i].Seq < f.Spawns[j].Seq })
	return f, nil
}

// Close unmaps the file.
func (f *File) Close() error {
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data = nil
	return err
}

// cursor reads the records of the chunk at offset start.
type cursor struct {
	d       decoder
	start   int
	rec     Record
	stopped bool
	path    string
}

func (f *File) cursor(start int) *cursor {
	end := min(start+chunkSize, len(f.data))
	return &cursor{d: decoder{b: f.data[start:end], types: f.types, sitePC: f.sitePC}, start: start, path: f.path}
}

// next decodes the chunk's next record into c.rec (nil at the end of the
// chunk). The record's slices are reused by the next call.
func (c *cursor) next() (*Record, error) {
	d := &c.d
	for {
		if d.i >= len(d.b) || d.b[d.i] == 0 || c.stopped {
			return nil, nil
		}
		h := d.uvarint()
		k := byte(h & 7)
		switch k {
		case recStop:
			c.stopped = true
			return nil, nil
		case recGoid:
			d.goid = d.varint()
			if d.err != nil {
				return nil, c.errorf(d.err)
			}
			continue
		}
		d.slab = d.slab[:0]
		c.rec.Seq = d.last + h>>3
		d.last = c.rec.Seq
		if err := d.record(k, &c.rec); err != nil {
			return nil, c.errorf(err)
		}
		return &c.rec, nil
	}
}

func (c *cursor) errorf(err error) error {
	return fmt.Errorf("record file %s, offset %d: %w", c.path, c.start+c.d.i, err)
}

// Each calls fn for every record in order of Seq. The record and its
// slices are valid during the call only.
func (f *File) Each(fn func(*Record) error) error {
	var h cursorHeap
	for start := 0; start < len(f.data); start += chunkSize {
		c := f.cursor(start)
		if r, err := c.next(); err != nil {
			return err
		} else if r != nil {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		types := *f.types
		for i := range c.rec.Values {
			v := &c.rec.Values[i]
			if v.TypeID < uint64(len(types)) {
				v.Type = types[v.TypeID]
			}
		}
		if err := fn(&c.rec); err != nil {
			return err
		}
		r, err := c.next()
		if err != nil {
			return err
		}
		switch {
		case r == nil:
			heap.Pop(&h)
		case len(h) > 1 && h[1].rec.Seq < r.Seq, len(h) > 2 && h[2].rec.Seq < r.Seq:
			heap.Fix(&h, 0)
			// Else the chunk's next record still comes first (the usual
			// case: a goroutine's records follow one another).
		}
	}
	return nil
}

// cursorHeap orders chunks by the Seq of their current record.
type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return h[i].rec.Seq < h[j].rec.Seq }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

type decoder struct {
	b     []byte
	i     int
	err   error
	types *[]Type
	// sitePC is a PC in each site's function (written once per site).
	sitePC map[int]uint64
	// last is the number of the chunk's last record, goid the goroutine
	// of its records, lastPC the last caller's or exit's PC.
	last   uint64
	goid   int64
	lastPC uint64
	// slab is where the values of records are allocated from, in bulk.
	slab []Value
	// text is where strings are allocated from, in bulk (see str).
	text []byte
	// skip is set to read over values (their types are still read);
	// skipping while values are read so.
	skip, skipping bool
	// nvals counts the values read.
	nvals int
}

var errShort = errors.New("truncated record")

// uvarint reads a prefix varint (see package adirt): one 8-byte load
// where the chunk has 8 bytes left.
func (d *decoder) uvarint() uint64 {
	if i := d.i; i+9 <= len(d.b) {
		b := d.b[i : i+9]
		if b[0] != 0 {
			n := bits.TrailingZeros8(b[0]) + 1
			d.i += n
			sh := 64 - 8*n
			return binary.LittleEndian.Uint64(b) << sh >> (sh + n)
		}
		d.i += 9
		return binary.LittleEndian.Uint64(b[1:])
	}
	return d.uvarintTail()
}

// uvarintTail reads a prefix varint near the end of the chunk.
func (d *decoder) uvarintTail() uint64 {
	if d.i >= len(d.b) {
		d.err = errShort
		return 0
	}
	n := 9
	if b0 := d.b[d.i]; b0 != 0 {
		n = bits.TrailingZeros8(b0) + 1
	}
	if d.i+n > len(d.b) {
		d.err = errShort
		return 0
	}
	var w [9]byte
	copy(w[:], d.b[d.i:d.i+n])
	d.i += n
	if n == 9 {
		return binary.LittleEndian.Uint64(w[1:])
	}
	return binary.LittleEndian.Uint64(w[:8]) >> n
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) byte1() byte {
	if d.err != nil || d.i >= len(d.b) {
		d.err = errShort
		return 0
	}
	d.i++
	return d.b[d.i-1]
}

// str reads a string; full is its length before the bound cut it.
func (d *decoder) str() (s string, full int64) {
	full = int64(d.uvarint())
	n := int(d.uvarint())
	if d.err != nil || n < 0 || d.i+n > len(d.b) {
		d.err = errShort
		return "", 0
	}
	if !d.skipping {
		s = d.string(d.b[d.i : d.i+n])
	}
	d.i += n
	return s, full
}

// string copies b into a string allocated in bulk with others: the bytes
// of d.text below its length are never written again, so the strings made
// from them stay as they are.
func (d *decoder) string(b []byte) string {
	if len(b) == 0 {
		return ""
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

// pc reads a PC written as the difference from the chunk's last one.
func (d *decoder) pc() uint64 {
	d.lastPC += uint64(d.varint())
	return d.lastPC
}

// record decodes the rest of a record of kind k into r (its Seq read),
// reusing r.Chain.
func (d *decoder) record(k byte, r *Record) error {
	*r = Record{Kind: k, Seq: r.Seq, Goid: d.goid, Chain: r.Chain[:0]}
	if d.skip && (k == RecEnter || k == RecExit) {
		d.skipRecord(k, r)
		return d.err
	}
	switch k {
	case RecEnter:
		site := d.uvarint()
		r.Site = int(site >> 1)
		if site&1 != 0 {
			r.PC = d.uvarint()
			d.sitePC[r.Site] = r.PC
		} else {
			r.PC = d.sitePC[r.Site]
		}
		r.Off = d.uvarint()
		r.CallerPC = d.pc()
		r.CallerOff = uint64(int64(r.Off) - d.varint())
		n := int(d.uvarint())
		for i := 0; i < n && d.err == nil; i++ {
			r.Chain = append(r.Chain, Link{PC: d.uvarint(), Off: d.uvarint()})
		}
		r.Values = d.values()
	case RecExit:
		r.Off = d.uvarint()
		r.PC = d.pc()
		r.Values = d.values()
	case RecGo:
		r.PC = d.uvarint()
	case RecGInfo:
		d.goid = d.varint()
		r.Goid = d.goid
		r.Parent = d.varint()
		r.Creator, _ = d.str()
		r.CreatorSite, _ = d.str()
		r.ParentStack, _ = d.str()
	case RecRecover:
		r.Text, _ = d.str()
	default:
		return fmt.Errorf("unknown record kind %d", k)
	}
	return d.err
}

// skipRecord reads over the rest of an entry or exit record, keeping only
// the site's PC.
func (d *decoder) skipRecord(k byte, r *Record) {
	if k == RecEnter {
		site := d.uvarint()
		r.Site = int(site >> 1)
		if site&1 != 0 {
			r.PC = d.uvarint()
			d.sitePC[r.Site] = r.PC
		}
		d.over(1) // offset
		d.pc()
		d.over(1) // caller's offset
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.err = errShort
			return
		}
		d.over(2 * int(n))
	} else {
		d.over(1) // offset
		d.pc()
	}
	d.values()
}

// over reads over n varints.
func (d *decoder) over(n int) {
	for ; n > 0; n-- {
		if d.i >= len(d.b) {
			d.err = errShort
			return
		}
		if b0 := d.b[d.i]; b0 != 0 {
			d.i += bits.TrailingZeros8(b0) + 1
		} else {
			d.i += 9
		}
	}
	if d.i > len(d.b) {
		d.err = errShort
	}
}

func (d *decoder) values() []Value {
	n := int(d.uvarint())
	if n > 64 {
		d.err = fmt.Errorf("%d values in one record", n)
		return nil
	}
	if n == 0 {
		return nil
	}
	d.nvals += n
	if len(d.slab)+n > cap(d.slab) {
		d.slab = make([]Value, 0, max(64, n))
	}
	start := len(d.slab)
	d.skipping = d.skip
	for i := 0; i < n && d.err == nil; i++ {
		id := d.uvarint()
		for id == 0 && d.err == nil {
			tid := d.uvarint()
			d.skipping = false
			name, _ := d.str()
			kind, _ := d.str()
			d.skipping = d.skip
			if tid >= maxTypes {
				d.err = fmt.Errorf("type number %d out of range", tid)
				break
			}
			if n := int(tid) + 1; n > len(*d.types) {
				*d.types = append(*d.types, make([]Type, n-len(*d.types))...)
			}
			(*d.types)[tid] = Type{Name: name, Kind: kind}
			id = d.uvarint()
		}
		v := Value{TypeID: id, Tag: d.byte1()}
		switch v.Tag {
		case TagInt:
			if d.skip {
				d.over(1)
			} else {
				v.Int = d.varint()
			}
		case TagUint:
			if d.skip {
				d.over(1)
			} else {
				v.Uint = d.uvarint()
			}
		case TagFloat:
			v.Text, _ = d.str()
		case TagComplex:
			re, _ := d.str()
			im, _ := d.str()
			if !d.skip {
				v.Text = "(" + re + " + " + im + "i)"
			}
		case TagString:
			v.Text, v.Len = d.str()
		case TagLen:
			v.Len = int64(d.uvarint())
			v.Cap = int64(d.uvarint())
		case TagNil, TagNonNil, TagFalse, TagTrue, TagOther:
		default:
			d.err = fmt.Errorf("unknown value tag %d", v.Tag)
		}
		if !d.skip {
			d.slab = append(d.slab, v)
		}
	}
	d.skipping = false
	if d.skip {
		return nil
	}
	return d.slab[start:len(d.slab):len(d.slab)]
}

// String renders a value's payload for messages.
func (v Value) String() string {
	switch v.Tag {
	case TagInt:
		return strconv.FormatInt(v.Int, 10)
	case TagUint:
		return strconv.FormatUint(v.Uint, 10)
	case TagString:
		return strconv.Quote(v.Text)
	}
	return v.Text
}
