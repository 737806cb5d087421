package trace

import (
	"slices"
	"sort"
)

// LoopRange is a loop of a frame's function: Header is the line of its for
// keyword, Start and End the lines of the whole for statement.
type LoopRange struct {
	Header, Start, End int
}

func (l LoopRange) contains(line int) bool { return l.Start <= line && line <= l.End }

// Summarize keeps the first keepFirst and the last keepLast iterations of
// every loop in steps in full and replaces the others by a Skip for each run
// of skipped iterations. loops are the loops of the frame's function.
//
// An execution of a loop is a run of consecutive steps on lines of the loop.
// Its iterations start at the steps on the header line that follow a step on
// another line of the loop (the first step, on the header, enters the loop);
// a last "iteration" made only of header steps, the final condition check,
// belongs to the iteration before it. A loop whose header is never stepped
// on again ("for {", which Delve does not revisit) is cut instead where
// control jumps back to the first line of its body. Loops are summarised
// outermost first; the loops inside a kept iteration are summarised on their
// own.
//
// The kept steps get Iteration, the 1-based number of the iteration of the
// innermost loop they belong to (0 outside loops), whether summarised or
// not. A Skip's After is the index in the returned steps of the step after
// which the iterations were left out (-1 if before the first); its Steps
// counts every left-out step, nested loops included, Callees holds all
// their callees and Changes their net changes, so the kept steps and the
// skipped ones add up to the input.
//
// keepFirst+keepLast <= 0 (negative values count as 0) disables
// summarisation; a loop with no more than keepFirst+keepLast+1 iterations is
// kept whole, since leaving out one iteration saves nothing. steps is not
// modified.
func Summarize(steps []Step, loops []LoopRange, keepFirst, keepLast int) ([]Step, []Skip) {
	keepFirst = max(keepFirst, 0)
	keepLast = max(keepLast, 0)
	s := &summarizer{
		keepFirst: keepFirst,
		keepLast:  keepLast,
		enabled:   keepFirst+keepLast > 0,
		out:       make([]Step, 0, len(steps)),
	}
	s.process(steps, loopForest(loops), 0)
	return s.out, s.skips
}

type loopNode struct {
	LoopRange
	children []*loopNode
}

// loopForest nests loops by their line ranges.
func loopForest(loops []LoopRange) []*loopNode {
	var ls []LoopRange
	seen := map[LoopRange]bool{}
	for _, l := range loops {
		if l.Header <= 0 {
			continue
		}
		if l.Start <= 0 || l.Start > l.Header {
			l.Start = l.Header
		}
		if l.End < l.Header {
			l.End = l.Header
		}
		if !seen[l] {
			seen[l] = true
			ls = append(ls, l)
		}
	}
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Start != ls[j].Start {
			return ls[i].Start < ls[j].Start
		}
		return ls[i].End > ls[j].End
	})
	var roots []*loopNode
	var stack []*loopNode
	for _, l := range ls {
		n := &loopNode{LoopRange: l}
		for len(stack) > 0 && !(stack[len(stack)-1].Start <= l.Start && l.End <= stack[len(stack)-1].End) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, n)
		} else {
			p := stack[len(stack)-1]
			p.children = append(p.children, n)
		}
		stack = append(stack, n)
	}
	return roots
}

type summarizer struct {
	keepFirst, keepLast int
	enabled             bool
	out                 []Step
	skips               []Skip
}

// process emits steps, which are outside the loops of the enclosing level,
// iter being the enclosing loop's iteration; loops are the loops of this
// level.
func (s *summarizer) process(steps []Step, loops []*loopNode, iter int) {
	for i := 0; i < len(steps); {
		var loop *loopNode
		for _, l := range loops {
			if l.contains(steps[i].Line) {
				loop = l
				break
			}
		}
		if loop == nil {
			st := steps[i]
			st.Iteration = iter
			s.out = append(s.out, st)
			i++
			continue
		}
		j := i + 1
		for j < len(steps) && loop.contains(steps[j].Line) {
			j++
		}
		s.loop(steps[i:j], loop)
		i = j
	}
}

// loop emits one execution of a loop.
func (s *summarizer) loop(steps []Step, loop *loopNode) {
	starts := iterationStarts(steps, loop)
	n := len(starts)
	span := func(k int) []Step {
		end := len(steps)
		if k+1 < n {
			end = starts[k+1]
		}
		return steps[starts[k]:end]
	}
	if !s.enabled || n <= s.keepFirst+s.keepLast+1 {
		for k := range n {
			s.process(span(k), loop.children, k+1)
		}
		return
	}
	for k := range s.keepFirst {
		s.process(span(k), loop.children, k+1)
	}
	skip := Skip{After: len(s.out) - 1, Line: loop.Header, Iterations: n - s.keepFirst - s.keepLast}
	changed := map[string]int{} // index in skip.Changes
	for k := s.keepFirst; k < n-s.keepLast; k++ {
		for _, st := range span(k) {
			skip.Steps++
			skip.Callees = append(skip.Callees, st.Callees...)
			for _, c := range st.Changes {
				if i, ok := changed[c.Var]; ok {
					skip.Changes[i].New = c.New
					continue
				}
				changed[c.Var] = len(skip.Changes)
				skip.Changes = append(skip.Changes, c)
			}
		}
	}
	// A variable put back as it was is not changed.
	skip.Changes = slices.DeleteFunc(skip.Changes, func(c Change) bool { return c.Old != nil && c.Old.Same(&c.New) })
	s.skips = append(s.skips, skip)
	for k := n - s.keepLast; k < n; k++ {
		s.process(span(k), loop.children, k+1)
	}
}

// iterationStarts returns the indexes in steps, one execution of loop, at
// which its iterations start.
func iterationStarts(steps []Step, loop *loopNode) []int {
	h := loop.Header
	starts := []int{0}
	revisited := false
	for i := 1; i < len(steps); i++ {
		if steps[i].Line == h && steps[i-1].Line != h {
			revisited = true
			break
		}
	}
	if revisited {
		for i := 1; i < len(steps); i++ {
			if steps[i].Line == h && steps[i-1].Line != h {
				starts = append(starts, i)
			}
		}
		// The final condition check belongs to the last iteration.
		if last := starts[len(starts)-1]; last > 0 {
			onlyHeader := true
			for _, st := range steps[last:] {
				if st.Line != h {
					onlyHeader = false
					break
				}
			}
			if onlyHeader {
				starts = starts[:len(starts)-1]
			}
		}
		return starts
	}
	// The header is not revisited: cut where control jumps back to the
	// first line of the body (or above it), unless within a nested loop.
	first := 0
	for _, st := range steps {
		if st.Line != h {
			first = st.Line
			break
		}
	}
	if first == 0 {
		return starts
	}
	for i := 1; i < len(steps); i++ {
		cur, prev := steps[i].Line, steps[i-1].Line
		if cur == h || cur > first || prev <= cur {
			continue
		}
		inner := false
		for _, c := range loop.children {
			if c.contains(cur) && c.contains(prev) {
				inner = true
				break
			}
		}
		if !inner {
			starts = append(starts, i)
		}
	}
	return starts
}
