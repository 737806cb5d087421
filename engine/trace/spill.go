package trace

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Spill places the recording's frame rows, callee lists, value rows and
// value text in a file at path, mapped into memory, instead of the Go heap:
// the kernel pages them in and out, so an index larger than memory still
// works. The file is removed at once (the mapping keeps it until the
// recording is collected). It is sized for frames frames, values values and
// text bytes of value text, with room for values added later (the debugger
// filling in shallow ones); more than that goes to the heap. Call it before
// the first frame is added.
func (r *Recording) Spill(path string, frames, values, text int) error {
	return r.mapIndex(path, frames, values, text)
}

// OffHeap places the recording's frame rows, callee lists, frames by
// function, value rows and value text in anonymous memory outside the Go
// heap, sized as Spill does at first: all but the text grow past that, in
// address space set aside for reserveFrames frames, then by remapping
// their mappings larger; more text goes to the heap. A recorder that adds
// frames by the million calls it first: tens of megabytes allocated on the
// heap would be zeroed by the runtime after the kernel, and make the
// garbage collector mark the index again and again as it is filled. A
// helper thread faults the pages in ahead of the rows added, when a core
// is idle (see mapping.ahead), until Index.
func (r *Recording) OffHeap(frames, values, text int) error {
	return r.mapIndex("", frames, values, text)
}

// mapping is the memory of a mapped index (see Spill and OffHeap),
// unmapped when the recording is collected: frame rows, value rows,
// callee lists, the frames by function and text. They are mappings of
// their own when anonymous (all but the text grow); a file's are parts of
// one mapping, all.
type mapping struct {
	rows, vals, kids, byFn, text []byte
	all                          []byte

	// The helper that faults pages in ahead of the recorder (see ahead):
	// added is the number of rows added (updated every aheadEvery rows),
	// need the number at which the helper, waiting, has pages to make
	// (see more), stop tells it to end (and closing wake ends its wait
	// for rows), and helped is closed when it has.
	added  atomic.Int64
	need   atomic.Int64
	more   chan struct{}
	stop   atomic.Bool
	wake   chan struct{}
	helped chan struct{}
	// madeRows and madeKids are how far the helper (or Prepare) made
	// the rows, and the callee lists and lists by function, present
	// (bytes; read once it has ended), madeVals how far the value rows
	// were, once valsMade is closed.
	madeRows, madeKids, madeVals int
	valsMade                     chan struct{}
}

// stopAhead stops the helper and waits for it to end: the mappings it
// works on may then move or go.
func (m *mapping) stopAhead() {
	if m.helped != nil {
		if m.stop.CompareAndSwap(false, true) {
			close(m.wake)
		}
		<-m.helped
	}
}

// ahead faults in the pages of the rows, callee lists and lists by
// function of an index off the heap, ahead of the rows the recorder has
// added (see aheadOf), on a thread of its own scheduled only when a core is
// idle (SCHED_IDLE). The recorder writes a row every few hundred
// nanoseconds, and a fresh page costs microseconds on some virtual
// machines: while the target runs it has both cores, and the helper waits;
// once it ends, the recorder finds the pages of the rows still to add
// made. It ends when told to (stopAhead).
func (m *mapping) ahead(rows, kids, byFn []byte) {
	defer close(m.helped)
	// Never unlocked: the thread, made idle, ends with the goroutine.
	runtime.LockOSThread()
	if !idleThread() {
		return
	}
	const step = hugePage
	size := int(unsafe.Sizeof(row{}))
	r, k := m.madeRows, m.madeKids // bytes made present (see Prepare)
	defer func() { m.madeRows, m.madeKids = r, k }()
	for !m.stop.Load() {
		want := aheadOf(int(m.added.Load()))
		switch {
		case r < min(len(rows), want*size)&^(pageSize-1):
			// Whole pages (prefault leaves a part of one out).
			end := min(r+step, len(rows), want*size) &^ (pageSize - 1)
			prefault(rows[r:end])
			r = end
		case k < min(len(kids), len(byFn), want*4)&^(pageSize-1):
			end := min(k+step, len(kids), len(byFn), want*4) &^ (pageSize - 1)
			prefault(kids[k:end])
			prefault(byFn[k:end])
			k = end
		default:
			// Woken when the window has grown by as much as was made
			// (up to a step), or reaches the end of a mapping: each
			// wake takes the recorder's core for a moment (the thread
			// is locked).
			need := min(wantFor(r, len(rows), size), wantFor(k, min(len(kids), len(byFn)), 4))
			m.need.Store(int64(need))
			// The recorder stores added before it loads need: one of
			// the two sees the other's.
			if aheadOf(int(m.added.Load())) >= need {
				continue
			}
			select {
			case <-m.more:
			case <-m.wake:
			}
		}
	}
}

