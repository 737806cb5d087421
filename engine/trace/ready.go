package trace

import (
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Memory made ready ahead of the next index off the heap.
//
// On some virtual machines a fresh page costs microseconds when it is
// first written: the guest hands the memory it frees back to the host,
// which backs it again page by page (see README). Pages made present while
// a core is idle cost nothing to the recording that gets them, whereas an
// index built while its target runs has no idle core: both run. So a
// recorder asks (Prepare) for the memory of the next index to be made
// ready while it builds the target or between recordings, and OffHeap
// takes it.

// Prepare asks for the memory of the next index off the heap (see
// OffHeap) to be made ready, on a thread of its own that runs only when a
// core is idle: its mappings, with the pages of frames frames' rows,
// callee lists and lists by function made present, and blocks huge pages
// of anonymous memory for the recorder's other uses (see TakeBlock). What
// was asked before and is not taken yet is kept, grown to the larger of
// the two requests; what no recording takes within readyFor is given
// back. It returns at once, and does nothing on a system that cannot run
// a thread at idle priority.
func Prepare(frames, blocks int) {
	frames = min(max(frames, 0), reserveFrames)
	blocks = min(max(blocks, 0), maxReadyBlocks)
	ready.mu.Lock()
	defer ready.mu.Unlock()
	ready.frames = max(ready.frames, frames)
	ready.blocks = max(ready.blocks, blocks)
	if ready.frames == 0 && ready.blocks == 0 {
		return
	}
	ready.stamp++
	if !ready.filling {
		ready.filling = true
		go fillReady()
	}
}

// BlockSize is the size of the blocks TakeBlock returns: a huge page.
const BlockSize = hugePage

// TakeBlock returns a block of anonymous memory (BlockSize bytes, a huge
// page where the system makes them, present) that Prepare made ready,
// false if none is. The caller unmaps it (unix.Munmap).
func TakeBlock() ([]byte, bool) {
	ready.mu.Lock()
	defer ready.mu.Unlock()
	n := len(ready.made)
	if n == 0 {
		return nil, false
	}
	b := ready.made[n-1]
	ready.made = ready.made[:n-1]
	ready.blocks = max(ready.blocks-1, 0)
	return b, true
}

// takeReady returns the mappings Prepare made ready for an index, nil if
// there are none. It does not wait for the page being made: the thread
// making it runs only when a core is idle, and a recording keeps its core
// busy. That page is made as the index comes to it, or by its helper
// (making a page present leaves what it holds as it is).
func takeReady() *mapping {
	ready.mu.Lock()
	defer ready.mu.Unlock()
	m := ready.set
	ready.set, ready.frames = nil, 0
	return m
}

// maxReadyBlocks bounds the blocks Prepare makes ready (64 MB).
const maxReadyBlocks = 32

// readyFor is how long memory made ready waits for a recording.
const readyFor = time.Minute

var ready struct {
	mu sync.Mutex
	// frames and blocks are what was asked for and not yet taken; set
	// holds the mappings being made ready, with their pages made up to
	// its madeRows and madeKids, and made the blocks made.
	frames, blocks int
	set            *mapping
	made           [][]byte
	// filling says that fillReady runs; stamp counts the requests, so
	// that a timer set before the last one does not give it back.
	filling bool
	stamp   int
}

// fillReady makes the memory Prepare asked for, a huge page at a time,
// until it is made (or taken); what is still there readyFor after the
// last request is given back.
func fillReady() {
	// Never unlocked: the thread, made idle, ends with the goroutine.
	runtime.LockOSThread()
	if !idleThread() {
		ready.mu.Lock()
		ready.frames, ready.blocks, ready.filling = 0, 0, false
		ready.mu.Unlock()
		return
	}
	for readyStep() {
	}
}

// readyStep makes the next huge page asked for present. When nothing is
// left to make, it says so (false) and that no filler runs, in one step
// with the check: a request that comes later starts another. The made
// counts of the mappings change with ready.mu held, and only while they
// are ready: once taken, they are the index's.
func readyStep() bool {
	ready.mu.Lock()
	if ready.set == nil && ready.frames > 0 {
		m, err := newMappings(0, 0, 0)
		if err != nil {
			ready.frames = 0
		} else {
			ready.set = m
		}
	}
	m, blocks := ready.set, ready.blocks-len(ready.made)
	var b []byte
	var made *int
	var from, to int
	if m != nil {
		rows := min(ready.frames*int(unsafe.Sizeof(row{})), len(m.rows))
		kids := min(ready.frames*4, len(m.kids), len(m.byFn))
		switch {
		case m.madeVals < readyVals:
			b, made, from, to = m.vals, &m.madeVals, m.madeVals, readyVals
		case m.madeRows < rows:
			b, made, from, to = m.rows, &m.madeRows, m.madeRows, rows
		case m.madeKids < kids:
			b, made, from, to = m.kids, &m.madeKids, m.madeKids, kids
		}
	}
	if made == nil && blocks <= 0 {
		ready.filling = false
		stamp := ready.stamp
		time.AfterFunc(readyFor, func() { dropReady(stamp) })
		ready.mu.Unlock()
		return false
	}
	ready.mu.Unlock()
	if made != nil {
		end := makeStep(b, from, to)
		if made == &m.madeKids {
			makeStep(m.byFn, from, to)
		}
		ready.mu.Lock()
		if ready.set == m {
			*made = end
		}
		ready.mu.Unlock()
		return true
	}
	blk, err := mapAnon(hugePage)
	if err == nil {
		prefault(blk)
	}
	ready.mu.Lock()
	defer ready.mu.Unlock()
	if err != nil {
		ready.blocks = len(ready.made)
	} else {
		ready.made = append(ready.made, blk)
	}
	return true
}

// readyVals is how much of the value rows Prepare makes present: the
// recorders ask for fewer at first (see OffHeap).
const readyVals = hugePage

// makeStep makes the pages of b from made up to a huge page more, or to
// end, present, and returns where they end (a page boundary past made).
func makeStep(b []byte, made, end int) int {
	end = min(made+hugePage, (end+pageSize-1)&^(pageSize-1), len(b))
	prefault(b[made:end])
	return end
}

// dropReady gives back the memory made ready if no request came after
// the one numbered stamp.
func dropReady(stamp int) {
	ready.mu.Lock()
	defer ready.mu.Unlock()
	if ready.stamp != stamp || ready.filling {
		return
	}
	if ready.set != nil {
		ready.set.unmap()
		ready.set = nil
	}
	for _, b := range ready.made {
		unmap(b)
	}
	ready.made, ready.frames, ready.blocks = nil, 0, 0
}
