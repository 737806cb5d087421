//go:build linux && amd64

package adirt

import "sync/atomic"

// The counting hook. The debug build that adi re-executes under Delve
// calls C at the entry of every function of the module (instrument's
// counting overlay) and nothing else. Reaching the n-th invocation of a
// function with a breakpoint costs a stop of the process at each earlier
// one; a debugger instead writes into Ctl which invocations to count, sets
// a breakpoint in Stop, and is stopped once, when C has counted them.

// Ctl is what a debugger asks C to count, written while the process is
// stopped. Left is the number of entries still to count (0: none); an
// entry counts when the return address into the function that called C
// is in one of its first N ranges [Lo, Hi), and, when GoidOff is not 0,
// when the goroutine's id (the int64 at GoidOff in the runtime's g, which
// the debugger knows from the debug information) is Goid.
var Ctl struct {
	Left    int64
	GoidOff uint64
	Goid    int64
	N       uint64
	Lo, Hi  [4]uint64
}

// C counts an entry of the function that called it; it calls Stop at the
// last entry that Ctl asks it to count.
//
//go:noinline
func C() {
	if atomic.LoadInt64(&Ctl.Left) <= 0 {
		return
	}
	gp, pc, _, _, _ := frames()
	in := false
	for i := uint64(0); i < Ctl.N && i < uint64(len(Ctl.Lo)); i++ {
		if uint64(pc) >= Ctl.Lo[i] && uint64(pc) < Ctl.Hi[i] {
			in = true
			break
		}
	}
	if !in || Ctl.GoidOff != 0 && int64(peek(gp+uintptr(Ctl.GoidOff))) != Ctl.Goid {
		return
	}
	for {
		n := atomic.LoadInt64(&Ctl.Left)
		if n <= 0 {
			return
		}
		if atomic.CompareAndSwapInt64(&Ctl.Left, n, n-1) {
			if n == 1 {
				Stop()
			}
			return
		}
	}
}

// Stop is where a debugger's breakpoint stops the process once C has
// counted what Ctl asked.
//
//go:noinline
func Stop() {}
