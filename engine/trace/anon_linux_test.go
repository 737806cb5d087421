package trace

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident reports whether the page of m holding byte off is in memory.
func resident(t *testing.T, m []byte, off int) bool {
	t.Helper()
	off &^= pageSize - 1
	vec := make([]byte, 1)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[off])), pageSize, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	return vec[0]&1 != 0
}

// TestAhead: the helper of an index off the heap makes the pages of the
// rows and lists ahead of the rows added present, no further than its
// window, waking when rows are added after it has made those of the
// first, and ends with Index, which gives back the pages past the rows.
func TestAhead(t *testing.T) {
	r := &Recording{}
	if err := r.OffHeap(16<<10, 16, 0); err != nil {
		t.Fatal(err)
	}
	fn := r.FuncID("main.f", Pos{File: "/src/main.go", Line: 3})
	m := r.mem
	// Past the first huge page of rows (which the first fault makes
	// present whole).
	const added = 10*aheadEvery + 1
	enter := func(i int) {
		r.Enter(&Entry{Func: fn, Index: i + 1, Parent: -1, Goroutine: 1, EntrySeq: uint64(2*i + 1)})
	}
	// The first row: the helper makes the first window present, then
	// waits for more rows.
	enter(0)
	for deadline := time.Now().Add(time.Minute); m.need.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper is not waiting for rows a minute after the first")
		}
	}
	for i := 1; i < added; i++ {
		enter(i)
	}
	size := int(unsafe.Sizeof(row{}))
	want := aheadOf(10 * aheadEvery) // the rows the window reaches
	if want != 20*aheadEvery || want*size <= hugePage {
		t.Fatalf("the window of %d rows reaches row %d, want %d, past a huge page", 10*aheadEvery, want, 20*aheadEvery)
	}
	// The helper runs when a core is idle: other tests may keep both busy
	// for a while.
	deadline := time.Now().Add(time.Minute)
	for !resident(t, m.rows, (want-1)*size) || !resident(t, m.kids, (want-1)*4) || !resident(t, m.byFn, (want-1)*4) {
		if time.Now().After(deadline) {
			t.Fatalf("the pages of row %d and of its lists are not present a minute after %d rows were added", want-1, added)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Past the window (and the huge page it ends in), nothing.
	if beyond := (want*size + 8<<20); resident(t, m.rows, beyond) {
		t.Errorf("the rows are present %d bytes past the window's end", beyond-want*size)
	}
	r.SetExit(0, Returned, 2*added+1)
	r.Index()
	select {
	case <-m.helped:
	default:
		t.Fatal("the helper still runs after Index")
	}
	// The rows and the lists by function (one Seq a frame) hold added
	// frames; no frame has callees.
	last := (added - 1) * size
	if !resident(t, m.rows, last) || !resident(t, m.byFn, (added-1)*4) {
		t.Error("the pages of the last row or of the lists by function were given back")
	}
	for _, p := range []struct {
		what string
		m    []byte
		off  int
	}{
		{"rows", m.rows, (last + size + pageSize) &^ (pageSize - 1)},
		{"rows", m.rows, (want - 1) * size},
		{"lists by function", m.byFn, (want - 1) * 4},
		{"callee lists", m.kids, 0},
	} {
		if resident(t, p.m, p.off) {
			t.Errorf("the %s are still present at byte %d, past the index's", p.what, p.off)
		}
	}
	if got, want := r.At(added-1).FID, (FID{Func: "main.f", Index: added}); got != want {
		t.Errorf("the last frame is %s, want %s", got, want)
	}
}
