package trace

import (
	"encoding/json"
	"io"
)

// JSONOptions selects what the JSON renderings include.
type JSONOptions struct {
	// Children includes each value's structure ("children": struct fields,
	// elements, pointees) and the full old and new values of each change.
	// The compact default, for LLMs and the CLI, leaves them out; the DAP
	// adapter asks for them to expand variables.
	Children bool
}

// The JSON renderings return ordered structs rather than maps, so that field
// order is stable; lists are never null ([] when empty), and optional
// fields are omitted rather than zero.

type valueJSON struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	Value    string      `json:"value"`
	Kind     Kind        `json:"kind,omitempty"`
	Len      *int64      `json:"len,omitempty"`
	Cap      *int64      `json:"cap,omitempty"`
	Nil      bool        `json:"nil,omitempty"`
	Cut      bool        `json:"cut,omitempty"`
	Error    string      `json:"error,omitempty"`
	Children []valueJSON `json:"children,omitempty"`
}

type frameJSON struct {
	FID       string      `json:"fid"`
	Func      string      `json:"func"`
	Index     int         `json:"index"`
	Caller    *string     `json:"caller"`
	Spawn     bool        `json:"spawn"`
	Goroutine int64       `json:"goroutine"`
	CallSite  Pos         `json:"call_site"`
	Args      []valueJSON `json:"args"`
	Results   []valueJSON `json:"results"`
	Exit      Exit        `json:"exit"`
	Panic     *string     `json:"panic"`
	Decl      *Pos        `json:"decl,omitempty"`
}

type changeJSON struct {
	Var  string  `json:"var"`
	Old  *string `json:"old"`
	New  string  `json:"new"`
	Type string  `json:"type,omitempty"`
	// With JSONOptions.Children: the values behind Old and New.
	OldValue *valueJSON `json:"old_value,omitempty"`
	NewValue *valueJSON `json:"new_value,omitempty"`
}

type stepJSON struct {
	File      string       `json:"file"`
	Line      int          `json:"line"`
	Stmt      string       `json:"stmt"`
	Changes   []changeJSON `json:"changes"`
	Callees   []string     `json:"callees"`
	Iteration int          `json:"iteration,omitempty"`
}

type skipJSON struct {
	After      int      `json:"after"`
	Line       int      `json:"line"`
	Iterations int      `json:"iterations"`
	Steps      int      `json:"steps"`
	Callees    []string `json:"callees"`
	// What the skipped steps changed (see Skip.Changes).
	Changes []changeJSON `json:"changes,omitempty"`
}

type fltJSON struct {
	frameJSON
	Steps     []stepJSON `json:"steps"`
	Skipped   []skipJSON `json:"skipped"`
	Truncated bool       `json:"truncated"`
	Note      string     `json:"note,omitempty"`
}

type framesJSON struct {
	Func   string      `json:"func"`
	Frames []frameJSON `json:"frames"`
}

type breakJSON struct {
	Breakpoint struct {
		Func      string `json:"func"`
		Condition string `json:"condition"`
	} `json:"breakpoint"`
	Matches int `json:"matches"`
}

type nodeJSON struct {
	FID      string      `json:"fid"`
	Args     []valueJSON `json:"args"`
	Results  []valueJSON `json:"results"`
	Panic    *string     `json:"panic"`
	Exit     Exit        `json:"exit"`
	Children []nodeJSON  `json:"children"`
	// More counts the direct callees not shown. MoreAfter, when set, says
	// they were left out of the middle: the first MoreAfter children precede
	// them and the rest follow; otherwise (a depth cut) all are hidden.
	More      int   `json:"more,omitempty"`
	MoreAfter int   `json:"more_after,omitempty"`
	Spawn     bool  `json:"spawn,omitempty"`
	Goroutine int64 `json:"goroutine"`
}

type treeJSON struct {
	Root *nodeJSON `json:"root"`
	// Roots holds the tree of every root frame when no root was given.
	Roots []nodeJSON `json:"roots,omitempty"`
}

type stackJSON struct {
	Func string  `json:"func"`
	File string  `json:"file"`
	Line int     `json:"line"`
	FID  *string `json:"fid"`
}

type panicJSON struct {
	Value     string      `json:"value"`
	Goroutine int64       `json:"goroutine"`
	Frame     *string     `json:"frame"`
	Stack     []stackJSON `json:"stack"`
}

