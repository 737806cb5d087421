package trace

import (
	"fmt"
	"strings"
	"testing"
)

// wideRecording is main.main#1 calling main.item n times; the items whose
// index is in panics panicked (recovered by main).
func wideRecording(n int, panics ...int) *Recording {
	main := &Frame{FID: FID{"main.main", 1}, EntrySeq: 1, Exit: Returned}
	frames := []*Frame{main}
	for i := 1; i <= n; i++ {
		f := &Frame{FID: FID{"main.item", i}, Caller: main.FID, EntrySeq: uint64(2 * i), ExitSeq: uint64(2*i + 1), Exit: Returned}
		for _, p := range panics {
			if p == i {
				f.Exit, f.Panic = Panicked, "boom"
			}
		}
		frames = append(frames, f)
	}
	return NewRecording(frames...)
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
			text := CallTreeText(r, r.At(0), 3)
			if !strings.Contains(text, tc.want) {
				t.Errorf("call tree lacks %q:\n%s", tc.want, text)
			}
			// A depth cut hides every callee.
			text = CallTreeText(r, r.At(0), 0)
			want := fmt.Sprintf("… %d more calls (✗ %d panicked)", tc.n, len(tc.panics))
			if !strings.Contains(text, want) {
				t.Errorf("depth 0: call tree lacks %q:\n%s", want, text)
			}
		})
	}
}

// TestLookupSparse finds frames by FID when the recording left some
// invocations out (#k is not the k-th frame of its function), and when a
// recording's invocation numbers are not in order of entry.
func TestLookupSparse(t *testing.T) {
	main := &Frame{FID: FID{"main.main", 1}}
	frames := []*Frame{main}
	for _, i := range []int{3, 4, 7, 8, 9, 20} {
		frames = append(frames, &Frame{FID: FID{"main.f", i}, Caller: main.FID})
	}
	r := NewRecording(frames...)
	for _, i := range []int{3, 4, 7, 8, 9, 20} {
		f, ok := r.Lookup(FID{"main.f", i})
		if !ok || f.FID.Index != i {
			t.Errorf("Lookup(main.f#%d) = %v, %v", i, f, ok)
		}
	}
	for _, i := range []int{1, 2, 5, 6, 10, 21} {
		if f, ok := r.Lookup(FID{"main.f", i}); ok {
			t.Errorf("Lookup(main.f#%d) = %s, want none", i, f.FID)
		}
	}
	if n := len(r.Children(0)); n != 6 {
		t.Errorf("main.main has %d children, want 6", n)
	}

	frames[2].FID.Index, frames[5].FID.Index = 9, 4 // 3 9 7 8 4 20
	r = NewRecording(frames...)
	for _, i := range []int{3, 9, 7, 8, 4, 20} {
		if f, ok := r.Lookup(FID{"main.f", i}); !ok || f.FID.Index != i {
			t.Errorf("unordered: Lookup(main.f#%d) = %v, %v", i, f, ok)
		}
	}
	if _, err := r.Frame(FID{"main.f", 5}); err == nil || !strings.Contains(err.Error(), "invoked 6 time(s)") {
		t.Errorf("Frame(main.f#5) error = %v, want the invocation count", err)
	}
}
