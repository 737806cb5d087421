package engine

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/trace"
)

// fileValues is the value source of an instrumented recording (see
// trace.ValueSource): the arguments and results stay in the record file,
// which stays mapped while the recording lives, or in copies of the
// file's bytes (see copiedValues), and a frame's are decoded and rendered
// when it is read, as builder.values renders them at index time. A
// session reads the values of a few hundred frames; the index build no
// longer decodes, renders and copies the millions of the run.
//
// Its methods may be called from several goroutines at once: the file and
// the copies are only read, and the types are all rendered when it is
// made.
type fileValues struct {
	file  *instrument.File
	types []vtype // by type number
	bytes int64   // see Bytes
	// copied holds the values copied out of the file, whose references
	// have copiedRef set (see builder.attach).
	copied *copiedValues
	// decoded are buffers for a frame's decoded values (*[]instrument.Value).
	decoded sync.Pool
}

// vtype is a recorded type, as values of it are rendered (see itype).
type vtype struct {
	name, short string
	kind        trace.Kind
	// texts of a non-nil value (pointer, func, interface) and of a
	// composite one without length.
	nonNil, other string
}

// newFileValues makes the value source of the values in f, whose records
// have all been read (the types they name are known).
func newFileValues(f *instrument.File) *fileValues {
	s := &fileValues{file: f, types: make([]vtype, f.NumTypes()), bytes: f.Bytes}
	for id := range s.types {
		s.types[id] = newVType(f.Type(uint32(id)))
	}
	return s
}

// newVType is the rendering of type it: the index's too (see
// builder.newType), where it is interned.
func newVType(it instrument.Type) vtype {
	short := shortType(it.Name)
	t := vtype{name: it.Name, short: short, kind: kindOf(it.Kind), other: short + "{…}"}
	switch t.kind {
	case trace.KindPointer:
		t.nonNil = "&" + strings.TrimPrefix(short, "*") + "{…}"
	case trace.KindFunc:
		t.nonNil = short
	default:
		t.nonNil = short + "(…)"
	}
	return t
}

// typ returns the rendering of type id (a type number past the file's, in
// a damaged record, names the zero Type as File.Type does).
func (s *fileValues) typ(id uint32) vtype {
	if int(id) < len(s.types) {
		return s.types[id]
	}
	return newVType(instrument.Type{})
}

// Bytes is what the record file holds once trimmed (see trim), and the
// values copied out of it: the recording keeps them for its values (the
// pages of a memfd are memory; those of a file in the work directory are
// counted too). A file with none of the recording's values is not kept.
func (s *fileValues) Bytes() int { return int(s.bytes) + s.copied.size() }

// copiedValues holds the values of records copied out of the record file
// before their chunk is handed back to the runtime (see
// instrument.File.Recycle), as the file has them, in blocks: the values of
// a record are referred to by copiedRef | the block's number × copiedBlock
// + their offset in it. The blocks are anonymous mappings of huge pages
// where the system makes them: the copies are memory the index's process
// writes for the first time, which costs a fault a page (microseconds on
// some virtual machines), not one for 512 pages.
//
// The last values copied can be given back (see mark and rollback): those
// of frames past the frame limit, dropped as they end. The blocks they
// took stay mapped for the next ones.
type copiedValues struct {
	blocks [][]byte // those past the first used are empty
	used   int
	bytes  int
}

// copiedMark is where the next values copied go: the number of blocks
// used and the length of the last one.
type copiedMark struct{ used, n int }

// before reports whether m comes before o.
func (m copiedMark) before(o copiedMark) bool {
	return m.used < o.used || m.used == o.used && m.n < o.n
}

// copiedRef marks the references to copied values: those into the file
// are below its size limit (maxRecordFile).
const copiedRef = 1 << 31

// copiedBlock is the size of the blocks of copied values: a huge page, and
// far more than a record holds (the runtime bounds them to 4 KB).
const copiedBlock = trace.BlockSize

