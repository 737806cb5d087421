package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-delve/delve/pkg/proc"

	"github.com/adi-go/adi/engine/trace"
)

// RecordOptions configure one recording.
type RecordOptions struct {
	Limits Limits
	// Trace adds functions outside the main module whose names match one of
	// these regular expressions (e.g. "^strings\\.").
	Trace []string
	// Timeout kills the run after this long (0: no limit). The frames
	// recorded until then are kept, and the recording says it is partial.
	Timeout time.Duration
	// Output, when set, receives the target's stdout and stderr as they are
	// produced (they are captured in the Outcome either way).
	Output OutputFunc
	// Progress, when set, hears of the frames entered so far as the
	// recording goes: every few thousand frames (the Delve recorder), or
	// after a second, then less and less often, up to every 30 seconds
	// (the instrumenting recorder).
	Progress func(frames int)
	// SpillAbove is the size of index (bytes) above which the
	// instrumenting recorder keeps it in a mapped file, not the Go heap
	// (0: DefaultSpillAbove; negative: never).
	SpillAbove int64
	// Times, when set, receives the instrumenting recorder's split of its
	// time (adi bench reports it).
	Times *RecordTimes
	// decodeValues makes the instrumenting recorder decode every value
	// into the index as it is built, rather than leave them in the record
	// file (the tests compare the two).
	decodeValues bool
}

// RecordTimes is where an instrumented recording's time went.
type RecordTimes struct {
	// Run is the target's process, writing its records, from its start to
	// its end. The index is built meanwhile, from the records written.
	Run time.Duration
	// Index is what follows: the rest of the index, built from the
	// records not read yet, and finished.
	Index time.Duration
	// Records is the number of records the target wrote, AfterRun the
	// number of them the index read after the target ended: where the
	// builder fell behind the target (the instrumenting recorder only).
	Records, AfterRun int
	// Reused is the number of chunks of the record file that the index
	// handed back to the target once it had read them, for the target to
	// write again (see instrument.File.Recycle).
	Reused int
	// Waited is the time the target's goroutines waited, in all, for the
	// index to hand chunks back, once the record file had grown to the
	// size where they wait (see waitRecordFile); FileBytes is the size
	// the record file grew to.
	Waited    time.Duration
	FileBytes int64
}

// DefaultSpillAbove is the size of index above which it goes to a mapped
// file (see RecordOptions.SpillAbove).
const DefaultSpillAbove = 1 << 30

// Breakpoint roles of the recorder.
const (
	roleEntry = iota + 1
	roleReturn
	roleNewproc
	rolePanic
	roleGoexit
)

// recorder builds the index (T) of one run with Delve breakpoints on the
// entry and every return instruction of each user function.
type recorder struct {
	p    *process
	grp  *proc.TargetGroup
	tgt  *proc.Target
	bi   *proc.BinaryInfo
	prog *Program
	opts RecordOptions
	lim  Limits
	cfg  proc.LoadConfig

	roles map[int]int // logical breakpoint id → role
	// lone are the entries that are also returns: functions of a single
	// RET instruction (an empty function or method), whose one
	// breakpoint enters and leaves the frame.
	lone  map[uint64]bool
	funcs map[*proc.Function]*ufn // user functions

	rec *trace.Recording
	// frames are the frames recorded so far, in order of entry: they
	// change until they return, and go into rec at the end.
	frames []*trace.Frame
	counts map[string]int
	seq    uint64
	stacks map[int64][]open // per goroutine: the open user frames, outermost first
	spawns map[int64]spawn  // by child goroutine id: created, not started yet
	// spawnSeq passes a started spawn's creation seq from callerOf to enter.
	spawnSeq uint64
	panics   map[int64]string // per goroutine: the panic in flight
	goexit   map[int64]bool   // per goroutine: runtime.Goexit in progress
	fatal    *trace.PanicInfo
	full     bool // MaxFrames reached: no more frames are recorded
	// stopped is set once the recorder's breakpoints are cleared.
	stopped bool
}

