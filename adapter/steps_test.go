package adapter_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/adapter/daptest"
)

// The steps every session takes, with the checks that hold whatever the
// program.

// advertised are the capabilities adi implements; supportsProgressReporting
// is added when the client has it.
var advertised = []string{
	"supportsConfigurationDoneRequest",
	"supportsFunctionBreakpoints",
	"supportsConditionalBreakpoints",
	"supportsStepBack",
	"supportsEvaluateForHovers",
	"supportsTerminateRequest",
	"supportsExceptionInfoRequest",
}

// initialize sends initialize and checks that the capabilities advertised
// are exactly those adi implements.
func initialize(t *testing.T, c *daptest.Client, progress bool) {
	t.Helper()
	args := map[string]any{"clientID": "adi-test", "adapterID": "adi", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}
	if progress {
		args["supportsProgressReporting"] = true
	}
	m := c.Request("initialize", args)
	var body map[string]any
	if err := json.Unmarshal(m.Body, &body); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var got []string
	for k, v := range body {
		switch v := v.(type) {
		case bool:
			if !v {
				continue
			}
		case nil:
			continue
		case []any:
			if len(v) == 0 {
				continue
			}
		}
		got = append(got, k)
	}
	want := append([]string(nil), advertised...)
	if progress {
		want = append(want, "supportsProgressReporting")
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("initialize advertises\n  %v\nwant exactly\n  %v\nbody: %s", got, want, m.Body)
	}
}

// launch sends launch and checks what comes before its response: progress
// events when the client supports them (start, updates, end, one id), adi's
// log as console output when it does not, and the program's standard output
// (which must contain stdout). The initialized event follows the response.
func launch(t *testing.T, c *daptest.Client, args map[string]any, progress bool, stdout string) {
	t.Helper()
	seq := c.Send("launch", args)
	m, events := c.Response(seq)
	if !m.Success {
		t.Fatalf("launch %v failed: %s\n%s", args, m.ErrorText(), c.Traffic())
	}
	var out, console strings.Builder
	var kinds []string
	progressID := ""
	for _, e := range events {
		switch e.Event {
		case "output":
			var b dap.OutputEventBody
			e.Decode(&b)
			switch b.Category {
			case "stdout":
				out.WriteString(b.Output)
			case "console":
				console.WriteString(b.Output)
			}
		case "progressStart", "progressUpdate", "progressEnd":
			var b struct {
				ProgressID string `json:"progressId"`
				RequestID  int    `json:"requestId"`
			}
			e.Decode(&b)
			if progressID == "" {
				progressID = b.ProgressID
			}
			if b.ProgressID != progressID || b.ProgressID == "" {
				t.Errorf("%s has progressId %q, want %q (that of the first)", e.Event, b.ProgressID, progressID)
			}
			if e.Event == "progressStart" && b.RequestID != seq {
				t.Errorf("progressStart has requestId %d, want %d (the launch request)", b.RequestID, seq)
			}
			if len(kinds) == 0 || kinds[len(kinds)-1] != e.Event {
				kinds = append(kinds, e.Event)
			}
		}
	}
	if progress {
		if want := []string{"progressStart", "progressUpdate", "progressEnd"}; !reflect.DeepEqual(kinds, want) {
			t.Errorf("progress events before the launch response: %v, want %v (runs of updates folded)\n%s", kinds, want, c.Traffic())
		}
	} else {
		if len(kinds) > 0 {
			t.Errorf("progress events %v sent to a client that does not support them", kinds)
		}
		if !strings.Contains(console.String(), "adi: recording") {
			t.Errorf("no console output saying that adi records the program; console output: %q", console.String())
		}
	}
	if !strings.Contains(out.String(), stdout) {
		t.Errorf("the program's standard output in output events is %q, want it to contain %q", out.String(), stdout)
	}
	c.Event("initialized")
}

// setFunctionBreakpoints sets the function breakpoints (name, or name and
// condition, each) and returns the answer.
func setFunctionBreakpoints(t *testing.T, c *daptest.Client, bps ...[2]string) []dap.Breakpoint {
	t.Helper()
	var list []map[string]any
	for _, b := range bps {
		fb := map[string]any{"name": b[0]}
		if b[1] != "" {
			fb["condition"] = b[1]
		}
		list = append(list, fb)
	}
	var body dap.SetFunctionBreakpointsResponseBody
	if err := json.Unmarshal(c.Request("setFunctionBreakpoints", map[string]any{"breakpoints": list}).Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Breakpoints) != len(bps) {
		t.Fatalf("setFunctionBreakpoints answered %d breakpoints for %d", len(body.Breakpoints), len(bps))
	}
	return body.Breakpoints
}

// setBreakpoints sets line breakpoints in a file.
func setBreakpoints(t *testing.T, c *daptest.Client, path string, lines ...int) []dap.Breakpoint {
	t.Helper()
	var list []map[string]any
	for _, l := range lines {
		list = append(list, map[string]any{"line": l})
	}
	var body dap.SetBreakpointsResponseBody
	m := c.Request("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": list})
	if err := json.Unmarshal(m.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Breakpoints) != len(lines) {
		t.Fatalf("setBreakpoints answered %d breakpoints for %d", len(body.Breakpoints), len(lines))
	}
	return body.Breakpoints
}