// add copies the values b and returns their reference, false when there
// is no room for them. Values of up to 8 bytes with 8 in b's capacity (see
// instrument.File.ValuesBytes), most of them, are copied as one word: the
// bytes past them are overwritten by the next values, or are the slack.
func (c *copiedValues) add(b []byte) (uint32, bool) {
	need := len(b) + instrument.ValuesSlack
	if c.used == 0 || cap(c.blocks[c.used-1])-len(c.blocks[c.used-1]) < need {
		if need > copiedBlock || (c.used+1)*copiedBlock > copiedRef {
			return 0, false
		}
		if c.used == len(c.blocks) {
			// One made ready ahead (see prepareIndex), else a fresh one.
			m, ok := trace.TakeBlock()
			if !ok {
				var err error
				if m, err = unix.Mmap(-1, 0, copiedBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON); err != nil {
					return 0, false
				}
				unix.Madvise(m, unix.MADV_HUGEPAGE)
			}
			c.blocks = append(c.blocks, m[:0])
		}
		c.used++
	}
	blk := &c.blocks[c.used-1]
	n := len(*blk)
	off := (c.used-1)*copiedBlock + n
	if len(b) <= 8 && cap(b) >= 8 {
		binary.LittleEndian.PutUint64((*blk)[n:n+8], binary.LittleEndian.Uint64(b[:8]))
		*blk = (*blk)[:n+len(b)]
	} else {
		*blk = append(*blk, b...)
	}
	c.bytes += len(b)
	return copiedRef | uint32(off), true
}

// mark returns where the next values copied go.
func (c *copiedValues) mark() copiedMark {
	if c.used == 0 {
		return copiedMark{}
	}
	return copiedMark{c.used, len(c.blocks[c.used-1])}
}

// rollback gives back the values copied since mark m: nothing refers to
// them any more.
func (c *copiedValues) rollback(m copiedMark) {
	for c.used > m.used {
		c.used--
		c.bytes -= len(c.blocks[c.used])
		c.blocks[c.used] = c.blocks[c.used][:0]
	}
	if c.used > 0 {
		blk := &c.blocks[c.used-1]
		c.bytes -= len(*blk) - m.n
		*blk = (*blk)[:m.n]
	}
}

// at returns the block holding the values of reference ref, with its
// room past them, and their offset in it.
func (c *copiedValues) at(ref uint32) ([]byte, int) {
	off := int(ref &^ copiedRef)
	blk := c.blocks[off/copiedBlock]
	return blk[:cap(blk)], off % copiedBlock
}

// free unmaps the blocks (when the recording is collected).
func (c *copiedValues) free() {
	if c == nil {
		return
	}
	for _, b := range c.blocks {
		unix.Munmap(b[:cap(b)])
	}
	c.blocks, c.used, c.bytes = nil, 0, 0
}

// blocksMapped is the number of blocks the copies took at most.
func (c *copiedValues) blocksMapped() int {
	if c == nil {
		return 0
	}
	return len(c.blocks)
}

// size is the bytes of the values copied and not given back (the blocks'
// pages hold them; those of the blocks' rest are made as they are first
// written, and stay once given back).
func (c *copiedValues) size() int {
	if c == nil {
		return 0
	}
	return c.bytes
}

