package offline

import (
	"slices"
	"testing"

	"github.com/adi-go/adi/engine/trace"
)

// TestSubtree checks that subtree returns the frames below its roots, each
// once, in order of entry, the goroutines they spawned included.
func TestSubtree(t *testing.T) {
	fr := func(fn string, index int, caller string, callerIndex int) *trace.Frame {
		f := &trace.Frame{FID: trace.FID{Func: fn, Index: index}, Decl: trace.Pos{File: "m.go", Line: 1}}
		if caller != "" {
			f.Caller = trace.FID{Func: caller, Index: callerIndex}
		}
		return f
	}
	spawned := fr("main.worker", 1, "main.a", 2)
	spawned.Spawn = true
	rec := trace.NewRecording(
		fr("main.main", 1, "", 0),         // 0
		fr("main.a", 1, "main.main", 1),   // 1
		fr("main.b", 1, "main.a", 1),      // 2
		fr("main.a", 2, "main.main", 1),   // 3
		spawned,                           // 4: go worker() in a#2
		fr("main.b", 2, "main.a", 2),      // 5
		fr("main.b", 3, "main.worker", 1), // 6
		fr("main.init", 1, "", 0),         // 7: another root
	)
	d := &diagnoser{rec: rec}
	cases := []struct {
		roots []int32
		want  []int32
	}{
		{[]int32{1}, []int32{1, 2}},
		{[]int32{3}, []int32{3, 4, 5, 6}},
		{[]int32{3, 1, 5}, []int32{1, 2, 3, 4, 5, 6}},
		{[]int32{0, 3}, []int32{0, 1, 2, 3, 4, 5, 6}},
		{[]int32{7}, []int32{7}},
		{nil, []int32{}},
	}
	for _, tc := range cases {
		if got := d.subtree(tc.roots...); !slices.Equal(got, tc.want) {
			t.Errorf("subtree(%v) = %v, want %v", tc.roots, got, tc.want)
		}
	}
}

// TestSubtreeDeep walks a recursion far deeper than a test would recurse
// comfortably.
func TestSubtreeDeep(t *testing.T) {
	const n = 200_000
	frames := make([]*trace.Frame, n)
	for i := range frames {
		frames[i] = &trace.Frame{FID: trace.FID{Func: "main.down", Index: i + 1}}
		if i > 0 {
			frames[i].Caller = trace.FID{Func: "main.down", Index: i}
		}
	}
	d := &diagnoser{rec: trace.NewRecording(frames...)}
	var want []int32
	for i := int32(n / 2); i < n; i++ {
		want = append(want, i)
	}
	if got := d.subtree(n / 2); !slices.Equal(got, want) {
		t.Errorf("subtree of frame %d: %d frames, want the %d from %d to %d", n/2, len(got), len(want), n/2, n-1)
	}
}
