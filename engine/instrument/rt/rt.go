//go:build linux && amd64

// Package adirt is the runtime of adi's instrumenting recorder. The
// instrumenter adds it to the build of the target (through the overlay) and
// calls its hooks at the entry and exit of every function of the target's
// own packages.
//
// Records go to a file named by the environment variable ADI_TRACE_FILE,
// memory-mapped in chunks: each goroutine writes into its own chunk without
// locks, and what was written is in the file even when the process ends by
// os.Exit, log.Fatal or a fatal signal, since the pages belong to the file.
// Without ADI_TRACE_FILE the hooks do nothing.
//
// The hooks never call user code: values are read by kind (basic kinds by
// value, strings up to a bound, pointers as nil or not, lengths of slices
// and maps).
package adirt

import (
	"encoding/binary"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Record kinds. A chunk ends at the first zero byte.
const (
	recEnter   = 1
	recExit    = 2
	recGo      = 3
	recGInfo   = 4
	recRecover = 5
	recType    = 6
	recStop    = 7
)

// Value tags.
const (
	tagInt = iota + 1
	tagUint
	tagFloat
	tagFalse
	tagTrue
	tagString
	tagNil
	tagNonNil
	tagLen
	tagOther
	tagComplex
)

const (
	chunkSize = 64 << 10
	segSize   = 4 << 20
	// maxRecord bounds one record; a chunk with less room left is closed.
	maxRecord = 4 << 10
	gtabBits  = 16
	ttabBits  = 12
	maxChain  = 64
)

// G is the recorder's state of one goroutine (of one runtime g: a g that
// is reused by a later goroutine gets a new goid on its next root entry).
type G struct {
	gp    uintptr
	goid  int64
	stack []uintptr // offsets of the open frames from the stack top
	buf   []byte    // the goroutine's current chunk
	pos   int
	last  uint64 // the number of the last record in the chunk
}

// F is the token an entry hook returns to the exit hook of the same frame.
type F struct {
	g   *G
	off uintptr
}

var (
	enabled bool
	stopped atomic.Bool
	seq     atomic.Uint64
	maxStr  = 64

	mu       sync.Mutex
	file     *os.File
	fileSize int64
	maxFile  int64 = 2 << 30
	seg      []byte
	gtab     [1 << gtabBits]atomic.Pointer[G]
	siteSeen [numSites]atomic.Bool
	ttab     [1 << ttabBits]atomic.Pointer[tent]
	typeIDs  = map[uintptr]uint64{}
)

// tent is a type the runtime has named: the type of a *T, the kind of T.
type tent struct {
	typ  uintptr
	id   uint64
	kind reflect.Kind
	alen int // arrays: the length
}

func init() {
	path := os.Getenv("ADI_TRACE_FILE")
	if path == "" {
		return
	}
	// Not for the processes the program starts (a test that runs its own
	// binary again would truncate the file).
	os.Unsetenv("ADI_TRACE_FILE")
	if n, err := strconv.Atoi(os.Getenv("ADI_TRACE_MAXSTR")); err == nil && n > 0 {
		maxStr = n
	}
	if n, err := strconv.ParseInt(os.Getenv("ADI_TRACE_MAXFILE"), 10, 64); err == nil && n > 0 {
		maxFile = n
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		os.Stderr.WriteString("adi: cannot record: " + err.Error() + "\n")
		return
	}
	file = f
	enabled = true
}

// lookup returns the state of the goroutine running on g gp.
func lookup(gp uintptr) *G {
	h := (uint64(gp) * 0x9E3779B97F4A7C15) >> (64 - gtabBits)
	for i := uint64(0); i < 1<<gtabBits; i++ {
		s := gtab[(h+i)&(1<<gtabBits-1)].Load()
		if s == nil {
			return insert(gp, h)
		}
		if s.gp == gp {
			return s
		}
	}
	return nil
}

func insert(gp uintptr, h uint64) *G {
	mu.Lock()
	defer mu.Unlock()
	for i := uint64(0); i < 1<<gtabBits; i++ {
		slot := &gtab[(h+i)&(1<<gtabBits-1)]
		s := slot.Load()
		if s == nil {
			s = &G{gp: gp, goid: -1}
			slot.Store(s)
			return s
		}
		if s.gp == gp {
			return s
		}
	}
	return nil
}

// stackHi is the top (highest address) of the stack of g gp: the runtime's
// g starts with its stack bounds, lo then hi.
func stackHi(gp uintptr) uintptr { return peek(gp + 8) }
func stackLo(gp uintptr) uintptr { return peek(gp) }

// room makes sure the goroutine's chunk has room for a record.
func (s *G) room() bool {
	if s.pos+maxRecord <= len(s.buf) {
		return true
	}
	return s.newChunk()
}

// newChunk gives the goroutine a new chunk of the file.
func (s *G) newChunk() bool {
	if stopped.Load() {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seg) < chunkSize {
		if fileSize+segSize > maxFile {
			s.buf, s.pos = nil, 0
			if !stopped.Swap(true) {
				writeStop()
			}
			return false
		}
		m, err := mapSegment(file, fileSize, segSize)
		if err != nil {
			stopped.Store(true)
			os.Stderr.WriteString("adi: recording stopped: " + err.Error() + "\n")
			return false
		}
		fileSize += segSize
		seg = m
	}
	s.buf, seg = seg[:chunkSize:chunkSize], seg[chunkSize:]
	s.pos, s.last = 0, 0
	return true
}

// writeStop appends a stop record past the end of the file (mu held).
func writeStop() {
	file.WriteAt([]byte{recStop}, fileSize)
}

func (s *G) byte1(b byte) {
	s.buf[s.pos] = b
	s.pos++
}

func (s *G) uvarint(v uint64) {
	// One load and one store of s.pos per number, not per byte.
	s.pos += binary.PutUvarint(s.buf[s.pos:], v)
}

func (s *G) varint(v int64) {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	s.uvarint(u)
}

func (s *G) str(v string, max int) {
	s.uvarint(uint64(len(v)))
	if len(v) > max {
		v = v[:max]
	}
	s.uvarint(uint64(len(v)))
	s.pos += copy(s.buf[s.pos:], v)
}

// begin starts a record of kind k on the current goroutine; it returns the
// goroutine's state, nil when nothing is recorded.
func begin(s *G, k byte) bool {
	if !s.room() {
		return false
	}
	s.byte1(k)
	s.seq()
	s.varint(s.goid)
	return true
}

// seq numbers a record: the difference from the last number written in
// the chunk (small), or the number itself at the start of a chunk.
func (s *G) seq() {
	n := seq.Add(1)
	s.uvarint(n - s.last)
	s.last = n
}

// root is called at an entry with no open frame: the goroutine may be a new
// one (on a new or reused g). It reads the goroutine's id and creator from
// its traceback and records them.
func (s *G) root() {
	buf := make([]byte, 8<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	text := string(buf)
	goid := int64(-1)
	if rest, ok := strings.CutPrefix(text, "goroutine "); ok {
		if i := strings.IndexByte(rest, ' '); i > 0 {
			goid, _ = strconv.ParseInt(rest[:i], 10, 64)
		}
	}
	if goid == s.goid {
		return
	}
	s.goid = goid
	var parent int64
	var creator, site, parentStack string
	if i := strings.LastIndex(text, "\ncreated by "); i >= 0 {
		lines := strings.SplitN(text[i+len("\ncreated by "):], "\n", 3)
		creator = lines[0]
		if j := strings.LastIndex(creator, " in goroutine "); j >= 0 {
			parent, _ = strconv.ParseInt(creator[j+len(" in goroutine "):], 10, 64)
			creator = creator[:j]
		}
		if len(lines) > 1 {
			site = strings.TrimSpace(lines[1])
			if j := strings.LastIndex(site, " +0x"); j >= 0 {
				site = site[:j]
			}
		}
		if parent > 0 && !isUserFunc(creator) {
			parentStack = stackOf(parent)
		}
	}
	if !s.room() {
		return
	}
	s.byte1(recGInfo)
	s.seq()
	s.varint(s.goid)
	s.varint(parent)
	s.str(creator, 1024)
	s.str(site, 1024)
	s.str(parentStack, maxRecord-2100)
}

// isUserFunc reports whether a function name (as tracebacks print it)
// belongs to an instrumented package.
func isUserFunc(name string) bool {
	pkg := name
	slash := strings.LastIndexByte(pkg, '/')
	if i := strings.IndexByte(pkg[slash+1:], '.'); i >= 0 {
		pkg = pkg[:slash+1+i]
	}
	for _, p := range userPkgs {
		if p == pkg {
			return true
		}
	}
	return false
}

// stackOf returns the traceback of goroutine goid ("" if gone), at most
// 1,500 bytes of it.
func stackOf(goid int64) string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= 16<<20 {
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	head := "goroutine " + strconv.FormatInt(goid, 10) + " ["
	for _, sec := range strings.Split(string(buf), "\n\n") {
		if strings.HasPrefix(sec, head) {
			if len(sec) > 1500 {
				sec = sec[:1500]
			}
			return sec
		}
	}
	return ""
}

// enter records the entry of a frame; gp..coff are from frames().
func enter(site uint64, gp, pcF, pcCaller, off, coff uintptr) (F, *G) {
	if !enabled || stopped.Load() {
		return F{}, nil
	}
	s := lookup(gp)
	if s == nil {
		return F{}, nil
	}
	if len(s.stack) == 0 {
		s.root()
	}
	if !begin(s, recEnter) {
		return F{}, nil
	}
	// Frames deeper than this one are gone (left without their exit hook).
	for len(s.stack) > 0 && s.stack[len(s.stack)-1] >= off {
		s.stack = s.stack[:len(s.stack)-1]
	}
	// A PC in the function, once per site: the site says the rest.
	if site < numSites && siteSeen[site].Load() {
		s.uvarint(site << 1)
	} else {
		s.uvarint(site<<1 | 1)
		s.uvarint(uint64(pcF))
		if site < numSites {
			siteSeen[site].Store(true)
		}
	}
	s.uvarint(uint64(off))
	s.uvarint(uint64(pcCaller))
	s.varint(int64(off - coff))
	if n := len(s.stack); n > 0 && s.stack[n-1] != coff {
		// Library code (or the runtime) stands between the innermost open
		// frame and this one: record the return addresses up to it.
		top := s.stack[n-1]
		// Nothing below moves the stack (peek is a leaf).
		lo, hi := stackLo(gp), stackHi(gp)
		b := hi - off
		var pcs [maxChain]uintptr
		var offs [maxChain]uintptr
		k := 0
		for k < maxChain && b >= lo && b < hi {
			pcs[k] = peek(b + 8)
			b = peek(b)
			offs[k] = hi - b
			k++
			if hi-b == top || b < lo || b >= hi {
				break
			}
		}
		s.uvarint(uint64(k))
		for i := 0; i < k; i++ {
			s.uvarint(uint64(pcs[i]))
			s.uvarint(uint64(offs[i]))
		}
	} else {
		s.uvarint(0)
	}
	s.stack = append(s.stack, off)
	return F{g: s, off: off}, s
}

// leave records the exit of frame f; pc is from exitFrames().
func leave(f F, pc uintptr) bool {
	s := f.g
	if s == nil || !begin(s, recExit) {
		return false
	}
	for len(s.stack) > 0 && s.stack[len(s.stack)-1] >= f.off {
		s.stack = s.stack[:len(s.stack)-1]
	}
	s.uvarint(uint64(f.off))
	s.uvarint(uint64(pc))
	return true
}

// value records one argument or result, given by its address.
func (s *G) value(p any) {
	if s.pos+maxStr+1024 > len(s.buf) {
		// No room left in the record: an unknown type, no value.
		s.uvarint(1 << 32)
		s.byte1(tagOther)
		return
	}
	// p is only read through unsafe: calling reflect on it would make
	// every argument escape to the heap.
	e := (*eface)(unsafe.Pointer(&p))
	t := ttab[(uint64(uintptr(e.typ))*0x9E3779B97F4A7C15)>>(64-ttabBits)].Load()
	if t == nil || t.typ != uintptr(e.typ) {
		t = typeInfo(s, uintptr(e.typ))
	}
	s.uvarint(t.id)
	ptr := e.data
	switch t.kind {
	case reflect.Int:
		s.byte1(tagInt)
		s.varint(int64(*(*int)(ptr)))
	case reflect.Int8:
		s.byte1(tagInt)
		s.varint(int64(*(*int8)(ptr)))
	case reflect.Int16:
		s.byte1(tagInt)
		s.varint(int64(*(*int16)(ptr)))
	case reflect.Int32:
		s.byte1(tagInt)
		s.varint(int64(*(*int32)(ptr)))
	case reflect.Int64:
		s.byte1(tagInt)
		s.varint(*(*int64)(ptr))
	case reflect.Uint, reflect.Uintptr:
		s.byte1(tagUint)
		s.uvarint(uint64(*(*uint)(ptr)))
	case reflect.Uint8:
		s.byte1(tagUint)
		s.uvarint(uint64(*(*uint8)(ptr)))
	case reflect.Uint16:
		s.byte1(tagUint)
		s.uvarint(uint64(*(*uint16)(ptr)))
	case reflect.Uint32:
		s.byte1(tagUint)
		s.uvarint(uint64(*(*uint32)(ptr)))
	case reflect.Uint64:
		s.byte1(tagUint)
		s.uvarint(*(*uint64)(ptr))
	case reflect.Float32:
		s.byte1(tagFloat)
		s.float(float64(*(*float32)(ptr)), 32)
	case reflect.Float64:
		s.byte1(tagFloat)
		s.float(*(*float64)(ptr), 64)
	case reflect.Complex64:
		c := *(*complex64)(ptr)
		s.byte1(tagComplex)
		s.float(float64(real(c)), 32)
		s.float(float64(imag(c)), 32)
	case reflect.Complex128:
		c := *(*complex128)(ptr)
		s.byte1(tagComplex)
		s.float(real(c), 64)
		s.float(imag(c), 64)
	case reflect.Bool:
		if *(*bool)(ptr) {
			s.byte1(tagTrue)
		} else {
			s.byte1(tagFalse)
		}
	case reflect.String:
		s.byte1(tagString)
		s.str(*(*string)(ptr), maxStr)
	case reflect.Pointer, reflect.UnsafePointer, reflect.Func:
		if *(*uintptr)(ptr) == 0 {
			s.byte1(tagNil)
		} else {
			s.byte1(tagNonNil)
		}
	case reflect.Map, reflect.Chan:
		m := *(*unsafe.Pointer)(ptr)
		if m == nil {
			s.byte1(tagNil)
			break
		}
		// The count is the first word of a map's and a channel's header;
		// a channel's capacity is the second.
		s.byte1(tagLen)
		s.uvarint(uint64(*(*int)(m)))
		if t.kind == reflect.Chan {
			s.uvarint(uint64(*(*int)(unsafe.Add(m, 8))))
		} else {
			s.uvarint(0)
		}
	case reflect.Slice:
		h := (*sliceHeader)(ptr)
		if h.data == nil {
			s.byte1(tagNil)
			break
		}
		s.byte1(tagLen)
		s.uvarint(uint64(h.len))
		s.uvarint(uint64(h.cap))
	case reflect.Interface:
		if *(*uintptr)(ptr) == 0 {
			s.byte1(tagNil)
		} else {
			s.byte1(tagNonNil)
		}
	case reflect.Array:
		s.byte1(tagLen)
		s.uvarint(uint64(t.alen))
		s.uvarint(0)
	default:
		s.byte1(tagOther)
	}
}

// float writes the text of a float as Go's %g with the precision of its
// size would, as 'g' -1.
func (s *G) float(v float64, bits int) {
	s.str(strconv.FormatFloat(v, 'g', -1, bits), 64)
}

type eface struct {
	typ, data unsafe.Pointer
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// typeInfo returns what the runtime knows of the type of a *T (given by
// the eface type word of a pointer to the value), recording its name the
// first time.
func typeInfo(s *G, typ uintptr) *tent {
	h := (uint64(typ) * 0x9E3779B97F4A7C15) >> (64 - ttabBits)
	if t := ttab[h].Load(); t != nil && t.typ == typ {
		return t
	}
	var p any
	(*eface)(unsafe.Pointer(&p)).typ = ptrOf(typ)
	rt := reflect.TypeOf(p).Elem()
	mu.Lock()
	id, ok := typeIDs[typ]
	if !ok {
		id = uint64(len(typeIDs) + 1)
		typeIDs[typ] = id
	}
	mu.Unlock()
	t := &tent{typ: typ, id: id, kind: rt.Kind()}
	if t.kind == reflect.Array {
		t.alen = rt.Len()
	}
	ttab[h].Store(t)
	if !ok {
		// A type record inside the current record: the reader takes it
		// where a value's type id is 0.
		s.uvarint(0)
		s.uvarint(id)
		s.str(typeName(rt), 512)
		s.str(rt.Kind().String(), 32)
	}
	return t
}

// typeName spells a type as the debug information does: named types with
// their full package path.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return t.Name()
		}
		return t.PkgPath() + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + typeName(t.Elem())
		case reflect.SendDir:
			return "chan<- " + typeName(t.Elem())
		}
		return "chan " + typeName(t.Elem())
	}
	return t.String()
}

// rec records a recovered panic value.
func rec(gp uintptr, v any) {
	if !enabled || v == nil {
		return
	}
	s := lookup(gp)
	if s == nil || !begin(s, recRecover) {
		return
	}
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case runtime.Error:
		t := reflect.TypeOf(v)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.PkgPath() == "runtime" {
			text = x.Error() // the runtime's own errors: no user code
		} else {
			text = typeName(reflect.TypeOf(v))
		}
	default:
		text = typeName(reflect.TypeOf(v))
	}
	s.str(text, 1024)
}
