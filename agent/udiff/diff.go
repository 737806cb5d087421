// Package udiff writes and reads unified diffs: Unified makes one from a
// file's old and new text (Myers' algorithm), Parse reads one back (as
// written by diff -u, git diff, adi or a model) and FilePatch.Apply applies
// it with a little fuzz, so that any diff, the offline diagnoser's or a
// model's, is verified and applied the same way.
package udiff

import (
	"fmt"
	"slices"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// splitLines splits text into lines without their newlines; noEOL says the
// last line had none.
func splitLines(text string) (lines []string, noEOL bool) {
	if text == "" {
		return nil, false
	}
	lines = strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1], false
	}
	return lines, true
}

// noEOLMark tells a last line without a newline from the same text with
// one, so that adding or removing the final newline is a change.
const noEOLMark = "\x00"

// eolKeyed returns lines with the mark on a last line that has no newline.
func eolKeyed(lines []string, noEOL bool) []string {
	if !noEOL || len(lines) == 0 {
		return lines
	}
	out := slices.Clone(lines)
	out[len(out)-1] += noEOLMark
	return out
}

// diffOp is one line of an edit script: ' ' kept, '-' removed, '+' added.
type diffOp struct {
	kind byte
	text string
	// a and b are the 0-based line numbers in the old and new text.
	a, b int
}

// Unified returns the unified diff between old and new for the file
// at path (relative, shown as a/path and b/path); "" when they are equal.
func Unified(path, old, new string) string {
	if old == new {
		return ""
	}
	a, aNoEOL := splitLines(old)
	b, bNoEOL := splitLines(new)
	ops := myers(eolKeyed(a, aNoEOL), eolKeyed(b, bNoEOL))
	for i := range ops {
		ops[i].text = strings.TrimSuffix(ops[i].text, noEOLMark)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from diffContext lines before this change to diffContext
		// lines after the last change that is close enough to merge.
		start := max(i-diffContext, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*diffContext {
				break
			}
		}
		stop := min(end+diffContext+1, len(ops))
		h := ops[start:stop]
		oldStart, newStart, oldLen, newLen := h[0].a+1, h[0].b+1, 0, 0
		for _, op := range h {
			if op.kind != '+' {
				oldLen++
			}
			if op.kind != '-' {
				newLen++
			}
		}
		if oldLen == 0 {
			oldStart--
		}
		if newLen == 0 {
			newStart--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", oldStart, oldLen, newStart, newLen)
		for _, op := range h {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			out.WriteByte('\n')
			lastA := op.kind != '+' && op.a == len(a)-1
			lastB := op.kind != '-' && op.b == len(b)-1
			if (op.kind == '-' && lastA && aNoEOL) || (op.kind == '+' && lastB && bNoEOL) ||
				(op.kind == ' ' && lastA && aNoEOL && bNoEOL) {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}

// myers computes a shortest edit script from a to b (Myers' O(ND)
// algorithm), as kept, removed and added lines with their line numbers.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, off, d, k)
			}
		}
	}
	return nil
}

// backtrack walks Myers' saved frontiers back from (n, m) to build the
// edit script.
func backtrack(a, b []string, trace [][]int, off, d, k int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for ; d > 0; d-- {
		v := trace[d]
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{kind: ' ', text: a[x], a: x, b: y})
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{kind: '+', text: b[y], a: x, b: y})
		} else {
			x--
			rev = append(rev, diffOp{kind: '-', text: a[x], a: x, b: y})
		}
		k = prevK
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{kind: ' ', text: a[x], a: x, b: y})
	}
	slices.Reverse(rev)
	return rev
}