type outcomeJSON struct {
	ExitCode    int        `json:"exit_code"`
	Panic       *panicJSON `json:"panic"`
	FailedTests []string   `json:"failed_tests"`
	Output      string     `json:"output"`
	Killed      bool       `json:"killed"`
	Partial     string     `json:"partial,omitempty"`
}

// FLTJSON renders an FLT for json.Marshal: the frame's fields (see
// FrameJSON) followed by "steps", "skipped", "truncated" and, when set,
// "note". A change's "old" is null for a variable the step created.
func FLTJSON(f *FLT, o JSONOptions) any {
	if f == nil || f.Frame == nil {
		return nil
	}
	out := fltJSON{
		frameJSON: frameToJSON(f.Frame, o),
		Steps:     make([]stepJSON, len(f.Steps)),
		Skipped:   make([]skipJSON, len(f.Skipped)),
		Truncated: f.Truncated,
		Note:      f.Note,
	}
	for i, s := range f.Steps {
		st := stepJSON{
			File:      s.File,
			Line:      s.Line,
			Stmt:      s.Stmt,
			Changes:   make([]changeJSON, len(s.Changes)),
			Callees:   fidStrings(s.Callees),
			Iteration: s.Iteration,
		}
		for j, c := range s.Changes {
			st.Changes[j] = changeToJSON(c, o)
		}
		out.Steps[i] = st
	}
	for i, s := range f.Skipped {
		out.Skipped[i] = skipJSON{
			After:      s.After,
			Line:       s.Line,
			Iterations: s.Iterations,
			Steps:      s.Steps,
			Callees:    fidStrings(s.Callees),
		}
		for _, c := range s.Changes {
			out.Skipped[i].Changes = append(out.Skipped[i].Changes, changeToJSON(c, o))
		}
	}
	return out
}

// FrameJSON renders one frame for json.Marshal: "fid", "func", "index",
// "caller" (null for a root frame), "spawn", "goroutine", "call_site",
// "args", "results", "exit", "panic" (null unless the frame panicked) and,
// when known, "decl".
func FrameJSON(f *Frame, o JSONOptions) any {
	if f == nil {
		return nil
	}
	return frameToJSON(f, o)
}

// FramesJSON renders a list of frames of function fn:
// {"func": fn, "frames": [Frame…]}.
func FramesJSON(fn string, frames []*Frame, o JSONOptions) any {
	out := framesJSON{Func: fn, Frames: make([]frameJSON, 0, len(frames))}
	for _, f := range frames {
		if f != nil {
			out.Frames = append(out.Frames, frameToJSON(f, o))
		}
	}
	return out
}

// BreakJSON renders the answer to break:
// {"breakpoint": {"func": fn, "condition": cond}, "matches": n}; an empty
// condition is always true.
func BreakJSON(fn, cond string, matches int) any {
	var out breakJSON
	out.Breakpoint.Func = fn
	out.Breakpoint.Condition = cond
	out.Matches = matches
	return out
}

// CallTreeJSON renders the callee tree below root, with the same depth and
// breadth limits as CallTreeText: {"root": Node}, where a Node is {"fid",
// "args", "results", "panic", "exit", "children": [Node…]} and "more" counts
// the direct callees not shown. A nil root gives {"root": null, "roots":
// [Node…]} with the tree of every root frame.
func CallTreeJSON(r *Recording, root *Frame, depth int, o JSONOptions) any {
	if root == nil {
		out := treeJSON{Roots: []nodeJSON{}}
		for _, f := range rootFrames(r) {
			out.Roots = append(out.Roots, treeNode(r, f, depth, 0, o))
		}
		return out
	}
	n := treeNode(r, root, depth, 0, o)
	return treeJSON{Root: &n}
}

func treeNode(r *Recording, f *Frame, depth, level int, o JSONOptions) nodeJSON {
	n := nodeJSON{
		FID:       f.FID.String(),
		Args:      valuesToJSON(f.Args, o),
		Results:   valuesToJSON(f.Results, o),
		Panic:     panicOf(f),
		Exit:      f.Exit,
		Children:  []nodeJSON{},
		Spawn:     f.Spawn,
		Goroutine: f.Goroutine,
	}
	kids := childSeqs(r, f)
	switch {
	case len(kids) == 0:
	case depth >= 0 && level >= depth:
		n.More = len(kids)
	case len(kids) <= MaxTreeChildren:
		n.Children = make([]nodeJSON, 0, len(kids))
		for _, c := range kids {
			n.Children = append(n.Children, treeNode(r, r.At(int(c)), depth, level+1, o))
		}
	default:
		n.Children = make([]nodeJSON, 0, treeHead+treeTail)
		for _, c := range kids[:treeHead] {
			n.Children = append(n.Children, treeNode(r, r.At(int(c)), depth, level+1, o))
		}
		for _, c := range kids[len(kids)-treeTail:] {
			n.Children = append(n.Children, treeNode(r, r.At(int(c)), depth, level+1, o))
		}
		n.More = len(kids) - treeHead - treeTail
		n.MoreAfter = treeHead
	}
	return n
}

