package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/cond"
	"github.com/adi-go/adi/engine/trace"
)

// fakeDebuggee serves a recording that has no program behind it: a
// synthetic one, too large to record under Delve in a test, or a small one
// for the fuzzer, which must never build anything.
//
// B and T are a real engine.Session's (Break, Clear, Breakpoints,
// FirstMatch, Frames, CallTree, ResolveFunc, Recording come from it). The
// engine builds an FLT by re-executing the program, which a synthetic
// recording cannot do, and its navigation builds the FLT of the frame it
// moves to; so the fake keeps its own inspection index i and re-implements
// the ADI continue, prev, step-into and step-out over it (the same scan
// over T for the next or previous frame matching B as the engine's), and
// answers every FLT with a small fixed trace: three statements one line
// apart after the declaration, the second calling all of the frame's
// callees.
type fakeDebuggee struct {
	*engine.Session
	rec *trace.Recording

	mu     sync.Mutex
	i      int
	conds  map[string]*cond.Cond
	closed atomic.Bool
}

var _ adapter.Debuggee = (*fakeDebuggee)(nil)

func newFake(rec *trace.Recording) *fakeDebuggee {
	s := engine.NewSession(rec, nil, engine.Limits{}, 0)
	d := &fakeDebuggee{Session: s, rec: rec, conds: map[string]*cond.Cond{}}
	if f := s.Current(); f != nil {
		d.i = f.Seq
	}
	return d
}

func (d *fakeDebuggee) Current() *trace.Frame {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rec.Len() == 0 {
		return nil
	}
	return d.rec.At(d.i)
}

// FLT is the fixed trace of f.
func (d *fakeDebuggee) FLT(ctx context.Context, f *trace.Frame) (*trace.FLT, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var callees []trace.FID
	for _, c := range d.rec.Children(f.Seq) {
		callees = append(callees, d.rec.FIDOf(int(c)))
	}
	line := f.Decl.Line
	step := func(n int, stmt string, changes []trace.Change, callees []trace.FID) trace.Step {
		return trace.Step{Pos: trace.Pos{File: f.Decl.File, Line: line + n}, Stmt: stmt, Changes: changes, Callees: callees, Visit: 1}
	}
	return &trace.FLT{Frame: f, Steps: []trace.Step{
		step(1, "x := 1", []trace.Change{{Var: "x", New: trace.Value{Type: "int", Kind: trace.KindInt, Text: "1"}}}, nil),
		step(2, "call()", nil, callees),
		step(3, "return", []trace.Change{{Var: "x", Old: &trace.Value{Type: "int", Kind: trace.KindInt, Text: "1"}, New: trace.Value{Type: "int", Kind: trace.KindInt, Text: "2"}}}, nil),
	}}, nil
}

func (d *fakeDebuggee) Frame(ctx context.Context, fid trace.FID) (*trace.FLT, error) {
	f := d.Current()
	if !fid.IsZero() {
		var err error
		if f, err = d.rec.Frame(fid); err != nil {
			return nil, err
		}
	}
	if f == nil {
		return nil, engine.ErrNoFrames
	}
	return d.FLT(ctx, f)
}

// matches is the engine's breakpoint test: the function, and the condition
// over the frame's arguments and results.
func (d *fakeDebuggee) matches(bps []engine.Breakpoint, f *trace.Frame) bool {
	for _, b := range bps {
		if b.Func != f.FID.Func {
			continue
		}
		if b.Cond == "" {
			return true
		}
		c, ok := d.conds[b.Cond]
		if !ok {
			var err error
			if c, err = cond.Compile(b.Cond); err != nil {
				continue
			}
			d.conds[b.Cond] = c
		}
		ok, err := c.Eval(func(name string) (*trace.Value, bool) {
			for i := range f.Args {
				if f.Args[i].Name == name {
					return &f.Args[i], true
				}
			}
			for i := range f.Results {
				if strings.TrimPrefix(f.Results[i].Name, "~") == name {
					return &f.Results[i], true
				}
			}
			return nil, false
		})
		if err == nil && ok {
			return true
		}
	}
	return false
}

func (d *fakeDebuggee) move(ctx context.Context, dir int) (*engine.Nav, error) {
	if d.rec.Len() == 0 {
		return nil, engine.ErrNoFrames
	}
	bps := d.Breakpoints()
	d.mu.Lock()
	from := d.i
	to := -1
	for j := from + dir; j >= 0 && j < d.rec.Len(); j += dir {
		if d.matches(bps, d.rec.At(j)) {
			to = j
			break
		}
	}
	d.mu.Unlock()
	note := ""
	if to < 0 {
		to = from
		note = "no other frame matches the breakpoints; the inspected frame is unchanged"
	}
	return d.goTo(ctx, from, to, note)
}

