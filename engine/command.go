package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// Answer is a command's result in both of adi's forms: compact text for a
// person or an LLM, and a value to encode as JSON for programs.
type Answer struct {
	Text string
	JSON any
}

// ErrQuit is returned by Exec for the quit command.
var ErrQuit = errors.New("quit")

// CommandHelp lists the command language of Exec.
const CommandHelp = `commands:
  break FUNC [COND]         add a breakpoint; COND is a Go expression over the frame's arguments
                            and results (unnamed results are r0, r1, …), e.g. break main.fib n == 3 && r0 > 1
  clear [FUNC [COND]]       remove breakpoints (all of FUNC, or all)
  breakpoints               list the breakpoints
  continue                  go to the next frame matching a breakpoint
  prev                      go to the previous frame matching a breakpoint
  step-into FID             go to frame FID (e.g. main.fib#3)
  step-out                  go to the caller of the inspected frame
  call-tree [FID] [DEPTH]   the callees below a frame (default: the inspected one, depth 3)
  execute FID LINE K STMT   evaluate STMT at the K-th run of LINE in FID; "x = v" is a what-if
  frame [FID]               the trace of a frame (default: the inspected one)
  frames FUNC               every invocation of FUNC with arguments and results
  outcome                   how the run ended: exit code, panic, failed tests, output
  help                      this list
  quit                      end the session`

// Exec runs one command line of the command language on the session.
func (s *Session) Exec(ctx context.Context, line string) (*Answer, error) {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil, errors.New("empty command; type help for the list")
	}
	cmd, args := words[0], words[1:]
	// rest is the text after the command and its first n arguments, as
	// typed: conditions and statements contain spaces.
	rest := func(n int) string { return afterWords(line, n+1) }
	switch cmd {
	case "break", "b":
		if len(args) < 1 {
			return nil, errors.New("usage: break FUNC [COND]")
		}
		fn := s.ResolveFunc(args[0])
		c := rest(1)
		n, err := s.Break(fn, c)
		if err != nil {
			return nil, err
		}
		return &Answer{Text: trace.BreakText(fn, c, n), JSON: trace.BreakJSON(fn, c, n)}, nil
	case "clear":
		fn := ""
		if len(args) > 0 {
			fn = s.ResolveFunc(args[0])
		}
		n, err := s.Clear(fn, rest(1))
		if err != nil {
			return nil, err
		}
		return s.breakpointsAnswer(fmt.Sprintf("cleared %d breakpoint(s)", n), n), nil
	case "breakpoints":
		return s.breakpointsAnswer("", -1), nil
	case "continue", "c":
		return s.navAnswer(s.Continue(ctx))
	case "prev", "p":
		return s.navAnswer(s.Prev(ctx))
	case "step-into", "si":
		if len(args) != 1 {
			return nil, errors.New("usage: step-into FID (e.g. step-into main.fib#3)")
		}
		fid, err := s.parseFID(args[0])
		if err != nil {
			return nil, err
		}
		return s.navAnswer(s.StepInto(ctx, fid))
	case "step-out", "so":
		return s.navAnswer(s.StepOut(ctx))
	case "call-tree", "tree":
		var fid trace.FID
		depth := 3
		for _, a := range args {
			if n, err := strconv.Atoi(a); err == nil {
				if n < 0 {
					return nil, fmt.Errorf("depth must be 0 or more, got %d", n)
				}
				depth = n
				continue
			}
			f, err := s.parseFID(a)
			if err != nil {
				return nil, err
			}
			fid = f
		}
		root, err := s.CallTree(fid)
		if err != nil {
			return nil, err
		}
		return &Answer{Text: trace.CallTreeText(s.rec, root, depth), JSON: trace.CallTreeJSON(s.rec, root, depth, trace.JSONOptions{})}, nil
	case "execute", "exec":
		if len(args) < 4 {
			return nil, errors.New("usage: execute FID LINE K STMT (e.g. execute main.fib#3 12 1 n*2)")
		}
		fid, err := s.parseFID(args[0])
		if err != nil {
			return nil, err
		}
		ln, err1 := strconv.Atoi(args[1])
		k, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("LINE and K must be numbers, got %q and %q", args[1], args[2])
		}
		res, err := s.Execute(ctx, fid, ln, k, rest(3))
		if err != nil {
			return nil, err
		}
		return &Answer{Text: execText(res), JSON: execJSON(res)}, nil
	case "frame", "f":
		var fid trace.FID
		if len(args) > 0 {
			f, err := s.parseFID(args[0])
			if err != nil {
				return nil, err
			}
			fid = f
		}
		flt, err := s.Frame(ctx, fid)
		if err != nil {
			return nil, err
		}
		return &Answer{Text: trace.FLTText(s.rec, flt), JSON: trace.FLTJSON(flt, trace.JSONOptions{})}, nil
	case "frames":
		if len(args) != 1 {
			return nil, errors.New("usage: frames FUNC")
		}
		fn := s.ResolveFunc(args[0])
		fs, err := s.Frames(fn)
		if err != nil {
			return nil, err
		}
		return &Answer{Text: trace.FramesText(s.rec, fn, fs), JSON: trace.FramesJSON(fn, fs, trace.JSONOptions{})}, nil
	case "outcome":
		return &Answer{Text: trace.OutcomeText(s.rec), JSON: trace.OutcomeJSON(s.rec)}, nil
	case "help", "?":
		return &Answer{Text: CommandHelp, JSON: map[string]string{"help": CommandHelp}}, nil
	case "quit", "exit", "q":
		return nil, ErrQuit
	}
	return nil, fmt.Errorf("unknown command %q; type help for the list", cmd)
}

