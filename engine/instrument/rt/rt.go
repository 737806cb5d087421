//go:build linux && amd64

// Package adirt is the runtime of adi's instrumenting recorder. The
// instrumenter adds it to the build of the target (through the overlay) and
// calls its hooks at the entry and exit of every function of the target's
// own packages.
//
// Records go to the open file whose descriptor the environment variable
// ADI_TRACE_FD gives (adi passes a memfd: file pages that cost no file
// system work and that the recording process still holds when the target
// has ended), or to a file named by ADI_TRACE_FILE. The file is
// memory-mapped in chunks: each goroutine writes into its own chunk without
// locks, and what was written is in the file even when the process ends by
// os.Exit, log.Fatal or a fatal signal, since the pages belong to the file.
// Without either variable the hooks do nothing. ADI_TRACE_SITES gives the
// number of sites (instrumented functions) and ADI_TRACE_PKGS the import
// paths of the instrumented packages, separated by spaces: they are not
// compiled in, so that one build of the runtime serves every target.
//
// Numbers are prefix varints: the count n (1 to 9) of bytes is one more
// than the number of trailing zero bits of the first byte, and for n ≤ 8
// the value is the n bytes read little-endian, shifted right by n (56 bits
// at most); for n = 9 (a zero first byte) the value is the next 8 bytes.
// A number of 7k bits takes k bytes, as in LEB128, but is written and read
// with one 8-byte access instead of a loop over its bytes. Signed numbers
// are zigzag-encoded first.
//
// The fixed fields of entries, exits and values are grouped numbers
// instead: a descriptor byte gives the size (1, 2, 4 or 8 bytes, codes 0
// to 3) of each of the numbers that follow it, little-endian, so that the
// reader knows where each one is from the descriptor alone rather than
// from the number before it (see enter, leave and value). Frame offsets
// and PCs are written as differences from the chunk's last ones. Counts
// (of values, of chain links) are one-byte varints: an entry's count of
// values shares one with whether a chain follows, and an exit's is in its
// descriptor's high bits.
//
// The hooks never call user code: values are read by kind (basic kinds by
// value, strings up to a bound, pointers as nil or not, lengths of slices
// and maps), and a *testing.T (B, F) by its test's name, read from the
// field the testing package keeps it in.
package adirt