func (d *fakeDebuggee) goTo(ctx context.Context, from, to int, note string) (*engine.Nav, error) {
	flt, err := d.FLT(ctx, d.rec.At(to))
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.i = to
	d.mu.Unlock()
	return &engine.Nav{FLT: flt, Moved: to != from, Note: note}, nil
}

func (d *fakeDebuggee) Continue(ctx context.Context) (*engine.Nav, error) { return d.move(ctx, +1) }
func (d *fakeDebuggee) Prev(ctx context.Context) (*engine.Nav, error)     { return d.move(ctx, -1) }

func (d *fakeDebuggee) StepInto(ctx context.Context, fid trace.FID) (*engine.Nav, error) {
	f, err := d.rec.Frame(fid)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	from := d.i
	d.mu.Unlock()
	return d.goTo(ctx, from, f.Seq, "")
}

func (d *fakeDebuggee) StepOut(ctx context.Context) (*engine.Nav, error) {
	cur := d.Current()
	if cur == nil {
		return nil, engine.ErrNoFrames
	}
	if cur.Parent < 0 {
		return d.goTo(ctx, cur.Seq, cur.Seq, cur.FID.String()+" is a root frame")
	}
	return d.goTo(ctx, cur.Seq, cur.Parent, "")
}

var errNoProgram = errors.New("the fake debuggee has no program to re-execute")

func (d *fakeDebuggee) Execute(ctx context.Context, fid trace.FID, line, k int, stmt string) (*engine.ExecResult, error) {
	return nil, errNoProgram
}

// Exec answers the commands that read B and T with the engine's session,
// and the ones that read or move i with the fake's.
func (d *fakeDebuggee) Exec(ctx context.Context, line string) (*engine.Answer, error) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	fid := func() (trace.FID, error) {
		if len(words) < 2 {
			return trace.FID{}, nil
		}
		return trace.ParseFID(words[1])
	}
	switch words[0] {
	case "frame":
		id, err := fid()
		if err != nil {
			return nil, err
		}
		flt, err := d.Frame(ctx, id)
		if err != nil {
			return nil, err
		}
		return &engine.Answer{Text: trace.FLTText(d.rec, flt), JSON: trace.FLTJSON(flt, trace.JSONOptions{})}, nil
	case "continue":
		return d.navAnswer(d.Continue(ctx))
	case "prev":
		return d.navAnswer(d.Prev(ctx))
	case "step-out":
		return d.navAnswer(d.StepOut(ctx))
	case "step-into":
		id, err := fid()
		if err != nil {
			return nil, err
		}
		return d.navAnswer(d.StepInto(ctx, id))
	case "execute":
		return nil, errNoProgram
	case "call-tree":
		// The engine's call-tree defaults to its own inspected frame.
		if cur := d.Current(); !strings.Contains(line, "#") && cur != nil {
			line += " " + cur.FID.String()
		}
	}
	return d.Session.Exec(ctx, line)
}

func (d *fakeDebuggee) navAnswer(nav *engine.Nav, err error) (*engine.Answer, error) {
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(trace.FLTJSON(nav.FLT, trace.JSONOptions{}))
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	obj["moved"], obj["note"] = nav.Moved, nav.Note
	return &engine.Answer{Text: trace.FLTText(d.rec, nav.FLT), JSON: obj}, nil
}

func (d *fakeDebuggee) Close() error {
	d.closed.Store(true)
	return nil
}

// fakeOpener opens fakes over the recordings rec makes and keeps them, so
// that a test can check that its sessions closed them all.
type fakeOpener struct {
	rec    func() *trace.Recording
	mu     sync.Mutex
	opened []*fakeDebuggee
}

// Open is an adapter.Opener. A program path containing "broken" fails to
// build; the others "print" a line and log progress first. Opening is
// instant: it cannot be cancelled.
func (o *fakeOpener) Open(ctx context.Context, argv []string, dir string, opts engine.Options) (adapter.Debuggee, error) {
	if opts.Log != nil {
		opts.Log("adi: recording %s", strings.Join(argv, " "))
	}
	if opts.Output != nil {
		opts.Output("stdout", []byte("hello from the fake\n"))
	}
	if strings.Contains(strings.Join(argv, " "), "broken") {
		return nil, errors.New("broken.go:9:30: undefined: suffix")
	}
	d := newFake(o.rec())
	o.mu.Lock()
	o.opened = append(o.opened, d)
	o.mu.Unlock()
	return d, nil
}

// unclosed counts the debuggees opened and not closed.
func (o *fakeOpener) unclosed() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, d := range o.opened {
		if !d.closed.Load() {
			n++
		}
	}
	return n
}

