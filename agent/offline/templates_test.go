package offline

import (
	"slices"
	"testing"
)

// TestSliceEndFixes: the off-by-one edits of a statement's slice bounds,
// a ±1 dropped first; no negative literal bound, nothing from a function
// literal or an if's body, at most maxSliceFixes.
func TestSliceEndFixes(t *testing.T) {
	cases := []struct {
		stmt string
		want []string
	}{
		{"m := mean(c[l/2-1 : l/2])", []string{
			"`c[l/2-1 : l/2]` → `c[l/2 : l/2]`", "`c[l/2-1 : l/2]` → `c[l/2-1 : l/2+1]`", "`c[l/2-1 : l/2]` → `c[l/2-1 : l/2-1]`"}},
		{"m := mean(c[0:l])", []string{
			"`c[0:l]` → `c[0:l+1]`", "`c[0:l]` → `c[0:l-1]`", "`c[0:l]` → `c[0+1:l]`"}},
		{"m := mean(c[:l+1])", []string{"`c[:l+1]` → `c[:l]`"}},
		{"f := func() float64 { return mean(c[1:]) }", nil},
		{"if l > 0 {\n\t\tc = c[1:]\n\t}", nil},
		{"m := mean(c[a:b]) + mean(c[b:l])", []string{
			"`c[a:b]` → `c[a:b+1]`", "`c[a:b]` → `c[a:b-1]`", "`c[a:b]` → `c[a+1:b]`", "`c[a:b]` → `c[a-1:b]`"}},
	}
	for _, tc := range cases {
		file := parseSnippet(t, "package m\n\nfunc f(c []float64, l, a, b int, mean func([]float64) float64) {\n\t"+tc.stmt+"\n}\n")
		var got []string
		for _, fx := range sliceEndFixes(file, file.StmtAt(4)) {
			got = append(got, fx.desc)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.stmt, got, tc.want)
		}
	}
}