// ufn is a user function the recorder watches.
type ufn struct {
	name string // fid name: generic functions without type parameters
	decl trace.Pos
}

// open is a frame that has been entered and not yet left.
type open struct {
	frame int   // index in r.frames
	off   int64 // frame's CFA relative to the goroutine's stack top: stable when the stack moves
}

// spawn is a goroutine created by a recorded frame, not started yet.
type spawn struct {
	by   int    // index in r.frames of the frame that ran the go statement
	seq  uint64 // when it ran
	site trace.Pos
	// indirect: library code ran the go statement for the frame (t.Run).
	indirect bool
}

// Record runs prog once under Delve and returns the index of every
// invocation of its user functions.
func Record(ctx context.Context, prog *Program, opts RecordOptions) (*trace.Recording, error) {
	lim := opts.Limits.withDefaults()
	p, err := launch(prog, lim.MaxOutput, opts.Output)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	r := &recorder{
		p: p, prog: prog, opts: opts, lim: lim, cfg: lim.loadConfig(),
		roles:  map[int]int{},
		lone:   map[uint64]bool{},
		funcs:  map[*proc.Function]*ufn{},
		rec:    &trace.Recording{},
		counts: map[string]int{},
		stacks: map[int64][]open{},
		spawns: map[int64]spawn{},
		panics: map[int64]string{},
		goexit: map[int64]bool{},
	}
	if err := r.setup(); err != nil {
		return nil, err
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	stop := context.AfterFunc(ctx, p.halt)
	defer stop()

	status, err := r.run(ctx)
	if err != nil {
		return nil, err
	}
	p.kill()
	r.finish(status, ctx.Err())
	return r.rec, nil
}

// setup finds the user functions and sets the recorder's breakpoints.
func (r *recorder) setup() error {
	grp, unlock := r.p.d.LockTargetGroup()
	r.grp = grp
	r.tgt = grp.Selected
	r.bi = r.tgt.BinInfo()
	var extra []*regexp.Regexp
	for _, pat := range r.opts.Trace {
		re, err := regexp.Compile(pat)
		if err != nil {
			unlock()
			return fmt.Errorf("bad --trace pattern %q: %v", pat, err)
		}
		extra = append(extra, re)
	}
	var entries, returns []uint64
	for i := range r.bi.Functions {
		fn := &r.bi.Functions[i]
		if !r.isUser(fn, extra) {
			continue
		}
		pc, err := proc.FirstPCAfterPrologue(r.tgt, fn, false)
		if err != nil {
			continue
		}
		// A function that always panics (or loops forever) has no RET:
		// it is entered all the same, and left by the panic.
		rets, err := returnPCs(r.tgt, fn)
		if err != nil {
			continue
		}
		file, line := r.bi.EntryLineForFunc(fn)
		r.funcs[fn] = &ufn{name: fidName(fn), decl: trace.Pos{File: file, Line: line}}
		entries = append(entries, pc)
		for _, ret := range rets {
			if ret == pc {
				// One address holds one breakpoint: the entry's.
				r.lone[pc] = true
				continue
			}
			returns = append(returns, ret)
		}
	}
	unlock()
	if len(entries) == 0 {
		return fmt.Errorf("no functions of module %q found in %s: is it built from this module's source with debug information?", r.prog.ModulePath, r.prog.Path)
	}
	// A goroutine's creation is seen where runtime.newproc1 returns the new
	// g: the parent, the child and the go statement are all known there.
	var spawnRets []uint64
	if fns := r.bi.LookupFunc()["runtime.newproc1"]; len(fns) > 0 {
		grp, unlock := r.p.d.LockTargetGroup()
		spawnRets, _ = returnPCs(grp.Selected, fns[0])
		unlock()
	}
	for _, b := range []struct {
		role  int
		addrs []uint64
	}{{roleEntry, entries}, {roleReturn, returns}, {roleNewproc, spawnRets}} {
		if len(b.addrs) == 0 {
			continue
		}
		id, err := r.p.setBreakpoint(b.addrs)
		if err != nil {
			return fmt.Errorf("setting recorder breakpoints: %w", err)
		}
		r.roles[id] = b.role
	}
	for _, b := range []struct {
		role int
		fn   string
	}{{rolePanic, "runtime.(*_panic).nextDefer"}, {roleGoexit, "runtime.Goexit"}} {
		id, err := r.p.setFuncBreakpoint(b.fn)
		if err != nil {
			continue // not linked into this binary: nothing to watch
		}
		r.roles[id] = b.role
	}
	return nil
}

// isUser reports whether fn belongs to the target's own code: package main
// or the main module, written by a person (not a compiler wrapper), or
// matched by a --trace pattern.
func (r *recorder) isUser(fn *proc.Function, extra []*regexp.Regexp) bool {
	if fn.Entry == 0 || fn.Trampoline {
		return false
	}
	name := fn.Name
	if strings.Contains(name, ".deferwrap") || strings.Contains(name, ".gowrap") ||
		strings.HasPrefix(name, "type:") || strings.HasSuffix(name, "-fm") {
		return false
	}
	for _, re := range extra {
		if re.MatchString(name) {
			return true
		}
	}
	pkg := fn.PackageName()
	mod := r.prog.ModulePath
	if pkg != "main" && (mod == "" || pkg != mod && !strings.HasPrefix(pkg, mod+"/") && !strings.HasPrefix(pkg, mod+"_test")) {
		return false
	}
	// Compiler-generated code of user packages: equality functions, method
	// wrappers, the test main, and the package initializer (pkg.init: the
	// init functions a person writes are pkg.init.0, pkg.init.1, …), which
	// is placed at a variable's line when it has code of its own.
	if name == pkg+".init" || rangeBody.MatchString(name) {
		return false
	}
	file, _, _ := r.bi.PCToLine(fn.Entry)
	return file != "" && file != "<autogenerated>" && !strings.HasSuffix(file, "_testmain.go")
}

// rangeBody matches the name of the body of a range-over-func loop, which
// the compiler makes a closure (pkg.F-range1) that the iterator calls: a
// person wrote a loop's body, not a function, and the instrumenting
// recorder has no hooks in it. Calls from the body are the iterator's
// callees in both recorders.
var rangeBody = regexp.MustCompile(`-range[0-9]+$`)

// returnPCs lists the addresses of fn's return instructions.
func returnPCs(tgt *proc.Target, fn *proc.Function) ([]uint64, error) {
	insts, err := proc.Disassemble(tgt.Memory(), nil, tgt.Breakpoints(), tgt.BinInfo(), fn.Entry, fn.End)
	if err != nil {
		return nil, err
	}
	var pcs []uint64
	for i := range insts {
		if insts[i].IsRet() {
			pcs = append(pcs, insts[i].Loc.PC)
		}
	}
	return pcs, nil
}

// run continues the target from stop to stop until it exits, and returns
// its exit status.
func (r *recorder) run(ctx context.Context) (int, error) {
	for {
		if ctx.Err() != nil {
			return -1, nil
		}
		grp, unlock := r.p.d.LockTargetGroup()
		err := grp.Continue()
		if status, ok := exited(err); ok {
			unlock()
			return status, nil
		}
		if err != nil {
			unlock()
			if ctx.Err() != nil {
				return -1, nil
			}
			return 0, fmt.Errorf("recording: %w", err)
		}
		for _, th := range grp.Selected.ThreadList() {
			bs := th.Breakpoint()
			if bs == nil || bs.Breakpoint == nil || !bs.Active {
				continue
			}
			r.event(th, bs.Breakpoint)
		}
		full := r.full
		unlock()
		if full {
			if err := r.stopRecording(); err != nil {
				return 0, err
			}
		}
		if r.opts.Progress != nil && len(r.frames)%4096 == 0 && len(r.frames) > 0 {
			r.opts.Progress(len(r.frames))
		}
	}
}

// stopRecording clears the recorder's breakpoints once MaxFrames is reached;
// the run goes on to its end so that its outcome is known.
func (r *recorder) stopRecording() error {
	for id, role := range r.roles {
		if role == roleEntry || role == roleReturn || role == roleNewproc {
			if err := r.p.clearBreakpoint(id); err != nil {
				return err
			}
			delete(r.roles, id)
		}
	}
	r.rec.Partial = fmt.Sprintf("frame limit reached: only the first %d frames were recorded (raise --max-frames)", r.lim.MaxFrames)
	r.rec.Dropped = true
	// Entries after the last one recorded were not, nor were those the
	// same stop saw after it.
	r.rec.CompleteBefore = r.frames[len(r.frames)-1].EntrySeq
	r.full = false
	r.stopped = true
	return nil
}

// event handles one breakpoint hit on thread th.
func (r *recorder) event(th proc.Thread, bp *proc.Breakpoint) {
	if bp.Logical == nil {
		return
	}
	switch bp.Logical.Name {
	case proc.UnrecoveredPanic, proc.FatalThrow:
		r.fatalStop(th)
		return
	}
	if r.roles[bp.Logical.LogicalID] == roleNewproc {
		r.newproc(th) // on the system stack: no user goroutine here
		return
	}
	g, err := proc.GetG(th)
	if err != nil || g == nil {
		return
	}
	switch r.roles[bp.Logical.LogicalID] {
	case roleEntry:
		r.enter(th, g)
		if r.lone[bp.Addr] {
			r.leave(th, g)
		}
	case roleReturn:
		r.leave(th, g)
	case rolePanic:
		if msg := r.panicValue(th); msg != "" {
			r.panics[g.ID] = msg
		}
	case roleGoexit:
		r.goexit[g.ID] = true
	}
}

// enter records a new frame.
func (r *recorder) enter(th proc.Thread, g *proc.G) {
	if r.full {
		return
	}
	st, err := proc.ThreadStacktrace(r.tgt, th, 2)
	if err != nil || len(st) == 0 || st[0].Current.Fn == nil {
		return
	}
	u := r.funcs[st[0].Current.Fn]
	if u == nil {
		return
	}
	off := st[0].FrameOffset()
	stack := r.unwindTo(g.ID, off, false)

	r.counts[u.name]++
	f := &trace.Frame{
		FID:       trace.FID{Func: u.name, Index: r.counts[u.name]},
		Goroutine: g.ID,
		Decl:      u.decl,
		Exit:      trace.Running,
		EntrySeq:  r.next(),
	}
	caller, site, indirect, spawned := r.callerOf(th, g, st, stack)
	if caller >= 0 {
		f.Caller = r.frames[caller].FID
		f.CallSite = site
		f.Spawn = spawned
		f.Indirect = indirect
		if spawned {
			f.SpawnSeq = r.spawnSeq
		}
	}
	if scope, err := proc.GoroutineScope(r.tgt, th); err == nil {
		if vars, err := readVars(scope, r.cfg, false); err == nil {
			f.Args = convertVars(filterVars(vars, false))
		}
	}
	r.frames = append(r.frames, f)
	r.stacks[g.ID] = append(r.stacks[g.ID], open{frame: len(r.frames) - 1, off: off})
	if len(r.frames) >= r.lim.MaxFrames {
		r.full = true
	}
}

// callerOf finds the frame that called (or spawned) the frame being entered.
func (r *recorder) callerOf(th proc.Thread, g *proc.G, st []proc.Stackframe, stack []open) (caller int, site trace.Pos, indirect, spawned bool) {
	if len(st) > 1 && st[1].Current.Fn != nil && r.funcs[st[1].Current.Fn] != nil && len(stack) > 0 &&
		stack[len(stack)-1].off == st[1].FrameOffset() {
		// The common case: called directly by the innermost open frame.
		return stack[len(stack)-1].frame, callPos(&st[1]), false, false
	}
	deep, err := proc.ThreadStacktrace(r.tgt, th, 64)
	if err == nil {
		for i := 1; i < len(deep); i++ {
			fn := deep[i].Current.Fn
			if fn == nil {
				continue
			}
			if fn.Name == "runtime.gopanic" {
				// A deferred call run by a panic belongs to the frame that
				// deferred it, not to the panicking frame below; its call
				// site is where that frame was when the panic went through.
				owner := deferOwner(deep[i-1].Current.Fn, st[0].Current.Fn)
				for j := len(stack) - 1; j >= 0; j-- {
					if r.frames[stack[j].frame].FID.Func != owner {
						continue
					}
					site := trace.Pos{}
					for k := i + 1; k < len(deep); k++ {
						if deep[k].FrameOffset() == stack[j].off {
							site = callPos(&deep[k])
						}
					}
					return stack[j].frame, site, false, false
				}
				continue
			}
			if r.funcs[fn] == nil {
				continue
			}
			off := deep[i].FrameOffset()
			for j := len(stack) - 1; j >= 0; j-- {
				if stack[j].off == off {
					return stack[j].frame, callPos(&deep[i]), i > 1, false
				}
			}
		}
	}
	if s, ok := r.spawns[g.ID]; ok && len(stack) == 0 {
		delete(r.spawns, g.ID)
		r.spawnSeq = s.seq
		return s.by, s.site, s.indirect, true
	}
	return -1, trace.Pos{}, false, false
}

// callPos is where a stack frame made its call.
func callPos(fr *proc.Stackframe) trace.Pos {
	return trace.Pos{File: fr.Call.File, Line: fr.Call.Line}
}

// deferOwner names the function that deferred a call run by gopanic: the
// deferwrap's or closure's enclosing function.
func deferOwner(called, entered *proc.Function) string {
	name := fidName(entered)
	if called != nil && strings.Contains(called.Name, ".deferwrap") {
		name = fidName(called)
		return name[:strings.Index(name, ".deferwrap")]
	}
	if i := strings.LastIndex(name, ".func"); i > 0 {
		return name[:i]
	}
	return name
}

// leave records the exit of the frame returning on g.
func (r *recorder) leave(th proc.Thread, g *proc.G) {
	st, err := proc.ThreadStacktrace(r.tgt, th, 0)
	if err != nil || len(st) == 0 {
		return
	}
	off := st[0].FrameOffset()
	stack := r.unwindTo(g.ID, off, true)
	if len(stack) == 0 || stack[len(stack)-1].off != off {
		return // entered before recording started, or after it stopped
	}
	f := r.frames[stack[len(stack)-1].frame]
	r.stacks[g.ID] = stack[:len(stack)-1]
	f.Exit = trace.Returned
	f.ExitSeq = r.next()
	if scope, err := proc.GoroutineScope(r.tgt, th); err == nil {
		if vars, err := readVars(scope, r.cfg, false); err == nil {
			f.Results = convertVars(filterVars(vars, true))
		}
	}
}

// unwindTo pops the open frames of goroutine goid that are at offset off or
// deeper (at is true: strictly deeper); they were left without a return, so
// a panic or runtime.Goexit unwound them.
func (r *recorder) unwindTo(goid int64, off int64, keepAt bool) []open {
	stack := r.stacks[goid]
	unwound := false
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		if top.off > off || keepAt && top.off == off {
			break
		}
		r.unwound(goid, r.frames[top.frame])
		unwound = true
		stack = stack[:len(stack)-1]
	}
	r.stacks[goid] = stack
	if unwound && keepAt {
		// A frame returned normally after frames below it were unwound: the
		// panic was recovered.
		delete(r.panics, goid)
	}
	return stack
}

