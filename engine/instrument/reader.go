package instrument

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// Record kinds, as the runtime writes them (see rt/rt.go).
const (
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
	Type   Type
	typeID uint64
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

// ReadTrace reads the records the runtime wrote to path, in order.
func ReadTrace(path string) (*Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the record file: %w", err)
	}
	t := &Trace{Bytes: int64(len(data)), Records: make([]Record, 0, len(data)/64)}
	types := map[uint64]Type{}
	var slab []Value
	for start := 0; start < len(data); start += chunkSize {
		end := min(start+chunkSize, len(data))
		d := &decoder{b: data[start:end], types: types, slab: slab}
		for d.i < len(d.b) && d.b[d.i] != 0 {
			k := d.b[d.i]
			d.i++
			if k == recStop {
				t.Stopped = true
				break
			}
			r, err := d.record(k)
			if err != nil {
				return nil, fmt.Errorf("record file %s, offset %d: %w", path, start+d.i, err)
			}
			t.Records = append(t.Records, r)
		}
		slab = d.slab
	}
	// A type is named once, by the goroutine that met it first, perhaps
	// in a chunk after one that uses it.
	for i := range t.Records {
		for j := range t.Records[i].Values {
			v := &t.Records[i].Values[j]
			v.Type = types[v.typeID]
		}
	}
	less := func(i, j int) bool { return t.Records[i].Seq < t.Records[j].Seq }
	if !sort.SliceIsSorted(t.Records, less) {
		sort.Slice(t.Records, less)
	}
	return t, nil
}

type decoder struct {
	b     []byte
	i     int
	err   error
	types map[uint64]Type
	// slab is where the values of records are allocated from, in bulk.
	slab []Value
}

var errShort = errors.New("truncated record")

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.i += n
	return v
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
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
	s = string(d.b[d.i : d.i+n])
	d.i += n
	return s, full
}

func (d *decoder) record(k byte) (Record, error) {
	r := Record{Kind: k}
	r.Seq = d.uvarint()
	r.Goid = d.varint()
	switch k {
	case RecEnter:
		r.Site = int(d.uvarint())
		r.PC = d.uvarint()
		r.Off = d.uvarint()
		r.CallerPC = d.uvarint()
		r.CallerOff = d.uvarint()
		n := int(d.uvarint())
		for i := 0; i < n && d.err == nil; i++ {
			r.Chain = append(r.Chain, Link{PC: d.uvarint(), Off: d.uvarint()})
		}
		r.Values = d.values()
	case RecExit:
		r.Off = d.uvarint()
		r.PC = d.uvarint()
		r.Values = d.values()
	case RecGo:
		r.PC = d.uvarint()
	case RecGInfo:
		r.Parent = d.varint()
		r.Creator, _ = d.str()
		r.CreatorSite, _ = d.str()
		r.ParentStack, _ = d.str()
	case RecRecover:
		r.Text, _ = d.str()
	default:
		return r, fmt.Errorf("unknown record kind %d", k)
	}
	return r, d.err
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
	if len(d.slab)+n > cap(d.slab) {
		d.slab = make([]Value, 0, max(4096, n))
	}
	start := len(d.slab)
	for i := 0; i < n && d.err == nil; i++ {
		id := d.uvarint()
		for id == 0 && d.err == nil {
			tid := d.uvarint()
			name, _ := d.str()
			kind, _ := d.str()
			d.types[tid] = Type{Name: name, Kind: kind}
			id = d.uvarint()
		}
		v := Value{typeID: id, Tag: d.byte1()}
		switch v.Tag {
		case TagInt:
			v.Int = d.varint()
		case TagUint:
			v.Uint = d.uvarint()
		case TagFloat:
			v.Text, _ = d.str()
		case TagComplex:
			re, _ := d.str()
			im, _ := d.str()
			v.Text = "(" + re + " + " + im + "i)"
		case TagString:
			v.Text, v.Len = d.str()
		case TagLen:
			v.Len = int64(d.uvarint())
			v.Cap = int64(d.uvarint())
		case TagNil, TagNonNil, TagFalse, TagTrue, TagOther:
		default:
			d.err = fmt.Errorf("unknown value tag %d", v.Tag)
		}
		d.slab = append(d.slab, v)
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
