package trace

import (
	"sort"
	"strings"
)

// Nearest returns up to n names from candidates that are close to name: the
// same final identifier, or a small edit distance. Used for "did you mean".
func Nearest(name string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	short := func(s string) string {
		s = strings.ReplaceAll(s, "[...]", "")
		if i := strings.LastIndexAny(s, ".)"); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	var out []scored
	limit := max(2, len(name)/3)
	for _, c := range candidates {
		d := editDistance(name, c)
		if !strings.Contains(name, "/") {
			// A name typed without its import path is compared with
			// the candidates' short forms.
			d = min(d, editDistance(name, c[strings.LastIndexByte(c, '/')+1:]))
		}
		if short(c) == short(name) || strings.HasSuffix(c, "."+name) {
			d = min(d, 1)
		}
		if d <= limit {
			out = append(out, scored{c, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	names := make([]string, 0, n)
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].name)
	}
	return names
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
