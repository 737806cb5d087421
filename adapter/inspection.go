package adapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/engine/cond"
	"github.com/adi-go/adi/engine/trace"
)

// maxThreads is how many goroutines are listed as threads (as Delve does).
const maxThreads = 1024

// maxStackFrames is the most frames one stackTrace response carries.
const maxStackFrames = 1000

func (s *session) onThreads(r *dap.ThreadsRequest) error {
	d, err := s.debuggee()
	if err != nil {
		// Clients ask for threads eagerly; before launch there are none.
		if errors.Is(err, errNoSession) {
			s.send(&dap.ThreadsResponse{Response: s.response(&r.Request), Body: dap.ThreadsResponseBody{Threads: []dap.Thread{}}})
			return nil
		}
		return err
	}
	rec := d.Recording()
	threads := []dap.Thread{}
	for _, g := range rec.Goroutines() {
		if len(threads) == maxThreads {
			break
		}
		threads = append(threads, dap.Thread{Id: int(g.ID), Name: fmt.Sprintf("goroutine %d: %s", g.ID, rec.FIDOf(g.First))})
	}
	if len(threads) == 0 {
		threads = append(threads, dap.Thread{Id: 1, Name: "goroutine 1"})
	}
	s.send(&dap.ThreadsResponse{Response: s.response(&r.Request), Body: dap.ThreadsResponseBody{Threads: threads}})
	return nil
}

// frameID is the DAP id of a frame: its position in T, plus one.
func frameID(f *trace.Frame) int { return f.Seq + 1 }

func (s *session) frameByID(id int) (*trace.Frame, error) {
	d, err := s.debuggee()
	if err != nil {
		return nil, err
	}
	rec := d.Recording()
	if id < 1 || id > rec.Len() {
		return nil, fmt.Errorf("no frame with id %d", id)
	}
	return rec.At(id - 1), nil
}

func (s *session) onStackTrace(ctx context.Context, r *dap.StackTraceRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	rec := d.Recording()
	cur := d.Current()
	frames := []dap.StackFrame{} // never null in JSON: clients iterate it
	line := 0
	if flt, err := s.inspected(ctx); err == nil && s.step < len(flt.Steps) {
		line = flt.Steps[s.step].Line
	}
	for f, child := cur, (*trace.Frame)(nil); f != nil; {
		sf := dap.StackFrame{Id: frameID(f), Name: frameName(f), Line: f.Decl.Line, Column: 1}
		file := f.Decl.File
		switch {
		case child == nil && line > 0:
			sf.Line = line
		case child != nil && child.CallSite.Line > 0:
			sf.Line, file = child.CallSite.Line, child.CallSite.File
		}
		if file != "" {
			sf.Source = &dap.Source{Name: filepath.Base(file), Path: file}
		}
		if child != nil && child.Spawn {
			sf.Name += " (ran the go statement)"
		}
		frames = append(frames, sf)
		child = f
		if f.Parent < 0 {
			break
		}
		f = rec.At(f.Parent)
	}
	total := len(frames)
	start := min(max(r.Arguments.StartFrame, 0), total)
	levels := r.Arguments.Levels
	if levels <= 0 || levels > maxStackFrames {
		// "All" of a deep recursion would not fit in one message: the
		// client pages on with startFrame (totalFrames says how far).
		levels = maxStackFrames
	}
	end := start + min(levels, total-start)
	s.send(&dap.StackTraceResponse{Response: s.response(&r.Request), Body: dap.StackTraceResponseBody{StackFrames: frames[start:end], TotalFrames: total}})
	return nil
}

// frameName shows the fid and the arguments, as the traces do.
func frameName(f *trace.Frame) string {
	var args []string
	for _, a := range f.Args {
		args = append(args, a.Name+"="+a.Text)
	}
	return truncate(f.FID.String()+"("+strings.Join(args, ", ")+")", 120)
}

