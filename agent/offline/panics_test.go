package offline

import "testing"

// TestClassifyPanic reads the runtime's panic messages.
func TestClassifyPanic(t *testing.T) {
	cases := []struct {
		msg       string
		kind      panicKind
		idx, leng int64
	}{
		{"assignment to entry in nil map", panicNilMap, 0, 0},
		{"runtime error: invalid memory address or nil pointer dereference", panicNilPointer, 0, 0},
		{"runtime error: index out of range [12] with length 12", panicIndex, 12, 12},
		{"runtime error: index out of range [-1]", panicIndex, -1, -1},
		{"runtime error: slice bounds out of range [:12] with capacity 10", panicSlice, 0, 0},
		{"runtime error: integer divide by zero", panicDivide, 0, 0},
		{"interface conversion: interface {} is string, not int", panicAssert, 0, 0},
		{"send on closed channel", panicClosedChan, 0, 0},
		{"close of nil channel", panicClosedChan, 0, 0},
		{"negative value -1", panicOther, 0, 0},
	}
	for _, tc := range cases {
		p := classifyPanic(tc.msg)
		if p.kind != tc.kind {
			t.Errorf("%q: kind %d, want %d", tc.msg, p.kind, tc.kind)
		}
		if tc.kind == panicIndex && (p.index != tc.idx || p.length != tc.leng || !p.hasIndex) {
			t.Errorf("%q: index %d length %d, want %d and %d", tc.msg, p.index, p.length, tc.idx, tc.leng)
		}
	}
}

// TestClassifySliceBounds reads the bounds of the runtime's slice bounds
// panics, and the length or capacity they name.
func TestClassifySliceBounds(t *testing.T) {
	for _, tc := range []struct{ msg, bounds, limit string }{
		{"runtime error: slice bounds out of range [3:2]", "3:2", ""},
		{"runtime error: slice bounds out of range [:12] with capacity 10", ":12", "10"},
		{"runtime error: slice bounds out of range [:5] with length 4", ":5", "4"},
		{"runtime error: slice bounds out of range [-1:]", "-1:", ""},
		{"runtime error: slice bounds out of range [::9] with capacity 8", "::9", "8"},
		{"runtime error: slice bounds out of range [:4:3]", ":4:3", ""},
	} {
		p := classifyPanic(tc.msg)
		if p.kind != panicSlice || p.bounds != tc.bounds || p.limit != tc.limit {
			t.Errorf("%q: kind %d, bounds %q, limit %q; want %q and %q", tc.msg, p.kind, p.bounds, p.limit, tc.bounds, tc.limit)
		}
	}
}
