package engine

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"maps"
	"strings"

	"github.com/go-delve/delve/pkg/proc"
	"golang.org/x/arch/x86/x86asm"

	"github.com/adi-go/adi/engine/trace"
)

// stepping chooses how buildFLT moves through a frame.
type stepping int

const (
	// stepAuto runs a frame that the recording shows running alone (see
	// trace.Recording.RunsAlone) with walkFast, and any other as
	// stepSlow does.
	stepAuto stepping = iota
	// stepSlow runs Delve's Step from statement to statement, and steps
	// over each call with a watchpoint on its return slot (stepOverCall).
	stepSlow
	// stepDelveOut is stepSlow with Delve's StepOut over calls, for the
	// benchmark that compares them.
	stepDelveOut
)

// errFastAbort stops walkFast when the run does not go as the recording
// said (a panic on the frame's goroutine that it did not have), or not as
// walkFast expects (a RET reached without its line's statement): buildFLT
// starts again with stepSlow.
var errFastAbort = errors.New("the run left the recorded path")

// Logical breakpoint ids of walkFast (see stepover.go for the others).
const (
	idFastFrame = 1_000_100 + iota
	idFastPanic
)

// fastAddr is what walkFast does when the frame reaches an address of
// its function.
type fastAddr struct {
	file string
	line int
	// stmt: a statement starts here (an is_stmt address, where Delve's
	// Step stops when it is on another line than the one it left).
	stmt bool
	// call is the call instruction at the address, if it is one.
	call *proc.AsmInstruction
	// leave: a statement on the line of a return. Delve's Step takes over
	// from here, to read the results as the frame returns: from a RET
	// instruction, where the frame is already torn down, it would read
	// them from the wrong place.
	leave bool
	// ret: a RET instruction, which walkFast reaches only as a statement
	// of its own, in a function without a frame to tear down; else it has
	// handed over at its line's statement.
	ret bool
	// after: a return address that is not a statement's, on another
	// line than its call. Delve's Step, back from a call it stepped into,
	// reports this line as a new statement.
	after bool
}

