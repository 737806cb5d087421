package engine

import (
	"debug/gosym"
	"sync"

	"github.com/go-delve/delve/pkg/proc"

	"github.com/adi-go/adi/engine/trace"
)

// pcSyms is what an instrumented binary's tables say of the PCs its
// recordings meet: the function a PC is in, and the position of the call
// that returns to a PC. Each recording's builder looked them up itself,
// from nothing: the recordings of a test binary meet the same thousands of
// PCs, and the line table's lookups took a third of the index's time in
// go-openai's tests (README). One pcSyms serves every recording of the
// build; its builders keep what they use in maps of their own, so that it
// is asked once a PC a recording.
type pcSyms struct {
	mu    sync.Mutex
	fns   map[uint64]fnSym
	calls map[uint64]trace.Pos
	// looked counts the lookups in the tables.
	looked int
}

// fnSym is the function a PC is in; zero if none.
type fnSym struct {
	raw  string // the runtime's name
	name string // fid name
	decl trace.Pos
}

// funcAt returns the function pc is in, from the tables bi.
func (s *pcSyms) funcAt(bi *gosym.Table, pc uint64) fnSym {
	s.mu.Lock()
	f, ok := s.fns[pc]
	s.mu.Unlock()
	if ok {
		return f
	}
	// Looked up without the lock: two recordings that race for a PC
	// both find the same.
	if fn := bi.PCToFunc(pc); fn != nil {
		file, line, _ := bi.PCToLine(fn.Entry)
		f = fnSym{raw: fn.Name, name: fidName(&proc.Function{Name: fn.Name}), decl: trace.Pos{File: file, Line: line}}
	}
	s.mu.Lock()
	if s.fns == nil {
		s.fns = map[uint64]fnSym{}
	}
	s.fns[pc] = f
	s.looked++
	s.mu.Unlock()
	return f
}

// callAt returns the position of the call that returns to pc (not 0),
// from the tables bi and the inline trees inl returns: in code inlined
// from another file, that of the function's own call of what was inlined.
func (s *pcSyms) callAt(bi *gosym.Table, inl func() *inlineTrees, pc uint64) trace.Pos {
	s.mu.Lock()
	p, ok := s.calls[pc]
	s.mu.Unlock()
	if ok {
		return p
	}
	file, line, _ := bi.PCToLine(pc - 1)
	if decl := s.funcAt(bi, pc-1).decl; decl.File != "" && file != decl.File {
		if t := inl(); t != nil {
			if o := t.outermost(pc - 1); o != pc-1 {
				file, line, _ = bi.PCToLine(o)
			}
		}
	}
	p = trace.Pos{File: file, Line: line}
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[uint64]trace.Pos{}
	}
	s.calls[pc] = p
	s.looked++
	s.mu.Unlock()
	return p
}

// sizes returns how many functions and call positions s holds: a
// builder's own maps start that large.
func (s *pcSyms) sizes() (fns, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fns), len(s.calls)
}