// unwound marks f as left without returning.
func (r *recorder) unwound(goid int64, f *trace.Frame) {
	f.ExitSeq = r.next()
	switch {
	case r.panics[goid] != "":
		f.Exit, f.Panic = trace.Panicked, r.panics[goid]
	case r.goexit[goid]:
		f.Exit = trace.Goexited
	default:
		f.Exit = trace.Running
	}
}

// newproc notes the goroutine that runtime.newproc1 is returning, when a
// recorded frame created it: the parent's innermost open frame ran the go
// statement, or called library code that did (t.Run starting a subtest).
func (r *recorder) newproc(th proc.Thread) {
	scope, err := proc.ThreadScope(r.tgt, th)
	if err != nil {
		return
	}
	// The result is not readable at the return; the local newg is.
	parent, ok1 := evalInt(scope, "callergp.goid")
	child, ok2 := evalInt(scope, "newg.goid")
	stack := r.stacks[parent]
	if !ok1 || !ok2 || len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	sp := spawn{by: top.frame, seq: r.next()}
	if g, err := proc.FindGoroutine(r.tgt, parent); err == nil && g != nil {
		if st, err := proc.GoroutineStacktrace(r.tgt, g, 64, 0); err == nil {
			for i := range st {
				if st[i].FrameOffset() == top.off {
					sp.site = callPos(&st[i])
					// Frames between the spawner and runtime.newproc are
					// library code.
					sp.indirect = i > 1 && st[i-1].Current.Fn != nil && st[i-1].Current.Fn.Name != "runtime.newproc"
					break
				}
			}
		}
	}
	r.spawns[child] = sp
}