import (
	"errors"
	"math/bits"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A chunk starts with a header of hdrSize bytes, kept up to date as the
// goroutine writes (no exit hook runs when the process ends): the number
// of entry records of the chunk (4 bytes, little-endian), the number of
// its values (4 bytes), the flags (1 byte, then 7 unused) and the state (8
// bytes): the number of its last complete record << stateLast | the end
// of that record << stateEnd | stateBusy while a record is written. One
// word, written with one store per record: a reader reads the three
// together.
//
// The flags: hdrUsed, set when a goroutine takes the chunk; hdrScan, when
// the chunk has records a reader of the whole file needs before it reads
// it in order (goroutines, go statements, recovers, the first record of a
// site); hdrDone, once the goroutine has left the chunk for another.
// hdrTypes marks the chunks of type records, hdrCtl the first chunk of the
// file, which holds the record counter.
//
// A reader can so read the file while the target runs (see
// instrument.File.Poll): every record numbered up to the counter it read
// first is complete, but for those of chunks that were busy, whose
// complete records end at the state's end and number.
//
// A reader that has read a chunk its goroutine left can hand it back for
// another (see ctlFree): the runtime takes chunks handed back before new
// ones, and counts their uses in the header's gen (4 bytes after the
// flags), so that the reader tells a chunk taken again from the one it
// read. A chunk's pages cost the most the first time the process writes
// them (on some virtual machines, microseconds a page even when the file
// has them), so a run whose records are read as it goes writes the same
// few chunks again and again.
const (
	hdrSize  = 32
	hdrUsed  = 1
	hdrScan  = 2
	hdrDone  = 8
	hdrTypes = 16
	hdrCtl   = 32
)

// The fields of a chunk's state.
const (
	stateBusy = 1
	stateEnd  = 1  // 17 bits: a chunk is 64 KB
	stateLast = 18 // 46 bits
)

// chunkHdr is the header of a chunk, as it is laid out (amd64 is
// little-endian).
type chunkHdr struct {
	enters, vals uint32
	flags        uint8
	_            [3]byte
	gen          uint32
	state        uint64
	_            uint64
}

// idle is the state of a chunk whose last complete record is numbered
// last and ends at end.
func idle(last uint64, end int) uint64 { return last<<stateLast | uint64(end)<<stateEnd }

// ctlSeq is the offset of the record counter in the control chunk: a
// cache line of its own, since every hook adds to it (the threads of a
// parallel program would otherwise take the line holding the variables
// every hook reads from each other).
const ctlSeq = cacheLine

// The free list, in the control chunk: the chunks a reader handed back, as
// chunk numbers (4 bytes each) in a ring of ctlSlots slots from ctlFree.
// The reader writes a slot, then the count of chunks it has handed back
// (at ctlFreeHead); the runtime takes them in order and counts those it
// has taken (at ctlFreeTail), which tells the reader which slots are free
// again. Each count has a cache line of its own.
//
// Then the reader's progress (see waitReader): the number of the last
// record it has read, written as it reads while it hands chunks back
// (1 before the first), 0 before it has looked at the file, readStopped
// when it hands none back; and the time, in nanoseconds, that goroutines
// have waited for it in all. A cache line each.
const (
	ctlFreeHead = 2 * cacheLine
	ctlFreeTail = 3 * cacheLine
	ctlRead     = 4 * cacheLine
	ctlWaited   = 5 * cacheLine
	ctlFree     = 6 * cacheLine
	ctlSlots    = (chunkSize - ctlFree) / 4
	readStopped = ^uint64(0)
)

// Record kinds. A record starts with the number seqΔ<<3 | kind, seqΔ
// being the difference of its sequence number from that of the chunk's
// previous record (the number itself for the chunk's first record), so
// that its first byte is never zero: the records of a chunk end at its
// header's end, and a reader of a damaged chunk stops at a zero byte too.
// An exit takes no number of its own: its sequence number is that of the
// last record numbered when it was written (the counter's value, which
// its goroutine's records before it do not exceed), and it comes after
// that record and before the next. Exits of goroutines running at once
// can so share a number, and come in no known order among themselves.
// A recGoid record (no sequence number: seqΔ is 0) gives the goroutine of
// the records that follow it in the chunk, as does a recGInfo record;
// other records do not repeat it. recType records (no number either) are
// in the chunks of types only.
const (
	recGoid    = 0
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
	tagNamed
)

const (
	chunkSize = 64 << 10
	// The file grows by segments, each as large as the file was, from
	// minSeg to maxSeg: a short run does not pay for pages it never
	// writes (each page of a segment is made when it is mapped).
	minSeg = 256 << 10
	maxSeg = 4 << 20
	// maxRecord bounds one record; a goroutine leaves a chunk with less
	// room left for a new one.
	maxRecord = 4 << 10
	// slack is the room kept past a record for the 8-byte stores of its
	// last numbers.
	slack    = 16
	gtabBits = 16
	// maxSites bounds ADI_TRACE_SITES (the reader's bound too).
	maxSites = 1 << 22
	ttabBits = 12
	maxChain = 64
)

// G is the recorder's state of one goroutine (of one runtime g: a g that
// is reused by a later goroutine gets a new goid on its next root entry).
// Its size is a multiple of the cache line's: the states of goroutines
// running on different threads, written at every hook, never share one.
type G struct {
	gp    uintptr
	goid  int64
	stack []uintptr // offsets of the open frames from the stack top
	// base is the goroutine's current chunk (nil if none), pos where its
	// next record goes, end its size.
	base     unsafe.Pointer
	pos, end int
	last     uint64 // the number of the last record in the chunk
	// lastPC is the last PC of a caller or of an exit written in the
	// chunk, lastOff the last frame offset: the next one is written as
	// the difference from it.
	lastPC, lastOff uintptr
	// owned is where in the chunk the next line starts that the
	// goroutine has not yet asked to own (see own).
	owned int
	// shared says that the goroutine writes its records to the chunk
	// that goroutines share (see borrow); sharedFrom is where its record
	// being written started there, sharedBytes what it has written
	// there.
	shared                  bool
	sharedFrom, sharedBytes int32
	_                       [cacheLine - 108%cacheLine]byte
}

// cacheLine is the size of amd64's cache lines.
const cacheLine = 64

// hdr is the header of the goroutine's chunk.
func (s *G) hdr() *chunkHdr { return (*chunkHdr)(s.base) }

// wp is a write position in a chunk: memory of the mapped file, never of
// the Go heap. Writers take and return it so that it stays in a register
// across the fields of a record (stores through it could alias a G's
// fields, which would otherwise be reloaded after each).
type wp struct{ p unsafe.Pointer }

// at is where the goroutine's next record goes.
func (s *G) at() wp { return wp{unsafe.Add(s.base, s.pos)} }

// done ends the record being written at p: its end and number go in the
// chunk's state, which is no longer busy (after the record's bytes: stores
// are seen in order on amd64).
func (s *G) done(p wp) {
	s.pos = s.off(p)
	s.hdr().state = idle(s.last, s.pos)
	if s.shared {
		s.giveBack()
	}
}

// off is the offset of p in the goroutine's chunk.
func (s *G) off(p wp) int { return int(uintptr(p.p) - uintptr(s.base)) }

// F is the token an entry hook returns to the exit hook of the same frame.
type F struct {
	g   *G
	off uintptr
}

var (
	enabled bool
	stopped atomic.Bool
	// seq numbers the records: it is in the file's control chunk (see
	// ctlSeq), where a reader can read it.
	seq    *atomic.Uint64
	maxStr = 64
	// types is the state of the chunk that type records go to (mu held).
	types G

	mu       sync.Mutex
	file     *os.File
	fileSize int64
	maxFile  int64 = 2 << 30
	// waitAt is the size of file from which a goroutine that needs a
	// chunk waits for the reader to hand one back rather than growing
	// the file (see waitReader); 0: it never waits.
	waitAt int64
	// readSeen is the reader's progress that waitReader saw last,
	// readSince when it saw it change, readStalled set once it has not
	// changed for readerStall (not waited for until it does).
	readSeen    uint64
	readSince   time.Time
	readStalled bool
	seg         []byte
	// ctl is the control chunk; chunkAt the chunks mapped, by number.
	ctl     unsafe.Pointer
	chunkAt []unsafe.Pointer
	gtab    [1 << gtabBits]atomic.Pointer[G]
	// byGoid finds the state of a goroutine by its id, once its first
	// entry has read it (see root).
	byGoid = map[int64]*G{}
	// siteSeen is by site whether a record gave its PC.
	siteSeen []atomic.Bool
	// userPkgs are the instrumented packages.
	userPkgs []string
	ttab     [1 << ttabBits]atomic.Pointer[tent]
	typeIDs  = map[uintptr]uint64{}
)

// tent is a type the runtime has named: the type of a *T, the kind of T.
type tent struct {
	typ  uintptr
	id   uint64
	kind reflect.Kind
	alen int // arrays: the length
	// named is set for a *testing.T, B or F; nameAt is then where its
	// name is in the value it points to.
	named  bool
	nameAt uintptr
}

func init() {
	fd, path := os.Getenv("ADI_TRACE_FD"), os.Getenv("ADI_TRACE_FILE")
	if fd == "" && path == "" {
		return
	}
	// Not for the processes the program starts (a test that runs its own
	// binary again would truncate the file).
	os.Unsetenv("ADI_TRACE_FD")
	os.Unsetenv("ADI_TRACE_FILE")
	if n, err := strconv.Atoi(os.Getenv("ADI_TRACE_MAXSTR")); err == nil && n > 0 {
		maxStr = n
	}
	if n, err := strconv.ParseInt(os.Getenv("ADI_TRACE_MAXFILE"), 10, 64); err == nil && n > 0 {
		maxFile = n
	}
	if n, err := strconv.ParseInt(os.Getenv("ADI_TRACE_WAITAT"), 10, 64); err == nil && n > 0 {
		waitAt = n
	}
	// Without them, every site's records give its PC, and every goroutine
	// its parent's traceback.
	if n, err := strconv.Atoi(os.Getenv("ADI_TRACE_SITES")); err == nil && n > 0 && n <= maxSites {
		siteSeen = make([]atomic.Bool, n)
	}
	userPkgs = strings.Fields(os.Getenv("ADI_TRACE_PKGS"))
	for _, v := range []string{"ADI_TRACE_MAXSTR", "ADI_TRACE_MAXFILE", "ADI_TRACE_WAITAT", "ADI_TRACE_SITES", "ADI_TRACE_PKGS"} {
		os.Unsetenv(v)
	}
	f, err := openFile(fd, path)
	if err != nil {
		os.Stderr.WriteString("adi: cannot record: " + err.Error() + "\n")
		return
	}
	file = f
	if err := startFile(); err != nil {
		os.Stderr.WriteString("adi: cannot record: " + err.Error() + "\n")
		return
	}
	calibrate()
	enabled = true
}

// startFile maps the file's first segment and takes its first chunk for
// the record counter.
func startFile() error {
	mu.Lock()
	defer mu.Unlock()
	ctl, chunkAt = nil, nil
	base := takeChunk(false)
	if base == nil {
		return errors.New("the record file has no room")
	}
	h := (*chunkHdr)(base)
	h.state = idle(0, hdrSize)
	h.flags = hdrUsed | hdrCtl | hdrDone
	seq = (*atomic.Uint64)(unsafe.Add(base, ctlSeq))
	ctl = base
	return nil
}

// openFile returns the file descriptor fd names, made close-on-exec, or
// else the file at path, created empty.
func openFile(fd, path string) (*os.File, error) {
	if fd == "" {
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	n, err := strconv.Atoi(fd)
	if err != nil || n < 0 {
		return nil, errors.New("ADI_TRACE_FD=" + fd + " is not a file descriptor")
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(n, &st); err != nil {
		return nil, errors.New("ADI_TRACE_FD=" + fd + ": " + err.Error())
	}
	syscall.CloseOnExec(n)
	return os.NewFile(uintptr(n), "adi-records"), nil
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
			s = &G{gp: gp, goid: -1, shared: true}
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
	if s.pos+maxRecord+slack <= s.end {
		return true
	}
	return s.newChunk()
}

// own asks for the cache line ownAhead bytes past the next record's to be
// fetched for writing, when the record starts a line. A chunk is mostly
// one the reader handed back, its lines still in the cache of the reader's
// core: each first store to one of them waits for the line to be taken
// from that core, and the locked add of a record's number waits for the
// stores before it (see begin).
func (s *G) own() {
	s.owned = s.pos&^(cacheLine-1) + cacheLine
	if canOwn {
		prefetchw(unsafe.Add(s.base, s.owned+ownAhead))
	}
}

// ownAhead is how far ahead of a record own fetches a line for writing:
// four lines, a few dozen records. The room kept past a record
// (maxRecord) keeps it in the chunk.
const ownAhead = 4 * cacheLine

// canOwn says whether the processor has PREFETCHW (see hasPrefetchW).
var canOwn = hasPrefetchW()

// hasPrefetchW reports whether the processor has PREFETCHW (CPUID
// 0x80000001, ECX bit 8).
func hasPrefetchW() bool {
	if max, _ := cpuid(0x80000000); max < 0x80000001 {
		return false
	}
	_, ecx := cpuid(0x80000001)
	return ecx&(1<<8) != 0
}

// newChunk gives the goroutine a new chunk of the file, or lends it the
// one goroutines share.
func (s *G) newChunk() bool {
	if stopped.Load() {
		return false
	}
	if s.shared {
		if s.sharedBytes < sharedLimit {
			return s.borrow()
		}
		s.shared = false
	}
	mu.Lock()
	defer mu.Unlock()
	return s.newChunkLocked(0, true)
}

// A goroutine writes its first records to a chunk that goroutines share,
// one record at a time, and takes a chunk of its own once it has written
// sharedLimit bytes there. Each goroutine running at once would otherwise
// hold a chunk, mostly empty, and the first write to its pages costs a
// fault each: a program that runs tens of thousands of goroutines at once
// would fill the file with few records.
//
// sharedMu is held from borrow to giveBack, while a goroutine writes one
// record (mu, when needed, is taken after it); sharedChunk's chunk fields
// are those of the chunk, and its goid the goroutine of its last record.
var (
	sharedMu    sync.Mutex
	sharedChunk G
)

// sharedLimit is how many bytes a goroutine writes to the chunk that
// goroutines share before it takes one of its own: a few dozen records,
// after its first record (with its creator and its parent's call, up to
// maxRecord).
const sharedLimit = maxRecord + 1<<10

// borrow lends the goroutine the chunk that goroutines share, with
// sharedMu held, for a record (see giveBack): the goroutine's chunk fields
// are the chunk's meanwhile. Its records there follow a record of its
// goroutine's id, unless the goroutine wrote the last one.
func (s *G) borrow() bool {
	sharedMu.Lock()
	c := &sharedChunk
	if c.pos+goidRecord+maxRecord+slack > c.end {
		mu.Lock()
		ok := c.newChunkLocked(0, true)
		mu.Unlock()
		if !ok {
			sharedMu.Unlock()
			return false
		}
	}
	s.base, s.pos, s.end, s.owned = c.base, c.pos, c.end, c.owned
	s.last, s.lastPC, s.lastOff = c.last, c.lastPC, c.lastOff
	if c.goid != s.goid && s.pos != hdrSize {
		// Before the chunk's state covers the record (see done), as a
		// record's bytes are.
		s.pos = s.off(s.at().byte1(recGoid<<1 | 1).varint(s.goid))
	}
	c.goid = s.goid
	s.sharedFrom = int32(s.pos)
	return true
}

// goidRecord bounds a record of a goroutine's id: its kind's byte and a
// varint.
const goidRecord = 1 + 10

// giveBack ends the goroutine's loan of the chunk that goroutines share,
// its record written (see borrow).
func (s *G) giveBack() {
	c := &sharedChunk
	c.pos, c.owned = s.pos, s.owned
	c.last, c.lastPC, c.lastOff = s.last, s.lastPC, s.lastOff
	s.sharedBytes += int32(s.pos) - s.sharedFrom
	// The next record borrows the chunk again (see room).
	s.base, s.pos, s.end = nil, 0, 0
	sharedMu.Unlock()
}

// newChunkLocked is newChunk with mu held; flags are set in the new
// chunk's header besides hdrUsed. With wait, it may wait for the reader
// (see takeChunk).
func (s *G) newChunkLocked(flags uint8, wait bool) bool {
	if s.base != nil {
		s.hdr().flags |= hdrDone
	}
	base := takeChunk(wait)
	if base == nil {
		s.base, s.pos, s.end = nil, 0, 0
		return false
	}
	s.base, s.pos, s.end, s.owned = base, hdrSize, chunkSize, 0
	s.last, s.lastPC, s.lastOff = 0, 0, 0
	h := s.hdr()
	h.state = idle(0, hdrSize)
	h.flags = hdrUsed | flags
	return true
}

// takeChunk returns a chunk handed back by the reader, else the next
// chunk of the file, mapping a new segment when needed, or nil when the
// file is full (mu held). With wait, it waits for the reader first, mu
// released meanwhile, once the file has grown to waitAt (see waitReader):
// only for the chunk of a goroutine between two records (one in the
// middle of a record would hold back the reader, which reads no record
// numbered after it).
func takeChunk(wait bool) unsafe.Pointer {
	var since time.Time // when it started waiting
	for {
		if base := reuseChunk(); base != nil {
			return base
		}
		if len(seg) >= chunkSize || !wait || !waitReader(&since) {
			break
		}
	}
	if len(seg) < chunkSize {
		n := nextSegment(fileSize, maxFile)
		if n == 0 {
			// The records numbered so far are all written: a record
			// lost from here on is numbered after them.
			var last uint64
			if seq != nil {
				last = seq.Load()
			}
			if !stopped.Swap(true) {
				writeStop(last)
			}
			return nil
		}
		m, err := mapSegment(file, fileSize, n)
		if err != nil {
			stopped.Store(true)
			os.Stderr.WriteString("adi: recording stopped: " + err.Error() + "\n")
			return nil
		}
		fileSize += int64(n)
		seg = m
	}
	base := unsafe.Pointer(unsafe.SliceData(seg))
	seg = seg[chunkSize:]
	chunkAt = append(chunkAt, base)
	return base
}

// waitReader waits a moment for the reader to hand a chunk back, once
// the file has grown to waitAt (mu held, released while it waits), and
// reports whether it waited; the file grows otherwise. since is when the
// goroutine started waiting for the chunk (set at the first wait).
//
// The reader reads the records as they are written, on another core, and
// hands back the chunks it has read. Goroutines on several cores write
// records faster than one core reads them: the chunks not read yet, file
// pages that are memory, would otherwise pile up to the file's limit,
// where recording stops, leaving out the end of the run (where a test
// fails). The target so runs at the reader's pace past waitAt.
//
// ADI_TRACE_WAITAT says that a reader will read the file so: one that has
// not looked at it yet is waited for too. It does not wait for a reader
// that hands no chunk back (the index is built after the run, or kept
// whole in the file), nor for one that has read nothing for readerStall
// (it is gone, or held up by a goroutine in the middle of a record) until
// it reads again (one held up reads on once that record is written; one
// gone never does). Nor does it wait past readerGrace for one that has
// read nearly every record: the chunks are then held by goroutines writing
// them (many at once), rather than about to come back; the file grows, by
// a segment before the next wait.
func waitReader(since *time.Time) bool {
	if waitAt == 0 || fileSize < waitAt || ctl == nil {
		return false
	}
	read := (*atomic.Uint64)(unsafe.Add(ctl, ctlRead)).Load()
	if read == readStopped || readStalled && read == readSeen {
		return false
	}
	now := time.Now()
	if since.IsZero() {
		*since = now
	}
	if read != readSeen || readSince.IsZero() {
		readSeen, readSince, readStalled = read, now, false
	} else if now.Sub(readSince) > readerStall {
		readStalled = true
		return false
	}
	if read != 0 && read+readerAhead > seq.Load() && now.Sub(*since) > readerGrace {
		waitAt = fileSize + 1
		return false
	}
	mu.Unlock()
	time.Sleep(readerPause)
	mu.Lock()
	(*atomic.Int64)(unsafe.Add(ctl, ctlWaited)).Add(int64(time.Since(now)))
	return true
}

// The reader has read nearly every record when it has read all but the
// last readerAhead (a few chunks of them); it hands back the chunks it
// read through at its next poll, within readerGrace. A goroutine that
// waits for it looks again after readerPause (a chunk's records take it a
// few hundred microseconds).
const (
	readerAhead = 1 << 14
	readerGrace = 20 * time.Millisecond
	readerPause = 200 * time.Microsecond
)

// readerStall is how long a reader that reads nothing is waited for.
var readerStall = 2 * time.Second

// reuseChunk returns the next chunk of the free list (see ctlFree), nil if
// there is none (mu held). Its header is made that of an unused chunk, its
// gen counted last: a reader that sees the new gen sees the rest.
func reuseChunk() unsafe.Pointer {
	if ctl == nil {
		return nil
	}
	head := (*atomic.Uint64)(unsafe.Add(ctl, ctlFreeHead))
	tail := (*atomic.Uint64)(unsafe.Add(ctl, ctlFreeTail))
	t := tail.Load()
	if t >= head.Load() {
		return nil
	}
	n := *(*uint32)(unsafe.Add(ctl, ctlFree+4*(t%ctlSlots)))
	tail.Store(t + 1)
	if n == 0 || int(n) >= len(chunkAt) {
		return nil // not a chunk the reader may hand back
	}
	base := chunkAt[n]
	h := (*chunkHdr)(base)
	if h.flags&(hdrDone|hdrCtl|hdrTypes) != hdrDone {
		return nil
	}
	h.enters, h.vals, h.flags = 0, 0, 0
	h.state = idle(0, hdrSize)
	(*atomic.Uint32)(unsafe.Pointer(&h.gen)).Add(1)
	return base
}

// nextSegment is the size of the segment that follows size bytes of file,
// 0 when the file has no room for a chunk more below limit.
//
// (No min or max: the runtime's module is compiled at go 1.20, see
// instrument.runtimeModule.)
func nextSegment(size, limit int64) int {
	n := size
	if n < minSeg {
		n = minSeg
	}
	if n > maxSeg {
		n = maxSeg
	}
	if n > limit-size {
		n = limit - size
	}
	return int(n - n%chunkSize)
}

// writeStop appends a stop record past the end of the file (mu held), in
// a chunk of its own: the kind and the number of the last record numbered
// before recording stopped.
func writeStop(last uint64) {
	var b [hdrSize + 24]byte
	p := wp{unsafe.Pointer(&b[hdrSize])}.uvarint(recStop).uvarint(last)
	n := uintptr(p.p) - uintptr(unsafe.Pointer(&b))
	h := (*chunkHdr)(unsafe.Pointer(&b))
	h.flags, h.state = hdrUsed|hdrScan|hdrDone, idle(0, int(n))
	file.WriteAt(b[:n], fileSize)
}

func (p wp) byte1(b byte) wp {
	*(*byte)(p.p) = b
	return wp{unsafe.Add(p.p, 1)}
}

// uvarint writes v as a prefix varint (see the package comment) with one
// unaligned 8-byte store: a record always has slack past its end.
func (p wp) uvarint(v uint64) wp {
	if v < 1<<56 {
		n := (bits.Len64(v|1) + 6) / 7
		*(*uint64)(p.p) = v<<n | 1<<(n-1)
		return wp{unsafe.Add(p.p, n)}
	}
	*(*byte)(p.p) = 0
	*(*uint64)(unsafe.Add(p.p, 1)) = v
	return wp{unsafe.Add(p.p, 9)}
}

func (p wp) varint(v int64) wp {
	return p.uvarint(zigzag(v))
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// sizeCode is, by bits.Len64 of a number, the size code of the grouped
// number that holds it.
var sizeCode = [65]byte{
	0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
}

// field writes v as a grouped number (with an 8-byte store) and returns
// its size code for the descriptor.
func (p wp) field(v uint64) (wp, byte) {
	c := sizeCode[bits.Len64(v)]
	*(*uint64)(p.p) = v
	return wp{unsafe.Add(p.p, 1<<c)}, c
}

// val writes a value without a number: its descriptor (tag | id's size
// code << 4) and its type id.
func (p wp) val(tag byte, id uint64) wp {
	q, c := wp{unsafe.Add(p.p, 1)}.field(id)
	*(*byte)(p.p) = tag | c<<4
	return q
}

// valN writes a value with a number x: its descriptor (tag | id's size
// code << 4 | x's << 6), its type id and x.
//
// Not inlined: inlined into the cases of value, it made the hooks of a
// recursive function with an int argument and result 40% slower
// (BenchmarkHooks).
//
//go:noinline
func (p wp) valN(tag byte, id, x uint64) wp {
	q, c := wp{unsafe.Add(p.p, 1)}.field(id)
	q, cx := q.field(x)
	*(*byte)(p.p) = tag | c<<4 | cx<<6
	return q
}

func (p wp) str(v string, max int) wp {
	p = p.uvarint(uint64(len(v)))
	if len(v) > max {
		v = v[:max]
	}
	p = p.uvarint(uint64(len(v)))
	copy(unsafe.Slice((*byte)(p.p), len(v)), v)
	return wp{unsafe.Add(p.p, len(v))}
}

// begin starts a record of kind k on goroutine s; it returns where the
// rest of the record goes, false when nothing is recorded.
func begin(s *G, k byte) (wp, bool) {
	if !s.room() {
		return wp{}, false
	}
	if s.pos >= s.owned {
		s.own()
	}
	// Busy before the record takes its number (a locked add: the flag is
	// seen first).
	s.hdr().state |= stateBusy
	p := s.at()
	if s.pos == hdrSize {
		p = p.byte1(recGoid<<1 | 1).varint(s.goid)
	}
	var n uint64
	if k == recExit {
		// An exit takes no number: it goes after the last record
		// numbered (see the record kinds). A plain load, where the locked
		// add waits for the stores before it and takes the counter's line
		// from the other cores: BenchmarkHooks 7% faster on one
		// goroutine, 13% with goroutines on two cores.
		if n = seq.Load(); n < s.last {
			n = s.last
		}
	} else {
		n = seq.Add(1)
	}
	p = p.uvarint((n-s.last)<<3 | uint64(k))
	s.last = n
	return p, true
}

// tracebacks holds the buffers root reads tracebacks into: a buffer made
// for each new goroutine would be fresh memory, whose first writes (page
// faults) and collection cost more than the traceback.
var tracebacks = sync.Pool{New: func() any {
	b := make([]byte, 8<<10)
	return &b
}}

// origin is what a goroutine's traceback says of it: its id, and the
// function, goroutine and line of the go statement that started it (none
// for the main goroutine and those the runtime starts).
type origin struct {
	goid, parent  int64
	creator, site string
}

// tracebackOrigin reads the current goroutine's origin from its traceback.
func tracebackOrigin() origin {
	b := tracebacks.Get().(*[]byte)
	var text string
	for {
		n := runtime.Stack(*b, false)
		if n < len(*b) {
			text = string((*b)[:n])
			break
		}
		*b = make([]byte, 2*len(*b))
	}
	tracebacks.Put(b)
	o := origin{goid: -1}
	if rest, ok := strings.CutPrefix(text, "goroutine "); ok {
		if i := strings.IndexByte(rest, ' '); i > 0 {
			o.goid, _ = strconv.ParseInt(rest[:i], 10, 64)
		}
	}
	if i := strings.LastIndex(text, "\ncreated by "); i >= 0 {
		lines := strings.SplitN(text[i+len("\ncreated by "):], "\n", 3)
		o.creator = lines[0]
		if j := strings.LastIndex(o.creator, " in goroutine "); j >= 0 {
			o.parent, _ = strconv.ParseInt(o.creator[j+len(" in goroutine "):], 10, 64)
			o.creator = o.creator[:j]
		}
		if len(lines) > 1 {
			o.site = strings.TrimSpace(lines[1])
			if j := strings.LastIndex(o.site, " +0x"); j >= 0 {
				o.site = o.site[:j]
			}
		}
	}
	return o
}

// The runtime's g keeps a goroutine's id at goidAt, its parent's at
// parentAt and the PC of the go statement that started it at gopcAt, as
// learnG found them; gKnown says it found them. The origins read from
// a g this way are checked against the tracebacks of the first goroutines
// (originChecks of them): a difference turns the reading off.
var (
	goidAt, parentAt, gopcAt uintptr
	gKnown                   atomic.Bool
	originChecks             atomic.Int32
)

// gOrigin reads the origin of the goroutine of g gp from its g, as its
// traceback would say it (see printcreatedby in the runtime's traceback).
func gOrigin(gp uintptr) origin {
	o := origin{goid: int64(peek(gp + goidAt))}
	gopc := peek(gp + gopcAt)
	if gopc == 0 || o.goid == 1 {
		return o
	}
	if c := creationAt(gopc); c.creator != "" {
		o.parent = int64(peek(gp + parentAt))
		o.creator, o.site = c.creator, c.site
	}
	return o
}

// A creation is the function and line of the go statement at pc, as a
// traceback shows them: the function the statement is in (the outermost,
// where calls were inlined), none for the runtime's own. creations caches
// them by pc: finding them takes more stack than a new goroutine has (it
// would be copied to a larger one), and goroutines are mostly started by
// a few go statements.
type creation struct {
	pc            uintptr
	creator, site string
}

var creations [1 << 10]atomic.Pointer[creation]

// creationAt returns the creation of the go statement at pc.
func creationAt(pc uintptr) *creation {
	slot := &creations[(uint64(pc)*0x9E3779B97F4A7C15)>>(64-10)]
	if c := slot.Load(); c != nil && c.pc == pc {
		return c
	}
	c := &creation{pc: pc}
	if at := runtime.FuncForPC(pc - 1); at != nil {
		name := runtime.FuncForPC(at.Entry()).Name()
		if strings.IndexByte(name, '.') >= 0 && (!strings.HasPrefix(name, "runtime.") ||
			len(name) > len("runtime.") && 'A' <= name[len("runtime.")] && name[len("runtime.")] <= 'Z') {
			file, line := at.FileLine(pc - 1)
			c.creator, c.site = name, file+":"+strconv.Itoa(line)
		}
	}
	slot.Store(c)
	return c
}

// learnG learns from the g of a goroutine (gp) whose origin o its
// traceback gave, started by another, where the runtime's g keeps a
// goroutine's id, its parent's and the PC of the go statement: at the
// words of its g that equal them, among those of the goroutines before.
// Once each is at one place only, in the g of two goroutines or more, the
// origins of the next goroutines are read there (gKnown); none, or still
// more than one after eight goroutines, and they are not.
func learnG(gp uintptr, o origin) {
	learning.Lock()
	defer learning.Unlock()
	l := &learning
	if l.done || o.parent <= 0 || o.creator == "" || o.goid == o.parent {
		return
	}
	var goid, parent, gopc []uintptr
	for off := uintptr(0); off < 512; off += 8 {
		v := peek(gp + off)
		if int64(v) == o.goid {
			goid = append(goid, off)
		}
		if int64(v) == o.parent {
			parent = append(parent, off)
		}
		// The function the go statement is in, as in creationAt (not
		// one inlined there; and at v, not v-1, which for a function's
		// entry, as the g's startpc is, is in the function before).
		if fn := runtime.FuncForPC(v); fn != nil && runtime.FuncForPC(fn.Entry()).Name() == o.creator {
			gopc = append(gopc, off)
		}
	}
	both := func(x, y []uintptr) []uintptr {
		if l.n == 0 {
			return y
		}
		var at []uintptr
		for _, off := range x {
			if slices.Contains(y, off) {
				at = append(at, off)
			}
		}
		return at
	}
	l.goid, l.parent, l.gopc = both(l.goid, goid), both(l.parent, parent), both(l.gopc, gopc)
	l.n++
	switch {
	case len(l.goid) == 0 || len(l.parent) == 0 || len(l.gopc) == 0 || l.n >= 8:
		l.done = true
	case l.n >= 2 && len(l.goid) == 1 && len(l.parent) == 1 && len(l.gopc) == 1 && l.goid[0] != l.parent[0]:
		l.done = true
		goidAt, parentAt, gopcAt = l.goid[0], l.parent[0], l.gopc[0]
		originChecks.Store(16)
		gKnown.Store(true)
	}
}

// learning is what learnG has learnt so far: the candidate places, from
// the g of n goroutines.
var learning struct {
	sync.Mutex
	n                  int
	done               bool
	goid, parent, gopc []uintptr
}

// root is called at an entry with no open frame: the goroutine may be a new
// one (on a new or reused g). It reads the goroutine's id and creator, from
// its g or its traceback, and records them.
func (s *G) root() {
	var o origin
	if gKnown.Load() {
		if o = gOrigin(s.gp); o.goid == s.goid {
			return
		}
		if originChecks.Add(-1) >= 0 {
			if t := tracebackOrigin(); t != o {
				gKnown.Store(false)
				o = t
			}
		}
	} else {
		if o = tracebackOrigin(); o.goid == s.goid {
			return
		}
		learnG(s.gp, o)
	}
	mu.Lock()
	if byGoid[s.goid] == s {
		delete(byGoid, s.goid)
	}
	byGoid[o.goid] = s
	mu.Unlock()
	s.goid = o.goid
	var parentStack string
	if o.parent > 0 && !isUserFunc(o.creator) {
		var ok bool
		if parentStack, ok = parentCall(o.parent); !ok {
			parentStack = stackOf(o.parent)
		}
	}
	p, ok := begin(s, recGInfo)
	if !ok {
		return
	}
	s.hdr().flags |= hdrScan
	p = p.varint(s.goid)
	p = p.varint(o.parent)
	p = p.str(o.creator, 1024)
	p = p.str(o.site, 1024)
	s.done(p.str(parentStack, maxRecord-2100))
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

// parentCall returns, as a traceback shows it, where the innermost open
// frame of the instrumented packages of goroutine goid called into the
// library code that started a goroutine (a test's t.Run), and true; or ""
// and true when the goroutine has no such frame (the top-level tests,
// which testing starts); or false when it cannot tell (the caller then
// takes the goroutine's traceback, which stops the world).
//
// The frame's callee saved the frame's frame pointer, with the return
// address into the frame above it: it is found by reading the goroutine's
// stack down from that frame pointer (the stack of a goroutine that t.Run
// waits in does not change meanwhile). The goroutine's thread may change
// its state meanwhile: reads of it, which the race detector does not see,
// are checked (a stale frame is not found, or found with another call).
//
//go:norace
func parentCall(goid int64) (string, bool) {
	mu.Lock()
	p := byGoid[goid]
	mu.Unlock()
	if p == nil {
		return "", true // it never entered an instrumented function
	}
	st := p.stack
	if len(st) == 0 {
		return "", true
	}
	lo, hi := stackLo(p.gp), stackHi(p.gp)
	bp := hi - st[len(st)-1]
	if bp <= lo+8 || bp >= hi || bp%8 != 0 {
		return "", false
	}
	for a := bp - 8; a >= lo && bp-a <= maxParentScan; a -= 8 {
		if peek(a) != bp {
			continue
		}
		pc := peek(a + 8)
		frames := runtime.CallersFrames([]uintptr{pc})
		var b strings.Builder
		b.WriteString("goroutine " + strconv.FormatInt(goid, 10) + " [adi]:\n")
		for {
			f, more := frames.Next()
			if f.Function == "" {
				return "", false
			}
			b.WriteString(f.Function + "(...)\n\t" + f.File + ":" + strconv.Itoa(f.Line) + "\n")
			if !more {
				// The outermost of the frames at pc is the frame's.
				return b.String(), isUserFunc(f.Function)
			}
		}
	}
	return "", false
}

// maxParentScan bounds the bytes of a goroutine's stack that parentCall
// reads: the locals of the frame it looks below.
const maxParentScan = 64 << 10

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

// enter records the entry of a frame, with n values; gp..coff are from
// frames(). The caller writes the values and ends the record with s.done.
func enter(site uint64, n int, gp, pcF, pcCaller, off, coff uintptr) (F, *G, wp) {
	if !enabled || stopped.Load() {
		return F{}, nil, wp{}
	}
	s := lookup(gp)
	if s == nil {
		return F{}, nil, wp{}
	}
	if len(s.stack) == 0 {
		s.root()
	}
	// Whether the site's PC goes in the record is decided before the
	// record takes its number: a record of a site without it then comes
	// after one with it, also on another goroutine.
	newSite := site >= uint64(len(siteSeen)) || !siteSeen[site].Load()
	p, ok := begin(s, recEnter)
	if !ok {
		return F{}, nil, wp{}
	}
	s.hdr().enters++
	// Frames deeper than this one are gone (left without their exit hook).
	stack := s.stack
	for len(stack) > 0 && stack[len(stack)-1] >= off {
		stack = stack[:len(stack)-1]
	}
	// The descriptor and the grouped numbers: site<<1 | whether a PC in
	// the function follows (once per site: the site says the rest), the
	// frame's offset (from the chunk's last), the caller's PC (from the
	// chunk's last PC) and the caller's offset (from the frame's).
	sf := site << 1
	if newSite {
		sf |= 1
	}
	d := p
	p = wp{unsafe.Add(p.p, 1)}
	p, c0 := p.field(sf)
	p, c1 := p.field(zigzag(int64(off - s.lastOff)))
	s.lastOff = off
	p, c2 := p.field(zigzag(int64(pcCaller - s.lastPC)))
	s.lastPC = pcCaller
	p, c3 := p.field(zigzag(int64(off - coff)))
	*(*byte)(d.p) = c0 | c1<<2 | c2<<4 | c3<<6
	if newSite {
		p = p.uvarint(uint64(pcF))
		s.hdr().flags |= hdrScan
		if site < uint64(len(siteSeen)) {
			siteSeen[site].Store(true)
		}
	}
	// The count of values << 1 | whether a chain follows.
	if k := len(stack); k > 0 && stack[k-1] != coff {
		p = chain(p.uvarint(uint64(n)<<1|1), gp, off, stack[k-1])
	} else {
		p = p.uvarint(uint64(n) << 1)
	}
	s.stack = append(stack, off)
	return F{g: s, off: off}, s, p
}

// chain writes the return addresses from the frame at off up to the
// innermost open frame, at top: library code (or the runtime) stands
// between them.
func chain(p wp, gp, off, top uintptr) wp {
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
	p = p.uvarint(uint64(k))
	for i := 0; i < k; i++ {
		p = p.uvarint(uint64(pcs[i]))
		p = p.uvarint(uint64(offs[i]))
	}
	return p
}

// leave records the exit of frame f, with n values; pc is from
// exitFrames(). The caller writes the values and ends the record with
// s.done.
func leave(f F, n int, pc uintptr) (wp, bool) {
	s := f.g
	p, ok := begin(s, recExit)
	if !ok {
		return wp{}, false
	}
	stack := s.stack
	for len(stack) > 0 && stack[len(stack)-1] >= f.off {
		stack = stack[:len(stack)-1]
	}
	s.stack = stack
	// The descriptor and the grouped numbers: the frame's offset (from
	// the chunk's last), the PC (from the chunk's last PC). The
	// descriptor's high bits count the values, up to 14; 15 says that
	// their count follows.
	d := p
	p = wp{unsafe.Add(p.p, 1)}
	p, c0 := p.field(zigzag(int64(f.off - s.lastOff)))
	s.lastOff = f.off
	p, c1 := p.field(zigzag(int64(pc - s.lastPC)))
	s.lastPC = pc
	if n < exitCounts {
		*(*byte)(d.p) = c0 | c1<<2 | byte(n)<<4
	} else {
		*(*byte)(d.p) = c0 | c1<<2 | exitCounts<<4
		p = p.uvarint(uint64(n))
	}
	return p, true
}

// exitCounts is the count of an exit's values that its descriptor says
// its count follows (see leave).
const exitCounts = 15

// value records one argument or result, given by its address: a value
// descriptor (see val and valN), the type id and the value's number, if
// it has one; then a string's bytes, a float's text, or a length's
// capacity.
func (s *G) value(p wp, a any) wp {
	s.hdr().vals++
	if s.off(p)+maxStr+1024+slack > s.end {
		// No room left in the record: an unknown type, no value.
		return p.val(tagOther, 1<<32)
	}
	// p is only read through unsafe: calling reflect on it would make
	// every argument escape to the heap.
	e := (*eface)(unsafe.Pointer(&a))
	t := ttab[(uint64(uintptr(e.typ))*0x9E3779B97F4A7C15)>>(64-ttabBits)].Load()
	if t == nil || t.typ != uintptr(e.typ) {
		t = typeInfo(uintptr(e.typ))
	}
	id, ptr := t.id, e.data
	switch t.kind {
	case reflect.Int:
		return p.valN(tagInt, id, zigzag(int64(*(*int)(ptr))))
	case reflect.Int8:
		return p.valN(tagInt, id, zigzag(int64(*(*int8)(ptr))))
	case reflect.Int16:
		return p.valN(tagInt, id, zigzag(int64(*(*int16)(ptr))))
	case reflect.Int32:
		return p.valN(tagInt, id, zigzag(int64(*(*int32)(ptr))))
	case reflect.Int64:
		return p.valN(tagInt, id, zigzag(*(*int64)(ptr)))
	case reflect.Uint, reflect.Uintptr:
		return p.valN(tagUint, id, uint64(*(*uint)(ptr)))
	case reflect.Uint8:
		return p.valN(tagUint, id, uint64(*(*uint8)(ptr)))
	case reflect.Uint16:
		return p.valN(tagUint, id, uint64(*(*uint16)(ptr)))
	case reflect.Uint32:
		return p.valN(tagUint, id, uint64(*(*uint32)(ptr)))
	case reflect.Uint64:
		return p.valN(tagUint, id, *(*uint64)(ptr))
	case reflect.Float32:
		return p.val(tagFloat, id).float(float64(*(*float32)(ptr)), 32)
	case reflect.Float64:
		return p.val(tagFloat, id).float(*(*float64)(ptr), 64)
	case reflect.Complex64:
		c := *(*complex64)(ptr)
		return p.val(tagComplex, id).float(float64(real(c)), 32).float(float64(imag(c)), 32)
	case reflect.Complex128:
		c := *(*complex128)(ptr)
		return p.val(tagComplex, id).float(real(c), 64).float(imag(c), 64)
	case reflect.Bool:
		if *(*bool)(ptr) {
			return p.val(tagTrue, id)
		}
		return p.val(tagFalse, id)
	case reflect.String:
		// The number is the length; then the bytes up to the bound, with
		// their count.
		v := *(*string)(ptr)
		return p.valN(tagString, id, uint64(len(v))).bytes(v)
	case reflect.Pointer, reflect.UnsafePointer, reflect.Func, reflect.Interface:
		x := *(*unsafe.Pointer)(ptr)
		if x == nil {
			return p.val(tagNil, id)
		}
		if t.named {
			// A test's *testing.T (B, F): its name, which is set before
			// the test starts and never changes, says which subtest a
			// frame runs. It is written as a string is, with the same
			// bound, as Delve reads it.
			v := *(*string)(unsafe.Add(x, t.nameAt))
			return p.valN(tagNamed, id, uint64(len(v))).bytes(v)
		}
		return p.val(tagNonNil, id)
	case reflect.Map, reflect.Chan:
		m := *(*unsafe.Pointer)(ptr)
		if m == nil {
			return p.val(tagNil, id)
		}
		// The count is the first word of a map's and a channel's header;
		// a channel's capacity is the second.
		p = p.valN(tagLen, id, uint64(*(*int)(m)))
		if t.kind == reflect.Chan {
			return p.uvarint(uint64(*(*int)(unsafe.Add(m, 8))))
		}
		return p.uvarint(0)
	case reflect.Slice:
		h := (*sliceHeader)(ptr)
		if h.data == nil {
			return p.val(tagNil, id)
		}
		return p.valN(tagLen, id, uint64(h.len)).uvarint(uint64(h.cap))
	case reflect.Array:
		return p.valN(tagLen, id, uint64(t.alen)).uvarint(0)
	}
	return p.val(tagOther, id)
}

// bytes writes the bytes of a string value, up to the bound, after their
// count.
func (p wp) bytes(v string) wp {
	if len(v) > maxStr {
		v = v[:maxStr]
	}
	p = p.uvarint(uint64(len(v)))
	copy(unsafe.Slice((*byte)(p.p), len(v)), v)
	return wp{unsafe.Add(p.p, len(v))}
}

// float writes the text of a float as Go's %g with the precision of its
// size would, as 'g' -1.
func (p wp) float(v float64, bits int) wp {
	return p.str(strconv.FormatFloat(v, 'g', -1, bits), 64)
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
func typeInfo(typ uintptr) *tent {
	h := (uint64(typ) * 0x9E3779B97F4A7C15) >> (64 - ttabBits)
	if t := ttab[h].Load(); t != nil && t.typ == typ {
		return t
	}
	var x any
	(*eface)(unsafe.Pointer(&x)).typ = ptrOf(typ)
	rt := reflect.TypeOf(x).Elem()
	mu.Lock()
	id, ok := typeIDs[typ]
	if !ok {
		id = uint64(len(typeIDs) + 1)
		typeIDs[typ] = id
		writeType(id, typeName(rt), rt.Kind().String())
	}
	mu.Unlock()
	t := &tent{typ: typ, id: id, kind: rt.Kind()}
	if t.kind == reflect.Array {
		t.alen = rt.Len()
	}
	t.nameAt, t.named = testNameAt(rt)
	// Published after its record is complete: a record with a value of
	// the type is complete after it.
	ttab[h].Store(t)
	return t
}

// testNameAt returns, for the type *testing.T, *testing.B or *testing.F,
// the offset of the test's name (the string field name, of the embedded
// testing.common) in the value it points to; false for other types, or
// when the testing package has no such field.
func testNameAt(t reflect.Type) (uintptr, bool) {
	if t.Kind() != reflect.Pointer {
		return 0, false
	}
	e := t.Elem()
	if e.PkgPath() != "testing" || e.Kind() != reflect.Struct || (e.Name() != "T" && e.Name() != "B" && e.Name() != "F") {
		return 0, false
	}
	f, ok := e.FieldByName("name")
	if !ok || f.Type.Kind() != reflect.String {
		return 0, false
	}
	var off uintptr
	for i := range f.Index {
		off += e.FieldByIndex(f.Index[:i+1]).Offset
	}
	return off, true
}

// writeType appends a type record (no number: the kind recType, the
// type's id, name and kind's name) to the chunks of types (mu held).
func writeType(id uint64, name, kind string) {
	s := &types
	if s.base == nil || s.pos+maxRecord+slack > s.end {
		if stopped.Load() || !s.newChunkLocked(hdrTypes, false) {
			return
		}
	}
	p := s.at().uvarint(recType)
	p = p.uvarint(id)
	p = p.str(name, 512)
	p = p.str(kind, 32)
	s.pos = s.off(p)
	s.hdr().state = idle(0, s.pos)
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
	case reflect.Func:
		return "func" + signature(t)
	case reflect.Struct:
		if t.NumField() == 0 {
			return "struct {}"
		}
		var b strings.Builder
		b.WriteString("struct { ")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if i > 0 {
				b.WriteString("; ")
			}
			if !f.Anonymous {
				b.WriteString(f.Name + " ")
			}
			b.WriteString(typeName(f.Type))
			if f.Tag != "" {
				b.WriteString(" " + strconv.Quote(string(f.Tag)))
			}
		}
		b.WriteString(" }")
		return b.String()
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "interface {}"
		}
		var b strings.Builder
		b.WriteString("interface { ")
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(m.Name + signature(m.Type))
		}
		b.WriteString(" }")
		return b.String()
	}
	return t.String()
}

// signature spells the parameters and results of a function type as
// typeName does its types.
func signature(t reflect.Type) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := 0; i < t.NumIn(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if t.IsVariadic() && i == t.NumIn()-1 {
			b.WriteString("..." + typeName(t.In(i).Elem()))
		} else {
			b.WriteString(typeName(t.In(i)))
		}
	}
	b.WriteByte(')')
	switch t.NumOut() {
	case 0:
	case 1:
		b.WriteString(" " + typeName(t.Out(0)))
	default:
		b.WriteString(" (")
		for i := 0; i < t.NumOut(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(typeName(t.Out(i)))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// rec records a recovered panic value.
func rec(gp uintptr, v any) {
	if !enabled || v == nil {
		return
	}
	if s := lookup(gp); s != nil {
		s.panicValue(v, false)
	}
}

// panicValue writes a recover record of v, a panic's value: recovered, or
// still unwinding the goroutine's frames (see unwinding).
func (s *G) panicValue(v any, unwinding bool) {
	p, ok := begin(s, recRecover)
	if !ok {
		return
	}
	s.hdr().flags |= hdrScan
	flag := byte(0)
	if unwinding {
		flag = 1
	}
	s.done(p.str(panicText(v), 1024).byte1(flag))
}

// panicText is the text of a panic's value, made without calling user code:
// a string, the message of the runtime's own errors, else the value's
// type.
func panicText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case runtime.Error:
		t := reflect.TypeOf(v)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.PkgPath() == "runtime" {
			return x.Error() // the runtime's own errors: no user code
		}
	}
	return typeName(reflect.TypeOf(v))
}

// Where the runtime keeps the panic in flight, found by calibrate: the
// return address in runtime.gopanic of its calls of deferred functions
// (an exit hook called there runs as a panic unwinds its frame), and the
// offsets of the current panic in the runtime's g and of its value in it.
var panicRet, panicAt, panicArg uintptr

// calibration is the value calibrate panics with.
var calibration byte

// calibrate panics and recovers once, and finds, while the panic unwinds,
// where the runtime keeps it: a word of the goroutine's g that points into
// its stack (where gopanic keeps its _panic), at a value equal to the one
// it panicked with. It leaves panicRet zero if there is none (another
// runtime): panics recovered by library code then have no value.
func calibrate() {
	defer func() { recover() }()
	defer calibrateAt(&calibration)
	panic(&calibration)
}

// calibrateAt runs as calibrate's panic unwinds it, called by a deferwrap
// as the exit hooks are.
//
//go:noinline
func calibrateAt(v *byte) {
	gp, pc := exitFrames()
	var want any = v
	e := (*eface)(unsafe.Pointer(&want))
	lo, hi := stackLo(gp), stackHi(gp)
	for off := uintptr(16); off < 256; off += 8 {
		p := peek(gp + off)
		if p < lo || p >= hi || p%8 != 0 {
			continue
		}
		for arg := uintptr(0); arg <= 16; arg += 8 {
			if p+arg+16 <= hi && peek(p+arg) == uintptr(e.typ) && peek(p+arg+8) == uintptr(e.data) {
				panicRet, panicAt, panicArg = pc, off, arg
				return
			}
		}
	}
}

// unwinding records the value of the panic unwinding the frame whose exit
// hook, called at pc, has just recorded its exit.
func (s *G) unwinding(gp, pc uintptr) {
	if pc != panicRet || panicRet == 0 {
		return
	}
	p := peek(gp + panicAt)
	if p == 0 {
		return
	}
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = ptrOf(peek(p+panicArg)), ptrOf(peek(p+panicArg+8))
	if v != nil {
		s.panicValue(v, true)
	}
}