// wantBreakpoint checks one answered breakpoint.
func wantBreakpoint(t *testing.T, what string, b dap.Breakpoint, verified bool, message string) {
	t.Helper()
	if b.Verified != verified || b.Message != message {
		t.Errorf("%s: verified=%v message=%q, want verified=%v message=%q", what, b.Verified, b.Message, verified, message)
	}
}

// wantStop checks a stopped event's reason and description.
func wantStop(t *testing.T, what string, st dap.StoppedEventBody, reason, desc string) {
	t.Helper()
	if st.Reason != reason || st.Description != desc {
		t.Errorf("%s: stopped reason=%q description=%q, want reason=%q description=%q", what, st.Reason, st.Description, reason, desc)
	}
	if !st.AllThreadsStopped || st.ThreadId == 0 {
		t.Errorf("%s: stopped event %+v: want allThreadsStopped and a thread id", what, st)
	}
}

// frame is what a test expects of a stack frame: the start of its name (the
// fid and arguments), its file and line (not checked when path is "").
type frame struct {
	name string
	path string
	line int
}

// wantStack checks the whole stack of thread against want (names by
// prefix), and that frame ids are unique.
func wantStack(t *testing.T, c *daptest.Client, what string, thread int, want ...frame) []dap.StackFrame {
	t.Helper()
	got := c.StackTrace(thread)
	var g, w []string
	ids := map[int]bool{}
	for i, f := range got {
		path := ""
		if f.Source != nil {
			path = f.Source.Path
		}
		name := f.Name
		if i < len(want) && strings.HasPrefix(f.Name, want[i].name) {
			name = want[i].name
			if want[i].path == "" {
				// The test does not check where this frame is.
				path, f.Line = "", 0
			}
		}
		g = append(g, fmt.Sprintf("%s at %s:%d", name, path, f.Line))
		if ids[f.Id] || f.Id <= 0 {
			t.Errorf("%s: frame id %d repeated or not positive", what, f.Id)
		}
		ids[f.Id] = true
	}
	for _, f := range want {
		w = append(w, fmt.Sprintf("%s at %s:%d", f.name, f.path, f.line))
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: stack\n  %s\nwant\n  %s", what, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
	return got
}

// wantVariables checks variables as "name = value" lines.
func wantVariables(t *testing.T, what string, vars []dap.Variable, want ...string) {
	t.Helper()
	var got []string
	for _, v := range vars {
		got = append(got, v.Name+" = "+v.Value)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: variables\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// scopeRefs returns the scopes of a frame by name, checking their order.
func scopeRefs(t *testing.T, c *daptest.Client, frameID int, names ...string) map[string]int {
	t.Helper()
	scopes := c.Scopes(frameID)
	refs := map[string]int{}
	var got []string
	for _, s := range scopes {
		got = append(got, s.Name)
		refs[s.Name] = s.VariablesReference
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("scopes of frame %d: %q, want %q", frameID, got, names)
	}
	return refs
}

// wantEvaluate checks a successful evaluation.
func wantEvaluate(t *testing.T, c *daptest.Client, expr, context, result string) map[string]any {
	t.Helper()
	m := c.Evaluate(expr, context)
	if !m.Success {
		t.Errorf("evaluate %q (%s): %s, want %q", expr, context, m.ErrorText(), result)
		return nil
	}
	b := c.Body(m)
	if b["result"] != result {
		t.Errorf("evaluate %q (%s) = %q, want %q", expr, context, b["result"], result)
	}
	return b
}

// custom sends an adi/* request and checks that its body has the compact
// text and the engine's JSON fields.
func custom(t *testing.T, c *daptest.Client, command string, args any, fields ...string) map[string]any {
	t.Helper()
	b := c.Body(c.Request(command, args))
	checkCustomBody(t, command, b, fields...)
	return b
}

func checkCustomBody(t *testing.T, command string, b map[string]any, fields ...string) {
	t.Helper()
	if text, _ := b["text"].(string); text == "" {
		t.Errorf("%s: no compact text in the body: %v", command, b)
	}
	for _, f := range fields {
		if _, ok := b[f]; !ok {
			t.Errorf("%s: no field %q in the body: %v", command, f, keys(b))
		}
	}
}

// customNavigate sends an adi/* navigation, checks its body and returns
// the stopped event it causes.
func customNavigate(t *testing.T, c *daptest.Client, command string, args any) (map[string]any, dap.StoppedEventBody) {
	t.Helper()
	m, st := c.Navigate(command, args)
	b := c.Body(m)
	checkCustomBody(t, command, b, "fid", "steps", "moved", "note")
	return b, st
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// disconnect ends the session properly and checks that the server's side
// of it ends.
func disconnect(t *testing.T, c *conn) {
	t.Helper()
	c.Request("disconnect", map[string]any{"terminateDebuggee": true})
	if !c.Ended(30 * time.Second) {
		t.Errorf("the session did not end 30s after disconnect")
	}
}

// fails checks that a request fails with a message containing want.
func fails(t *testing.T, c *daptest.Client, command string, args any, want string) {
	t.Helper()
	if msg := c.Fails(command, args); !strings.Contains(msg, want) {
		t.Errorf("%s failed with %q, want a message containing %q", command, msg, want)
	}
}