// evalInt evaluates an integer expression in scope.
func evalInt(scope *proc.EvalScope, expr string) (int64, bool) {
	v, err := scope.EvalExpression(expr, proc.LoadConfig{})
	if err != nil || v.Unreadable != nil || v.Value == nil {
		return 0, false
	}
	return constantInt(v)
}

// panicValue renders the value of a panic in flight on th, or "" when the
// stop is not a panic's. The breakpoint is on runtime.(*_panic).nextDefer,
// which runs for every deferred call: of a panic, of runtime.Goexit and of a
// normal return (deferreturn). At the entry of gopanic its argument is not
// readable yet.
func (r *recorder) panicValue(th proc.Thread) string {
	scope, err := proc.GoroutineScope(r.tgt, th)
	if err != nil {
		return ""
	}
	p, err := scope.EvalExpression("*p", r.cfg)
	if err != nil {
		return ""
	}
	v := convertValue(apiVar(p))
	for _, flag := range []string{"deferreturn", "goexit"} {
		if c, ok := v.Child(flag); !ok || c.Text != "false" {
			return ""
		}
	}
	arg, ok := v.Child("arg")
	if !ok {
		return ""
	}
	return panicText(*arg)
}

// fatalStop captures the stack of an unrecovered panic or fatal error.
func (r *recorder) fatalStop(th proc.Thread) {
	g, err := proc.GetG(th)
	if err != nil || g == nil {
		return
	}
	info := &trace.PanicInfo{Value: r.panics[g.ID], Goroutine: g.ID}
	st, err := proc.ThreadStacktrace(r.tgt, th, 64)
	if err == nil {
		stack := r.stacks[g.ID]
		for _, fr := range st {
			if fr.Current.Fn == nil {
				continue
			}
			// Call is the calling instruction's position (Current, for an
			// outer frame, is the return address, often the next line).
			e := trace.StackEntry{Func: fr.Current.Fn.Name, Pos: trace.Pos{File: fr.Call.File, Line: fr.Call.Line}}
			if r.funcs[fr.Current.Fn] != nil {
				e.Func = r.funcs[fr.Current.Fn].name
				for j := len(stack) - 1; j >= 0; j-- {
					if stack[j].off == fr.FrameOffset() {
						e.FID = r.frames[stack[j].frame].FID
						if info.Frame.IsZero() {
							info.Frame = e.FID
						}
						break
					}
				}
			}
			info.Stack = append(info.Stack, e)
		}
	}
	r.fatal = info
}

