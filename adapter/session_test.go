package adapter_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Full sessions: initialize → launch → breakpoints → configurationDone →
// stopped → inspection → navigation → custom requests → disconnect, on
// recorded runs of the testdata programs, with the real engine, over each
// kind of connection (in process over io.Pipes, `adi dap` over stdio, and
// `adi dap --listen` over TCP).

func TestSessionNilmap(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			// The stdio client says nothing of progress; the others
			// support it.
			nilmapSession(t, tr.start(t, nil), tr.name != "stdio")
		})
	}
	noTargetProcesses(t, 10*time.Second)
}

// nilmapSession debugs `go run ./testdata/nilmap`, which panics in
// (*Registry).Add (main.go:24) called from load (main.go:34).
func nilmapSession(t *testing.T, c *conn, progress bool) {
	dir := fixture(t, "nilmap")
	src := filepath.Join(dir, "main.go")
	initialize(t, c.Client, progress)
	launch(t, c.Client, map[string]any{"mode": "run", "program": dir}, progress, "loading services\n")

	fbs := setFunctionBreakpoints(t, c.Client, [2]string{"main.load"}, [2]string{"main.lod"})
	wantBreakpoint(t, "main.load", fbs[0], true, "1 matching frame")
	wantBreakpoint(t, "main.lod", fbs[1], false, `no function "main.lod" in the recording; did you mean main.load?`)
	lbs := setBreakpoints(t, c.Client, src, 24)
	wantBreakpoint(t, "main.go:24", lbs[0], true, "in main.(*Registry).Add: 1 matching frame")
	if lbs[0].Line != 24 {
		t.Errorf("main.go:24 bound to line %d", lbs[0].Line)
	}

	// The first breakpoint match is where the session starts.
	c.Request("configurationDone", nil)
	st := c.Stopped()
	wantStop(t, "configurationDone", st, "function breakpoint", "main.load#1")
	th := st.ThreadId

	var threads struct {
		Threads []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"threads"`
	}
	c.Client.Decode(c.Request("threads", nil), &threads)
	if len(threads.Threads) != 1 || threads.Threads[0].ID != th || threads.Threads[0].Name != "goroutine 1: main.main#1" {
		t.Errorf("threads = %+v, want goroutine 1 (id %d) only", threads.Threads, th)
	}

	const loadName = `main.load#1(r=&main.Registry{ports: nil, order: nil}, services=[]string{"api", "db", "cache"}, base=8000)`
	stack := wantStack(t, c.Client, "at main.load#1", th,
		frame{loadName, src, 33},
		frame{"main.main#1()", src, 41})

	// Inspection of the frame at its first statement.
	refs := scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	args := c.Variables(refs["Arguments"], nil)
	wantVariables(t, "arguments of main.load#1", args,
		"r = &main.Registry{ports: nil, order: nil}",
		`services = []string{"api", "db", "cache"}`,
		"base = 8000")
	if len(args) == 3 {
		svc := args[1]
		if svc.Type != "[]string" || svc.VariablesReference == 0 || svc.IndexedVariables != 3 {
			t.Errorf("services: type %q, reference %d, %d indexed variables; want []string, a reference, 3", svc.Type, svc.VariablesReference, svc.IndexedVariables)
		}
		wantVariables(t, "services[1:3]", c.Variables(svc.VariablesReference, map[string]any{"start": 1, "count": 2}),
			`[1] = "db"`, `[2] = "cache"`)
		wantVariables(t, "services[2:]", c.Variables(svc.VariablesReference, map[string]any{"start": 2}),
			`[2] = "cache"`)
		if r := args[0]; r.VariablesReference != 0 {
			wantVariables(t, "*r", c.Variables(r.VariablesReference, nil), "*r = main.Registry{ports: nil, order: nil}")
		} else {
			t.Errorf("r has no children")
		}
	}
	wantVariables(t, "locals before line 33", c.Variables(refs["Locals"], nil),
		"r = &main.Registry{ports: nil, order: nil}",
		`services = []string{"api", "db", "cache"}`,
		"base = 8000")
	wantVariables(t, "changes by line 33", c.Variables(refs["Changes by this statement"], nil),
		`s = "api"  (new)`, "i = 0  (new)")
	wantVariables(t, "return of main.load#1", c.Variables(refs["Return"], nil),
		"panic = assignment to entry in nil map")

	// Evaluation: a recorded variable, an expression over recorded
	// values, an unknown name in a hover, an expression only a
	// re-execution answers.
	if b := wantEvaluate(t, c.Client, "services", "", `[]string{"api", "db", "cache"}`); b != nil {
		if b["type"] != "[]string" || b["variablesReference"].(float64) == 0 {
			t.Errorf("evaluate services: type %v, reference %v; want []string and a reference", b["type"], b["variablesReference"])
		}
	}
	wantEvaluate(t, c.Client, "len(services) + 1", "watch", "4")
	wantEvaluate(t, c.Client, "base", "hover", "8000")
	if m := c.Evaluate("nosuch", "hover"); m.Success || !strings.Contains(m.ErrorText(), "nosuch") {
		t.Errorf("hover on nosuch: success=%v %q, want an error naming it", m.Success, m.ErrorText())
	}
	wantEvaluate(t, c.Client, "cap(services)", "watch", "3  (re-executed)")

	var exc struct {
		ExceptionID string `json:"exceptionId"`
		Description string `json:"description"`
		BreakMode   string `json:"breakMode"`
		Details     struct {
			Message    string `json:"message"`
			StackTrace string `json:"stackTrace"`
		} `json:"details"`
	}
	c.Client.Decode(c.Request("exceptionInfo", map[string]any{"threadId": th}), &exc)
	if exc.ExceptionID != "panic" || exc.Description != "assignment to entry in nil map" || exc.BreakMode != "unhandled" ||
		!strings.Contains(exc.Details.StackTrace, "main.(*Registry).Add#1 at "+src+":24\nmain.load#1 at "+src+":34\nmain.main#1 at "+src+":41") {
		t.Errorf("exceptionInfo = %+v", exc)
	}

	// continue and reverseContinue move between breakpoint matches; the
	// line breakpoint positions the frame at its line.
	wantStop(t, "continue", c.Step("continue", th), "breakpoint", "main.(*Registry).Add#1")
	const addName = `main.(*Registry).Add#1(r=&main.Registry{ports: nil, order: nil}, name="api", port=8000)`
	wantStack(t, c.Client, "at the line breakpoint", th,
		frame{addName, src, 24}, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	wantStop(t, "continue past the last match", c.Step("continue", th), "step",
		"no later frame matches the breakpoints (main.load, main.(*Registry).Add); the inspected frame is unchanged")
	wantStack(t, c.Client, "after continue past the last match", th,
		frame{addName, src, 24}, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	wantStop(t, "reverseContinue", c.Step("reverseContinue", th), "function breakpoint", "main.load#1")
	wantStop(t, "reverseContinue before the first match", c.Step("reverseContinue", th), "step",
		"no earlier frame matches the breakpoints (main.load, main.(*Registry).Add); the inspected frame is unchanged")
	wantStack(t, c.Client, "back at main.load#1", th, frame{loadName, src, 33}, frame{"main.main#1()", src, 41})

	// next and stepBack walk the statements of main.load#1.
	wantStop(t, "next", c.Step("next", th), "step", "main.load#1")
	stack = wantStack(t, c.Client, "after next", th, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	wantCurrentStep(t, c, "after next", 1)
	refs = scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	wantVariables(t, "locals before line 34", c.Variables(refs["Locals"], nil),
		"r = &main.Registry{ports: nil, order: nil}",
		`services = []string{"api", "db", "cache"}`,
		"base = 8000", `s = "api"`, "i = 0")
	wantEvaluate(t, c.Client, "s", "hover", `"api"`)
	wantEvaluate(t, c.Client, "base + i", "repl", "8000")
	// A reference of an earlier stop has no variables any more; it is not
	// an error (clients refreshing their views ask for them), unlike one
	// never handed out.
	staleRef := refs["Locals"]
	wantStop(t, "stepBack", c.Step("stepBack", th), "step", "main.load#1")
	if m := c.Request("variables", map[string]any{"variablesReference": staleRef}); !m.Success || !strings.Contains(string(m.Body), `"variables":[]`) {
		t.Errorf("variables of a reference of the previous stop: success %v, body %s; want no variables", m.Success, m.Body)
	}
	wantStop(t, "next", c.Step("next", th), "step", "main.load#1")
	wantStop(t, "next at the last statement", c.Step("next", th), "step",
		"end of main.load#1: panicked: assignment to entry in nil map")
	wantStack(t, c.Client, "after next at the end", th, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	wantStop(t, "stepBack", c.Step("stepBack", th), "step", "main.load#1")
	wantStack(t, c.Client, "after stepBack", th, frame{loadName, src, 33}, frame{"main.main#1()", src, 41})
	wantStop(t, "stepBack at the first statement", c.Step("stepBack", th), "step", "start of main.load#1")
	wantStack(t, c.Client, "after stepBack at the start", th, frame{loadName, src, 33}, frame{"main.main#1()", src, 41})
	wantCurrentStep(t, c, "after stepBack at the start", 0)

	// stepIn at a statement with no call is next; at a call it enters the
	// callee; stepOut returns to the calling statement.
	wantStop(t, "stepIn at line 33 (no call)", c.Step("stepIn", th), "step", "main.load#1")
	wantStack(t, c.Client, "after stepIn at line 33", th, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	wantStop(t, "stepIn at line 34", c.Step("stepIn", th), "step", "main.(*Registry).Add#1")
	stack = wantStack(t, c.Client, "in main.(*Registry).Add#1", th,
		frame{addName, src, 23}, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	refs = scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	wantVariables(t, "arguments of Add#1", c.Variables(refs["Arguments"], nil),
		"r = &main.Registry{ports: nil, order: nil}", `name = "api"`, "port = 8000")
	// The caller's scopes: its locals where it made the call.
	refs = scopeRefs(t, c.Client, stack[1].Id, "Arguments", "Locals", "Return")
	wantVariables(t, "locals of the caller main.load#1", c.Variables(refs["Locals"], nil),
		"r = &main.Registry{ports: nil, order: nil}",
		`services = []string{"api", "db", "cache"}`,
		"base = 8000", `s = "api"`, "i = 0")
	wantStop(t, "stepOut", c.Step("stepOut", th), "step", "main.load#1")
	wantStack(t, c.Client, "after stepOut", th, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})

	// The ADI commands as custom requests.
	b := custom(t, c.Client, "adi/frame", nil, "fid", "args", "steps", "exit", "panic")
	if b["fid"] != "main.load#1" || !strings.HasPrefix(b["text"].(string), "main.load#1(") {
		t.Errorf("adi/frame: fid %v, text %q", b["fid"], b["text"])
	}
	if steps, _ := b["steps"].([]any); len(steps) != 2 {
		t.Errorf("adi/frame: %d steps, want 2 (lines 33, 34)", len(steps))
	}
	b = custom(t, c.Client, "adi/frame", map[string]any{"fid": "main.(*Registry).Add#1"}, "fid", "steps")
	if b["fid"] != "main.(*Registry).Add#1" {
		t.Errorf("adi/frame main.(*Registry).Add#1: fid %v", b["fid"])
	}
	b = custom(t, c.Client, "adi/frames", map[string]any{"func": "main.(*Registry).Add"}, "func", "frames")
	if fs, _ := b["frames"].([]any); len(fs) != 1 {
		t.Errorf("adi/frames: %v", b["frames"])
	}
	b = custom(t, c.Client, "adi/callTree", map[string]any{"fid": "main.main#1", "depth": 1}, "root")
	if root, _ := b["root"].(map[string]any); root == nil || root["fid"] != "main.main#1" || len(root["children"].([]any)) != 2 {
		t.Errorf("adi/callTree: root %v", b["root"])
	}
	b = custom(t, c.Client, "adi/break", map[string]any{"func": "main.NewRegistry"}, "breakpoint", "matches")
	if b["matches"] != 1.0 {
		t.Errorf("adi/break main.NewRegistry: %v matches, want 1", b["matches"])
	}
	b, st = customNavigate(t, c.Client, "adi/prev", nil)
	if b["fid"] != "main.NewRegistry#1" || b["moved"] != true {
		t.Errorf("adi/prev: fid %v moved %v, want main.NewRegistry#1 true", b["fid"], b["moved"])
	}
	wantStop(t, "adi/prev", st, "function breakpoint", "main.NewRegistry#1")
	wantStack(t, c.Client, "after adi/prev", th, frame{"main.NewRegistry#1()", src, 18}, frame{"main.main#1()", src, 40})
	b, st = customNavigate(t, c.Client, "adi/continue", nil)
	if b["fid"] != "main.load#1" || b["moved"] != true {
		t.Errorf("adi/continue: fid %v moved %v, want main.load#1 true", b["fid"], b["moved"])
	}
	wantStop(t, "adi/continue", st, "function breakpoint", "main.load#1")
	b = custom(t, c.Client, "adi/clear", map[string]any{"func": "main.NewRegistry"}, "cleared", "breakpoints")
	if b["cleared"] != 1.0 || len(b["breakpoints"].([]any)) != 2 {
		t.Errorf("adi/clear: %v", b)
	}
	b, st = customNavigate(t, c.Client, "adi/stepInto", map[string]any{"fid": "main.(*Registry).Add#1"})
	if b["fid"] != "main.(*Registry).Add#1" {
		t.Errorf("adi/stepInto: fid %v", b["fid"])
	}
	if st.Description != "main.(*Registry).Add#1" {
		t.Errorf("adi/stepInto: stopped %+v", st)
	}
	wantStack(t, c.Client, "after adi/stepInto", th, frame{addName, src, 24}, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	b, st = customNavigate(t, c.Client, "adi/stepOut", nil)
	if b["fid"] != "main.load#1" {
		t.Errorf("adi/stepOut: fid %v", b["fid"])
	}
	wantStop(t, "adi/stepOut", st, "step", "main.load#1")
	wantStack(t, c.Client, "after adi/stepOut", th, frame{loadName, src, 34}, frame{"main.main#1()", src, 41})
	b = custom(t, c.Client, "adi/execute", map[string]any{"fid": "main.load#1", "line": 34, "k": 1, "stmt": "base+i"}, "fid", "line", "k", "stmt", "value", "what_if")
	if b["value"] != "8000" || b["what_if"] != false {
		t.Errorf("adi/execute base+i: %v", b)
	}
	b = custom(t, c.Client, "adi/outcome", nil, "exit_code", "panic", "failed_tests", "output")
	if b["exit_code"] != 2.0 || !strings.Contains(b["output"].(string), "loading services") {
		t.Errorf("adi/outcome: %v", b)
	}
	// The debug console takes the ADI commands that do not move.
	if m := c.Evaluate("frames main.(*Registry).Add", "repl"); !m.Success || !strings.HasPrefix(c.Body(m)["result"].(string), "main.(*Registry).Add: 1 invocation") {
		t.Errorf("frames in the debug console: %s", m.Raw)
	}
	disconnect(t, c)
}

func TestSessionNilptr(t *testing.T) {
	for _, tr := range transports[:2] {
		t.Run(tr.name, func(t *testing.T) {
			nilptrSession(t, tr.start(t, nil), tr.name == "pipe")
		})
	}
	noTargetProcesses(t, 10*time.Second)
}

// nilptrSession debugs `go test ./testdata/nilptr -run TestGreetings`: the
// test panics in Greeting (nilptr.go:40) on its third call; with no
// breakpoint the session starts there. It ends with terminate.
func nilptrSession(t *testing.T, c *conn, progress bool) {
	const pkg = "github.com/adi-go/adi/testdata/nilptr."
	dir := fixture(t, "nilptr")
	src := filepath.Join(dir, "nilptr.go")
	testSrc := filepath.Join(dir, "nilptr_test.go")
	initialize(t, c.Client, progress)
	launch(t, c.Client, map[string]any{"mode": "test", "program": dir, "testRun": "TestGreetings"}, progress, "--- FAIL: TestGreetings")
	c.Request("configurationDone", nil)
	st := c.Stopped()
	const panicText = "runtime error: invalid memory address or nil pointer dereference"
	wantStop(t, "configurationDone", st, "exception", "panic: "+panicText)
	th := st.ThreadId

	stack := wantStack(t, c.Client, "at the panic", th,
		frame{pkg + "Greeting#3(d=&nilptr.Directory{", src, 40},
		frame{pkg + "Greetings#1(d=&nilptr.Directory{", src, 47},
		frame{pkg + "TestGreetings#1(t=", testSrc, 10})
	refs := scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	wantVariables(t, "return of Greeting#3", c.Variables(refs["Return"], nil), "panic = "+panicText)
	wantEvaluate(t, c.Client, "id", "hover", "4")
	wantEvaluate(t, c.Client, "u == nil", "watch", "true")
	wantEvaluate(t, c.Client, "id", "", "4")

	var exc struct {
		ExceptionID string `json:"exceptionId"`
		Description string `json:"description"`
	}
	c.Client.Decode(c.Request("exceptionInfo", map[string]any{"threadId": th}), &exc)
	if exc.ExceptionID != "panic" || exc.Description != panicText {
		t.Errorf("exceptionInfo = %+v", exc)
	}

	wantStop(t, "continue with no breakpoints", c.Step("continue", th), "step",
		"no breakpoints are set (use break FUNC [COND]); the inspected frame is unchanged")
	wantStop(t, "stepOut", c.Step("stepOut", th), "step", pkg+"Greetings#1")
	wantStack(t, c.Client, "after stepOut", th,
		frame{pkg + "Greetings#1(", src, 47}, frame{pkg + "TestGreetings#1(", testSrc, 10})

	// Conditional breakpoints, set while stopped.
	fbs := setFunctionBreakpoints(t, c.Client, [2]string{"nilptr.Greeting", "id > 1"}, [2]string{"nilptr.Greeting", "nosuch > 1"})
	wantBreakpoint(t, "Greeting if id > 1", fbs[0], true, "2 matching frames")
	if fbs[1].Verified || !strings.Contains(fbs[1].Message, "nosuch") {
		t.Errorf("Greeting if nosuch > 1: %+v, want unverified with a message naming nosuch", fbs[1])
	}
	wantStop(t, "reverseContinue", c.Step("reverseContinue", th), "step",
		"no earlier frame matches the breakpoints ("+pkg+"Greeting if id > 1); the inspected frame is unchanged")
	wantStop(t, "continue", c.Step("continue", th), "function breakpoint", pkg+"Greeting#2")
	wantStack(t, c.Client, "at Greeting#2", th,
		frame{pkg + "Greeting#2(", src, 39}, frame{pkg + "Greetings#1(", src, 47}, frame{pkg + "TestGreetings#1(", testSrc, 10})
	wantEvaluate(t, c.Client, "id", "hover", "3")
	wantStop(t, "continue", c.Step("continue", th), "function breakpoint", pkg+"Greeting#3")
	wantStop(t, "continue past the last", c.Step("continue", th), "step",
		"no later frame matches the breakpoints ("+pkg+"Greeting if id > 1); the inspected frame is unchanged")
	wantStop(t, "reverseContinue", c.Step("reverseContinue", th), "function breakpoint", pkg+"Greeting#2")

	b := custom(t, c.Client, "adi/frames", map[string]any{"func": "nilptr.Greeting"}, "func", "frames")
	if fs, _ := b["frames"].([]any); len(fs) != 3 {
		t.Errorf("adi/frames nilptr.Greeting: %d frames, want 3", len(fs))
	}
	b = custom(t, c.Client, "adi/outcome", nil, "exit_code", "panic", "failed_tests")
	if p, _ := b["panic"].(map[string]any); p == nil || p["value"] != panicText {
		t.Errorf("adi/outcome: panic %v", b["panic"])
	}

	// terminate ends the debuggee; the session answers, with errors,
	// until disconnect.
	m, _ := c.Response(c.Send("terminate", nil))
	if !m.Success {
		t.Fatalf("terminate failed: %s", m.ErrorText())
	}
	c.Event("terminated")
	fails(t, c.Client, "stackTrace", map[string]any{"threadId": th}, "the debug session has ended")
	fails(t, c.Client, "adi/frame", nil, "the debug session has ended")
	fails(t, c.Client, "continue", map[string]any{"threadId": th}, "the debug session has ended")
	disconnect(t, c)
}

func TestSessionTabletest(t *testing.T) {
	for _, tr := range []transport{transports[2], transports[0]} {
		t.Run(tr.name, func(t *testing.T) {
			tabletestSession(t, tr.start(t, nil))
		})
	}
	noTargetProcesses(t, 10*time.Second)
}

// tabletestSession debugs one failing subtest: `go test
// ./testdata/tabletest -run TestFormatSize/exactly_1KiB`. With no breakpoint
// the session starts at the failing test; a line breakpoint in scale's
// loop header is where the bug shows.
func tabletestSession(t *testing.T, c *conn) {
	const pkg = "github.com/adi-go/adi/testdata/tabletest."
	dir := fixture(t, "tabletest")
	src := filepath.Join(dir, "tabletest.go")
	testSrc := filepath.Join(dir, "tabletest_test.go")
	initialize(t, c.Client, true)
	launch(t, c.Client, map[string]any{"mode": "test", "program": dir, "testRun": "TestFormatSize/exactly_1KiB"}, true,
		"--- FAIL: TestFormatSize/exactly_1KiB")
	c.Request("configurationDone", nil)
	st := c.Stopped()
	wantStop(t, "configurationDone", st, "entry", pkg+"TestFormatSize#1")
	wantStack(t, c.Client, "at the failing test", st.ThreadId, frame{pkg + "TestFormatSize#1(t=", testSrc, 6})

	// Line breakpoints bind to the first statement at or after their line
	// in the enclosing function.
	lbs := setBreakpoints(t, c.Client, src, 13, 24, 100)
	wantBreakpoint(t, "tabletest.go:13", lbs[0], true, "in "+pkg+"scale: 1 matching frame")
	wantBreakpoint(t, "tabletest.go:24", lbs[1], true, "in "+pkg+"FormatSize: 1 matching frame")
	if lbs[0].Line != 13 || lbs[1].Line != 25 {
		t.Errorf("breakpoints at lines 13 and 24 bound to lines %d and %d, want 13 and 25", lbs[0].Line, lbs[1].Line)
	}
	if lbs[2].Verified || lbs[2].Message == "" {
		t.Errorf("tabletest.go:100 (past the end of the file): %+v, want unverified with a reason", lbs[2])
	}
	st = c.Step("continue", st.ThreadId)
	wantStop(t, "continue", st, "breakpoint", pkg+"FormatSize#1")
	th := st.ThreadId
	wantStack(t, c.Client, "at the line breakpoint in FormatSize", th,
		frame{pkg + "FormatSize#1(n=1024)", src, 25},
		frame{pkg + "TestFormatSize.func1#1(t=", testSrc, 20},
		frame{pkg + "TestFormatSize#1(t=", testSrc, 19})
	wantStop(t, "continue", c.Step("continue", th), "breakpoint", pkg+"scale#1")
	wantStack(t, c.Client, "at the line breakpoint in scale", th,
		frame{pkg + "scale#1(n=1024)", src, 13},
		frame{pkg + "FormatSize#1(n=1024)", src, 25},
		frame{pkg + "TestFormatSize.func1#1(t=", testSrc, 20},
		frame{pkg + "TestFormatSize#1(t=", testSrc, 19})
	wantEvaluate(t, c.Client, "n", "hover", "1024")
	wantEvaluate(t, c.Client, "f > 1024", "watch", "false")
	wantEvaluate(t, c.Client, "f >= 1024", "watch", "true")
	wantEvaluate(t, c.Client, "i", "hover", "0")
	wantStop(t, "stepOut", c.Step("stepOut", th), "step", pkg+"FormatSize#1")
	wantStack(t, c.Client, "after stepOut", th,
		frame{pkg + "FormatSize#1(n=1024)", src, 25},
		frame{pkg + "TestFormatSize.func1#1(t=", testSrc, 20},
		frame{pkg + "TestFormatSize#1(t=", testSrc, 19})
	b := custom(t, c.Client, "adi/outcome", nil, "exit_code", "failed_tests")
	if ft, _ := b["failed_tests"].([]any); len(ft) != 2 {
		t.Errorf("adi/outcome: failed tests %v", b["failed_tests"])
	}
	disconnect(t, c)
}

func TestSessionFibExec(t *testing.T) {
	for _, tr := range []transport{transports[2], transports[0]} {
		t.Run(tr.name, func(t *testing.T) {
			fibSession(t, tr.start(t, nil))
		})
	}
	noTargetProcesses(t, 10*time.Second)
}

// fibSession debugs a binary built beforehand: `fib 5` (15 calls of fib, 5
// of them fib(1)), with stopOnEntry.
func fibSession(t *testing.T, c *conn) {
	bin := fibBinary(t)
	src := filepath.Join(fixture(t, "fib"), "main.go")
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "exec", "program": bin, "args": []string{"5"}, "stopOnEntry": true}, false, "fib(5) = 5\n")
	fbs := setFunctionBreakpoints(t, c.Client, [2]string{"main.fib", "n == 1"}, [2]string{"main.fib", "n >"})
	wantBreakpoint(t, "main.fib if n == 1", fbs[0], true, "5 matching frames")
	if fbs[1].Verified || !strings.Contains(fbs[1].Message, "does not parse") {
		t.Errorf("main.fib if n >: %+v, want unverified, does not parse", fbs[1])
	}
	c.Request("configurationDone", nil)
	st := c.Stopped()
	wantStop(t, "configurationDone with stopOnEntry", st, "entry", "main.main#1")
	th := st.ThreadId
	wantStack(t, c.Client, "at entry", th, frame{"main.main#1()", src, 34})

	// The five fib(1) frames, forward then back.
	want := []string{"main.fib#5", "main.fib#7", "main.fib#9", "main.fib#13", "main.fib#15"}
	got := []string{}
	for range want {
		st := c.Step("continue", th)
		if st.Reason != "function breakpoint" {
			t.Errorf("continue: %+v", st)
		}
		got = append(got, st.Description)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("continue visits %v, want %v", got, want)
	}
	wantStop(t, "continue past the last match", c.Step("continue", th), "step",
		"no later frame matches the breakpoints (main.fib if n == 1); the inspected frame is unchanged")
	wantStop(t, "reverseContinue", c.Step("reverseContinue", th), "function breakpoint", "main.fib#13")
	wantStop(t, "reverseContinue", c.Step("reverseContinue", th), "function breakpoint", "main.fib#9")
	stack := wantStack(t, c.Client, "at fib#9", th,
		frame{"main.fib#9(n=1)", src, 13},
		frame{"main.fib#8(n=2)", src, 16},
		frame{"main.fib#2(n=4)", src, 16},
		frame{"main.fib#1(n=5)", src, 16},
		frame{"main.main#1()", src, 39})
	refs := scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	wantVariables(t, "arguments of fib#9", c.Variables(refs["Arguments"], nil), "n = 1")
	wantVariables(t, "return of fib#9", c.Variables(refs["Return"], nil), "~r0 = 1")
	// An outer frame's variables, by its frame id.
	m, _ := c.Response(c.Send("evaluate", map[string]any{"expression": "n", "frameId": stack[3].Id, "context": "watch"}))
	if !m.Success || c.Body(m)["result"] != "5" {
		t.Errorf("evaluate n in fib#1: %s", m.Raw)
	}

	// stepOut, next to the end, stepIn into the first call.
	wantStop(t, "stepOut", c.Step("stepOut", th), "step", "main.fib#8")
	wantStack(t, c.Client, "after stepOut", th,
		frame{"main.fib#8(n=2)", src, 16}, frame{"main.fib#2(n=4)", src, 16}, frame{"main.fib#1(n=5)", src, 16}, frame{"main.main#1()", src, 39})
	wantStop(t, "next", c.Step("next", th), "step", "end of main.fib#8: returned 1")
	wantStop(t, "stepBack", c.Step("stepBack", th), "step", "main.fib#8")
	wantStack(t, c.Client, "after stepBack", th,
		frame{"main.fib#8(n=2)", src, 13}, frame{"main.fib#2(n=4)", src, 16}, frame{"main.fib#1(n=5)", src, 16}, frame{"main.main#1()", src, 39})
	wantStop(t, "stepIn at line 13 (no call)", c.Step("stepIn", th), "step", "main.fib#8")
	wantStop(t, "stepIn at line 16", c.Step("stepIn", th), "step", "main.fib#9")
	wantStack(t, c.Client, "after stepIn", th,
		frame{"main.fib#9(n=1)", src, 13}, frame{"main.fib#8(n=2)", src, 16}, frame{"main.fib#2(n=4)", src, 16}, frame{"main.fib#1(n=5)", src, 16}, frame{"main.main#1()", src, 39})

	b := custom(t, c.Client, "adi/callTree", map[string]any{"fid": "main.fib#8", "depth": 2}, "root")
	if root, _ := b["root"].(map[string]any); root == nil || root["fid"] != "main.fib#8" {
		t.Errorf("adi/callTree fid main.fib#8: %v", b["root"])
	}
	b = custom(t, c.Client, "adi/execute", map[string]any{"fid": "main.fib#8", "line": 16, "k": 1, "stmt": "n = 10"}, "what_if", "results")
	if b["what_if"] != true || !strings.Contains(b["text"].(string), "returns") {
		t.Errorf("adi/execute what-if: %v", b)
	}
	b = custom(t, c.Client, "adi/outcome", nil, "exit_code")
	if b["exit_code"] != 0.0 {
		t.Errorf("adi/outcome: exit code %v", b["exit_code"])
	}
	fails(t, c.Client, "exceptionInfo", map[string]any{"threadId": th}, "did not panic")
	disconnect(t, c)
}

// wantCurrentStep checks the step of the inspected frame that adi/frame
// reports, which views use to mark the current statement.
func wantCurrentStep(t *testing.T, c *conn, what string, want int) {
	t.Helper()
	var body struct {
		Step *int `json:"current_step"`
	}
	b := c.Request("adi/frame", map[string]any{}).Body
	if err := json.Unmarshal(b, &body); err != nil || body.Step == nil {
		t.Errorf("%s: adi/frame has no current_step (err %v): %.200s", what, err, b)
	} else if *body.Step != want {
		t.Errorf("%s: adi/frame current_step = %d, want %d", what, *body.Step, want)
	}
}

// TestSessionLoopLocals: past a loop whose middle iterations the trace
// leaves out, the Locals scope shows the variables as those iterations left
// them. In loop's simulate, evens changes last in an iteration left out.
func TestSessionLoopLocals(t *testing.T) {
	c := transports[0].start(t, nil)
	dir := fixture(t, "loop")
	src := filepath.Join(dir, "main.go")
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "run", "program": dir}, false, "hash=573 evens=50\n")
	lbs := setBreakpoints(t, c.Client, src, 23)
	wantBreakpoint(t, "main.go:23", lbs[0], true, "in main.simulate: 1 matching frame")
	c.Request("configurationDone", nil)
	st := c.Stopped()
	stack := wantStack(t, c.Client, "at the return", st.ThreadId,
		frame{"main.simulate#1(n=100)", src, 23}, frame{"main.main#1()", src, 31})
	refs := scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	wantVariables(t, "locals before line 23", c.Variables(refs["Locals"], nil), "n = 100", "hash = 573", "evens = 50", "i = 99")
	disconnect(t, c)
}
