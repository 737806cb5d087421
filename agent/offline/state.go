package offline

import (
	"slices"
	"strings"

	"github.com/adi-go/adi/engine/cond"
	"github.com/adi-go/adi/engine/trace"
)

// frameState replays an FLT's ΔS to know every variable's value before and
// after each step: the arguments at entry, then each step's changes, and
// those of the loop iterations left out after it (Skip.Changes).
type frameState struct {
	flt *trace.FLT
	// after[i] holds the variables after step i ran; entry holds them at
	// entry.
	entry map[string]*trace.Value
	after []map[string]*trace.Value
}

// newFrameState replays flt.
func newFrameState(flt *trace.FLT) *frameState {
	fs := &frameState{flt: flt, entry: map[string]*trace.Value{}}
	for i := range flt.Frame.Args {
		a := &flt.Frame.Args[i]
		fs.entry[a.Name] = a
	}
	cur := fs.entry
	skipped := func(after int, vars map[string]*trace.Value) {
		for i := range flt.Skipped {
			if sk := &flt.Skipped[i]; sk.After == after {
				for j := range sk.Changes {
					vars[sk.Changes[j].Var] = &sk.Changes[j].New
				}
			}
		}
	}
	for i := range flt.Steps {
		next := make(map[string]*trace.Value, len(cur)+2)
		for k, v := range cur {
			next[k] = v
		}
		if i == 0 {
			skipped(-1, next)
		}
		for j := range flt.Steps[i].Changes {
			c := &flt.Steps[i].Changes[j]
			next[c.Var] = &c.New
		}
		skipped(i, next)
		fs.after = append(fs.after, next)
		cur = next
	}
	return fs
}

// before returns the variables as step i starts.
func (fs *frameState) before(i int) map[string]*trace.Value {
	if i <= 0 || len(fs.after) == 0 {
		return fs.entry
	}
	return fs.after[min(i, len(fs.after))-1]
}

// afterStep returns the variables after step i ran.
func (fs *frameState) afterStep(i int) map[string]*trace.Value {
	if i < 0 {
		return fs.entry
	}
	return fs.after[min(i, len(fs.after)-1)]
}

// lookup adapts a variable map to the condition evaluator. Unnamed results
// (~r0) are found as r0.
func lookup(vars map[string]*trace.Value) func(string) (*trace.Value, bool) {
	return func(name string) (*trace.Value, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		v, ok := vars["~"+name]
		return v, ok
	}
}

// evalText evaluates a Go expression over recorded variables and returns
// its value as text; ok is false when it cannot be evaluated (unknown
// names, calls, values cut by the recording's limits).
func evalText(expr string, vars map[string]*trace.Value) (string, bool) {
	text, err := cond.Evaluate(expr, lookup(vars))
	if err != nil {
		return "", false
	}
	return text, true
}

// evalBool evaluates a boolean Go expression over recorded variables.
func evalBool(expr string, vars map[string]*trace.Value) (val, ok bool) {
	c, err := cond.Compile(expr)
	if err != nil {
		return false, false
	}
	v, err := c.Eval(lookup(vars))
	if err != nil {
		return false, false
	}
	return v, true
}

// changedVar returns the change of variable name in step st, or nil.
func changedVar(st *trace.Step, name string) *trace.Change {
	for i := range st.Changes {
		if st.Changes[i].Var == name {
			return &st.Changes[i]
		}
	}
	return nil
}

// resultValue returns a frame's i-th result, or nil.
func resultValue(f *trace.Frame, i int) *trace.Value {
	if i < 0 || i >= len(f.Results) {
		return nil
	}
	return &f.Results[i]
}

// argNames lists a frame's argument names (the receiver first for a
// method, as recorded).
func argNames(f *trace.Frame) []string {
	out := make([]string, len(f.Args))
	for i, a := range f.Args {
		out[i] = a.Name
	}
	return out
}

// short renders a value for a person in one line of at most 120 bytes.
func short(text string) string {
	text = strings.ReplaceAll(text, "\n", " ")
	if len(text) > 120 {
		cut := 117
		for cut > 0 && text[cut]&0xC0 == 0x80 {
			cut--
		}
		return text[:cut] + "…"
	}
	return text
}

// sortBySeq orders frames by their position in T.
func sortBySeq(fs []*trace.Frame) {
	slices.SortFunc(fs, func(a, b *trace.Frame) int { return a.Seq - b.Seq })
}