// walkFast goes on with walk's visits for a frame that runs alone: it puts
// a breakpoint on every statement, call and return of the frame's function
// once, conditioned on the frame's goroutine and frame offset, and
// continues the process from one to the next. Delve's Step instead sets
// and clears a breakpoint on every line of the function at each step:
// 44% of a step's round trips to its ptrace thread.
//
// walkFast makes the visits Delve's Step makes (see walk): a new visit at
// a statement on another line than the current one; a call counted when
// Delve would step into it (a call instruction on the current line, not
// of a go statement, to a function that is not a private runtime
// function), as a direct call for a function of the recording, and for
// library code by the recorded entries of the functions library code
// called for the frame (indirectEntries) while it runs. When the frame is
// about to return, or to run its deferred calls, it hands over to Delve's
// Step (handover true) from the current visit. It returns the visits and
// the current one; ended when the process ended (or a panic that nothing
// recovers ends it); neither ended nor handover when at returned false.
func (in *inFrame) walkFast(ctx context.Context, visits []*visit, cur *visit, at func(v *visit) bool) (_ []*visit, _ *visit, ended, handover bool, err error) {
	var start uint64
	grp, unlock := in.p.d.LockTargetGroup()
	regs, err := grp.Selected.CurrentThread().Registers()
	if err == nil {
		start = regs.PC()
	}
	unlock()
	if err != nil {
		return visits, cur, false, false, err
	}
	addrs, defers, err := in.fastAddrs(start, cur.pos)
	if err != nil {
		return visits, cur, false, false, err
	}
	if in.panics && defers {
		// The panic that ends the run will call the frame's deferred
		// functions, which Delve's Step follows.
		return visits, cur, false, true, nil
	}
	if a := addrs[start]; a != nil && a.leave {
		// At a return already (a function of one line).
		return visits, cur, false, true, nil
	}
	grp, unlock = in.p.d.LockTargetGroup()
	tgt := grp.Selected
	w := &watcher{tgt: tgt, in: in}
	cleared := false
	clearBPs := func() {
		if !cleared {
			w.clear()
			cleared = true
		}
	}
	defer func() {
		if !cleared {
			_, unlock := in.p.d.LockTargetGroup()
			w.clear()
			unlock()
		}
	}()
	cond, err := parser.ParseExpr(fmt.Sprintf("runtime.curg.goid == %d && runtime.frameoff == %d", in.goid, in.off))
	if err != nil {
		unlock()
		return visits, cur, false, false, err
	}
	for pc := range addrs {
		if err := w.set(idFastFrame, pc, cond); err != nil {
			clearBPs()
			unlock()
			return visits, cur, false, false, err
		}
	}
	for _, pc := range in.indirectEntries {
		if err := w.set(idIndirect, pc, nil); err != nil {
			clearBPs()
			unlock()
			return visits, cur, false, false, err
		}
	}
	// A panic on the frame's goroutine: one the recording did not have
	// aborts the walk; the one that ends the run (it stops at Delve's
	// breakpoint for unrecovered panics) is where the frame's last
	// statement ends (see notePanic).
	onG, err := parser.ParseExpr(fmt.Sprintf("runtime.curg.goid == %d", in.goid))
	if err == nil {
		err = w.onEntry(idFastPanic, "runtime.gopanic", onG)
	}
	if err != nil {
		clearBPs()
		unlock()
		return visits, cur, false, false, err
	}
	unlock()

	// library: a call of library code made by the current visit is
	// running. afterAt: the return address of the last call Delve would
	// have stepped into, when it is an after address.
	library := false
	var afterAt uint64
	spawnCounted := false
	for {
		if err := ctx.Err(); err != nil {
			return visits, cur, false, false, err
		}
		if !spawnCounted && in.goStmtLine(cur.pos.Line) {
			cur.spawns++
			spawnCounted = true
		}
		grp, unlock := in.p.d.LockTargetGroup()
		err := grp.Continue()
		if _, ok := exited(err); ok {
			clearBPs()
			unlock()
			return visits, cur, true, false, nil
		}
		if err != nil {
			unlock()
			return visits, cur, false, false, err
		}
		var hit proc.Thread
		var pc uint64
		for _, th := range tgt.ThreadList() {
			bs := th.Breakpoint()
			if bs == nil || bs.Breakpoint == nil || !bs.Active || bs.Breakpoint.Logical == nil {
				continue
			}
			bp := bs.Breakpoint
			switch {
			case bp.Logical.Name == proc.UnrecoveredPanic || bp.Logical.Name == proc.FatalThrow:
				clearBPs()
				err := tgt.SwitchThread(th.ThreadID())
				unlock()
				return visits, cur, true, false, err
			case bp.Logical.LogicalID == idFastPanic:
				if !in.panics {
					unlock()
					return visits, cur, false, false, errFastAbort
				}
				in.notePanic(tgt, th)
			case bp.Logical.LogicalID == idIndirect:
				if library {
					cur.indirect++
				}
			case bp.Logical.LogicalID == idFastFrame:
				hit, pc = th, bp.Addr
			}
		}
		if hit == nil {
			unlock()
			continue
		}
		a := addrs[pc]
		if a == nil {
			unlock()
			continue
		}
		if err := tgt.SwitchThread(hit.ThreadID()); err != nil {
			unlock()
			return visits, cur, false, false, err
		}
		// The frame runs its own code: a library call it made is over.
		library = false
		var next *visit
		if (a.stmt || a.after && pc == afterAt) && (a.line != cur.pos.Line || a.file != cur.pos.File) {
			next = &visit{pos: trace.Pos{File: a.file, Line: a.line}}
		}
		afterAt = 0
		if next != nil {
			cur = next
			visits = append(visits, cur)
			spawnCounted = false
		}
		if a.ret && !a.leave {
			unlock()
			return visits, cur, false, false, errFastAbort
		}
		leaving := a.leave
		if a.call != nil && a.line == cur.pos.Line && a.file == cur.pos.File && !in.goStmtLine(cur.pos.Line) {
			fn, known := in.callee(tgt, hit, a.call)
			switch {
			case !known || fn != nil && fn.Name != "runtime.deferreturn" && isPrivateRuntime(fn.Name):
				// Delve does not step into it.
			case fn != nil && fn.Name == "runtime.deferreturn":
				leaving = true
			default:
				if fn != nil && in.rec.HasFunc(fidName(fn)) {
					cur.calls++
				} else {
					library = true
				}
				ret := a.call.Loc.PC + uint64(a.call.Size)
				if r, ok := addrs[ret]; ok && r.after {
					afterAt = ret
				}
			}
		}
		if leaving {
			clearBPs()
		}
		unlock()
		if next != nil && !at(next) {
			return visits, cur, false, false, nil
		}
		if leaving {
			// Delve's Step goes on from this visit, and counts its go
			// statement again.
			if spawnCounted {
				cur.spawns--
			}
			return visits, cur, false, true, nil
		}
	}
}