func (s *session) onScopes(ctx context.Context, r *dap.ScopesRequest) error {
	f, err := s.frameByID(r.Arguments.FrameId)
	if err != nil {
		return err
	}
	d, _ := s.debuggee()
	scopes := []dap.Scope{s.argumentsScope(d, f)}
	if sameFrame(f, d.Current()) {
		if flt, err := d.FLT(ctx, f); err == nil && s.step < len(flt.Steps) {
			scopes = append(scopes,
				dap.Scope{Name: "Locals", PresentationHint: "locals", VariablesReference: s.handles.values(localsAt(flt, s.step))},
				dap.Scope{Name: "Changes by this statement", VariablesReference: s.handles.values(changeValues(flt.Steps[s.step].Changes))})
		}
	} else if child := s.childOnStack(d, f); child != nil {
		// An outer frame: its locals where it made the call, built when
		// the client opens the scope.
		scopes = append(scopes, dap.Scope{Name: "Locals", PresentationHint: "locals", Expensive: true,
			VariablesReference: s.handles.lazy(func() ([]trace.Value, error) {
				// Built by a later variables request: the scopes
				// request's context is gone by then.
				flt, err := d.FLT(s.ctx, f)
				if err != nil {
					return nil, err
				}
				return localsAt(flt, callingStep(flt, child.FID)), nil
			})})
	}
	scopes = append(scopes, dap.Scope{Name: "Return", VariablesReference: s.handles.values(returnValues(f))})
	s.send(&dap.ScopesResponse{Response: s.response(&r.Request), Body: dap.ScopesResponseBody{Scopes: scopes}})
	return nil
}

// argumentsScope shows f's arguments. Composite arguments that the
// recorder kept shallow are filled in by building f's FLT (a re-execution)
// when the client opens the scope.
func (s *session) argumentsScope(d Debuggee, f *trace.Frame) dap.Scope {
	sc := dap.Scope{Name: "Arguments", PresentationHint: "arguments"}
	if !slices.ContainsFunc(f.Args, func(v trace.Value) bool { return v.Shallow() }) {
		sc.VariablesReference = s.handles.values(f.Args)
		return sc
	}
	sc.Expensive = true
	sc.VariablesReference = s.handles.lazy(func() ([]trace.Value, error) {
		// Building the FLT re-executes to f and fills its arguments
		// in, in the recording.
		if _, err := d.FLT(s.ctx, f); err != nil {
			return nil, err
		}
		return d.Recording().At(f.Seq).Args, nil
	})
	return sc
}

// sameFrame reports whether a and b are the same frame of the recording
// (each *trace.Frame is made when it is asked for).
func sameFrame(a, b *trace.Frame) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Seq == b.Seq
}

// childOnStack is f's callee on the inspected frame's stack.
func (s *session) childOnStack(d Debuggee, f *trace.Frame) *trace.Frame {
	rec := d.Recording()
	for c := d.Current(); c != nil && c.Parent >= 0; c = rec.At(c.Parent) {
		if c.Parent == f.Seq {
			return c
		}
	}
	return nil
}

// localsAt is the state before statement step: the arguments with the
// changes of the statements before it applied, and of the loop iterations
// left out among them (Skip.Changes).
func localsAt(flt *trace.FLT, step int) []trace.Value {
	vals := map[string]trace.Value{}
	var order []string
	set := func(v trace.Value) {
		if _, ok := vals[v.Name]; !ok {
			order = append(order, v.Name)
		}
		vals[v.Name] = v
	}
	for _, a := range flt.Frame.Args {
		set(a)
	}
	apply := func(cs []trace.Change) {
		for _, c := range cs {
			v := c.New
			v.Name = c.Var
			set(v)
		}
	}
	skipped := func(after int) {
		for _, sk := range flt.Skipped {
			if sk.After == after {
				apply(sk.Changes)
			}
		}
	}
	skipped(-1)
	for i, st := range flt.Steps[:min(step, len(flt.Steps))] {
		apply(st.Changes)
		skipped(i)
	}
	out := make([]trace.Value, 0, len(order))
	for _, n := range order {
		out = append(out, vals[n])
	}
	return out
}