func (r *recorder) next() uint64 {
	r.seq++
	return r.seq
}

// finish fills the outcome once the process has ended.
func (r *recorder) finish(status int, ctxErr error) {
	out := &r.rec.Outcome
	out.ExitCode = status
	out.Stdout = r.p.stdout.String()
	out.Stderr = r.p.stderr.String()
	if ctxErr != nil {
		out.Killed = true
		out.ExitCode = -1
		msg := "the run was interrupted"
		if errors.Is(ctxErr, context.DeadlineExceeded) && r.opts.Timeout > 0 {
			msg = fmt.Sprintf("the run was killed after the timeout of %s (raise --timeout)", r.opts.Timeout)
		}
		r.rec.Partial = strings.TrimPrefix(r.rec.Partial+"; "+msg, "; ")
	}
	if r.fatal != nil {
		if msg := panicMessage(out.Stderr); msg != "" {
			r.fatal.Value = msg
		}
		out.Panic = r.fatal
	}
	for goid, stack := range r.stacks {
		for _, o := range stack {
			f := r.frames[o.frame]
			switch {
			case r.fatal != nil && goid == r.fatal.Goroutine:
				f.Exit, f.Panic = trace.Panicked, r.fatal.Value
			case r.goexit[goid]:
				// runtime.Goexit (t.FailNow) ended the goroutine: nothing
				// ran on it after, to see its frames go.
				f.Exit = trace.Goexited
			case r.stopped:
				// Its return came after the recording stopped.
				f.Exit = trace.Unrecorded
			}
		}
	}
	out.FailedTests = failedTests(out.Stdout)
	if out.ExitCode == 0 && !out.Killed {
		out.ExitCode = failedStatus(out)
	}
	for _, f := range r.frames {
		r.rec.Add(f)
	}
	r.rec.Index()
}

