package trace

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the text renderings. The text is read by a person or an LLM, so
// every answer stays bounded and says what it left out; the JSON renderings
// are for programs and keep everything.
const (
	// MaxTextLine is the longest line, in runes, that the text renderings
	// write; longer lines end in "…". Values are already bounded by the
	// recorder, this is a safety net.
	MaxTextLine = 200
	// MaxTextOutputLines is how many trailing lines of the run's output
	// OutcomeText shows.
	MaxTextOutputLines = 40
	// MaxTextFrames is how many frames FramesText lists before it elides the
	// middle of the list.
	MaxTextFrames = 50
	// MaxTreeChildren is how many callees of one node the call tree shows
	// (text and JSON) before it elides the middle of the list.
	MaxTreeChildren = 30
)

// Head and tail kept when a list is elided.
const (
	framesHead, framesTail = 30, 10
	treeHead, treeTail     = 25, 5
)

// maxStmtColumn caps the column at which a step's changes and callees start,
// so that one long statement does not push every other step's annotations
// to the right.
const maxStmtColumn = 40

// FLTText renders an FLT the way Figure 6 of the ADI paper does: a header
// line for the frame, one line per executed statement with its changes (ΔS)
// and callees inline, skipped loop iterations summarised, and the frame's
// exit last:
//
//	main.fib#3(n=13) → 233 · caller main.fib#2 at main.go:15 · goroutine 1
//	  12  if n < 2 {
//	  15  return fib(n-1) + fib(n-2)  ⇢ main.fib#4(n=12) → 144  ⇢ main.fib#5(n=11) → 89
//	  returned 233
//
// Changes read "x = v (new)" for a variable created and "x: old → new" for
// one modified; "⇢" introduces a callee with its arguments and outcome,
// looked up in r (r may be nil, callees then show their fid only). Statements
// in the frame's own file show their line number, others file:line.
func FLTText(r *Recording, f *FLT) string {
	if f == nil || f.Frame == nil {
		return "no frame\n"
	}
	var w textWriter
	w.line(FrameLine(r, f.Frame))

	own := f.Frame.Decl.File
	if own == "" && len(f.Steps) > 0 {
		own = f.Steps[0].File
	}
	labels := make([]string, len(f.Steps))
	width, column := 0, 0
	for i, s := range f.Steps {
		labels[i] = strconv.Itoa(s.Line)
		if s.File != "" && s.File != own {
			// Rare (//line directives): such labels stick out of the
			// column rather than widen it for every step.
			labels[i] = baseName(s.File) + ":" + labels[i]
			continue
		}
		width = max(width, len(labels[i]))
		column = max(column, utf8.RuneCountInString(stmtText(s.Stmt)))
	}
	column = min(column, maxStmtColumn)

	// Skips in step order; a skip sits after the step its After names.
	skips := slices.Clone(f.Skipped)
	slices.SortStableFunc(skips, func(a, b Skip) int { return cmp.Compare(a.After, b.After) })
	emitSkips := func(upTo int) {
		for len(skips) > 0 && skips[0].After <= upTo {
			w.line("  " + skipText(skips[0]))
			skips = skips[1:]
		}
	}
	emitSkips(-1)
	for i, s := range f.Steps {
		line := "  " + padLeft(labels[i], width) + "  " + stmtText(s.Stmt)
		if ann := stepAnnotations(r, s); ann != "" {
			line = padRight(line, 2+width+2+column) + "  " + ann
		}
		w.line(line)
		emitSkips(i)
	}
	for _, sk := range skips { // After beyond the last step
		w.line("  " + skipText(sk))
	}
	if len(f.Steps) == 0 && len(f.Skipped) == 0 {
		w.line("  (no statements recorded)")
	}

	if f.Truncated {
		n := len(f.Steps)
		for _, sk := range f.Skipped {
			n += sk.Steps
		}
		why := " (--max-steps)"
		if f.Note != "" {
			why = ": " + oneLine(f.Note)
		}
		w.line(fmt.Sprintf("  … trace cut after %d %s%s", n, plural(n, "step", "steps"), why))
	} else if f.Note != "" {
		w.line("  note: " + oneLine(f.Note))
	}
	w.line("  " + ExitText(f.Frame))
	return w.String()
}

