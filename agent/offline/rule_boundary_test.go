package offline

import (
	"strings"
	"testing"

	"github.com/adi-go/adi/engine/trace"
)

// TestWithCalls: a comparison's calls are bound to the step's callees of
// their names in the order Go makes them (a call's arguments' calls
// before it, then left to right), and not bound when the step made
// another number of calls by that name (a && that stopped early).
func TestWithCalls(t *testing.T) {
	cases := []struct {
		name    string
		stmt    string
		callees []string // the step's callees, in run order: Func=result
		want    string   // "left | right" evaluated over the bound calls
	}{
		{"two of one name", "return a.Len() <= b.Len()", []string{"m.(*Bag).Len=2", "m.(*Bag).Len=3"}, "2 | 3"},
		{"nested", "return add(add(x, 1), 2) < add(x, 5)", []string{"m.add=1", "m.add=2", "m.add=3"}, "2 | 3"},
		{"one short", "return a.Len() <= b.Len() && a.Ok()", []string{"m.(*Bag).Len=2"}, "a.Len() | b.Len()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := parseSnippet(t, "package m\n\nfunc f() bool {\n\t"+tc.stmt+"\n}\n")
			stmt := file.StmtAt(4)
			cond, _ := condOf(stmt)
			be := comparisons(cond)[0]
			root := trace.FID{Func: "m.f", Index: 1}
			frames := []*trace.Frame{{FID: root, Goroutine: 1, EntrySeq: 1, ExitSeq: 100, Exit: trace.Returned}}
			step := &trace.Step{}
			index := map[string]int{}
			for k, c := range tc.callees {
				fn, res, _ := strings.Cut(c, "=")
				index[fn]++
				fid := trace.FID{Func: fn, Index: index[fn]}
				frames = append(frames, &trace.Frame{FID: fid, Caller: root, Goroutine: 1, EntrySeq: uint64(2 + 2*k), ExitSeq: uint64(3 + 2*k),
					Exit: trace.Returned, Results: []trace.Value{{Kind: trace.KindInt, Type: "int", Text: res}}})
				step.Callees = append(step.Callees, fid)
			}
			rec := trace.NewRecording(frames...)
			rec.Index()
			d := &diagnoser{rec: rec}
			l, r, vars := d.withCalls(file, stmt, be, step, map[string]*trace.Value{})
			lv, ok := evalText(l, vars)
			if !ok {
				lv = l
			}
			rv, ok := evalText(r, vars)
			if !ok {
				rv = r
			}
			if got := lv + " | " + rv; got != tc.want {
				t.Errorf("%s: %s, want %s", tc.stmt, got, tc.want)
			}
		})
	}
}