// trim frees the parts of the record file fd that hold none of the
// recording's values, and counts what it still holds (fstat's blocks: what
// the kernel keeps for it). ends are by chunk the end of the chunk's last
// value the recording refers to (0: none). A chunk is kept from its start
// to the page past that end, with the bytes the decoder reads ahead; the
// rest of it (its records are read, the runtime left its tail empty, a
// chunk of an ended goroutine) is given back to the kernel. A file system
// that cannot free parts of a file keeps all of it, which is counted.
func (s *fileValues) trim(fd *os.File, ends []int) {
	size := int(s.file.Bytes)
	page := os.Getpagesize()
	var from, to int // the range to free, pending
	free := func() {
		if to > from {
			unix.Fallocate(int(fd.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, int64(from), int64(to-from))
		}
	}
	for start := 0; start < size; start += instrument.ChunkSize {
		keep := start
		if c := start / instrument.ChunkSize; c < len(ends) && ends[c] > 0 {
			keep = min((ends[c]+instrument.ValuesSlack+page-1)/page*page, start+instrument.ChunkSize)
		}
		end := min(start+instrument.ChunkSize, size)
		if keep >= end {
			continue
		}
		if keep != to {
			free()
			from = keep
		}
		to = end
	}
	free()
	var st unix.Stat_t
	if err := unix.Fstat(int(fd.Fd()), &st); err == nil {
		s.bytes = st.Blocks * 512
	} else {
		s.bytes = s.file.Bytes
	}
}

// close unmaps the record file (when the recording is collected).
func (s *fileValues) close() {
	if s.file != nil {
		s.file.Close()
	}
	s.copied.free()
}

// AppendValues decodes and renders the n values at offset ref of the
// record file.
func (s *fileValues) AppendValues(dst []trace.Value, ref uint32, n int, names []string) []trace.Value {
	buf, _ := s.decoded.Get().(*[]instrument.Value)
	if buf == nil {
		buf = new([]instrument.Value)
	}
	defer s.decoded.Put(buf)
	var vs []instrument.Value
	var err error
	if ref&copiedRef != 0 && s.copied != nil {
		b, at := s.copied.at(ref)
		vs, err = instrument.DecodeValues((*buf)[:0], b, at, n)
	} else {
		vs, err = s.file.ValuesAt((*buf)[:0], int(ref), n)
	}
	*buf = vs
	if err != nil {
		// The records were read through once already: a value that does
		// not decode now is a bug, said in the values' place.
		for i := range n {
			dst = append(dst, trace.Value{Name: nameAt(names, i), Error: err.Error()})
		}
		return dst
	}
	for i := range vs {
		v := &vs[i]
		t := s.typ(v.TypeID)
		out := trace.Value{Name: nameAt(names, i), Type: t.name, Kind: t.kind, Len: v.Len, Cap: v.Cap}
		switch v.Tag {
		case instrument.TagInt:
			out.Kind, out.Text = trace.KindInt, strconv.FormatInt(v.Int, 10)
		case instrument.TagUint:
			out.Kind, out.Text = trace.KindUint, strconv.FormatUint(v.Uint, 10)
		case instrument.TagTrue, instrument.TagFalse:
			out.Kind, out.Text = trace.KindBool, strconv.FormatBool(v.Tag == instrument.TagTrue)
		case instrument.TagNil:
			out.Text, out.Nil = "nil", true
		case instrument.TagNonNil:
			out.Text, out.Cut = t.nonNil, true
		case instrument.TagOther:
			out.Text, out.Cut = t.other, true
		case instrument.TagFloat, instrument.TagComplex:
			// The decoded text is the file's bytes: copied.
			out.Kind, out.Text = trace.KindFloat, strings.Clone(v.Text)
			if v.Tag == instrument.TagComplex {
				out.Kind = trace.KindComplex
			}
		case instrument.TagString:
			out.Kind = trace.KindString
			var b []byte
			b, out.Cut = trace.AppendStringText(make([]byte, 0, len(v.Text)+24), v.Text, v.Len)
			out.Text = string(b)
		case instrument.TagNamed:
			b, _ := trace.AppendTestText(make([]byte, 0, len(v.Text)+48), t.name, v.Text, v.Len)
			out.Text, out.Cut, out.Len = string(b), true, 0
		case instrument.TagLen:
			out.Text, out.Cut = string(appendLenText(make([]byte, 0, len(t.short)+24), &t, v.Len, v.Cap)), true
		}
		dst = append(dst, out)
	}
	return dst
}

// nameAt is names[i], "" past its end.
func nameAt(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}

// appendLenText appends the text of a slice, map, array or channel: its
// type and length (and a channel's capacity).
func appendLenText(b []byte, t *vtype, n, c int64) []byte {
	b = append(b, t.short...)
	if t.kind == trace.KindChan {
		b = append(b, " (len "...)
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ", cap "...)
		b = strconv.AppendInt(b, c, 10)
	} else {
		b = append(b, "{…} (len "...)
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, ')')
}