// FrameLine renders one frame on one line: the call with its arguments and
// outcome, where it was called from and on which goroutine.
//
//	main.fib#4(n=12) → 144 · caller main.fib#3 at main.go:15 · goroutine 1
//	main.worker#1(id=1) exited via runtime.Goexit · spawned by main.main#1 at main.go:23 · goroutine 7
//	main.main#1() ✗ panicked: boom · root frame · goroutine 1
//
// r is used only to mark a caller that the recording does not hold; it may
// be nil.
func FrameLine(r *Recording, f *Frame) string {
	if f == nil {
		return "no frame"
	}
	var ctx string
	switch {
	case f.Caller.IsZero():
		ctx = "root frame"
		if f.CallSite.File != "" {
			ctx += ", called at " + posText(f.CallSite)
		}
	default:
		verb := "caller "
		if f.Spawn {
			verb = "spawned by "
		}
		ctx = verb + shortFID(f.Caller)
		if r != nil {
			if _, ok := r.Lookup(f.Caller); !ok {
				ctx += " (not recorded)"
			}
		}
		if f.CallSite.File != "" {
			ctx += " at " + posText(f.CallSite)
		}
	}
	return capLine(callText(f) + " · " + ctx + " · goroutine " + strconv.FormatInt(f.Goroutine, 10))
}

// FramesText lists frames (the invocations of fn, or those of them matching
// a condition) one FrameLine each, under a count. Long lists keep their
// first and last frames and say how many were left out between them.
func FramesText(r *Recording, fn string, frames []*Frame) string {
	var w textWriter
	switch len(frames) {
	case 0:
		w.line(ShortFunc(fn) + ": no invocations")
		return w.String()
	case 1:
		w.line(ShortFunc(fn) + ": 1 invocation")
	default:
		w.line(fmt.Sprintf("%s: %d invocations", ShortFunc(fn), len(frames)))
	}
	if len(frames) <= MaxTextFrames {
		for _, f := range frames {
			w.line(FrameLine(r, f))
		}
		return w.String()
	}
	for _, f := range frames[:framesHead] {
		w.line(FrameLine(r, f))
	}
	hidden := frames[framesHead : len(frames)-framesTail]
	note := shortFID(hidden[0].FID) + " … " + shortFID(hidden[len(hidden)-1].FID)
	if n := countPanicked(hidden); n > 0 {
		note += fmt.Sprintf("; ✗ %d panicked", n)
	}
	w.line(fmt.Sprintf("… %d more invocations (%s)", len(hidden), note))
	for _, f := range frames[len(frames)-framesTail:] {
		w.line(FrameLine(r, f))
	}
	return w.String()
}

// BreakText is the answer to break: the breakpoint and how many frames of
// the recording match it.
//
//	breakpoint main.fib if n == 3: 1 matching frame
func BreakText(fn, cond string, matches int) string {
	s := "breakpoint " + ShortFunc(fn)
	if cond != "" {
		s += " if " + oneLine(cond)
	}
	switch matches {
	case 0:
		s += ": no matching frames"
	case 1:
		s += ": 1 matching frame"
	default:
		s += fmt.Sprintf(": %d matching frames", matches)
	}
	return capLine(s) + "\n"
}

// CallTreeText renders the callee tree below root, depth levels deep
// (depth < 0: no limit, 0: root alone), indented two spaces per level. The
// root line is its FrameLine; below it each callee shows its call and
// outcome, "go " marking the first frame of a spawned goroutine. Callees cut
// by the depth limit are counted on a "… N more calls" line, as are the
// middle callees of a node with more than MaxTreeChildren of them; a count
// of hidden panicking callees ("✗ 1 panicked") tells where to look deeper.
// A nil root renders the tree of every root frame of the recording.
func CallTreeText(r *Recording, root *Frame, depth int) string {
	var w textWriter
	if root == nil {
		roots := rootFrames(r)
		if len(roots) == 0 {
			w.line("no frames recorded")
		}
		for _, f := range roots {
			w.line(FrameLine(r, f))
			treeText(&w, r, f, depth, 1)
		}
		return w.String()
	}
	w.line(FrameLine(r, root))
	treeText(&w, r, root, depth, 1)
	return w.String()
}

func treeText(w *textWriter, r *Recording, f *Frame, depth, level int) {
	indent := strings.Repeat("  ", level)
	kids := childSeqs(r, f)
	if len(kids) == 0 {
		return
	}
	if depth >= 0 && level > depth {
		w.line(indent + moreText(r, f, kids, false))
		return
	}
	node := func(i int32) {
		c := r.At(int(i))
		line := indent + callText(c)
		if c.Spawn {
			line = indent + "go " + callText(c) + " · goroutine " + strconv.FormatInt(c.Goroutine, 10)
		}
		w.line(line)
		treeText(w, r, c, depth, level+1)
	}
	if len(kids) <= MaxTreeChildren {
		for _, c := range kids {
			node(c)
		}
		return
	}
	for _, c := range kids[:treeHead] {
		node(c)
	}
	w.line(indent + moreText(r, f, kids[treeHead:len(kids)-treeTail], true))
	for _, c := range kids[len(kids)-treeTail:] {
		node(c)
	}
}

