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