// fastAddrs lists the addresses of the frame's function that walkFast
// stops at, and says whether the function defers calls. The frame is at
// start, in a visit of at.
func (in *inFrame) fastAddrs(start uint64, at trace.Pos) (_ map[uint64]*fastAddr, defers bool, _ error) {
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	tgt := grp.Selected
	bi := tgt.BinInfo()
	insts, err := proc.Disassemble(tgt.Memory(), nil, tgt.Breakpoints(), bi, in.fn.Entry, in.fn.End)
	if err != nil {
		return nil, false, err
	}
	stmts, err := in.fn.AllPCs("", 0)
	if err != nil {
		return nil, false, err
	}
	// For goStmtLine, which walkFast calls with the target's lock held.
	in.setGoLines(insts)
	addrs := map[uint64]*fastAddr{}
	get := func(pc uint64) *fastAddr {
		a := addrs[pc]
		if a == nil {
			file, line, _ := bi.PCToLine(pc)
			a = &fastAddr{file: file, line: line}
			addrs[pc] = a
		}
		return a
	}
	for _, pc := range stmts {
		get(pc).stmt = true
	}
	for i := range insts {
		ins := &insts[i]
		switch {
		case ins.IsCall():
			get(ins.Loc.PC).call = ins
			if ins.DestLoc != nil && ins.DestLoc.Fn != nil && strings.HasPrefix(ins.DestLoc.Fn.Name, "runtime.defer") {
				defers = true
			}
		case ins.IsRet():
			get(ins.Loc.PC).ret = true
		}
	}
	rets := map[trace.Pos]bool{}
	for _, a := range addrs {
		if a.ret {
			rets[trace.Pos{File: a.file, Line: a.line}] = true
		}
	}
	for _, a := range addrs {
		a.leave = a.stmt && rets[trace.Pos{File: a.file, Line: a.line}]
	}
	for i := range insts {
		ins := &insts[i]
		if !ins.IsCall() {
			continue
		}
		ret := ins.Loc.PC + uint64(ins.Size)
		if _, line, _ := bi.PCToLine(ret); line != ins.Loc.Line && ret < in.fn.End {
			if a := get(ret); !a.stmt {
				a.after = true
			}
		}
	}
	if bi.Arch.Name == "amd64" {
		quiet(insts, addrs, start, at)
	}
	for pc, a := range addrs {
		if !a.stmt && a.call == nil && !a.ret && !a.after {
			delete(addrs, pc)
		}
	}
	return addrs, defers, nil
}