// failedStatus is the exit status a run's outcome shows the program had,
// 0 when it shows none. Delve reports 0 for a process that ends while it
// stops or resumes its threads (its native backend loses the status
// then), but a Go program does not exit 0 after an unrecovered panic or a
// fatal error (the runtime exits 2), nor a test binary that printed FAIL
// last (it exits 1).
func failedStatus(out *trace.Outcome) int {
	if out.Panic != nil {
		return 2
	}
	rest := strings.TrimRight(out.Stdout, "\n")
	if last := rest[strings.LastIndexByte(rest, '\n')+1:]; last == "FAIL" && len(out.FailedTests) > 0 {
		return 1
	}
	return 0
}

// panicMessage extracts the message of the first "panic: " or "fatal error: "
// line of a Go program's standard error.
func panicMessage(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		for _, p := range []string{"panic: ", "fatal error: "} {
			if msg, ok := strings.CutPrefix(line, p); ok {
				if i := strings.Index(msg, " [recovered"); i >= 0 {
					msg = msg[:i]
				}
				if p == "fatal error: " {
					msg = p + msg
				}
				return msg
			}
		}
	}
	return ""
}

// failedTests lists the tests that the testing package reports as failed,
// subtests by their full name.
func failedTests(stdout string) []string {
	var out []string
	for _, line := range strings.Split(stdout, "\n") {
		t := strings.TrimLeft(line, " ")
		if rest, ok := strings.CutPrefix(t, "--- FAIL: "); ok {
			if i := strings.Index(rest, " ("); i >= 0 {
				rest = rest[:i]
			}
			out = append(out, rest)
		}
	}
	return out
}

// filterVars keeps the arguments (results false) or the results (true).
func filterVars(vars []*proc.Variable, results bool) []*proc.Variable {
	out := vars[:0:0]
	for _, v := range vars {
		if (v.Flags&proc.VariableReturnArgument != 0) == results {
			out = append(out, v)
		}
	}
	return out
}

// fidName is the name a frame id uses for fn: the runtime's spelling, with
// the type arguments of generic code written "[...]" whatever the
// instantiation, so that all instantiations share one invocation count.
func fidName(fn *proc.Function) string {
	name := fn.Name
	if !strings.Contains(name, "[") {
		return name
	}
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			if depth == 0 {
				b.WriteString("[...]")
			}
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
