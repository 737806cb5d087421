package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/adi-go/adi/engine/cond"
	"github.com/adi-go/adi/engine/source"
	"github.com/adi-go/adi/engine/trace"
)

// Breakpoint is an element of B: a function and an optional condition over
// the frame's arguments and results.
type Breakpoint struct {
	Func string
	Cond string
	cond *cond.Cond
	// seqs are the Seqs of the frames it matches, in order: T does not
	// change, so Break evaluates the condition once on every frame of
	// Func and continue and prev search these lists.
	seqs []int
}

// Nav is the answer of a navigation command: the FLT of the inspected frame
// and whether the inspection index moved.
type Nav struct {
	FLT   *trace.FLT
	Moved bool
	// Note says why the index did not move, when it did not.
	Note string
}

// Session is the debugging state Σ = (B, T, i) over one recording, with the
// commands of the ADI paper as its methods. Every command either succeeds
// and moves Σ to Σ', or fails with an error and leaves Σ unchanged.
//
// A Session is safe for use by several goroutines; commands are serialised.
// FLTs are built by re-executing the program and are cached.
type Session struct {
	rec  *trace.Recording
	prog *Program
	lim  Limits
	src  *source.Cache
	// ExecTimeout bounds one re-execution (FLT or execute).
	execTimeout time.Duration

	mu  sync.Mutex
	bps []Breakpoint
	i   int

	fltMu   sync.Mutex
	flts    map[trace.FID]*trace.FLT
	fltErrs map[trace.FID]error // failures that a retry would repeat

	workDir string // the build, removed by Close
}

// NewSession starts a session on rec, a recording of prog, inspecting the
// frame where the run failed.
func NewSession(rec *trace.Recording, prog *Program, lim Limits, execTimeout time.Duration) *Session {
	if execTimeout <= 0 {
		execTimeout = 2 * time.Minute
	}
	return &Session{
		rec: rec, prog: prog, lim: lim.withDefaults(), src: source.NewCache(),
		execTimeout: execTimeout,
		i:           StartIndex(rec),
		flts:        map[trace.FID]*trace.FLT{},
		fltErrs:     map[trace.FID]error{},
	}
}

// Recording returns T.
func (s *Session) Recording() *trace.Recording { return s.rec }

// Program returns the program the recording was made of.
func (s *Session) Program() *Program { return s.prog }

// StartIndex is where a debugging session naturally starts: the frame that
// panicked, else the first failing test's function, else the first frame.
func StartIndex(rec *trace.Recording) int {
	if p := rec.Outcome.Panic; p != nil && !p.Frame.IsZero() {
		if f, ok := rec.Lookup(p.Frame); ok {
			return f.Seq
		}
	}
	for _, name := range rec.Outcome.FailedTests {
		top, _, _ := strings.Cut(name, "/")
		for seq := range rec.Len() {
			if strings.HasSuffix(rec.FuncOf(seq), "."+top) {
				return seq
			}
		}
	}
	return 0
}

// Current returns the inspected frame, T[i].
func (s *Session) Current() *trace.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec.Len() == 0 {
		return nil
	}
	return s.rec.At(s.i)
}

// Breakpoints returns B.
func (s *Session) Breakpoints() []Breakpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Breakpoint(nil), s.bps...)
}

// ErrNoFrames is returned by navigation on an empty recording.
var ErrNoFrames = errors.New("the recording has no frames: no function of the target's module ran")

// Break adds (fn, cond) to B and returns the number of frames it matches.
func (s *Session) Break(fn, src string) (int, error) {
	if err := s.rec.CheckFunc(fn); err != nil {
		return 0, err
	}
	bp := Breakpoint{Func: fn, Cond: strings.TrimSpace(src)}
	if bp.Cond != "" {
		c, err := cond.Compile(bp.Cond)
		if err != nil {
			return 0, err
		}
		if err := cond.Check(c, s.names(fn)); err != nil {
			return 0, fmt.Errorf("breakpoint on %s: %w", fn, err)
		}
		bp.cond = c
	}
	seqs, err := s.matchSeqs(bp)
	if err != nil {
		return 0, err
	}
	n := len(seqs)
	bp.seqs = seqs
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bps {
		if b.Func == bp.Func && b.Cond == bp.Cond {
			return n, nil
		}
	}
	s.bps = append(s.bps, bp)
	return n, nil
}

