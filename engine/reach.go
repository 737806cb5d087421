package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// ErrDiverged is returned when a re-execution does not reproduce the
// recorded run: the program is not deterministic (time, randomness,
// scheduling, the environment), so the deep tier cannot be trusted for it.
var ErrDiverged = errors.New("re-execution diverged from the recording")

// DivergenceError says where the re-execution differed.
type DivergenceError struct {
	FID    trace.FID
	Detail string
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("%s at %s: %s; the program is not deterministic (time, randomness, goroutine scheduling or its environment), so adi cannot build a trustworthy trace of this frame", ErrDiverged, e.FID, e.Detail)
}

func (e *DivergenceError) Unwrap() error { return ErrDiverged }

// inFrame is a live process stopped at the entry of a recorded frame.
type inFrame struct {
	p     *process
	rec   *trace.Recording
	frame *trace.Frame
	fn    *proc.Function
	goid  int64
	off   int64 // the frame's CFA relative to its stack top
	lim   Limits
	// stepping is how walk moves through the frame.
	stepping stepping
	// panics: the panic that ended the run ends the frame or one below
	// it (see runsAlone).
	panics bool
	// goLines are the lines of the function that run a go statement.
	goLines map[int]bool
	// argsFilled is set when the debugger read arguments the
	// recording kept only the shape of.
	argsFilled bool
	// indirectEntries are the entry addresses of the functions that
	// library code called for this frame, per the recording.
	indirectEntries []uint64
	// callees are the frame's direct callees in the recording (see
	// directCallee); calleesLost is set when the walk's calls stopped
	// matching them.
	callees     *calleeList
	calleesLost bool
	// noSkip turns off the counting of a callee's recursive entries when
	// a call is stepped over with a return breakpoint (see skipAhead).
	noSkip bool
	// atPanic is the frame's arguments and locals when a panic last
	// started on its goroutine while the frame was open (see notePanic):
	// a frame the panic unwinds has no next statement whose visit would
	// read what its last one changed.
	atPanic *snapshot
}

// snapshot is the arguments and locals of a frame at one point, by name
// and in order.
type snapshot struct {
	vals  map[string]trace.Value
	order []string
}

// reach re-executes prog to the entry of frame f (the f.FID.Index-th
// invocation of its function) and checks that the arguments there are the
// recorded ones.
func reach(ctx context.Context, prog *Program, rec *trace.Recording, f *trace.Frame, lim Limits) (*inFrame, error) {
	p, err := launch(prog, lim.MaxOutput, nil)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, p.halt)
	defer stop()
	in, err := reachIn(ctx, p, f, route(rec, f, p.counter() != nil), lim)
	if err != nil {
		p.kill()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("re-executing to %s: %w", f.FID, ctx.Err())
		}
		return nil, err
	}
	in.rec = rec
	if in.argsFilled && f.Seq < rec.Len() && rec.FIDOf(f.Seq) == f.FID {
		rec.SetArgs(f.Seq, f.Args)
	}
	in.indirectEntries = indirectEntries(p, rec, f)
	return in, nil
}