// quiet clears stmt on the statement addresses that the frame reaches only
// in a visit of their own line, where Delve's Step does not stop: a loop's
// condition, reached from the loop's increment on the same line, would
// otherwise cost a stop per iteration. It follows the function's control
// flow from start (in a visit of at), with the lines the current visit can
// have at each instruction; an indirect jump, or an instruction it cannot
// decode, leaves every address as it is.
func quiet(insts []proc.AsmInstruction, addrs map[uint64]*fastAddr, start uint64, at trace.Pos) {
	index := make(map[uint64]int, len(insts))
	for i := range insts {
		index[insts[i].Loc.PC] = i
	}
	s0, ok := index[start]
	if !ok {
		return
	}
	// next lists the instructions that can follow instruction i.
	next := func(i int) ([]int, bool) {
		ins := &insts[i]
		if ins.IsRet() {
			return nil, true
		}
		x, err := x86asm.Decode(ins.Bytes, 64)
		if err != nil {
			return nil, false
		}
		var out []int
		switch x.Op {
		case x86asm.JMP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JCXZ, x86asm.JE,
			x86asm.JECXZ, x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO,
			x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JRCXZ, x86asm.JS:
			rel, ok := x.Args[0].(x86asm.Rel)
			if !ok {
				return nil, false // through a register or memory: a jump table
			}
			if j, ok := index[ins.Loc.PC+uint64(ins.Size)+uint64(int64(rel))]; ok {
				out = append(out, j)
			}
			if x.Op == x86asm.JMP {
				return out, true
			}
		}
		if i+1 < len(insts) {
			out = append(out, i+1)
		}
		return out, true
	}
	// lines[i]: the positions the current visit can have on arrival at i.
	lines := make([]map[trace.Pos]bool, len(insts))
	lines[s0] = map[trace.Pos]bool{at: true}
	work := []int{s0}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		out := lines[i]
		if a := addrs[insts[i].Loc.PC]; a != nil {
			here := trace.Pos{File: a.file, Line: a.line}
			switch {
			case a.stmt:
				out = map[trace.Pos]bool{here: true}
			case a.after && !out[here]:
				out = maps.Clone(out)
				out[here] = true
			}
		}
		succ, ok := next(i)
		if !ok {
			return
		}
		for _, j := range succ {
			grew := false
			if lines[j] == nil {
				lines[j] = map[trace.Pos]bool{}
			}
			for p := range out {
				if !lines[j][p] {
					lines[j][p] = true
					grew = true
				}
			}
			if grew {
				work = append(work, j)
			}
		}
	}
	for i := range insts {
		a := addrs[insts[i].Loc.PC]
		if a == nil || !a.stmt || a.leave || len(lines[i]) != 1 {
			continue
		}
		if lines[i][trace.Pos{File: a.file, Line: a.line}] {
			a.stmt = false
		}
	}
}

// callee returns the function that the call instruction at which thread
// th stopped calls: the function of the frame that walk finds above the
// frame when Delve's Step stops in the call (an autogenerated wrapper
// itself, a method value's for one, whatever Delve steps into past it).
// known is false when the destination is not known (Delve does not step
// into the call then); fn is nil for code without a function.
func (in *inFrame) callee(tgt *proc.Target, th proc.Thread, call *proc.AsmInstruction) (fn *proc.Function, known bool) {
	if call.DestLoc != nil {
		return call.DestLoc.Fn, true
	}
	regs, err := th.Registers()
	if err != nil {
		return nil, false
	}
	pc := call.Loc.PC
	insts, err := proc.Disassemble(tgt.Memory(), regs, tgt.Breakpoints(), tgt.BinInfo(), pc, pc+uint64(call.Size))
	if err != nil || len(insts) != 1 || insts[0].DestLoc == nil {
		return nil, false
	}
	return insts[0].DestLoc.Fn, true
}

// isPrivateRuntime reports whether a function is an unexported function of
// package runtime, which Delve's Step does not step into.
func isPrivateRuntime(name string) bool {
	rest, ok := strings.CutPrefix(name, "runtime.")
	return ok && rest != "" && !('A' <= rest[0] && rest[0] <= 'Z')
}

// runsAlone reports whether walkFast can walk the frame: the recording
// shows it running alone (trace.Recording.RunsAlone), and its function
// has no range-over-func bodies (Delve's Step follows them with rules of
// its own). It sets in.panics.
func (in *inFrame) runsAlone() bool {
	f := in.frame
	if in.rec == nil || f.Seq >= in.rec.Len() || in.rec.FIDOf(f.Seq) != f.FID {
		return false
	}
	alone, panics := in.rec.RunsAlone(f.Seq)
	if !alone {
		return false
	}
	in.panics = panics
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	prefix := in.fn.Name + "-range"
	for i := range grp.Selected.BinInfo().Functions {
		if strings.HasPrefix(grp.Selected.BinInfo().Functions[i].Name, prefix) {
			return false
		}
	}
	return true
}