// wantFor is the window (see aheadOf) at which the helper wakes to make
// more pages of a mapping of n bytes, made present up to made, size bytes
// a row: once it has grown by as much as was made, up to a huge page, or
// reaches the mapping's last page (never when made: math.MaxInt).
func wantFor(made, n, size int) int {
	end := min(made+min(max(made, pageSize), hugePage), n&^(pageSize-1))
	if end <= made {
		return math.MaxInt
	}
	return (end + size - 1) / size
}

// grew tells the helper that the recorder has added rows, rows in all
// (called every aheadEvery rows).
func (m *mapping) grew(rows int) {
	m.added.Store(int64(rows))
	if aheadOf(rows) >= int(m.need.Load()) {
		select {
		case m.more <- struct{}{}:
		default:
		}
	}
}

// settle stops the helper once the index is whole (n frames, their
// callee lists and lists by function of kids and byFn Seqs, v value rows),
// and gives the kernel back the pages it made present past them: its
// window runs ahead of the rows added, by up to aheadRows rows' worth of
// pages never written.
func (m *mapping) settle(n, kids, byFn, v int) {
	m.stopAhead()
	if m.all != nil {
		return
	}
	<-m.valsMade
	release(madeOf(m.rows, m.madeRows), n*int(unsafe.Sizeof(row{})))
	release(madeOf(m.kids, m.madeKids), 4*kids)
	release(madeOf(m.byFn, m.madeKids), 4*byFn)
	release(madeOf(m.vals, m.madeVals), v*int(unsafe.Sizeof(vrow{})))
}

// madeOf is the part of mapping b that faulting in its first made bytes
// made present: up to the end of the huge page they end in.
func madeOf(b []byte, made int) []byte {
	return b[:min(len(b), (made+hugePage-1)&^(hugePage-1))]
}

// hugePage is the size of amd64's huge pages (see hugePages).
const hugePage = 2 << 20

// aheadOf is the number of rows whose pages the helper makes present when
// the recorder has added added: as many more as were added, from
// aheadEvery (the recorder says how many it has every aheadEvery rows) up
// to aheadRows (6 MB of rows). A short run does not pay for pages it never
// writes.
func aheadOf(added int) int { return added + min(max(added, aheadEvery), aheadRows) }

const (
	aheadRows  = 1 << 17
	aheadEvery = 1 << 12
)

func (m *mapping) unmap() {
	m.stopAhead()
	if m.all != nil {
		unmap(m.all)
		return
	}
	for _, b := range [][]byte{m.rows, m.vals, m.kids, m.byFn, m.text} {
		if b != nil {
			unmap(b)
		}
	}
}

// mapIndex maps the index in a file at path, or in anonymous memory if
// path is "".
func (r *Recording) mapIndex(path string, frames, values, text int) error {
	if len(r.rows) > 0 || r.mem != nil {
		return fmt.Errorf("mapping the index of a recording that already has frames")
	}
	// Room past the counts: a run killed mid-record can count one
	// frame short, and a row past the mapping would move every row to
	// the heap.
	frames += 64
	values += values/8 + 4096
	text += text/8 + 64<<10
	rowBytes := frames * int(unsafe.Sizeof(row{}))
	valBytes := values * int(unsafe.Sizeof(vrow{}))
	kidBytes := frames * 4
	m := &mapping{}
	var err error
	if path != "" {
		if m.all, err = mapFile(path, rowBytes+valBytes+2*kidBytes+text); err == nil {
			rest := m.all
			for _, c := range []struct {
				m    *[]byte
				size int
			}{{&m.rows, rowBytes}, {&m.vals, valBytes}, {&m.kids, kidBytes}, {&m.byFn, kidBytes}} {
				*c.m, rest = rest[:c.size:c.size], rest[c.size:]
			}
			m.text = rest
		}
	} else {
		// The memory made ready for an index, if any (see Prepare), is
		// taken when large enough.
		m = takeReady()
		if m != nil && (len(m.rows) < rowBytes || len(m.vals) < valBytes || len(m.kids) < kidBytes) {
			m.unmap()
			m = nil
		}
		if m == nil {
			m, err = newMappings(rowBytes, valBytes, kidBytes)
		}
		if err == nil {
			if m.text, err = mapAnon(text); err != nil {
				m.unmap()
			}
		}
		if err != nil {
			return fmt.Errorf("mapping memory for the index: %w", err)
		}
	}
	if err != nil {
		return fmt.Errorf("spilling the index to %s: %w", path, err)
	}
	// Rows and value rows are 8-byte aligned, callee lists 4-byte (the
	// mappings are page aligned, the sizes multiples of 8).
	r.rows = unsafe.Slice((*row)(unsafe.Pointer(&m.rows[0])), len(m.rows)/int(unsafe.Sizeof(row{})))[:0]
	r.vals = unsafe.Slice((*vrow)(unsafe.Pointer(&m.vals[0])), len(m.vals)/int(unsafe.Sizeof(vrow{})))[:0]
	for off := 0; off < len(m.text); off += textBlock {
		end := min(off+textBlock, len(m.text))
		r.spare = append(r.spare, m.text[off:off:end])
	}
	r.mem = m
	if path == "" {
		m.helped, m.wake, m.more = make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
		go m.ahead(m.rows, m.kids, m.byFn)
		// Value rows are written as the rows, when the values are
		// not left in the record file: the pages of those asked for
		// are faulted in.
		m.madeVals, m.valsMade = max(m.madeVals, valBytes), make(chan struct{})
		go func(vals []byte) {
			prefault(vals)
			runtime.KeepAlive(r) // the mappings stay
			close(m.valsMade)
		}(m.vals[:valBytes])
	}
	runtime.AddCleanup(r, (*mapping).unmap, m)
	return nil
}