// indirectEntries lists the entry addresses of the functions of f's
// callees that library code called for it.
func indirectEntries(p *process, rec *trace.Recording, f *trace.Frame) []uint64 {
	names := map[string]bool{}
	for _, c := range rec.Children(f.Seq) {
		if rec.IndirectOf(int(c)) {
			names[rec.FuncOf(int(c))] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	grp, unlock := p.d.LockTargetGroup()
	defer unlock()
	bi := grp.Selected.BinInfo()
	var pcs []uint64
	for i := range bi.Functions {
		fn := &bi.Functions[i]
		if fn.Entry == 0 || !names[fidName(fn)] {
			continue
		}
		if pc, err := proc.FirstPCAfterPrologue(grp.Selected, fn, false); err == nil {
			pcs = append(pcs, pc)
		}
	}
	return pcs
}

// hop is a stop on the way to a frame: the entry of frame at, the hits-th
// entry of its function after the previous stop (after the start, for the
// first), counting only the entries on the previous stop's goroutine when
// local; or, when spawns is set, on the goroutine that the previous stop's
// goroutine created spawns-th after it.
type hop struct {
	at     trace.FID
	hits   int
	local  bool
	spawns int
}

// route plans the re-execution to frame f. Counting the entries of f's
// function from the start costs a stop for each earlier invocation
// (semver.isIdentChar#1688: 1,688 stops). Stopping first at one of f's
// callers, and counting from there only the entries of f's function made
// after it (trace.Recording.EntriesBetween), can cost far fewer: route
// takes the cheapest way down the callers, as long as the recording can
// count (it left no frames out).
//
// A count of a function whose frames ran on several goroutines depends on
// how the scheduler interleaved them (parallel tests): it may reach
// another invocation in the re-execution, which the argument check then
// calls a divergence. Counting from a caller on the frame's own goroutine
// only that goroutine's entries (trace.Recording.EntriesBetweenOn) does
// not, so route takes such a way whenever there is one.
//
// When the binary counts entries itself (counted: see counting), a hop
// costs the same whatever its count, and route takes the way with the
// fewest hops.
func route(rec *trace.Recording, f *trace.Frame, counted bool) []hop {
	direct := []hop{{at: f.FID, hits: f.FID.Index}}
	if rec == nil || f.Seq < 0 || f.Seq >= rec.Len() || rec.FIDOf(f.Seq) != f.FID {
		return direct
	}
	// f and its callers, up to a bound (a deep recursion would make the
	// search below quadratic in its depth for little).
	var chain []int
	for s := f.Seq; s >= 0 && len(chain) < 128; s = rec.ParentOf(s) {
		chain = append(chain, s)
	}
	// A count that the scheduler can change costs more than any other,
	// the more so the more entries it counts (each is a chance for
	// another goroutine's to come first): of the ways that need one, the
	// one that counts the fewest such entries (the 4th call of a parallel
	// test's decoder rather than the 32,743rd of its lexer's helper).
	shared := map[string]bool{}
	risk := func(s, n int) int {
		fn := rec.FuncOf(s)
		on, ok := shared[fn]
		if !ok {
			on = rec.OnGoroutines(fn)
			shared[fn] = on
		}
		if on {
			return n << 20
		}
		return 0
	}
	// stops is what counting n entries costs.
	stops := func(n int) int {
		if counted {
			return min(n, 2)
		}
		return n
	}
	// count is the hop from chain[j] to chain[i].
	count := func(j, i int) (hop, int, bool) {
		h := hop{at: rec.FIDOf(chain[i])}
		if n, ok := rec.SpawnsBefore(chain[j], chain[i]); ok {
			h.hits, h.local, h.spawns = 1, true, n
			return h, n + 1, true
		}
		if n, ok := rec.EntriesBetweenOn(chain[j], chain[i]); ok {
			h.hits, h.local = n, true
			return h, stops(n), true
		}
		n, ok := rec.EntriesBetween(chain[j], chain[i])
		h.hits = n
		return h, stops(n) + risk(chain[i], n), ok
	}
	// cost[i]: the stops to reach chain[i]; via[i]: the caller stopped at
	// before it, -1 for none.
	cost := make([]int, len(chain))
	via := make([]int, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		n := rec.FIDOf(chain[i]).Index
		cost[i], via[i] = stops(n)+risk(chain[i], n), -1
		for j := i + 1; j < len(chain); j++ {
			if _, n, ok := count(j, i); ok && cost[j]+n < cost[i] {
				cost[i], via[i] = cost[j]+n, j
			}
		}
	}
	var hops []hop
	for i := 0; i >= 0; i = via[i] {
		h := hop{at: rec.FIDOf(chain[i]), hits: rec.FIDOf(chain[i]).Index}
		if via[i] >= 0 {
			h, _, _ = count(via[i], i)
		}
		hops = append(hops, h)
	}
	slices.Reverse(hops)
	return hops
}

// reachIn runs the process along hops to frame f (the last hop's stop).
func reachIn(ctx context.Context, p *process, f *trace.Frame, hops []hop, lim Limits) (*inFrame, error) {
	from := "the start"
	goid := int64(-1) // the goroutine of the previous stop
	for i, h := range hops {
		last := i == len(hops)-1
		in, g, err := p.stopAt(ctx, f, h, from, goid, last, lim)
		if err != nil || last {
			return in, err
		}
		from, goid = h.at.String(), g
	}
	return nil, fmt.Errorf("internal error: no way to %s", f.FID)
}

// stopAt continues the process from where it is (from, the previous hop's
// frame, on goroutine goid) to the h.hits-th entry of h.at's function. At
// the last hop it checks the arguments there against f's; before, it
// returns the goroutine it stopped on.
func (p *process) stopAt(ctx context.Context, f *trace.Frame, h hop, from string, goid int64, last bool, lim Limits) (*inFrame, int64, error) {
	since := from
	if h.spawns > 0 {
		g, err := p.spawned(ctx, f, h.spawns, goid, from)
		if err != nil {
			return nil, 0, err
		}
		goid = g
		since = fmt.Sprintf("the goroutine that %s created %d%s", from, h.spawns, ordinal(h.spawns))
	} else if h.local {
		since += " on its goroutine"
	}
	addrs, ranges, counted := p.instances(h.at.Func)
	if len(addrs) == 0 {
		return nil, 0, &DivergenceError{FID: f.FID, Detail: fmt.Sprintf("the function %s is not in the binary", h.at.Func)}
	}
	hits := 0
	if counted && h.hits > 1 && len(ranges) <= ctlRanges {
		// All but the last entry are counted in the process.
		g := int64(-1)
		if h.local {
			g = goid
		}
		early, err := p.countEntries(ctx, p.counter(), ranges, h.hits-1, g)
		if err != nil {
			return nil, 0, err
		}
		if early {
			return nil, 0, &DivergenceError{FID: f.FID, Detail: fmt.Sprintf("the program exited after fewer than %d invocation(s) of %s since %s", h.hits, h.at.Func, since)}
		}
		hits = h.hits - 1
	}
	id, err := p.setBreakpoint(addrs)
	if err != nil {
		return nil, 0, err
	}
	defer p.clearBreakpoint(id)
	cfg := lim.loadConfig()
	for {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		grp, unlock := p.d.LockTargetGroup()
		err := grp.Continue()
		p.stops++
		if _, ok := exited(err); ok {
			unlock()
			return nil, 0, &DivergenceError{FID: f.FID, Detail: fmt.Sprintf("the program exited after only %d invocation(s) of %s since %s", hits, h.at.Func, since)}
		}
		if err != nil {
			unlock()
			return nil, 0, err
		}
		for _, th := range grp.Selected.ThreadList() {
			bs := th.Breakpoint()
			if bs == nil || bs.Breakpoint == nil || !bs.Active || bs.Breakpoint.Logical == nil || bs.Breakpoint.Logical.LogicalID != id {
				continue
			}
			if h.local {
				if g, err := proc.GetG(th); err != nil || g == nil || g.ID != goid {
					continue
				}
			}
			hits++
			if hits < h.hits {
				continue
			}
			g, err := proc.GetG(th)
			if err != nil || g == nil {
				unlock()
				return nil, 0, fmt.Errorf("reading the goroutine at %s: %v", h.at, err)
			}
			if !last {
				err := grp.Selected.SwitchThread(th.ThreadID())
				unlock()
				return nil, g.ID, err
			}
			in, err := enterFrame(grp.Selected, th, p, f, cfg)
			unlock()
			if err != nil {
				return nil, 0, err
			}
			in.lim = lim
			return in, g.ID, nil
		}
		unlock()
	}
}

// instances returns the entry addresses (after the prologue) and the code
// ranges of the instances of the function named fn (one but for generic
// functions), and whether the counting hook counts their entries: it
// counts those of every instance, or none.
func (p *process) instances(fn string) (addrs []uint64, ranges [][2]uint64, counted bool) {
	counted = p.counter() != nil
	grp, unlock := p.d.LockTargetGroup()
	defer unlock()
	bi := grp.Selected.BinInfo()
	for i := range bi.Functions {
		f := &bi.Functions[i]
		if f.Entry == 0 || fidName(f) != fn {
			continue
		}
		if pc, err := proc.FirstPCAfterPrologue(grp.Selected, f, false); err == nil {
			addrs = append(addrs, pc)
			ranges = append(ranges, [2]uint64{f.Entry, f.End})
			counted = counted && callsCounter(grp.Selected, f, pc)
		}
	}
	return addrs, ranges, counted
}

// spawned continues the process to the n-th goroutine that goroutine
// goid creates (the previous hop's frame, from, runs there), and returns
// its id. A goroutine's creation is seen where runtime.newproc1 returns:
// its creator and the new goroutine are its callergp and newg there.
func (p *process) spawned(ctx context.Context, f *trace.Frame, n int, goid int64, from string) (int64, error) {
	grp, unlock := p.d.LockTargetGroup()
	var rets []uint64
	if fns := grp.Selected.BinInfo().LookupFunc()["runtime.newproc1"]; len(fns) > 0 {
		rets, _ = returnPCs(grp.Selected, fns[0])
	}
	unlock()
	if len(rets) == 0 {
		return 0, &DivergenceError{FID: f.FID, Detail: "runtime.newproc1 is not in the binary: the goroutines created cannot be counted"}
	}
	id, err := p.setBreakpoint(rets)
	if err != nil {
		return 0, err
	}
	defer p.clearBreakpoint(id)
	seen := 0
	for {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		grp, unlock := p.d.LockTargetGroup()
		err := grp.Continue()
		p.stops++
		if _, ok := exited(err); ok {
			unlock()
			return 0, &DivergenceError{FID: f.FID, Detail: fmt.Sprintf("the program exited after %s created only %d goroutine(s)", from, seen)}
		}
		if err != nil {
			unlock()
			return 0, err
		}
		for _, th := range grp.Selected.ThreadList() {
			bs := th.Breakpoint()
			if bs == nil || bs.Breakpoint == nil || !bs.Active || bs.Breakpoint.Logical == nil || bs.Breakpoint.Logical.LogicalID != id {
				continue
			}
			scope, err := proc.ThreadScope(grp.Selected, th)
			if err != nil {
				continue
			}
			if parent, ok := evalInt(scope, "callergp.goid"); !ok || parent != goid {
				continue
			}
			if seen++; seen < n {
				continue
			}
			child, ok := evalInt(scope, "newg.goid")
			unlock()
			if !ok {
				return 0, fmt.Errorf("reading the goroutine %s created", from)
			}
			return child, nil
		}
		unlock()
	}
}

// ordinal is the English suffix of n as an ordinal number (1st, 2nd, …).
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// enterFrame checks the arguments at the frame's entry and selects its
// goroutine for stepping.
func enterFrame(tgt *proc.Target, th proc.Thread, p *process, f *trace.Frame, cfg proc.LoadConfig) (*inFrame, error) {
	g, err := proc.GetG(th)
	if err != nil {
		return nil, err
	}
	st, err := proc.ThreadStacktrace(tgt, th, 0)
	if err != nil || len(st) == 0 {
		return nil, fmt.Errorf("reading the stack at %s: %v", f.FID, err)
	}
	scope, err := proc.GoroutineScope(tgt, th)
	if err != nil {
		return nil, err
	}
	vars, err := readVars(scope, cfg, false)
	if err != nil {
		return nil, err
	}
	argVars := filterVars(vars, false)
	args := convertVars(argVars)
	if d := diffArgs(f.Args, args, argVars, p.tmp); d != "" {
		return nil, &DivergenceError{FID: f.FID, Detail: d}
	}
	// Composite arguments that the instrumenting recorder kept shallowly
	// are filled in from the debugger, now that it is at the frame, and
	// so are the names of constants (see number).
	filled := false
	for i := range f.Args {
		if args[i].Error == "" && (shallow(&f.Args[i]) || named(&f.Args[i], &args[i])) {
			f.Args[i] = args[i]
			filled = true
		}
	}
	if err := tgt.SwitchThread(th.ThreadID()); err != nil {
		return nil, err
	}
	return &inFrame{p: p, frame: f, fn: st[0].Current.Fn, goid: g.ID, off: st[0].FrameOffset(), argsFilled: filled}, nil
}

// diffArgs describes the first difference between recorded and observed
// arguments, or returns ""; got are Delve's variables vars converted, tmp
// is the target's temporary directory. An argument whose kind is uintptr
// is not compared: it is a PC or an address (runtime.Callers' PCs, a
// pointer's bits), which differ between the instrumented build that
// recorded the run and the debug build that runs it again, and may differ
// from run to run.
func diffArgs(want, got []trace.Value, vars []*proc.Variable, tmp string) string {
	if len(want) != len(got) {
		return fmt.Sprintf("the frame has %d arguments, the recording %d", len(got), len(want))
	}
	for i := range want {
		if isUintptr(vars[i]) {
			continue
		}
		if !sameArg(&want[i], &got[i], tmp) {
			if got[i].Text == want[i].Text {
				return fmt.Sprintf("argument %s is %s of type %s, the recording has %s of type %s", want[i].Name, got[i].Text, got[i].Type, want[i].Text, want[i].Type)
			}
			return fmt.Sprintf("argument %s is %s, the recording has %s", want[i].Name, got[i].Text, want[i].Text)
		}
	}
	return ""
}

// isUintptr reports whether v's type is uintptr, or a type defined on it:
// Delve's kind is reflect.Uint for every unsigned integer, the debug
// information's is the type's own.
func isUintptr(v *proc.Variable) bool {
	return v.RealType != nil && v.RealType.Common().ReflectKind == reflect.Uintptr
}

// sameArg reports whether an argument observed at the frame's entry is the
// recorded one. The instrumenting recorder records composite values
// shallowly (Cut, without children): for those only the kind, nil-ness and
// length are compared. An argument Delve cannot read is taken to be the
// recorded one. A path in the temporary directory tmp is the same
// whatever random names os.MkdirTemp and t.TempDir gave it (see
// sameTempPath), and so is the address of a local server whatever its
// port (see sameLoopback).
func sameArg(want, got *trace.Value, tmp string) bool {
	if got.Error != "" {
		// Delve could not read it ("error loading module data"): that
		// refutes nothing.
		return true
	}
	if w, _, ok := want.TestName(); ok {
		// Which test a *testing.T runs: another subtest's frame is another
		// frame.
		if g, _, ok := got.TestName(); ok {
			return w == g
		}
	}
	if shallow(want) {
		return want.Kind == got.Kind && want.Nil == got.Nil &&
			(want.Kind != trace.KindSlice && want.Kind != trace.KindMap || want.Len == got.Len)
	}
	if want.Same(got) {
		return true
	}
	return named(want, got) || want.Kind == trace.KindString && want.Type == got.Type &&
		(sameTempPath(want.Text, got.Text, tmp) || sameLoopback(want.Text, got.Text))
}

// loopbackRE matches the address of a server on this machine, whose port
// the system chose (httptest.NewServer, net.Listen("tcp", ":0")).
var loopbackRE = regexp.MustCompile(`(\b127\.0\.0\.1|\[::1\]|\blocalhost):[0-9]{2,5}\b`)

// sameLoopback reports whether two string values are the same but for the
// ports of the local servers they name, which differ from run to run.
func sameLoopback(want, got string) bool {
	if !loopbackRE.MatchString(want) {
		return false
	}
	return loopbackRE.ReplaceAllString(want, "$1:#") == loopbackRE.ReplaceAllString(got, "$1:#")
}

// named reports whether got is the integer want named by constants of its
// type: Delve names a value of a type with constants by them,
// "ExitOnError (1)" or "Read|Write (3)", where the instrumenting recorder
// has "1" and "3".
func named(want, got *trace.Value) bool {
	return (want.Kind == trace.KindInt || want.Kind == trace.KindUint) && want.Kind == got.Kind && want.Type == got.Type &&
		want.Text != got.Text && number(want.Text) == number(got.Text)
}

// number is the number of an integer's text (see named).
func number(text string) string {
	if strings.HasSuffix(text, ")") {
		if i := strings.LastIndex(text, " ("); i >= 0 {
			return text[i+2 : len(text)-1]
		}
	}
	return text
}

// sameTempPath reports whether two string values (their quoted text) are
// one path in the temporary directory tmp, made by two runs: the same but
// for the random numbers of the names os.MkdirTemp and os.CreateTemp made
// (a decimal uint32, so in practice runs of 6 digits or more: t.TempDir's
// numbered subdirectories, "001" and "002", and files named file1 and
// file2 still differ).
func sameTempPath(want, got, tmp string) bool {
	if tmp == "" || tmp == "/" {
		return false
	}
	prefix := strconv.Quote(tmp + "/")
	prefix = prefix[:len(prefix)-1] // without the closing quote
	if !strings.HasPrefix(want, prefix) || !strings.HasPrefix(got, prefix) {
		return false
	}
	w, wcut := uncut(want)
	g, gcut := uncut(got)
	w, g = maskRandom(w), maskRandom(g)
	if wcut || gcut {
		// A string cut at a bound of bytes: the random names' lengths
		// move the cut.
		n := min(len(w), len(g))
		return w[:n] == g[:n]
	}
	return w == g
}

// cutRE matches the end of a string value's text cut at a bound.
var cutRE = regexp.MustCompile(`"…\+[0-9]+ more$`)

// uncut returns a string value's text without its closing quote and, when
// the string was cut, what says so.
func uncut(text string) (string, bool) {
	if loc := cutRE.FindStringIndex(text); loc != nil {
		return text[:loc[0]], true
	}
	return strings.TrimSuffix(text, `"`), false
}

// maskRandom replaces each run of 6 digits or more in s with '#'.
func maskRandom(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		switch {
		case j-i >= 6:
			b.WriteByte('#')
			i = j
		case j > i:
			b.WriteString(s[i:j])
			i = j
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// shallow reports whether v is a composite value recorded without its
// contents (by the instrumenting recorder).
func shallow(v *trace.Value) bool {
	switch v.Kind {
	case trace.KindPointer, trace.KindStruct, trace.KindArray, trace.KindSlice, trace.KindMap,
		trace.KindChan, trace.KindFunc, trace.KindInterface, trace.KindOther:
		return v.Cut && len(v.Children) == 0 && !v.Nil
	}
	return false
}

// where says where the stepped goroutine is relative to the frame.
type where int

const (
	inTarget where = iota // at a statement of the frame itself
	inCallee              // in a function called (directly or not) by the frame
	gone                  // the frame has returned or was unwound
)

// locate finds the frame on its goroutine's stack. For inCallee it also
// returns the frame's direct callee.
func (in *inFrame) locate() (where, *proc.Stackframe, int, error) {
	st, err := in.p.d.Stacktrace(in.goid, 256, 0)
	if err != nil {
		return gone, nil, 0, err
	}
	for j := range st {
		if st[j].Current.Fn == in.fn && st[j].FrameOffset() == in.off {
			if j == 0 {
				return inTarget, &st[0], st[0].Current.Line, nil
			}
			return inCallee, &st[j-1], st[j].Current.Line, nil
		}
	}
	return gone, nil, 0, nil
}

// command runs one of Delve's stepping commands (api.Step, api.Next or
// api.StepOut) on the frame's goroutine. It drives the target directly:
// the debugger's Command would also describe every thread of the process
// after each step, each read a round trip to Delve's ptrace thread (about
// a fifth of the round trips of a step). It reports the process's exit
// (gone) and an unrecovered panic or fatal error (ended, not gone).
func (in *inFrame) command(name string) (ended, gone bool, err error) {
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	switch name {
	case api.Step:
		err = grp.Step()
	case api.Next:
		err = grp.Next()
	case api.StepOut:
		err = grp.StepOut()
	default:
		return false, false, fmt.Errorf("internal error: %q is not a stepping command", name)
	}
	if err != nil {
		if _, ok := exited(err); ok {
			return true, true, nil
		}
		return false, false, err
	}
	bp := grp.Selected.CurrentThread().Breakpoint()
	if bp.Active && bp.Breakpoint != nil && bp.Logical != nil &&
		(bp.Logical.Name == proc.UnrecoveredPanic || bp.Logical.Name == proc.FatalThrow) {
		return true, false, nil
	}
	return false, false, nil
}

// returnValues reads the results of the frame that the last stepping
// command left, if it left one (nil otherwise): Delve's, with those that
// came back in integer registers read from them (see
// resultsFromRegisters).
func (in *inFrame) returnValues() []trace.Value {
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	th := grp.Selected.CurrentThread()
	vs := th.Common().ReturnValues(in.lim.loadConfig())
	if len(vs) == 0 {
		return nil
	}
	resultsFromThread(grp.Selected, th, vs)
	return convertVars(vs)
}

// locals reads the frame's arguments and locals (the innermost declaration
// of each name).
//
// At the frame's entry the results are not set yet: they are left out
// (withResults false), so that they appear as created when first written.
func (in *inFrame) locals(withResults bool) (map[string]trace.Value, []string) {
	// One scope for both: each costs a stack trace of the goroutine.
	grp, unlock := in.p.d.LockTargetGroup()
	scope, err := proc.ConvertEvalScope(grp.Selected, in.goid, 0, 0)
	var args, locs []*proc.Variable
	if err == nil {
		args, locs = in.readLocals(scope)
	}
	unlock()
	return in.localValues(args, locs, withResults)
}

// notePanic reads the frame's arguments and locals into in.atPanic; th,
// of the frame's goroutine, is stopped at the entry of runtime.gopanic,
// with the frame on its stack (the panic unwinds it later, if nothing
// recovers). The caller holds the target's lock.
func (in *inFrame) notePanic(tgt *proc.Target, th proc.Thread) {
	g, err := proc.GetG(th)
	if err != nil || g == nil || g.ID != in.goid {
		return
	}
	st, err := proc.ThreadStacktrace(tgt, th, maxPanicDepth)
	if err != nil {
		return
	}
	for i := range st {
		if st[i].Current.Fn == in.fn && st[i].FrameOffset() == in.off {
			args, locs := in.readLocals(proc.FrameToScope(tgt, tgt.Memory(), g, th.ThreadID(), st[i:]...))
			vals, order := in.localValues(args, locs, true)
			in.atPanic = &snapshot{vals, order}
			return
		}
	}
}

// maxPanicDepth bounds the frames between a panic and the traced frame
// that notePanic looks through.
const maxPanicDepth = 1024

// readLocals reads the arguments and the locals in scope, with the
// frame's load configuration; the caller holds the target's lock.
func (in *inFrame) readLocals(scope *proc.EvalScope) (args, locs []*proc.Variable) {
	cfg := in.lim.loadConfig()
	all, _ := scope.Locals(0, "") // declared, not read yet
	isArg := func(v *proc.Variable) bool {
		return v.Flags&(proc.VariableArgument|proc.VariableReturnArgument) != 0
	}
	args, _ = readVars(scope, configFor(all, isArg, cfg), false)
	locs, _ = readVars(scope, configFor(all, func(v *proc.Variable) bool { return !isArg(v) }, cfg), true)
	return args, locs
}

// localValues converts what readLocals read into a step's snapshot: the
// values by name and the names in order.
func (in *inFrame) localValues(args, locs []*proc.Variable, withResults bool) (map[string]trace.Value, []string) {
	vals := map[string]trace.Value{}
	var order []string
	for _, v := range append(args, locs...) {
		if v.Flags&proc.VariableReturnArgument != 0 && !withResults {
			continue
		}
		// Unnamed results (~r0) are not variables of the source: they show
		// as the frame's results, not as changes.
		if v.Flags&proc.VariableShadowed != 0 || strings.HasPrefix(v.Name, "&") || strings.HasPrefix(v.Name, "~") {
			continue
		}
		if _, ok := vals[v.Name]; !ok {
			order = append(order, v.Name)
		}
		vals[v.Name] = convertValue(api.ConvertVar(v))
	}
	return vals, order
}

// configFor returns how to read the variables of vars that in selects:
// with cfg, or without following pointers when each of them is a pointer
// to a plumbing type (see isLibraryType). A *testing.T shows as
// &testing.T{name: "TestX", …} or, not followed, as &testing.T{…}: it
// never changes, so reading it deep at every statement shows nothing more
// in a trace; it was 40% of the time of a table-driven test's trace. The
// choice is the same at every statement of a frame (results count before
// they are read too), so that a value's text does not change with it.
func configFor(vars []*proc.Variable, in func(*proc.Variable) bool, cfg proc.LoadConfig) proc.LoadConfig {
	for _, v := range vars {
		if !in(v) {
			continue
		}
		if v.Kind != reflect.Ptr || !isLibraryType(strings.TrimPrefix(v.TypeString(), "*")) {
			return cfg
		}
	}
	cfg.FollowPointers = false
	return cfg
}

// panicInFlight reports a panic that is unwinding the frame's goroutine.
func (in *inFrame) panicInFlight() (string, bool) {
	v, err := in.p.d.EvalVariableInScope(in.goid, 0, 0, "runtime.curg._panic", proc.LoadConfig{})
	if err != nil || v.Unreadable != nil || v.Addr == 0 || len(v.Children) == 0 || v.Children[0].Addr == 0 {
		return "", false
	}
	return in.panicValue(), true
}

// panicValue reads the value of the panic in flight on the frame's goroutine.
func (in *inFrame) panicValue() string {
	v, err := in.p.d.EvalVariableInScope(in.goid, 0, 0, "runtime.curg._panic.arg", in.lim.loadConfig())
	if err != nil {
		return "panic"
	}
	return panicText(convertValue(api.ConvertVar(v)))
}
