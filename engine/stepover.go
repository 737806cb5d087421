package engine

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"slices"
	"sync/atomic"

	"github.com/go-delve/delve/pkg/proc"
)

// Logical breakpoint ids of the step-over machinery, far above the ids the
// debugger hands out.
const (
	idWatch = 1_000_000 + iota
	idCopystack
	idCopystackRet
	idGopanic
	idFrameLines
	idIndirect
	idFrameEntry
)

// stepOverCall runs the callee that the frame's goroutine has just entered
// until it returns to the frame, and leaves the goroutine there, in the
// middle of the calling statement.
//
// Delve's StepOut puts a breakpoint on the return address: every invocation
// in the callee's subtree that returns through the same address (all of
// them, for a recursive function) stops the process there, so stepping over
// fib(n-1) costs a stop per recursive call. Instead, a hardware watchpoint
// is put on the stack slot that holds this one callee's return address: the
// RET that pops it is the only instruction that reads it in normal
// execution, so the process stops once, whatever the subtree. The runtime
// reads the slot too when it unwinds or scans the stack (spurious stops are
// checked and skipped) and moves it when it grows the stack (followed
// through runtime.copystack). If the callee panics, the frame is watched
// with conditional breakpoints on its own lines instead, which is where a
// recovery resumes it.
//
// Some machines do not stop at hardware watchpoints (virtual machines
// whose hypervisor leaves the debug registers out): Delve sets them, and
// the process runs on past the return. A call is then stepped over with a
// breakpoint on its return address, with the condition that the frame is
// back, which Delve checks at every return through that address. Until a
// step over a call has found out which the machine does, both are set
// (see watchpoints).
//
// When counter is not nil (a call of library code), entries of the
// functions library code called for the frame in the recording are counted
// into it; else recorded is the callee in the recording (nil: not
// known), whose recursive calls a return breakpoint skips (see
// skipAhead).
//
// ended reports that the frame will not be back: the process ended (or
// stopped at an unrecovered panic or a fatal error), or a panic unwound
// the frame.
func (in *inFrame) stepOverCall(ctx context.Context, callee *proc.Stackframe, counter *int, recorded *recordedCallee) (ended bool, err error) {
	if recorded != nil && watchpoints.Load() == watchNone && !in.noSkip {
		if err := in.skipAhead(ctx, callee, recorded); err != nil {
			return false, err
		}
	}
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	tgt := grp.Selected
	bi := tgt.BinInfo()
	ptr := int64(bi.Arch.PtrSize())
	slotOff := callee.FrameOffset() - ptr // return address sits just below the CFA
	stackHi := uint64(callee.Regs.CFA - callee.FrameOffset())

	w := &watcher{tgt: tgt, in: in}
	defer w.clear()
	state := watchpoints.Load()
	if state != watchNone {
		if err := w.watch(stackHi, slotOff); err != nil {
			return false, err
		}
		if err := w.onEntry(idCopystack, "runtime.copystack", nil); err != nil {
			return false, err
		}
	}
	if state != watchWorks {
		if err := w.onReturn(callee.Ret); err != nil {
			return false, err
		}
	}
	if err := w.onEntry(idGopanic, "runtime.gopanic", nil); err != nil {
		return false, err
	}
	if callee.Current.Fn != nil && callee.Current.Fn.Name == "runtime.gopanic" {
		// The frame panicked already: gopanic runs its deferred calls,
		// or those of the frames it called.
		w.in.notePanic(tgt, tgt.CurrentThread())
		if err := w.panicking(); err != nil {
			return false, err
		}
	}
	if counter != nil {
		for _, pc := range in.indirectEntries {
			if err := w.set(idIndirect, pc, nil); err != nil {
				return false, err
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		err := grp.Continue()
		if _, ok := exited(err); ok {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		for _, th := range tgt.ThreadList() {
			bs := th.Breakpoint()
			if bs == nil || bs.Breakpoint == nil || !bs.Active {
				continue
			}
			bp := bs.Breakpoint
			if bp.Logical != nil && (bp.Logical.Name == proc.UnrecoveredPanic || bp.Logical.Name == proc.FatalThrow) {
				return true, tgt.SwitchThread(th.ThreadID())
			}
			if bp.Logical != nil && bp.Logical.LogicalID == idIndirect {
				*counter++
				continue
			}
			if bp.Logical != nil && bp.Logical.LogicalID == idFrameEntry {
				// The function entered again at the frame's place on the
				// stack: the panic unwound the frame, and a recovery
				// above it let the goroutine go on and call it again.
				return true, nil
			}
			back, err := w.handle(th, bp, slotOff)
			if err != nil {
				return false, err
			}
			if back {
				return false, tgt.SwitchThread(th.ThreadID())
			}
		}
	}
}

// watcher holds the breakpoints of one step over a call.
type watcher struct {
	tgt   *proc.Target
	in    *inFrame
	addrs map[int][]uint64 // logical id → addresses set
}

func (w *watcher) set(id int, addr uint64, cond ast.Expr) error {
	if _, err := w.tgt.SetBreakpoint(id, addr, proc.UserBreakpoint, cond); err != nil {
		return err
	}
	if w.addrs == nil {
		w.addrs = map[int][]uint64{}
	}
	w.addrs[id] = append(w.addrs[id], addr)
	return nil
}

func (w *watcher) unset(id int) {
	for _, addr := range w.addrs[id] {
		w.tgt.ClearBreakpoint(addr)
	}
	delete(w.addrs, id)
	delete(w.tgt.Breakpoints().Logical, id)
}

func (w *watcher) clear() {
	for id := range w.addrs {
		w.unset(id)
	}
}

// watch puts the read/write watchpoint on the return address slot at
// stackHi+slotOff. The expression is evaluated without a goroutine, so that
// Delve does not add its own out-of-scope breakpoints for a stack variable
// (they would be return-address breakpoints again).
func (w *watcher) watch(stackHi uint64, slotOff int64) error {
	w.unset(idWatch)
	th := w.tgt.CurrentThread()
	scope, err := proc.ThreadScope(w.tgt, th)
	if err != nil {
		return err
	}
	addr := uint64(int64(stackHi) + slotOff)
	expr := fmt.Sprintf("*(*uintptr)(%#x)", addr)
	if _, err := w.tgt.SetWatchpoint(idWatch, scope, expr, proc.WatchRead|proc.WatchWrite, nil); err != nil {
		return fmt.Errorf("watching the return address of a call: %w", err)
	}
	if w.addrs == nil {
		w.addrs = map[int][]uint64{}
	}
	w.addrs[idWatch] = []uint64{addr}
	return nil
}

// skipAhead runs the callee of a call stepped over with a return
// breakpoint (recorded, in the recording) to the entry of its last
// recursive call, counted by the counting hook in the process: returns
// through the call's return address from deeper invocations, each a stop
// that Delve checks, are then those of the invocations still open there,
// not one for each invocation of the subtree. It does nothing without the
// counting hook, or when the recording cannot say.
//
// It returns errSkipAhead when the callee is no longer the frame's callee
// there (the run went another way than the recording's): the trace is
// made again without skipping.
func (in *inFrame) skipAhead(ctx context.Context, callee *proc.Stackframe, recorded *recordedCallee) error {
	c := in.p.counter()
	// A callee dropped past the frame limit: its count, if known, not
	// its last entry.
	n, last, ok := recorded.within, -1, recorded.within >= 0
	if recorded.seq >= 0 {
		n, last, ok = in.rec.EntriesWithin(recorded.seq)
	}
	if c == nil || !ok || n == 0 || callee.Current.Fn == nil {
		return nil
	}
	_, ranges, counted := in.p.instances(fidName(callee.Current.Fn))
	if !counted || len(ranges) > ctlRanges {
		return nil
	}
	// The goroutine stopped in the callee before its own call of the
	// hook (Delve's Step stops after the prologue, the hook comes after
	// it): that entry is counted too.
	early, err := in.p.countEntries(ctx, c, ranges, n+1, in.goid)
	if err != nil {
		return err
	}
	if early {
		return errSkipAhead
	}
	// The stack, from adirt.Stop and the hook in the last entry down to
	// the frame: the callee must be just above the frame, and the last
	// entry's arguments the recording's (when it kept that entry).
	st, err := in.p.d.Stacktrace(in.goid, maxSkipDepth, 0)
	if err != nil {
		return err
	}
	below := false // and st has the last entry's frame, st[2]
	for j := 3; j < len(st); j++ {
		if st[j].Current.Fn == in.fn && st[j].FrameOffset() == in.off {
			below = st[j-1].Current.Fn == callee.Current.Fn && st[j-1].FrameOffset() == callee.FrameOffset()
			break
		}
	}
	if !below || st[2].Current.Fn == nil || fidName(st[2].Current.Fn) != fidName(callee.Current.Fn) {
		return errSkipAhead
	}
	if last < 0 {
		// The last entry was dropped past the frame limit: no
		// arguments to check it by.
		return nil
	}
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	scope, err := proc.ConvertEvalScope(grp.Selected, in.goid, 2, 0)
	if err != nil {
		return err
	}
	vars, err := readVars(scope, in.lim.loadConfig(), false)
	if err != nil {
		return err
	}
	argVars := filterVars(vars, false)
	if diffArgs(in.rec.At(last).Args, convertVars(argVars), argVars, in.p.tmp) != "" {
		return errSkipAhead
	}
	return nil
}

// maxSkipDepth bounds the frames between the last recursive entry of a
// callee and the frame that called it that skipAhead reads.
const maxSkipDepth = 1 << 16

// errSkipAhead stops a trace whose skipAhead left the recorded path.
var errSkipAhead = errors.New("stepping over a call: the run went another way than the recording")

// onReturn puts a breakpoint on the return address ret of the call being
// stepped over, with the condition that the frame is back (its goroutine,
// at its place on the stack): returns of deeper invocations through the
// same address are checked by Delve, and do not stop the walk.
func (w *watcher) onReturn(ret uint64) error {
	cond, err := parser.ParseExpr(fmt.Sprintf("runtime.curg.goid == %d && runtime.frameoff == %d", w.in.goid, w.in.off))
	if err != nil {
		return err
	}
	return w.set(idWatch, ret, cond)
}

// watchpoints is what the machine was found to do with hardware
// watchpoints (see stepOverCall): unknown until the first step over a call
// ends, at the watchpoint (watchWorks) or at the return breakpoint
// (watchNone). Once per process.
var watchpoints atomic.Int32

const (
	watchUnknown = iota
	watchWorks
	watchNone
)

// onEntry puts a breakpoint on the entry of a runtime function, with a
// condition if cond is not nil.
func (w *watcher) onEntry(id int, name string, cond ast.Expr) error {
	fn := w.tgt.BinInfo().LookupFunc()[name]
	if len(fn) == 0 {
		return nil // not in this binary
	}
	pc, err := proc.FirstPCAfterPrologue(w.tgt, fn[0], false)
	if err != nil {
		return err
	}
	return w.set(id, pc, cond)
}

// handle looks at one stop; back reports that the frame is on top again.
func (w *watcher) handle(th proc.Thread, bp *proc.Breakpoint, slotOff int64) (back bool, err error) {
	if bp.Logical == nil {
		return false, nil
	}
	switch bp.Logical.LogicalID {
	case idWatch, idFrameLines:
		g, err := proc.GetG(th)
		if err != nil || g == nil || g.ID != w.in.goid {
			return false, nil
		}
		st, err := proc.ThreadStacktrace(w.tgt, th, 0)
		if err != nil || len(st) == 0 {
			return false, nil
		}
		back := st[0].Current.Fn == w.in.fn && st[0].FrameOffset() == w.in.off
		switch {
		case !back || bp.Logical.LogicalID != idWatch:
		case bp.WatchType != 0:
			watchpoints.CompareAndSwap(watchUnknown, watchWorks)
		default:
			// Back at the return address: the watchpoint, if set, was
			// passed by.
			watchpoints.CompareAndSwap(watchUnknown, watchNone)
		}
		return back, nil
	case idCopystack:
		// The stack of some goroutine is about to move; if it is ours,
		// follow the slot once the copy is done.
		if goid, ok := w.evalInt(th, "gp.goid"); !ok || goid != w.in.goid {
			return false, nil
		}
		fn := w.tgt.BinInfo().PCToFunc(bp.Addr)
		rets, err := returnPCs(w.tgt, fn)
		if err != nil {
			return false, err
		}
		for _, pc := range rets {
			if err := w.set(idCopystackRet, pc, nil); err != nil {
				return false, err
			}
		}
	case idCopystackRet:
		w.unset(idCopystackRet)
		hi, ok := w.evalInt(th, "gp.stack.hi")
		if !ok {
			return false, fmt.Errorf("following a stack move: cannot read the new stack")
		}
		return false, w.watch(uint64(hi), slotOff)
	case idGopanic:
		g, err := proc.GetG(th)
		if err != nil || g == nil || g.ID != w.in.goid {
			return false, nil
		}
		w.in.notePanic(w.tgt, th)
		return false, w.panicking()
	}
	return false, nil
}

// panicking watches the frame once a panic unwinds its callees: the
// watched return will not happen. If the frame recovers, it resumes at one
// of its own statements. If it does not, and a recovery above it lets the
// goroutine go on, a later invocation of its function may run at the same
// place on the stack: it starts at the entry, which the frame never goes
// back to.
func (w *watcher) panicking() error {
	if w.addrs[idFrameLines] != nil {
		return nil
	}
	cond, err := parser.ParseExpr(fmt.Sprintf("runtime.curg.goid == %d && runtime.frameoff == %d", w.in.goid, w.in.off))
	if err != nil {
		return err
	}
	pcs, err := w.in.fn.AllPCs("", 0)
	if err != nil {
		return err
	}
	for _, pc := range pcs {
		if pc == w.in.fn.Entry || slices.Contains(w.addrs[idWatch], pc) {
			// The entry is below; a return breakpoint (see onReturn)
			// stops where the frame lines' would.
			continue
		}
		if err := w.set(idFrameLines, pc, cond); err != nil {
			return err
		}
	}
	return w.set(idFrameEntry, w.in.fn.Entry, cond)
}

// evalInt evaluates an integer expression in the scope of th's top frame.
func (w *watcher) evalInt(th proc.Thread, expr string) (int64, bool) {
	scope, err := proc.ThreadScope(w.tgt, th)
	if err != nil {
		return 0, false
	}
	v, err := scope.EvalExpression(expr, proc.LoadConfig{})
	if err != nil || v.Unreadable != nil || v.Value == nil {
		return 0, false
	}
	n, ok := constantInt(v)
	return n, ok
}

// constantInt reads an integer variable's value.
func constantInt(v *proc.Variable) (int64, bool) {
	if n, ok := constant.Int64Val(v.Value); ok {
		return n, true
	}
	if n, ok := constant.Uint64Val(v.Value); ok {
		return int64(n), true
	}
	return 0, false
}
