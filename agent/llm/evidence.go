package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// maxEvidenceFLTs bounds the frame traces the evidence check builds (each
// may re-run the program) to look for a cited value among a frame's
// changes.
const maxEvidenceFLTs = 6

// evidenceChecker checks the claims of a model's diagnosis against the
// recording and against what the model was shown.
type evidenceChecker struct {
	c      *Conversation
	ctx    context.Context
	built  int
	corpus string // every tool result and the first message, as sent
	out    []string
}

// checkEvidence checks every frame id, line and value the diagnosis cites:
// the frame must be in the recording; a line must be in the file and, with
// a frame, in that frame's function (or its call site); a value must
// appear among the frame's recorded arguments, results and changes, or in
// a tool result the model saw. It normalises what it can (full frame ids,
// module-relative paths) and returns the claims it could not support.
func (c *Conversation) checkEvidence(ctx context.Context, d *report.Diagnosis) []string {
	ec := &evidenceChecker{c: c, ctx: ctx, corpus: strings.Join(c.seen, "\n")}
	rc := &d.RootCause
	rc.File = c.relPath(rc.File)
	var rf *trace.Frame
	if rc.FID != "" {
		rf = ec.frame("root cause", rc.FID)
		if rf != nil {
			rc.FID = rf.FID.String()
			if rc.Func == "" {
				rc.Func = rf.FID.Func
			} else if fn := resolveFunc(c.dbg.Recording(), rc.Func); fn != "" && fn != rf.FID.Func {
				ec.flag("root cause: frame %s is a call of %s, not of %s", syntax.ShortFunc(rc.FID), syntax.ShortFunc(rf.FID.Func), syntax.ShortFunc(fn))
			} else if fn != "" {
				rc.Func = fn
			}
		}
	} else if fn := resolveFunc(c.dbg.Recording(), rc.Func); fn != "" {
		rc.Func = fn
		if fs := c.dbg.Recording().Invocations(fn); len(fs) > 0 {
			rf = fs[0]
		}
	}
	if rc.File == "" {
		ec.flag("root cause: no file given")
	} else {
		ec.line("root cause", rf, rc.File, rc.Line, rc.FID != "")
	}
	for i := range d.Evidence {
		e := &d.Evidence[i]
		what := fmt.Sprintf("evidence %d", i+1)
		e.File = c.relPath(e.File)
		var f *trace.Frame
		if e.FID != "" {
			if f = ec.frame(what, e.FID); f != nil {
				e.FID = f.FID.String()
			}
		}
		if e.Line != 0 {
			file := e.File
			if file == "" && f != nil {
				file = c.relPath(f.Decl.File)
				e.File = file
			}
			if file != "" {
				ec.line(what, f, file, e.Line, true)
			}
		}
		if e.Value != "" {
			ec.value(what, f, e.Value)
		}
	}
	return ec.out
}

// flag records an unsupported claim.
func (ec *evidenceChecker) flag(format string, a ...any) {
	ec.out = append(ec.out, fmt.Sprintf(format, a...))
}

// frame looks up a cited frame id, flagging one the recording lacks.
func (ec *evidenceChecker) frame(what, fid string) *trace.Frame {
	f, err := lookupFID(ec.c.dbg.Recording(), fid)
	if err != nil {
		ec.flag("%s: %v", what, err)
		return nil
	}
	return f
}

// line checks that line is in file and, when frame f is known and
// strict, in f's function or at its call site.
func (ec *evidenceChecker) line(what string, f *trace.Frame, file string, line int, strict bool) {
	c := ec.c
	abs := file
	if !filepath.IsAbs(abs) && c.root != "" {
		abs = filepath.Join(c.root, filepath.FromSlash(file))
	}
	sf, err := c.src.File(abs)
	if err != nil && (sf == nil || sf.Src == nil) {
		ec.flag("%s: there is no file %s in the module", what, file)
		return
	}
	n := strings.Count(string(sf.Src), "\n")
	if line < 1 || line > n+1 {
		ec.flag("%s: %s has %d lines, not %d", what, file, n, line)
		return
	}
	if f == nil || f.Decl.File == "" {
		return
	}
	if f.CallSite.File != "" && filepath.Clean(f.CallSite.File) == filepath.Clean(abs) && f.CallSite.Line == line {
		return // the call that made the frame
	}
	if filepath.Clean(f.Decl.File) != filepath.Clean(abs) {
		if strict {
			ec.flag("%s: %s:%d is not in %s, which is declared in %s", what, file, line, syntax.ShortFunc(f.FID.String()), c.relPath(f.Decl.File))
		}
		return
	}
	if s, e, ok := c.funcSpan(f.Decl.File, f.Decl.Line); ok && (line < s || line > e) {
		ec.flag("%s: line %d is not in %s (lines %d-%d of %s)", what, line, syntax.ShortFunc(f.FID.Func), s, e, file)
	}
}