// moreText counts hidden callees of parent (their Seqs): "… 3 more calls",
// naming the first and last hidden fid when they sit between shown ones,
// and counting those that panicked.
func moreText(r *Recording, parent *Frame, hidden []int32, span bool) string {
	s := fmt.Sprintf("… %d more %s", len(hidden), plural(len(hidden), "call", "calls"))
	var notes []string
	if span {
		notes = append(notes, shortFID(r.FIDOf(int(hidden[0])))+" … "+shortFID(r.FIDOf(int(hidden[len(hidden)-1]))))
	}
	if n := r.panickedAmong(parent.Seq, hidden); n > 0 {
		notes = append(notes, fmt.Sprintf("✗ %d panicked", n))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// OutcomeText renders how the run ended: exit code, whether the recording
// is partial, the panic with its stack (recorded frames by fid), the failed
// tests, and the last MaxTextOutputLines lines of the output.
func OutcomeText(r *Recording) string {
	var w textWriter
	if r == nil {
		w.line("no recording")
		return w.String()
	}
	o := &r.Outcome
	head := "exit code " + strconv.Itoa(o.ExitCode)
	if o.Killed {
		head += " (killed by adi)"
	}
	w.line(head)
	if r.Partial != "" {
		w.line("recording partial: " + oneLine(r.Partial))
	}
	if p := o.Panic; p != nil {
		where := "panic in goroutine " + strconv.FormatInt(p.Goroutine, 10)
		if !p.Frame.IsZero() {
			where += " (" + shortFID(p.Frame) + ")"
		}
		w.line(where + ": " + oneLine(p.Value))
		for _, e := range p.Stack {
			name := e.Func
			if !e.FID.IsZero() {
				name = shortFID(e.FID)
			}
			w.line("  " + name + " at " + posText(e.Pos))
		}
	}
	if len(o.FailedTests) > 0 {
		w.line("failed tests: " + strings.Join(o.FailedTests, ", "))
	}

	out := strings.TrimRight(o.Output(), "\n")
	if out == "" {
		w.line("output: none")
		return w.String()
	}
	lines := strings.Split(out, "\n")
	if n := len(lines); n > MaxTextOutputLines {
		w.line(fmt.Sprintf("output (last %d of %d lines, %d earlier cut):", MaxTextOutputLines, n, n-MaxTextOutputLines))
		lines = lines[n-MaxTextOutputLines:]
	} else {
		w.line(fmt.Sprintf("output (%d %s):", n, plural(n, "line", "lines")))
	}
	for _, l := range lines {
		w.line(strings.TrimRight("  "+l, " \t\r"))
	}
	return w.String()
}

// callText is a frame as a call with its outcome: "main.fib#4(n=12) → 144".
func callText(f *Frame) string {
	s := shortFID(f.FID) + argsText(f.Args)
	if e := exitText(f); e != "" {
		s += " " + e
	}
	return s
}

// exitText is the outcome that follows a call; empty for a return without
// results.
func exitText(f *Frame) string {
	switch f.Exit {
	case Returned:
		if len(f.Results) > 0 {
			return "→ " + resultsText(f.Results)
		}
		return ""
	case Panicked:
		return "✗ panicked: " + oneLine(f.Panic)
	case Goexited:
		return "exited via runtime.Goexit"
	case Running:
		return "still running when the run ended"
	case Unrecorded:
		return "its end was not recorded (frame limit)"
	}
	return string(f.Exit)
}

// ExitText says how a frame ended, as the last line of its FLT does:
// "returned 233", "panicked: …".
func ExitText(f *Frame) string {
	switch f.Exit {
	case Returned:
		if len(f.Results) > 0 {
			return "returned " + resultsText(f.Results)
		}
		return "returned"
	case Panicked:
		return "panicked: " + oneLine(f.Panic)
	case "":
		return "exit unknown"
	}
	return exitText(f)
}

func argsText(args []Value) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = namedText(a)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// resultsText shows one result bare and several as a tuple. Named results
// keep their names; the compiler's ~r0 and blank names do not.
func resultsText(rs []Value) string {
	parts := make([]string, len(rs))
	for i, v := range rs {
		if v.Name == "" || v.Name == "_" || strings.HasPrefix(v.Name, "~") {
			parts[i] = valueText(v)
		} else {
			parts[i] = namedText(v)
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func namedText(v Value) string {
	if v.Name == "" {
		return valueText(v)
	}
	return v.Name + "=" + valueText(v)
}

// valueText is a value's text on one line, with a readable stand-in when
// the debugger could not read it.
func valueText(v Value) string {
	return oneLine(displayText(v))
}

// displayText is the text shown for a value in both renderings.
func displayText(v Value) string {
	switch {
	case v.Text != "":
		return v.Text
	case v.Error != "":
		return "<unreadable: " + v.Error + ">"
	case v.Nil:
		return "nil"
	}
	return v.Text
}

// stepAnnotations is what follows a step's statement: its changes, then its
// callees.
func stepAnnotations(r *Recording, s Step) string {
	var parts []string
	if len(s.Changes) > 0 {
		cs := make([]string, len(s.Changes))
		for i, c := range s.Changes {
			cs[i] = changeText(c)
		}
		parts = append(parts, strings.Join(cs, "; "))
	}
	for _, fid := range s.Callees {
		parts = append(parts, "⇢ "+calleeText(r, fid))
	}
	return strings.Join(parts, "  ")
}

func changeText(c Change) string {
	if c.Old == nil {
		return c.Var + " = " + valueText(c.New) + " (new)"
	}
	return c.Var + ": " + valueText(*c.Old) + " → " + valueText(c.New)
}

func calleeText(r *Recording, fid FID) string {
	if r == nil {
		return shortFID(fid)
	}
	f, ok := r.Lookup(fid)
	if !ok {
		return shortFID(fid) + " (not recorded)"
	}
	if f.Spawn {
		return "go " + callText(f)
	}
	return callText(f)
}

// skipText summarises left-out loop iterations, and what they left the
// variables they changed at.
func skipText(s Skip) string {
	loop := "a loop"
	if s.Line > 0 {
		loop = "the loop at line " + strconv.Itoa(s.Line)
	}
	detail := fmt.Sprintf("%d %s", s.Steps, plural(s.Steps, "step", "steps"))
	if n := len(s.Callees); n > 0 {
		if n <= 4 {
			detail += "; calls " + joinFIDs(s.Callees)
		} else {
			detail += fmt.Sprintf("; %d calls: %s, %s, …, %s", n, shortFID(s.Callees[0]), shortFID(s.Callees[1]), shortFID(s.Callees[n-1]))
		}
	}
	if len(s.Changes) > 0 {
		// Where they left the variables: the kept steps after them change
		// from there.
		vs := make([]string, len(s.Changes))
		for i, c := range s.Changes {
			vs[i] = c.Var + " = " + valueText(c.New)
		}
		detail += "; after them " + strings.Join(vs, ", ")
	}
	return fmt.Sprintf("… %d %s of %s skipped (%s)",
		s.Iterations, plural(s.Iterations, "iteration", "iterations"), loop, detail)
}

func joinFIDs(fids []FID) string {
	parts := make([]string, len(fids))
	for i, f := range fids {
		parts[i] = shortFID(f)
	}
	return strings.Join(parts, ", ")
}

// childSeqs returns the Seqs of f's callees in order; nil for a nil r.
func childSeqs(r *Recording, f *Frame) []int32 {
	if r == nil || f.Seq < 0 || f.Seq >= r.Len() {
		return nil
	}
	return r.Children(f.Seq)
}

// rootFrames returns the frames without a recorded caller.
func rootFrames(r *Recording) []*Frame {
	if r == nil {
		return nil
	}
	var out []*Frame
	for i := range r.Len() {
		if r.ParentOf(i) < 0 {
			out = append(out, r.At(i))
		}
	}
	return out
}

func countPanicked(fs []*Frame) int {
	n := 0
	for _, f := range fs {
		if f.Exit == Panicked {
			n++
		}
	}
	return n
}

// posText is a position as base name and line: "main.go:9".
func posText(p Pos) string {
	if p.File == "" {
		return "?"
	}
	return baseName(p.File) + ":" + strconv.Itoa(p.Line)
}

func baseName(file string) string { return path.Base(filepath.ToSlash(file)) }

// stmtText puts a statement that spans lines on one line.
func stmtText(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

// oneLine escapes line breaks, so that a value or message keeps to its line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// capLine cuts s to MaxTextLine runes, ending it with "…" when cut.
func capLine(s string) string {
	if len(s) <= MaxTextLine || utf8.RuneCountInString(s) <= MaxTextLine {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxTextLine-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func padLeft(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

func padRight(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// textWriter collects lines, each capped at MaxTextLine runes.
type textWriter struct{ b strings.Builder }

func (w *textWriter) line(s string) {
	w.b.WriteString(capLine(s))
	w.b.WriteByte('\n')
}

func (w *textWriter) String() string { return w.b.String() }

// shortFID writes a frame id without its package's import path
// ("parser.Parse#2" for "example.com/m/parser.Parse#2"): the commands accept
// that form back when it names one function.
func shortFID(f FID) string {
	return ShortFunc(f.Func) + "#" + strconv.Itoa(f.Index)
}

// ShortFunc drops the import path of a function's package, keeping its
// last element: function names have no slash of their own (generic code is
// written "[...]"), so the path ends at the last slash.
func ShortFunc(fn string) string {
	return fn[strings.LastIndexByte(fn, '/')+1:]
}
