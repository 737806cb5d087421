package adapter

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/engine/source"
)

// A DAP client sends the whole set of function breakpoints, and the whole
// set of line breakpoints of one file, each time. Both become elements of
// the engine's B: a line breakpoint is a breakpoint on its enclosing
// function, positioned at the line when the session stops there.

func (s *session) onSetFunctionBreakpoints(r *dap.SetFunctionBreakpointsRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	old := s.desired()
	s.fnBPs = s.fnBPs[:0]
	out := make([]dap.Breakpoint, 0, len(r.Arguments.Breakpoints))
	for _, fb := range r.Arguments.Breakpoints {
		fn := d.ResolveFunc(strings.TrimSpace(fb.Name))
		b := dap.Breakpoint{Id: s.nextBPID()}
		n, err := d.Break(fn, fb.Condition)
		if err != nil {
			b.Message = err.Error()
		} else {
			b.Verified = true
			b.Message = matchText(n)
			s.fnBPs = append(s.fnBPs, bp{fn, strings.TrimSpace(fb.Condition)})
		}
		out = append(out, b)
	}
	s.retire(old)
	s.send(&dap.SetFunctionBreakpointsResponse{Response: s.response(&r.Request), Body: dap.SetFunctionBreakpointsResponseBody{Breakpoints: out}})
	return nil
}

func (s *session) onSetBreakpoints(r *dap.SetBreakpointsRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	path := cleanPath(r.Arguments.Source.Path)
	old := s.desired()
	delete(s.lineBPs, path)
	src := source.NewCache()
	out := make([]dap.Breakpoint, 0, len(r.Arguments.Breakpoints))
	for _, sb := range r.Arguments.Breakpoints {
		b := dap.Breakpoint{Id: s.nextBPID(), Line: sb.Line, Source: &dap.Source{Path: path}}
		fn, line, err := s.enclosing(src, path, sb.Line)
		if err == nil {
			var n int
			n, err = d.Break(fn, sb.Condition)
			if err == nil {
				b.Verified, b.Line = true, line
				b.Message = fmt.Sprintf("in %s: %s", fn, matchText(n))
				s.lineBPs[path] = append(s.lineBPs[path], lineBP{fn: fn, line: line, cond: strings.TrimSpace(sb.Condition)})
			}
		}
		if err != nil {
			b.Message = err.Error()
		}
		out = append(out, b)
	}
	s.retire(old)
	s.send(&dap.SetBreakpointsResponse{Response: s.response(&r.Request), Body: dap.SetBreakpointsResponseBody{Breakpoints: out}})
	return nil
}

// enclosing finds the recorded function around path:line, and the line of
// the statement the breakpoint binds to (the first statement at or after
// line).
func (s *session) enclosing(src *source.Cache, path string, line int) (string, int, error) {
	fn, err := src.FuncAt(path, line, "")
	if err != nil {
		return "", 0, err
	}
	stmt := 0
	for _, l := range src.StmtLines(path, fn) {
		if l >= line {
			stmt = l
			break
		}
	}
	if stmt == 0 {
		return "", 0, fmt.Errorf("no statement of %s at or after line %d", fn.Name, line)
	}
	rec := s.dbg.Recording()
	for _, name := range rec.Funcs() {
		plain := strings.ReplaceAll(name, "[...]", "")
		rel := strings.ReplaceAll(fn.Name, "[...]", "")
		if plain != rel && !strings.HasSuffix(plain, "."+rel) && !strings.HasSuffix(plain, "/"+rel) {
			continue
		}
		if fs := rec.Invocations(name); len(fs) > 0 && cleanPath(fs[0].Decl.File) == path {
			return name, stmt, nil
		}
	}
	return "", 0, fmt.Errorf("%s (around line %d) never ran in the recorded run", fn.Name, line)
}

func matchText(n int) string {
	if n == 1 {
		return "1 matching frame"
	}
	return fmt.Sprintf("%d matching frames", n)
}

func (s *session) nextBPID() int {
	s.bpID++
	return s.bpID
}

// allLineBPs lists the line breakpoints of every file.
func (s *session) allLineBPs() []lineBP {
	var out []lineBP
	for _, lbs := range s.lineBPs {
		out = append(out, lbs...)
	}
	return out
}

// desired is the set of (function, condition) the client's breakpoints
// put in B.
func (s *session) desired() map[bp]bool {
	m := map[bp]bool{}
	for _, b := range s.fnBPs {
		m[b] = true
	}
	for _, lb := range s.allLineBPs() {
		m[bp{lb.fn, lb.cond}] = true
	}
	return m
}

// retire removes from B what the client's breakpoints no longer ask for.
func (s *session) retire(old map[bp]bool) {
	now := s.desired()
	for b := range old {
		if !now[b] {
			if _, err := s.dbg.Clear(b.fn, b.cond); err != nil {
				s.log.Debug("clearing a breakpoint", "err", err)
			}
		}
	}
}

// cleanPath makes two spellings of one file compare equal: "..", "." and
// symbolic links resolved.
func cleanPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