// value checks a cited value: each of its parts ("got = 852, want = 925"
// has two) must appear in the frame's recorded values or in what the model
// was shown.
func (ec *evidenceChecker) value(what string, f *trace.Frame, v string) {
	hay := []string{ec.corpus}
	if f != nil {
		hay = append(hay, frameValues(f))
	}
	var missing []string
	for _, part := range splitTop(v) {
		if ec.found(part, hay) {
			continue
		}
		if f != nil && ec.built < maxEvidenceFLTs {
			if flt, err := ec.c.dbg.FLT(ec.ctx, f); err == nil {
				ec.built++
				hay = append(hay, trace.FLTText(ec.c.dbg.Recording(), flt))
				if ec.found(part, hay) {
					continue
				}
			}
		}
		missing = append(missing, part)
	}
	if len(missing) == 0 {
		return
	}
	where := "in any tool result"
	if f != nil {
		where = fmt.Sprintf("among the recorded values of %s or in any tool result", syntax.ShortFunc(f.FID.String()))
	}
	ec.flag("%s: the value `%s` does not appear %s", what, strings.Join(missing, ", "), where)
}

// frameValues renders a frame's arguments and results for the value check.
func frameValues(f *trace.Frame) string {
	var b strings.Builder
	for _, vs := range [][]trace.Value{f.Args, f.Results} {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s = %s\n", v.Name, v.Text)
		}
	}
	if f.Panic != "" {
		b.WriteString(f.Panic + "\n")
	}
	return b.String()
}

// literalRE finds the literals of a value: numbers, quoted strings, nil,
// true and false.
var literalRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|-?\b\d+(?:\.\d+)?\b|\b(?:nil|true|false)\b`)

// found reports whether a part of a cited value appears in hay: whole, or
// its right-hand side ("x = v", "a → b"), or else all of its literals.
func (ec *evidenceChecker) found(part string, hay []string) bool {
	part = normSpace(strings.TrimSuffix(strings.TrimSpace(part), " (new)"))
	if part == "" {
		return true
	}
	part = strings.TrimSuffix(strings.TrimSuffix(part, "…"), "...")
	in := func(s string) bool {
		s = strings.TrimSpace(s)
		if s == "" {
			return true
		}
		for _, h := range hay {
			if containsBounded(normSpace(h), s) {
				return true
			}
		}
		return false
	}
	if in(part) {
		return true
	}
	if l, r, ok := strings.Cut(part, " → "); ok {
		return ec.found(l, hay) && ec.found(r, hay)
	}
	if _, rhs, ok := cutAssign(part); ok && in(rhs) {
		return true
	}
	lits := literalRE.FindAllString(part, -1)
	if len(lits) == 0 {
		return false
	}
	for _, l := range lits {
		if !in(l) {
			return false
		}
	}
	return true
}

// topLevel calls visit with the index of every byte of s that is outside
// brackets and string literals, until visit returns false.
func topLevel(s string, visit func(i int) bool) {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case strings.IndexByte("([{", ch) >= 0:
			depth++
		case strings.IndexByte(")]}", ch) >= 0:
			depth--
		case depth == 0:
			if !visit(i) {
				return
			}
		}
	}
}

// cutAssign splits "name = value" (or "name: value", "name=value") at its
// first top-level assignment sign, not at ==, != , <= or >=.
func cutAssign(s string) (name, value string, ok bool) {
	topLevel(s, func(i int) bool {
		ch := s[i]
		if ch != '=' && ch != ':' {
			return true
		}
		if ch == '=' && (i+1 < len(s) && s[i+1] == '=' || i > 0 && strings.IndexByte("=!<>:", s[i-1]) >= 0) {
			return true
		}
		if ch == ':' && i+1 < len(s) && s[i+1] == '=' {
			return true
		}
		name, value, ok = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
		return false
	})
	return name, value, ok
}

// splitTop splits a value at its top-level ", " and "; " (not inside
// brackets or strings).
func splitTop(s string) []string {
	var out []string
	start := 0
	topLevel(s, func(i int) bool {
		if (s[i] == ',' || s[i] == ';') && i+1 < len(s) && s[i+1] == ' ' {
			out = append(out, s[start:i])
			start = i + 1
		}
		return true
	})
	out = append(out, s[start:])
	var parts []string
	for _, p := range out {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// normSpace collapses runs of white space.
func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// containsBounded reports whether needle occurs in hay not as part of a
// longer identifier or number.
func containsBounded(hay, needle string) bool {
	word := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(needle)
		okL := i == 0 || !word(needle[0]) || !word(hay[i-1])
		okR := j == len(hay) || !word(needle[len(needle)-1]) || !word(hay[j])
		if okL && okR {
			return true
		}
		from = i + 1
	}
}