func changeValues(cs []trace.Change) []trace.Value {
	out := make([]trace.Value, 0, len(cs))
	for _, c := range cs {
		v := c.New
		v.Name = c.Var
		if c.Old == nil {
			v.Text += "  (new)"
		} else {
			v.Text += "  (was " + c.Old.Text + ")"
		}
		out = append(out, v)
	}
	return out
}

func returnValues(f *trace.Frame) []trace.Value {
	switch f.Exit {
	case trace.Panicked:
		return []trace.Value{{Name: "panic", Type: "panic", Kind: trace.KindOther, Text: f.Panic}}
	case trace.Returned:
		return f.Results
	}
	return []trace.Value{{Name: "(no result)", Kind: trace.KindOther, Text: trace.ExitText(f)}}
}

func (s *session) onVariables(r *dap.VariablesRequest) error {
	if _, err := s.debuggee(); err != nil {
		return err
	}
	vals, err := s.handles.get(r.Arguments.VariablesReference)
	if err != nil {
		return err
	}
	start := min(max(r.Arguments.Start, 0), len(vals))
	end := len(vals)
	if r.Arguments.Count > 0 {
		end = start + min(r.Arguments.Count, len(vals)-start)
	}
	vars := make([]dap.Variable, 0, end-start)
	for _, v := range vals[start:end] {
		dv := dap.Variable{Name: v.Name, Value: v.Text, Type: v.Type}
		if len(v.Children) > 0 {
			dv.VariablesReference = s.handles.values(v.Children)
			if v.Kind == trace.KindSlice || v.Kind == trace.KindArray {
				dv.IndexedVariables = len(v.Children)
			}
		}
		vars = append(vars, dv)
	}
	s.send(&dap.VariablesResponse{Response: s.response(&r.Request), Body: dap.VariablesResponseBody{Variables: vars}})
	return nil
}

// onEvaluate evaluates over the recorded values of the statement the
// session is at; in the watch and REPL contexts an expression the recording
// cannot answer is evaluated by re-executing the program to that statement
// (execute), and the answer says so.
func (s *session) onEvaluate(ctx context.Context, r *dap.EvaluateRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	f := d.Current()
	if r.Arguments.FrameId > 0 {
		if f, err = s.frameByID(r.Arguments.FrameId); err != nil {
			return err
		}
	}
	flt, err := d.FLT(ctx, f)
	if err != nil {
		return err
	}
	step := s.step
	if !sameFrame(f, d.Current()) {
		if child := s.childOnStack(d, f); child != nil {
			step = callingStep(flt, child.FID)
		}
	}
	expr := strings.TrimSpace(r.Arguments.Expression)
	vals := localsAt(flt, step)
	lookup := func(name string) (*trace.Value, bool) {
		for i := range vals {
			if vals[i].Name == name {
				return &vals[i], true
			}
		}
		for i := range f.Results {
			if strings.TrimPrefix(f.Results[i].Name, "~") == name {
				return &f.Results[i], true
			}
		}
		return nil, false
	}
	body := dap.EvaluateResponseBody{}
	if r.Arguments.Context == "repl" && isCommand(expr) {
		if _, ok := lookup(expr); !ok {
			// The debug console takes the ADI commands too.
			ans, err := d.Exec(ctx, expr)
			if err != nil {
				return err
			}
			body.Result = ans.Text
			s.send(&dap.EvaluateResponse{Response: s.response(&r.Request), Body: body})
			return nil
		}
	}
	if v, ok := lookup(expr); ok {
		body.Result, body.Type = v.Text, v.Type
		if len(v.Children) > 0 {
			body.VariablesReference = s.handles.values(v.Children)
		}
	} else if text, err := cond.Evaluate(expr, lookup); err == nil {
		body.Result = text
	} else if r.Arguments.Context == "hover" || step >= len(flt.Steps) {
		return fmt.Errorf("%s is not in the recording here: %v", expr, err)
	} else {
		st := flt.Steps[step]
		res, xerr := d.Execute(ctx, f.FID, st.Line, st.Visit, expr)
		if xerr != nil {
			return fmt.Errorf("%v; re-executing to evaluate it: %v", err, xerr)
		}
		switch {
		case res.Value != nil:
			body.Result, body.Type = res.Value.Text+"  (re-executed)", res.Value.Type
		case res.Panic != "":
			body.Result = "what-if: the frame panics: " + res.Panic + "  (re-executed)"
		default:
			var parts []string
			for _, v := range res.Results {
				parts = append(parts, v.Text)
			}
			body.Result = "what-if: the frame returns " + strings.Join(parts, ", ") + "  (re-executed)"
		}
	}
	s.send(&dap.EvaluateResponse{Response: s.response(&r.Request), Body: body})
	return nil
}

