package offline

import (
	"math/bits"

	"github.com/adi-go/adi/engine/trace"
)

// The rules take their scope as frame numbers (Seqs, in order of entry)
// and ask the recording's store about each, making a *trace.Frame only of
// the frames they inspect: a run of millions of frames is not copied to
// the heap before a rule runs.

// subtree returns the Seqs of roots and of every frame below them, in
// order of entry. A bitmap marks the frames and a stack of its own holds
// the walk: a run of millions of frames costs a bit per frame, and a
// recursion a million calls deep does not recurse here.
func (d *diagnoser) subtree(roots ...int32) []int32 {
	seen := make([]uint64, (d.rec.Len()+63)/64)
	var stack []int32
	n := 0
	for _, r := range roots {
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			seq := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			w, bit := seq/64, uint64(1)<<(seq%64)
			if seen[w]&bit != 0 {
				continue
			}
			seen[w] |= bit
			n++
			stack = append(stack, d.rec.Children(int(seq))...)
		}
	}
	out := make([]int32, 0, n)
	for w, word := range seen {
		for ; word != 0; word &= word - 1 {
			out = append(out, int32(w*64+bits.TrailingZeros64(word)))
		}
	}
	return out
}

// seqsOf returns the Seqs of frames.
func seqsOf(fs []*trace.Frame) []int32 {
	out := make([]int32, len(fs))
	for i, f := range fs {
		out[i] = int32(f.Seq)
	}
	return out
}

// allSeqs returns the Seqs of every frame of the recording.
func (d *diagnoser) allSeqs() []int32 {
	out := make([]int32, d.rec.Len())
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// declOf returns where the function of frame seq is declared.
func (d *diagnoser) declOf(seq int32) trace.Pos {
	return d.rec.DeclOf(d.rec.FuncOf(int(seq)))
}