// OutcomeJSON renders how the run ended: {"exit_code", "panic" (null, or
// {"value", "goroutine", "frame", "stack": [{"func", "file", "line",
// "fid"}]}), "failed_tests", "output" (stdout then stderr, complete),
// "killed"} and "partial" when the recording is incomplete.
func OutcomeJSON(r *Recording) any {
	if r == nil {
		return nil
	}
	o := &r.Outcome
	out := outcomeJSON{
		ExitCode:    o.ExitCode,
		FailedTests: append([]string{}, o.FailedTests...),
		Output:      o.Output(),
		Killed:      o.Killed,
		Partial:     r.Partial,
	}
	if p := o.Panic; p != nil {
		pj := &panicJSON{
			Value:     p.Value,
			Goroutine: p.Goroutine,
			Frame:     fidPtr(p.Frame),
			Stack:     make([]stackJSON, len(p.Stack)),
		}
		for i, e := range p.Stack {
			pj.Stack[i] = stackJSON{Func: e.Func, File: e.Pos.File, Line: e.Pos.Line, FID: fidPtr(e.FID)}
		}
		out.Panic = pj
	}
	return out
}

// WriteJSON writes v as JSON to w, indented with indent when it is not
// empty, followed by a newline. Unlike json.Marshal it leaves <, > and &
// unescaped, so that values such as &T{…} stay readable.
func WriteJSON(w io.Writer, v any, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(v)
}

func frameToJSON(f *Frame, o JSONOptions) frameJSON {
	out := frameJSON{
		FID:       f.FID.String(),
		Func:      f.FID.Func,
		Index:     f.FID.Index,
		Caller:    fidPtr(f.Caller),
		Spawn:     f.Spawn,
		Goroutine: f.Goroutine,
		CallSite:  f.CallSite,
		Args:      valuesToJSON(f.Args, o),
		Results:   valuesToJSON(f.Results, o),
		Exit:      f.Exit,
		Panic:     panicOf(f),
	}
	if f.Decl.File != "" {
		d := f.Decl
		out.Decl = &d
	}
	return out
}

func changeToJSON(c Change, o JSONOptions) changeJSON {
	out := changeJSON{Var: c.Var, New: displayText(c.New), Type: c.New.Type}
	if c.Old != nil {
		old := displayText(*c.Old)
		out.Old = &old
	}
	if o.Children {
		nv := valueToJSON(c.New, o)
		out.NewValue = &nv
		if c.Old != nil {
			ov := valueToJSON(*c.Old, o)
			out.OldValue = &ov
		}
	}
	return out
}

func valuesToJSON(vs []Value, o JSONOptions) []valueJSON {
	out := make([]valueJSON, len(vs))
	for i, v := range vs {
		out[i] = valueToJSON(v, o)
	}
	return out
}

func valueToJSON(v Value, o JSONOptions) valueJSON {
	out := valueJSON{
		Name:  v.Name,
		Type:  v.Type,
		Value: displayText(v),
		Kind:  v.Kind,
		Nil:   v.Nil,
		Cut:   v.Cut,
		Error: v.Error,
	}
	if v.Error == "" { // an unreadable value has no known length
		switch v.Kind {
		case KindString, KindArray, KindSlice, KindMap, KindChan:
			n := v.Len
			out.Len = &n
		}
		switch v.Kind {
		case KindSlice, KindChan:
			c := v.Cap
			out.Cap = &c
		}
	}
	if o.Children && len(v.Children) > 0 {
		out.Children = valuesToJSON(v.Children, o)
	}
	return out
}

// panicOf is a frame's panic for JSON: null unless it panicked.
func panicOf(f *Frame) *string {
	if f.Exit != Panicked && f.Panic == "" {
		return nil
	}
	p := f.Panic
	return &p
}

func fidPtr(f FID) *string {
	if f.IsZero() {
		return nil
	}
	s := f.String()
	return &s
}

func fidStrings(fids []FID) []string {
	out := make([]string, len(fids))
	for i, f := range fids {
		out[i] = f.String()
	}
	return out
}