func (s *session) onExceptionInfo(r *dap.ExceptionInfoRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	p := d.Recording().Outcome.Panic
	if p == nil {
		return errors.New("the run did not panic")
	}
	var stack []string
	for _, e := range p.Stack {
		name := e.Func
		if !e.FID.IsZero() {
			name = e.FID.String()
		}
		stack = append(stack, name+" at "+e.Pos.String())
	}
	s.send(&dap.ExceptionInfoResponse{Response: s.response(&r.Request), Body: dap.ExceptionInfoResponseBody{
		ExceptionId: "panic", Description: p.Value, BreakMode: "unhandled",
		Details: &dap.ExceptionDetails{Message: p.Value, TypeName: "panic", StackTrace: strings.Join(stack, "\n")},
	}})
	return nil
}

func (s *session) onSource(r *dap.SourceRequest) error {
	path := ""
	if r.Arguments.Source != nil {
		path = r.Arguments.Source.Path
	}
	if path == "" {
		return errors.New("adi gives every frame a source path; a source reference alone is not known")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s.send(&dap.SourceResponse{Response: s.response(&r.Request), Body: dap.SourceResponseBody{Content: string(b)}})
	return nil
}

// handles maps DAP variables references to values. References are valid
// until the next stop and never reused: a client may still ask for one of
// an earlier stop while it refreshes its views (VS Code does, when a stop
// follows closely on another); such a reference has no variables any more,
// which is not an error worth showing. A reference never handed out is.
type handles struct {
	next  int
	stale int // references up to this one belong to earlier stops
	m     map[int]func() ([]trace.Value, error)
}

func (h *handles) reset() { h.stale, h.m = h.next, nil }

func (h *handles) lazy(f func() ([]trace.Value, error)) int {
	if h.m == nil {
		h.m = map[int]func() ([]trace.Value, error){}
	}
	h.next++
	h.m[h.next] = f
	return h.next
}

func (h *handles) values(vs []trace.Value) int {
	return h.lazy(func() ([]trace.Value, error) { return vs, nil })
}

func (h *handles) get(ref int) ([]trace.Value, error) {
	f, ok := h.m[ref]
	if !ok && ref > 0 && ref <= h.stale {
		return nil, nil
	}
	if !ok {
		return nil, errors.New("unknown variables reference " + strconv.Itoa(ref) + " (references last until the next stop)")
	}
	return f()
}

// replCommands are the engine commands the debug console accepts. The
// moving ones (continue, step-into…) are left to the debugger's own
// buttons, which keep the editor's views in step.
var replCommands = map[string]bool{
	"frame": true, "frames": true, "call-tree": true, "execute": true, "outcome": true,
	"break": true, "clear": true, "breakpoints": true, "help": true,
}

func isCommand(expr string) bool {
	word, _, _ := strings.Cut(expr, " ")
	return replCommands[word]
}
