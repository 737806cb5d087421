package offline

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// panicKind classifies a panic by its message.
type panicKind int

const (
	panicOther      panicKind = iota // panic(v) called by the program
	panicNilMap                      // assignment to entry in nil map
	panicNilPointer                  // invalid memory address or nil pointer dereference
	panicIndex                       // index out of range [i] with length n
	panicSlice                       // slice bounds out of range
	panicDivide                      // integer divide by zero
	panicAssert                      // interface conversion (failed type assertion)
	panicClosedChan                  // send on closed channel, close of closed or nil channel
)

// panicInfo is a classified panic message.
type panicInfo struct {
	kind panicKind
	text string
	// index and length are set for index out of range.
	index, length int64
	hasIndex      bool
	// bounds are the bounds a slice bounds panic gives, as written
	// ("3:2", ":12"), and limit the length or capacity it names ("" when
	// it names none: a low bound past the high one).
	bounds, limit string
}

// indexRE reads the index and length of an index-out-of-range panic;
// sliceRE the bounds and the length or capacity of a slice bounds panic.
var (
	indexRE = regexp.MustCompile(`index out of range \[(-?\d+)\](?: with length (\d+))?`)
	sliceRE = regexp.MustCompile(`slice bounds out of range \[([-\d:]*)\](?: with (?:length|capacity) (\d+))?`)
)

// classifyPanic reads a panic message as the runtime prints it.
func classifyPanic(text string) panicInfo {
	p := panicInfo{text: text}
	msg := strings.TrimPrefix(strings.TrimSpace(text), "runtime error: ")
	switch {
	case strings.Contains(msg, "assignment to entry in nil map"):
		p.kind = panicNilMap
	case strings.Contains(msg, "nil pointer dereference"):
		p.kind = panicNilPointer
	case strings.Contains(msg, "index out of range"):
		p.kind = panicIndex
		if m := indexRE.FindStringSubmatch(msg); m != nil {
			p.index, _ = strconv.ParseInt(m[1], 10, 64)
			p.length = -1
			if m[2] != "" {
				p.length, _ = strconv.ParseInt(m[2], 10, 64)
			}
			p.hasIndex = true
		}
	case strings.Contains(msg, "slice bounds out of range"):
		p.kind = panicSlice
		if m := sliceRE.FindStringSubmatch(msg); m != nil {
			p.bounds, p.limit = m[1], m[2]
		}
	case strings.Contains(msg, "integer divide by zero"):
		p.kind = panicDivide
	case strings.HasPrefix(msg, "interface conversion"):
		p.kind = panicAssert
	case strings.Contains(msg, "send on closed channel"), strings.Contains(msg, "close of closed channel"),
		strings.Contains(msg, "close of nil channel"):
		p.kind = panicClosedChan
	}
	return p
}

// panicked returns the frame where the run's failure started with a panic:
// the innermost recorded frame of the panic that ended the run, else the
// innermost frame of scope that panicked and was recovered inside one of
// the failing tests (a deferred recover that turned a panic into a wrong
// result). The second result is the panic's message.
func (d *diagnoser) panicked(scope []int32) (*trace.Frame, string) {
	if p := d.rec.Outcome.Panic; p != nil {
		if f := d.frame(p.Frame); f != nil {
			return f, p.Value
		}
		for _, e := range p.Stack {
			if f := d.frame(e.FID); f != nil {
				return f, p.Value
			}
		}
	}
	for _, seq := range scope {
		if d.rec.ExitOf(int(seq)) != trace.Panicked {
			continue
		}
		inner := true
		for _, c := range d.rec.Children(int(seq)) {
			if d.rec.ExitOf(int(c)) == trace.Panicked {
				inner = false
				break
			}
		}
		if inner {
			f := d.rec.At(int(seq))
			return f, f.Panic
		}
	}
	return nil, ""
}

// stackOf returns the frames open when f was: f, its caller, and so on
// up to the root, innermost first.
func (d *diagnoser) stackOf(f *trace.Frame) []int32 {
	out := []int32{int32(f.Seq)}
	for p := f.Parent; p >= 0; p = d.rec.ParentOf(p) {
		out = append(out, int32(p))
	}
	return out
}

// recoverer returns the nearest caller of f that returned normally: the
// frame whose deferred recover swallowed f's panic (nil when the panic
// ended the run).
func (d *diagnoser) recoverer(f *trace.Frame) *trace.Frame {
	for p := f.Parent; p >= 0; p = d.rec.ParentOf(p) {
		if d.rec.ExitOf(p) == trace.Returned {
			return d.rec.At(p)
		}
	}
	return nil
}