// Synthetic recordings.

const fakeFile = "/src/example.com/fake/main.go"

func intValue(name string, n int) trace.Value {
	return trace.Value{Name: name, Type: "int", Kind: trace.KindInt, Text: fmt.Sprint(n)}
}

// newFrame appends a frame called by caller (zero: a root frame).
func newFrame(fs *[]*trace.Frame, counts map[string]int, fn string, caller trace.FID, line int, args ...trace.Value) trace.FID {
	counts[fn]++
	fid := trace.FID{Func: fn, Index: counts[fn]}
	f := &trace.Frame{
		FID: fid, Caller: caller, Goroutine: 1,
		Decl: trace.Pos{File: fakeFile, Line: line}, Args: args,
		Results: []trace.Value{intValue("~r0", 0)}, Exit: trace.Returned,
		EntrySeq: uint64(2 * len(*fs)), ExitSeq: uint64(2*len(*fs) + 1),
	}
	if !caller.IsZero() {
		f.CallSite = trace.Pos{File: fakeFile, Line: line + 2}
	}
	*fs = append(*fs, f)
	return fid
}

// smallRecording is a run of a dozen frames with structured values, a
// spawned goroutine and a panic, for the fuzzer.
func smallRecording() *trace.Recording {
	var fs []*trace.Frame
	counts := map[string]int{}
	root := newFrame(&fs, counts, "main.main", trace.FID{}, 10)
	items := trace.Value{Name: "items", Type: "[]string", Kind: trace.KindSlice, Text: `[]string{"a", "b", "c"}`, Len: 3, Cap: 3,
		Children: []trace.Value{
			{Name: "[0]", Type: "string", Kind: trace.KindString, Text: `"a"`},
			{Name: "[1]", Type: "string", Kind: trace.KindString, Text: `"b"`},
			{Name: "[2]", Type: "string", Kind: trace.KindString, Text: `"c"`},
		}}
	cfg := trace.Value{Name: "cfg", Type: "*main.Config", Kind: trace.KindPointer, Text: "&main.Config{N: 3}",
		Children: []trace.Value{{Name: "*cfg", Type: "main.Config", Kind: trace.KindStruct, Text: "main.Config{N: 3}",
			Children: []trace.Value{intValue("N", 3)}}}}
	load := newFrame(&fs, counts, "main.load", root, 20, items, cfg)
	for i := range 3 {
		newFrame(&fs, counts, "main.add", load, 30, intValue("i", i))
	}
	w := newFrame(&fs, counts, "main.worker", root, 40, intValue("id", 7))
	fs[len(fs)-1].Spawn = true
	fs[len(fs)-1].Goroutine = 2
	newFrame(&fs, counts, "main.add", w, 30, intValue("i", 3))
	fs[len(fs)-1].Goroutine = 2
	last := fs[len(fs)-1]
	last.Exit, last.Panic, last.Results = trace.Panicked, "boom", nil
	fs[0].Exit, fs[0].Panic, fs[0].Results = trace.Panicked, "boom", nil
	rec := trace.NewRecording(fs...)
	rec.Outcome = trace.Outcome{ExitCode: 2, Stdout: "hello\n", Stderr: "panic: boom\n", Panic: &trace.PanicInfo{
		Value: "boom", Goroutine: 2, Frame: last.FID,
		Stack: []trace.StackEntry{{Func: "main.add", Pos: trace.Pos{File: fakeFile, Line: 31}, FID: last.FID}},
	}}
	return rec
}

// chainRecording is a run of chains×depth+3 frames: main.main#1 calls
// main.first, then `chains` recursions of main.walk `depth` deep whose
// innermost call is main.leaf, then main.last.
func chainRecording(chains, depth int) *trace.Recording {
	fs := make([]*trace.Frame, 0, chains*depth+3)
	counts := map[string]int{}
	root := newFrame(&fs, counts, "main.main", trace.FID{}, 10)
	newFrame(&fs, counts, "main.first", root, 20)
	for c := range chains {
		caller := root
		for d := range depth - 1 {
			caller = newFrame(&fs, counts, "main.walk", caller, 30, intValue("chain", c), intValue("depth", d))
		}
		newFrame(&fs, counts, "main.leaf", caller, 40, intValue("chain", c))
	}
	newFrame(&fs, counts, "main.last", root, 50)
	return trace.NewRecording(fs...)
}

// FLTUntil is FLT: the fixed trace is short.
func (d *fakeDebuggee) FLTUntil(ctx context.Context, f *trace.Frame, until func(trace.Pos) bool) (*trace.FLT, error) {
	return d.FLT(ctx, f)
}