// names lists the argument and result names of fn's frames.
func (s *Session) names(fn string) []string {
	seqs := s.rec.InvocationSeqs(fn)
	if len(seqs) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range []*trace.Frame{s.rec.At(int(seqs[0]))} {
		for _, v := range append(append([]trace.Value(nil), f.Args...), f.Results...) {
			name := condName(v.Name)
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

// matchSeqs returns the Seqs of the frames bp matches, in order. A
// condition that fails to evaluate on every frame is an error (it is wrong
// for this function); on some frames it is a non-match there.
func (s *Session) matchSeqs(bp Breakpoint) ([]int, error) {
	var seqs []int
	failures := 0
	var first error
	fs := s.rec.InvocationSeqs(bp.Func)
	if bp.cond == nil {
		seqs = make([]int, len(fs))
		for i, seq := range fs {
			seqs[i] = int(seq)
		}
		return seqs, nil
	}
	for _, seq := range fs {
		f := s.rec.At(int(seq))
		ok, err := matches(bp, f)
		if err != nil {
			failures++
			if first == nil {
				first = err
			}
			continue
		}
		if ok {
			seqs = append(seqs, f.Seq)
		}
	}
	if failures > 0 && failures == len(fs) {
		return nil, fmt.Errorf("condition %q cannot be evaluated on %s: %w", bp.Cond, bp.Func, first)
	}
	return seqs, nil
}

// matches evaluates bp on frame f.
func matches(bp Breakpoint, f *trace.Frame) (bool, error) {
	if f.FID.Func != bp.Func {
		return false, nil
	}
	if bp.cond == nil {
		return true, nil
	}
	return bp.cond.Eval(func(name string) (*trace.Value, bool) {
		for i := range f.Args {
			if f.Args[i].Name == name {
				return &f.Args[i], true
			}
		}
		for i := range f.Results {
			if condName(f.Results[i].Name) == name {
				return &f.Results[i], true
			}
		}
		return nil, false
	})
}

// condName is how a condition names a variable: unnamed results (~r0) are
// r0, r1, …
func condName(name string) string {
	return strings.TrimPrefix(name, "~")
}

// Clear removes (fn, cond) from B; with cond "" it removes every breakpoint
// on fn, and with fn "" all of them. It returns how many were removed.
func (s *Session) Clear(fn, src string) (int, error) {
	src = strings.TrimSpace(src)
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.bps[:0:0]
	for _, b := range s.bps {
		if fn == "" || b.Func == fn && (src == "" || b.Cond == src) {
			continue
		}
		kept = append(kept, b)
	}
	removed := len(s.bps) - len(kept)
	if removed == 0 {
		if fn == "" {
			return 0, nil
		}
		what := fn
		if src != "" {
			what += " if " + src
		}
		return 0, fmt.Errorf("no breakpoint %s to clear; breakpoints: %s", what, describeBreakpoints(s.bps))
	}
	s.bps = kept
	return removed, nil
}

func describeBreakpoints(bps []Breakpoint) string {
	if len(bps) == 0 {
		return "none"
	}
	var parts []string
	for _, b := range bps {
		p := b.Func
		if b.Cond != "" {
			p += " if " + b.Cond
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// Continue moves i to the next frame that matches B; i is unchanged if none.
func (s *Session) Continue(ctx context.Context) (*Nav, error) { return s.move(ctx, +1) }

// Prev moves i to the previous frame that matches B; i is unchanged if none.
func (s *Session) Prev(ctx context.Context) (*Nav, error) { return s.move(ctx, -1) }

func (s *Session) move(ctx context.Context, dir int) (*Nav, error) {
	s.mu.Lock()
	if s.rec.Len() == 0 {
		s.mu.Unlock()
		return nil, ErrNoFrames
	}
	from := s.i
	to := s.nextMatch(from, dir)
	bps := describeBreakpoints(s.bps)
	s.mu.Unlock()
	note := ""
	if to < 0 {
		to = from
		word := "later"
		if dir < 0 {
			word = "earlier"
		}
		if bps == "none" {
			note = "no breakpoints are set (use break FUNC [COND]); the inspected frame is unchanged"
		} else {
			note = fmt.Sprintf("no %s frame matches the breakpoints (%s); the inspected frame is unchanged", word, bps)
		}
	}
	return s.goTo(ctx, from, to, note)
}

// goTo builds the FLT of T[to] and, if that succeeds, sets i to it.
func (s *Session) goTo(ctx context.Context, from, to int, note string) (*Nav, error) {
	flt, err := s.FLT(ctx, s.rec.At(to))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.i = to
	s.mu.Unlock()
	return &Nav{FLT: flt, Moved: to != from, Note: note}, nil
}

// nextMatch returns the Seq of the nearest frame after from (dir +1) or
// before it (dir -1) that matches B, -1 if none: a binary search in each
// breakpoint's list of matching frames. s.mu is held.
func (s *Session) nextMatch(from, dir int) int {
	to := -1
	for _, b := range s.bps {
		if dir > 0 {
			k, _ := slices.BinarySearch(b.seqs, from+1)
			if k < len(b.seqs) && (to < 0 || b.seqs[k] < to) {
				to = b.seqs[k]
			}
			continue
		}
		k, _ := slices.BinarySearch(b.seqs, from)
		if k > 0 && b.seqs[k-1] > to {
			to = b.seqs[k-1]
		}
	}
	return to
}

// FirstMatch returns the first frame of T that matches B.
func (s *Session) FirstMatch() (*trace.Frame, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.nextMatch(-1, +1); j >= 0 {
		return s.rec.At(j), true
	}
	return nil, false
}

// StepInto moves i to the frame fid.
func (s *Session) StepInto(ctx context.Context, fid trace.FID) (*Nav, error) {
	f, err := s.rec.Frame(fid)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	from := s.i
	s.mu.Unlock()
	return s.goTo(ctx, from, f.Seq, "")
}

// StepOut moves i to the caller of T[i]; i is unchanged for a root frame.
func (s *Session) StepOut(ctx context.Context) (*Nav, error) {
	s.mu.Lock()
	if s.rec.Len() == 0 {
		s.mu.Unlock()
		return nil, ErrNoFrames
	}
	from := s.i
	cur := s.rec.At(from)
	s.mu.Unlock()
	if cur.Parent < 0 {
		note := fmt.Sprintf("%s is a root frame: it has no recorded caller; the inspected frame is unchanged", cur.FID)
		return s.goTo(ctx, from, from, note)
	}
	return s.goTo(ctx, from, cur.Parent, "")
}

// Frame returns the FLT of the named frame, or of T[i] for a zero fid,
// without moving i.
func (s *Session) Frame(ctx context.Context, fid trace.FID) (*trace.FLT, error) {
	f, err := s.frameOrCurrent(fid)
	if err != nil {
		return nil, err
	}
	return s.FLT(ctx, f)
}

func (s *Session) frameOrCurrent(fid trace.FID) (*trace.Frame, error) {
	if fid.IsZero() {
		if f := s.Current(); f != nil {
			return f, nil
		}
		return nil, ErrNoFrames
	}
	return s.rec.Frame(fid)
}

// Frames lists every invocation of fn.
func (s *Session) Frames(fn string) ([]*trace.Frame, error) {
	if err := s.rec.CheckFunc(fn); err != nil {
		return nil, err
	}
	return s.rec.Invocations(fn), nil
}

// CallTree returns the root of the callee tree below fid (T[i] for a zero
// fid); depth bounds it for rendering.
func (s *Session) CallTree(fid trace.FID) (*trace.Frame, error) {
	return s.frameOrCurrent(fid)
}