// newMappings maps the growing mappings of an index off the heap, for at
// least rowBytes of rows, valBytes of value rows and kidBytes of callee
// lists and of lists by function. They take the address space of
// reserveFrames frames at once: growing one by moving it (remap) makes
// each of its pages cost a fault again when it is next written, as much as
// a fresh page.
func newMappings(rowBytes, valBytes, kidBytes int) (*mapping, error) {
	m := &mapping{}
	for _, c := range []struct {
		m    *[]byte
		size int
	}{
		{&m.rows, max(rowBytes, reserveFrames*int(unsafe.Sizeof(row{})))},
		{&m.vals, max(valBytes, reserveFrames*int(unsafe.Sizeof(vrow{})))},
		{&m.kids, max(kidBytes, reserveFrames*4)},
		{&m.byFn, max(kidBytes, reserveFrames*4)},
	} {
		var err error
		if *c.m, err = mapAnon(c.size); err != nil {
			m.unmap()
			return nil, err
		}
	}
	return m, nil
}

// reserveFrames is the number of frames whose rows, value rows (one a
// frame), callee lists and lists by function an index off the heap takes
// the address space of at once, 640 MB of it: only the pages written
// take memory.
const reserveFrames = 1 << 23

// growRows makes room for a frame row more in an index off the heap, by
// remapping the rows twice as large (without that, or if that fails,
// append moves the rows to the heap). No prefault: the recorder writes
// them as they come.
func (r *Recording) growRows() {
	if m := r.mem; m != nil && m.all == nil {
		m.stopAhead()
		if b, err := remap(m.rows, 2*len(m.rows)); err == nil {
			m.rows = b
			r.rows = unsafe.Slice((*row)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(row{})))[:len(r.rows)]
		}
	}
}

// seqs returns n Seqs for the callee lists, or with byFn for the frames
// by function (see Index), reusing old: in the index's mapping when it is
// off the heap (remapped larger when needed), else on the heap.
func (r *Recording) seqs(old []int32, n int, byFn bool) []int32 {
	m := r.mem
	if m == nil {
		if cap(old) >= n {
			return old[:n]
		}
		return make([]int32, n)
	}
	b := &m.kids
	if byFn {
		b = &m.byFn
	}
	if len(*b) < 4*n && m.all == nil {
		m.stopAhead()
		if g, err := remap(*b, 4*n); err == nil {
			*b = g
		}
	}
	if n == 0 || len(*b) < 4*n {
		return make([]int32, n)
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&(*b)[0])), n)
}

// growVals is growRows for the value rows.
func (r *Recording) growVals() {
	if m := r.mem; m != nil && m.all == nil {
		if b, err := remap(m.vals, 2*len(m.vals)); err == nil {
			m.vals = b
			r.vals = unsafe.Slice((*vrow)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(vrow{})))[:len(r.vals)]
		}
	}
}

// pageSize is the size of the pages of a mapping: the least memory a
// mapping touched takes.
const pageSize = 4096

// Spilled reports whether the index is in a mapped file (see Spill).
func (r *Recording) Spilled() bool { return r.mem != nil && r.mem.all != nil }

// IsOffHeap reports whether the index is outside the Go heap (see Spill
// and OffHeap).
func (r *Recording) IsOffHeap() bool { return r.mem != nil }

// mapFile maps a new file of size bytes at path, read-write and shared,
// and removes the file.
func mapFile(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer os.Remove(path)
	if err := f.Truncate(int64(size)); err != nil {
		return nil, err
	}
	return mmap(f, size)
}
