package trace

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitFilled waits for the memory asked for to be made.
func waitFilled(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ready.mu.Lock()
		filling := ready.filling
		ready.mu.Unlock()
		if !filling {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the memory asked for is not made after 20 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// dropAllReady gives back what is ready, for the next test.
func dropAllReady(t *testing.T) {
	waitFilled(t)
	ready.mu.Lock()
	stamp := ready.stamp
	ready.mu.Unlock()
	dropReady(stamp)
}

// residentPages counts the pages of b (page aligned) that are in memory.
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

func TestPrepare(t *testing.T) {
	dropAllReady(t)
	defer dropAllReady(t)
	const frames = 100_000
	Prepare(frames, 2)
	waitFilled(t)

	for i := 0; i < 2; i++ {
		b, ok := TakeBlock()
		if !ok {
			t.Fatalf("block %d: none ready", i)
		}
		if len(b) != BlockSize {
			t.Errorf("block %d: %d bytes, want %d", i, len(b), BlockSize)
		}
		if n := residentPages(t, b); n != BlockSize/pageSize {
			t.Errorf("block %d: %d of its %d pages present", i, n, BlockSize/pageSize)
		}
		unix.Munmap(b)
	}
	if _, ok := TakeBlock(); ok {
		t.Error("a third block was made ready, two were asked for")
	}

	ready.mu.Lock()
	set := ready.set
	ready.mu.Unlock()
	if set == nil {
		t.Fatal("no mappings made ready for an index")
	}
	rowBytes := frames * int(unsafe.Sizeof(row{}))
	for _, c := range []struct {
		name string
		b    []byte
	}{{"rows", set.rows[:rowBytes]}, {"callee lists", set.kids[:frames*4]}, {"lists by function", set.byFn[:frames*4]}} {
		want := len(c.b) / pageSize
		if n := residentPages(t, c.b); n < want {
			t.Errorf("%s: %d of the %d pages for %d frames present", c.name, n, want, frames)
		}
	}

	// The next index off the heap takes them, and works in them.
	r := &Recording{}
	if err := r.OffHeap(1000, 0, 0); err != nil {
		t.Fatal(err)
	}
	if r.mem != set {
		t.Fatal("OffHeap did not take the mappings made ready")
	}
	ready.mu.Lock()
	left := ready.set
	ready.mu.Unlock()
	if left != nil {
		t.Error("the mappings taken are still ready for another index")
	}
	fn := r.FuncID("main.f", Pos{})
	for i := 0; i < 3*frames; i++ {
		r.Enter(&Entry{Func: fn, Index: i + 1, Parent: i - 1, EntrySeq: uint64(2*i + 1)})
	}
	r.Index()
	if r.Len() != 3*frames || r.ParentOf(3*frames-1) != 3*frames-2 {
		t.Errorf("%d frames, the last one's parent %d; want %d and %d", r.Len(), r.ParentOf(r.Len()-1), 3*frames, 3*frames-2)
	}
	if got := r.InvocationSeqs("main.f"); len(got) != 3*frames || got[frames] != frames {
		t.Errorf("the frames of main.f: %d, the %dth %d", len(got), frames, got[min(frames, len(got)-1)])
	}
}

func TestPrepareTooSmall(t *testing.T) {
	dropAllReady(t)
	defer dropAllReady(t)
	Prepare(10, 0)
	waitFilled(t)
	ready.mu.Lock()
	set := ready.set
	ready.mu.Unlock()
	if set == nil {
		t.Fatal("no mappings made ready for an index")
	}
	// An index asking for more room than they have maps its own.
	r := &Recording{}
	if err := r.OffHeap(reserveFrames+1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if r.mem == set || len(r.mem.rows) < (reserveFrames+1)*int(unsafe.Sizeof(row{})) {
		t.Errorf("an index for %d frames took the mappings made ready, %d bytes of rows", reserveFrames+1, len(r.mem.rows))
	}
}

func TestDropReady(t *testing.T) {
	dropAllReady(t)
	Prepare(0, 1)
	waitFilled(t)
	ready.mu.Lock()
	stamp := ready.stamp
	ready.mu.Unlock()
	// A timer of an earlier request leaves it.
	dropReady(stamp - 1)
	ready.mu.Lock()
	n := len(ready.made)
	ready.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d blocks ready after an earlier request's timer, want 1", n)
	}
	dropReady(stamp)
	ready.mu.Lock()
	n, asked := len(ready.made), ready.blocks
	ready.mu.Unlock()
	if n != 0 || asked != 0 {
		t.Errorf("%d blocks ready, %d asked for, after the last request's timer; want none", n, asked)
	}
	if _, ok := TakeBlock(); ok {
		t.Error("a block is taken after all were given back")
	}
}
