package trace

import (
	"fmt"
	"strings"
	"testing"
)

// wideRecording is main.main#1 calling main.item n times; the items whose
// index is in panics panicked (recovered by main).
func wideRecording(n int, panics ...int) *Recording {
	r := &Recording{}
	main := &Frame{FID: FID{"main.main", 1}, EntrySeq: 1, Exit: Returned}
	r.Frames = append(r.Frames, main)
	for i := 1; i <= n; i++ {
		f := &Frame{FID: FID{"main.item", i}, Caller: main.FID, EntrySeq: uint64(2 * i), ExitSeq: uint64(2*i + 1), Exit: Returned}
		for _, p := range panics {
			if p == i {
				f.Exit, f.Panic = Panicked, "boom"
			}
		}
		r.Frames = append(r.Frames, f)
	}
	r.Index()
	return r
}

// TestCallTreeHiddenPanicked counts the panicked callees left out of the
// middle of a wide call tree, whether the recording has fewer panicked
// frames than hidden callees (counted from its list of panicked frames)
// or more (counted one by one).
func TestCallTreeHiddenPanicked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		panics []int
		want   string
	}{
		// item#1 is shown (head), #26..#995 hidden, #996..#1000 shown.
		{"few panics", 1000, []int{1, 30, 500, 998}, "… 970 more calls (main.item#26 … main.item#995; ✗ 2 panicked)"},
		{"no hidden panic", 1000, []int{3, 999}, "… 970 more calls (main.item#26 … main.item#995)"},
		{"many panics", 40, []int{1, 2, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}, "… 10 more calls (main.item#26 … main.item#35; ✗ 10 panicked)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wideRecording(tc.n, tc.panics...)
			text := CallTreeText(r, r.Frames[0], 3)
			if !strings.Contains(text, tc.want) {
				t.Errorf("call tree lacks %q:\n%s", tc.want, text)
			}
			// A depth cut hides every callee.
			text = CallTreeText(r, r.Frames[0], 0)
			want := fmt.Sprintf("… %d more calls (✗ %d panicked)", tc.n, len(tc.panics))
			if !strings.Contains(text, want) {
				t.Errorf("depth 0: call tree lacks %q:\n%s", want, text)
			}
		})
	}
}