// ResolveFunc accepts the names people type for a recorded function: the
// full name, a generic function without its "[...]" (main.Map for
// main.Map[...]) and, when it names one function only, a name without the
// package path (parser.Parse for example.com/m/parser.Parse). Other names
// are returned unchanged, for the command to report.
func (s *Session) ResolveFunc(fn string) string {
	if s.rec.HasFunc(fn) {
		return fn
	}
	var found []string
	for _, name := range s.rec.Funcs() {
		plain := strings.ReplaceAll(name, "[...]", "")
		if plain == fn || name == fn {
			return name
		}
		if strings.HasSuffix(plain, "/"+fn) || strings.HasSuffix(name, "/"+fn) {
			found = append(found, name)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return fn
}

func (s *Session) parseFID(text string) (trace.FID, error) {
	fid, err := trace.ParseFID(text)
	if err != nil {
		return fid, err
	}
	fid.Func = s.ResolveFunc(fid.Func)
	return fid, nil
}

func (s *Session) breakpointsAnswer(head string, cleared int) *Answer {
	bps := s.Breakpoints()
	type bpJSON struct {
		Func      string `json:"func"`
		Condition string `json:"condition"`
	}
	list := make([]bpJSON, 0, len(bps))
	for _, b := range bps {
		list = append(list, bpJSON{b.Func, b.Cond})
	}
	text := "breakpoints: " + describeBreakpoints(bps)
	if head != "" {
		text = head + "; " + text
	}
	if cleared >= 0 {
		return &Answer{Text: text, JSON: struct {
			Cleared     int      `json:"cleared"`
			Breakpoints []bpJSON `json:"breakpoints"`
		}{cleared, list}}
	}
	return &Answer{Text: text, JSON: struct {
		Breakpoints []bpJSON `json:"breakpoints"`
	}{list}}
}

// navAnswer renders a navigation: the FLT, with "moved" and "note" added to
// its JSON object.
func (s *Session) navAnswer(nav *Nav, err error) (*Answer, error) {
	if err != nil {
		return nil, err
	}
	text := trace.FLTText(s.rec, nav.FLT)
	if nav.Note != "" {
		text = nav.Note + "\n" + text
	}
	obj, err := withFields(trace.FLTJSON(nav.FLT, trace.JSONOptions{}), map[string]any{"moved": nav.Moved, "note": nav.Note})
	if err != nil {
		return nil, err
	}
	return &Answer{Text: text, JSON: obj}, nil
}

// withFields appends fields (in sorted key order) to the JSON object v.
func withFields(v any, fields map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := trace.WriteJSON(&buf, v, ""); err != nil {
		return nil, err
	}
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("internal error: not a JSON object: %.40s", b)
	}
	out := append([]byte(nil), b[:len(b)-1]...)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(fields[k])
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, kb...), ':'), vb...)
	}
	return append(out, '}'), nil
}

// afterWords drops the first n words of line.
func afterWords(line string, n int) string {
	t := strings.TrimSpace(line)
	for i := 0; i < n && t != ""; i++ {
		j := strings.IndexAny(t, " \t")
		if j < 0 {
			return ""
		}
		t = strings.TrimSpace(t[j:])
	}
	return t
}

func execText(r *ExecResult) string {
	fid := trace.ShortFunc(r.FID.String())
	at := fmt.Sprintf("at line %d (visit %d) of %s", r.Line, r.K, fid)
	switch {
	case !r.WhatIf:
		return fmt.Sprintf("%s = %s  %s", r.Stmt, r.Value.Text, at)
	case r.Panic != "":
		return fmt.Sprintf("with %s %s, %s panics: %s", r.Stmt, at, fid, r.Panic)
	default:
		parts := make([]string, len(r.Results))
		for i, v := range r.Results {
			parts[i] = v.Text
			if !strings.HasPrefix(v.Name, "~") {
				parts[i] = v.Name + " = " + v.Text
			}
		}
		return fmt.Sprintf("with %s %s, %s returns (%s)", r.Stmt, at, fid, strings.Join(parts, ", "))
	}
}

func execJSON(r *ExecResult) any {
	type valueJSON struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	type out struct {
		FID     string       `json:"fid"`
		Line    int          `json:"line"`
		K       int          `json:"k"`
		Stmt    string       `json:"stmt"`
		Value   *string      `json:"value,omitempty"`
		Type    string       `json:"type,omitempty"`
		WhatIf  bool         `json:"what_if"`
		Results *[]valueJSON `json:"results,omitempty"`
		Panic   *string      `json:"panic,omitempty"`
	}
	o := out{FID: r.FID.String(), Line: r.Line, K: r.K, Stmt: r.Stmt, WhatIf: r.WhatIf}
	if r.Value != nil {
		o.Value, o.Type = &r.Value.Text, r.Value.Type
	}
	if r.Panic != "" {
		o.Panic = &r.Panic
	} else if r.WhatIf {
		// A what-if always says how the frame ended: its results, even
		// when it has none.
		results := make([]valueJSON, 0, len(r.Results))
		for _, v := range r.Results {
			results = append(results, valueJSON{v.Name, v.Type, v.Text})
		}
		o.Results = &results
	}
	return o
}
