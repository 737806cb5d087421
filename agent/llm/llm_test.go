package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/llmtest"
	"github.com/adi-go/adi/agent/offline"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/engine"
)

// testKey is the API key of the tests: it must never appear in an event,
// an error, a log line or a diagnosis.
const testKey = "sk-test-ADIKEY-0123456789abcdefXYZ"

// nilmapArgv is the target most LLM tests diagnose.
var nilmapArgv = []string{"go", "run", "./testdata/nilmap"}

// llmFixture is the recording the LLM tests share: nilmap, recorded once,
// with its offline diagnosis as the hints. Each test gets a fresh session
// on it.
type llmFixture struct {
	s      *engine.Session
	target gocmd.Target
	hints  *report.Diagnosis
}

// session returns a fresh session on the shared recording, its target and
// the hints.
func (fx *llmFixture) session() (*engine.Session, gocmd.Target, *report.Diagnosis) {
	return engine.NewSession(fx.s.Recording(), fx.s.Program(), engine.DefaultLimits, 2*time.Minute), fx.target, fx.hints
}

// TestLLM runs the tests of the LLM agent against scripted models (a fake
// OpenAI server) on one recording of nilmap:
//
//	go test ./agent/llm -run TestLLM/Diagnosis
func TestLLM(t *testing.T) {
	s, target := agenttest.Record(t, nilmapArgv...)
	hints, err := offline.Diagnose(context.Background(), s, offline.Options{Target: target})
	if err != nil {
		t.Fatalf("offline diagnosis: %v", err)
	}
	fx := &llmFixture{s: s, target: target, hints: hints}
	for _, tc := range []struct {
		name string
		f    func(*testing.T, *llmFixture)
	}{
		{"Diagnosis", testLLMDiagnosis},
		{"BadToolCalls", testLLMBadToolCalls},
		{"NeverFinishes", testLLMNeverFinishes},
		{"Unauthorized", testLLMUnauthorized},
		{"Unreachable", testLLMUnreachable},
		{"Retries", testLLMRetries},
		{"DroppedStream", testLLMDroppedStream},
		{"TokenBudget", testLLMTokenBudget},
		{"TimeBudget", testLLMTimeBudget},
		{"Cancel", testLLMCancel},
		{"Redaction", testLLMRedaction},
		{"FollowUp", testLLMFollowUp},
		{"EvidenceCheck", testLLMEvidenceCheck},
		{"FixRetry", testLLMFixRetry},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, fx) })
	}
}

// recorder collects events (and checks each encodes as JSON).
type recorder struct {
	t      *testing.T
	mu     sync.Mutex
	events []report.Event
}

func (r *recorder) emit(e report.Event) {
	if _, err := json.Marshal(e); err != nil {
		r.t.Errorf("event %+v does not encode as JSON: %v", e, err)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// kinds lists the kinds of the events, with tool names for tool events.
func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		k := string(e.Kind)
		if e.Tool != "" {
			k += ":" + e.Tool
		}
		if len(out) > 0 && k == "text" && out[len(out)-1] == "text" {
			continue
		}
		out = append(out, k)
	}
	return out
}

// json returns all events as JSON text.
func (r *recorder) json() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(r.events)
	return string(b)
}

// of returns the events of one kind.
func (r *recorder) of(k report.EventKind) []report.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []report.Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// llmConfig is the configuration of a test against a fake server.
func llmConfig(srv *llmtest.Server, hints *report.Diagnosis) Config {
	return Config{Model: "fake-model", BaseURL: srv.BaseURL, APIKey: testKey, Hints: hints,
		RetryDelay: time.Millisecond}
}

// call is a scripted tool call.
func call(name string, args any) llmtest.Call {
	if s, ok := args.(string); ok {
		return llmtest.Call{Name: name, Args: s}
	}
	return llmtest.Call{Name: name, Args: llmtest.Args(args)}
}

// toolResultsContain checks that the tool results answering the previous
// turn contain every string of want.
func toolResultsContain(want ...string) func(r *llmtest.Request) error {
	return func(r *llmtest.Request) error {
		var all strings.Builder
		for _, res := range r.ToolResults() {
			all.WriteString(res + "\n")
		}
		for _, w := range want {
			if !strings.Contains(all.String(), w) {
				return fmt.Errorf("the tool results lack %q:\n%s", w, all.String())
			}
		}
		return nil
	}
}

// nilmapFix is the right fix of nilmap, with hunk counts a model would get
// wrong (adi recomputes them).
const nilmapFix = "```diff\n--- a/testdata/nilmap/main.go\n+++ b/testdata/nilmap/main.go\n@@ -17,4 +17,4 @@\n func NewRegistry() *Registry {\n-\treturn &Registry{}\n+\treturn &Registry{ports: map[string]int{}}\n }\n```\n"

// nilmapFinish is a correct finish call for nilmap.
func nilmapFinish(fix string) llmtest.Call {
	return call("finish", map[string]any{
		"root_cause":  map[string]any{"file": "testdata/nilmap/main.go", "line": 18, "func": "main.NewRegistry", "fid": "main.NewRegistry#1"},
		"summary":     "NewRegistry returns a Registry whose ports map is nil",
		"explanation": "NewRegistry builds &Registry{} without making ports; Add then writes to the nil map and panics.",
		"evidence": []map[string]any{
			{"fid": "main.(*Registry).Add#1", "line": 24, "claim": "the write to the map panics", "value": "r.ports == nil = true"},
			{"fid": "main.NewRegistry#1", "file": "testdata/nilmap/main.go", "line": 18, "claim": "the constructor returns the registry without a map", "value": "&main.Registry{ports: nil, order: nil}"},
			{"fid": "main.load#1", "line": 34, "claim": "load passes it on", "value": `name="api", port=8000`},
		},
		"fix":        fix,
		"confidence": "high",
	})
}

// testLLMDiagnosis: a scripted model drives the real engine on nilmap —
// frame, step_out, execute and frame in one turn, then finish — and sees
// the engine's real answers; adi checks the evidence and verifies the fix.
func testLLMDiagnosis(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				if len(r.Tools) != len(toolNames) {
					return fmt.Errorf("tools %v, want %v", r.Tools, toolNames)
				}
				if r.Model != "fake-model" || !r.Usage {
					return fmt.Errorf("model %q, include_usage %v", r.Model, r.Usage)
				}
				if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
					return fmt.Errorf("Authorization header %q", got)
				}
				if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
					return fmt.Errorf("the first request has %d messages", len(r.Messages))
				}
				return r.Contains("Assume the test's expectation", "assignment to entry in nil map",
					"main.(*Registry).Add#1", "r.ports[name] = port", "main.load#1", "main.go:18")
			},
			Text:  []string{"Let me look ", "at the panicking frame."},
			Calls: []llmtest.Call{call("frame", map[string]any{"fid": "main.(*Registry).Add#1"})},
		},
		llmtest.Turn{
			Check: toolResultsContain("r.ports[name] = port", "&main.Registry{ports: nil, order: nil}", "panicked: assignment to entry in nil map"),
			Calls: []llmtest.Call{call("step_out", "")},
		},
		llmtest.Turn{
			Check: toolResultsContain("main.load#1(", "r.Add(s, base+i)"),
			Text:  []string{"Is the map nil there? And who made r?"},
			Calls: []llmtest.Call{
				call("execute", map[string]any{"fid": "main.(*Registry).Add#1", "line": 24, "k": 1, "stmt": "r.ports == nil"}),
				call("frame", map[string]any{"fid": "main.NewRegistry#1"}),
			},
		},
		llmtest.Turn{
			Check: toolResultsContain("r.ports == nil = true", "return &Registry{}", "returned &main.Registry{ports: nil, order: nil}"),
			Text:  []string{"NewRegistry never makes the map."},
			Calls: []llmtest.Call{nilmapFinish(nilmapFix)},
		},
	)
	rec := &recorder{t: t}
	var logs strings.Builder
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target,
		Log: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }}, rec.emit)
	if err != nil {
		t.Fatalf("Converse: %v\nevents: %s", err, rec.json())
	}
	d := conv.Diagnosis()
	t.Logf("%s", d.Text())
	if d.Source != "llm" || d.RootCause.File != "testdata/nilmap/main.go" || d.RootCause.Line != 18 ||
		d.RootCause.FID != "main.NewRegistry#1" || d.RootCause.Func != "main.NewRegistry" {
		t.Errorf("root cause %+v, source %s", d.RootCause, d.Source)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
	if len(d.Unsupported) != 0 {
		t.Errorf("unsupported claims: %q", d.Unsupported)
	}
	if d.Confidence != report.High || d.Partial != "" {
		t.Errorf("confidence %s, partial %q", d.Confidence, d.Partial)
	}
	if d.Rounds != 4 || d.PromptTokens != 400 || d.CompletionTokens != 80 {
		t.Errorf("usage %d rounds, %d+%d tokens; want 4, 400+80", d.Rounds, d.PromptTokens, d.CompletionTokens)
	}
	if !strings.Contains(d.Fix, "@@ -17,3 +17,3 @@") || strings.Contains(d.Fix, "```") {
		t.Errorf("the fix was not normalised:\n%s", d.Fix)
	}
	want := []string{"text", "toolCall:frame", "toolResult:frame", "toolCall:step_out", "toolResult:step_out",
		"text", "toolCall:execute", "toolResult:execute", "toolCall:frame", "toolResult:frame",
		"text", "toolCall:finish", "toolResult:finish", "diagnosis", "usage"}
	if got := rec.kinds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events\n%v\nwant\n%v", got, want)
	}
	calls := rec.of(report.EventToolCall)
	if len(calls) > 2 && calls[2].Text != "execute main.(*Registry).Add#1 24 1 r.ports == nil" {
		t.Errorf("the execute call is shown as %q", calls[2].Text)
	}
	if u := rec.of(report.EventUsage); len(u) != 1 || u[0].Usage.Rounds != 4 {
		t.Errorf("usage events %+v", u)
	}
	if strings.Contains(rec.json()+logs.String()+d.Text(), testKey) {
		t.Errorf("the API key leaked into the events, logs or diagnosis")
	}
	if got := conv.Usage(); got.Rounds != 4 {
		t.Errorf("conversation usage %+v", got)
	}
}

// testLLMBadToolCalls: malformed arguments, a wrong argument type, a
// missing argument, an unknown tool and a function call in execute each
// get an error result telling the model what was wrong, and the loop goes
// on.
func testLLMBadToolCalls(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Calls: []llmtest.Call{
			call("frame", `{"fid": "main.NewRegistry#1"`),
			call("step_into", `{"fid": 42}`),
			call("frames", `{}`),
			call("rm_rf", `{"path": "/"}`),
			call("execute", map[string]any{"fid": "main.(*Registry).Add#1", "line": 24, "stmt": "r.Port(\"api\")"}),
		}},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				res := r.ToolResults()
				if len(res) != 5 {
					return fmt.Errorf("%d tool results, want 5: %v", len(res), res)
				}
				for id, want := range map[string]string{
					"call_1_1": "not a valid JSON object",
					"call_1_2": `argument "fid" must be a string`,
					"call_1_3": `argument "func" must be one word`,
					"call_1_4": `there is no tool "rm_rf"; the tools are frame, step_out`,
					"call_1_5": "execute may not call functions (r.Port(…))",
				} {
					if !strings.HasPrefix(res[id], "error: ") || !strings.Contains(res[id], want) {
						return fmt.Errorf("result of %s is %q, want an error containing %q", id, res[id], want)
					}
				}
				return nil
			},
			Calls: []llmtest.Call{
				call("execute", map[string]any{"fid": "main.(*Registry).Add#1", "line": "24", "k": 1, "stmt": "len(r.order)"}),
				call("source", map[string]any{"func": "NewRegistry"}),
				call("source", map[string]any{"file": "testdata/nilmap/main.go", "start": 22, "end": 25}),
				call("source", map[string]any{"file": "../../../etc/passwd"}),
				call("source", map[string]any{"func": "main.nothing"}),
			},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				res := r.ToolResults()
				for id, want := range map[string]string{
					"call_2_1": "len(r.order) = 1",
					"call_2_2": "testdata/nilmap/main.go:17-19\n17  func NewRegistry() *Registry {\n18      return &Registry{}\n19  }",
					"call_2_3": "testdata/nilmap/main.go:22-25\n22  func (r *Registry) Add(name string, port int) {",
					"call_2_4": `error: source: "../../../etc/passwd" is not inside the module`,
					"call_2_5": `error: source: no function "main.nothing" found`,
				} {
					if !strings.HasPrefix(res[id], want) {
						return fmt.Errorf("result of %s is %q, want it to start with %q", id, res[id], want)
					}
				}
				return nil
			},
			Calls: []llmtest.Call{nilmapFinish("")},
		},
	)
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatalf("Converse: %v", err)
	}
	d := conv.Diagnosis()
	if d.Source != "llm" || d.Fix != "" || d.Verification != nil {
		t.Errorf("diagnosis %+v", d)
	}
	// Every call is shown, with its command line when it has one; the
	// malformed arguments are still valid JSON in the event.
	var shown []string
	for _, e := range rec.of(report.EventToolCall) {
		shown = append(shown, e.Text)
	}
	want := "frame|step_into|frames|rm_rf|execute|execute main.(*Registry).Add#1 24 1 len(r.order)|source NewRegistry|source testdata/nilmap/main.go:22-25|source ../../../etc/passwd|source main.nothing|finish"
	if strings.Join(shown, "|") != want {
		t.Errorf("tool calls shown as\n%s\nwant\n%s", strings.Join(shown, "|"), want)
	}
	if c := rec.of(report.EventToolCall)[0]; string(c.Args) != `"{\"fid\": \"main.NewRegistry#1\""` {
		t.Errorf("malformed args event: %s", c.Args)
	}
	if n, m := len(rec.of(report.EventToolCall)), len(rec.of(report.EventToolResult)); n != m {
		t.Errorf("%d tool calls but %d results", n, m)
	}
}

// testLLMNeverFinishes: a model that keeps talking and calling tools
// without finish stops at the round budget with the offline diagnosis,
// marked partial; its last turn is announced.
func testLLMNeverFinishes(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Text: []string{"I think the map is nil."}},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error { return r.Contains(nudgeNote) },
			Calls: []llmtest.Call{call("outcome", "")},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				if err := r.Contains(lastRoundNote); err != nil {
					return err
				}
				return toolResultsContain("exit code 2", "more lines (", "bytes) of this answer")(r)
			},
			Calls: []llmtest.Call{call("call_tree", map[string]any{"depth": 1})},
		},
	)
	cfg := llmConfig(srv, hints)
	cfg.MaxRounds = 3
	cfg.MaxToolResult = 300
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, cfg, offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	d := conv.Diagnosis()
	if d.Source != "offline" || !strings.Contains(d.Partial, "the budget of 3 rounds was used up; this is the offline diagnosis") {
		t.Errorf("source %s, partial %q", d.Source, d.Partial)
	}
	if d.RootCause != hints.RootCause || d.Rounds != 3 {
		t.Errorf("root cause %+v, rounds %d", d.RootCause, d.Rounds)
	}
	if len(rec.of(report.EventDiagnosis)) != 1 || rec.kinds()[len(rec.kinds())-1] != "usage" {
		t.Errorf("events %v", rec.kinds())
	}
}

// testLLMUnauthorized: a 401 is a clear error at once (no retry), and
// the key appears nowhere, though the endpoint echoes it.
func testLLMUnauthorized(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t, llmtest.Turn{Status: 401,
		ErrorBody: `{"error":{"message":"Incorrect API key provided: ` + testKey + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`})
	rec := &recorder{t: t}
	var logs strings.Builder
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target,
		Log: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }}, rec.emit)
	var le *chat.Error
	if !errors.As(err, &le) || le.Status != 401 {
		t.Fatalf("error %v, want an Error with status 401", err)
	}
	for _, want := range []string{"refused the API key (401 Unauthorized)", "ADI_LLM_API_KEY", "Incorrect API key provided: [REDACTED]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry of a 401)", n)
	}
	if conv == nil || conv.Diagnosis() != nil {
		t.Errorf("conversation %v", conv)
	}
	all := err.Error() + rec.json() + logs.String() + fmt.Sprintf("%v %+v %#v", llmConfig(srv, nil), llmConfig(srv, nil), llmConfig(srv, nil))
	if strings.Contains(all, testKey) || strings.Contains(all, "ADIKEY") {
		t.Errorf("the key leaked:\n%s", all)
	}
	if k := rec.kinds(); len(k) != 2 || k[0] != "usage" || k[1] != "error" {
		t.Errorf("events %v, want usage then error", k)
	}
}

// testLLMUnreachable: an endpoint that refuses connections is an error at
// once, not after the retries.
func testLLMUnreachable(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	cfg := Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1", Hints: hints, RetryDelay: time.Second}
	start := time.Now()
	_, err := Converse(context.Background(), s, cfg, offline.Options{Target: target}, nil)
	var le *chat.Error
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "cannot reach the model endpoint at http://127.0.0.1:1/v1: connection refused") {
		t.Errorf("error %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %s: a refused connection was retried", el)
	}
}

// testLLMRetries: a 429 (with Retry-After) and a 503 are retried, then the
// answer comes; an endpoint that stays down is an error after the retries.
func testLLMRetries(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "0"}},
		llmtest.Turn{Status: 503},
		llmtest.Turn{Calls: []llmtest.Call{nilmapFinish("")}},
	)
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if d := conv.Diagnosis(); d.Source != "llm" || d.Rounds != 1 {
		t.Errorf("source %s, rounds %d", d.Source, d.Rounds)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if !strings.Contains(rec.json(), "429 Too Many Requests") {
		t.Errorf("the retry was not told: %v", rec.json())
	}

	// An endpoint that refuses stream_options is asked again without it;
	// the tokens are then estimated.
	old := llmtest.New(t,
		llmtest.Turn{Status: 400, ErrorBody: `{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				if r.Usage || strings.Contains(r.Body, "stream_options") {
					return fmt.Errorf("stream_options sent again")
				}
				return nil
			},
			Calls: []llmtest.Call{nilmapFinish("")},
		},
	)
	conv, err = Converse(context.Background(), s, llmConfig(old, hints), offline.Options{Target: target}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := conv.Diagnosis(); d.Rounds != 1 || d.PromptTokens < 1000 || d.CompletionTokens < 50 {
		t.Errorf("estimated usage: %d rounds, %d+%d tokens", d.Rounds, d.PromptTokens, d.CompletionTokens)
	}

	down := llmtest.New(t, llmtest.Turn{Status: 500}, llmtest.Turn{Status: 502}, llmtest.Turn{Status: 500})
	cfg := llmConfig(down, hints)
	cfg.MaxRetries = 2
	_, err = Converse(context.Background(), s, cfg, offline.Options{Target: target}, nil)
	var le *chat.Error
	if !errors.As(err, &le) || le.Status != 500 || !strings.Contains(err.Error(), "failed 3 times") {
		t.Errorf("error %v, want an Error after 3 attempts", err)
	}
}

// testLLMDroppedStream: a stream cut off mid-answer (mid tool call) is
// asked again with the same history.
func testLLMDroppedStream(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Text: []string{"Looking at "}, Calls: []llmtest.Call{call("frame", map[string]any{"fid": "main.NewRegistry#1"})}, Drop: true},
		llmtest.Turn{Calls: []llmtest.Call{call("frame", map[string]any{"fid": "main.NewRegistry#1"})}},
		llmtest.Turn{Check: toolResultsContain("return &Registry{}"), Calls: []llmtest.Call{nilmapFinish("")}},
	)
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Body != reqs[1].Body {
		t.Errorf("%d requests; the retry must resend the same request", len(reqs))
	}
	if d := conv.Diagnosis(); d.Source != "llm" || d.Rounds != 2 {
		t.Errorf("source %s, rounds %d", d.Source, d.Rounds)
	}
	if !strings.Contains(rec.json(), "cut off") {
		t.Errorf("the drop was not told")
	}
	if n := len(rec.of(report.EventToolCall)); n != 2 {
		t.Errorf("%d tool calls, want 2 (none from the cut answer)", n)
	}
}

// testLLMTokenBudget: the token budget stops the model with a partial
// diagnosis.
func testLLMTokenBudget(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	big := &llmtest.Usage{Prompt: 4000, Completion: 1000}
	srv := llmtest.New(t,
		llmtest.Turn{Usage: big, Calls: []llmtest.Call{call("outcome", "")}},
		llmtest.Turn{Usage: big, Calls: []llmtest.Call{call("outcome", "")}},
	)
	cfg := llmConfig(srv, hints)
	cfg.MaxTokens = 8000
	conv, err := Converse(context.Background(), s, cfg, offline.Options{Target: target}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := conv.Diagnosis()
	if !strings.Contains(d.Partial, "the budget of 8000 tokens was used up (10000 used)") || d.PromptTokens != 8000 || d.CompletionTokens != 2000 {
		t.Errorf("partial %q, tokens %d+%d", d.Partial, d.PromptTokens, d.CompletionTokens)
	}
}

// testLLMTimeBudget: a model slower than the time budget is stopped with
// a partial diagnosis, promptly.
func testLLMTimeBudget(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Calls: []llmtest.Call{call("outcome", "")}},
		llmtest.Turn{Delay: time.Minute, Calls: []llmtest.Call{nilmapFinish("")}},
	)
	cfg := llmConfig(srv, hints)
	cfg.Timeout = 500 * time.Millisecond
	start := time.Now()
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, cfg, offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %s", el)
	}
	d := conv.Diagnosis()
	if !strings.Contains(d.Partial, "the time budget of 500ms was used up") || d.Source != "offline" || d.Rounds != 1 {
		t.Errorf("partial %q, source %s, rounds %d", d.Partial, d.Source, d.Rounds)
	}
	if len(rec.of(report.EventError)) != 0 {
		t.Errorf("a budget stop is no error: %v", rec.kinds())
	}
}

// testLLMCancel: cancelling the context ends Ask with the context's
// error and an error event.
func testLLMCancel(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t, llmtest.Turn{Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	rec := &recorder{t: t}
	_, err := Converse(ctx, s, llmConfig(srv, hints), offline.Options{Target: target}, rec.emit)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v", err)
	}
	if k := rec.kinds(); len(k) == 0 || k[len(k)-1] != "error" {
		t.Errorf("events %v", k)
	}
}

// secretDebugger adds secret-looking values to the frames the engine
// shows, as a recorded configuration struct would.
type secretDebugger struct{ Debugger }

// secretLine is what the wrapped frame command adds.
const secretLine = `  12  cfg := load()  cfg = main.Config{User: "bob", Password: "hunter2-very-secret", Token: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", Key: "` + testKey + `"} (new)` + "\n" +
	`  13  req.Header.Set("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNlY3JldA")` + "\n" +
	`  14  pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAprivatekeymaterial\n-----END RSA PRIVATE KEY-----"`

func (d secretDebugger) Exec(ctx context.Context, line string) (*engine.Answer, error) {
	a, err := d.Debugger.Exec(ctx, line)
	if err == nil && strings.HasPrefix(line, "frame") {
		a = &engine.Answer{Text: a.Text + "\n" + secretLine, JSON: a.JSON}
	}
	return a, err
}

// testLLMRedaction: secret-looking values are redacted in everything sent
// to the model (the first message and tool results), and the API key is in
// no request body, event or diagnosis.
func testLLMRedaction(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	secrets := []string{"hunter2-very-secret", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", testKey,
		"eyJhbGciOiJIUzI1NiJ9", "privatekeymaterial", "ADIKEY", "corp-internal-id-77"}
	srv := llmtest.New(t,
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				return r.Contains(`Password: "[REDACTED]"`, `Token: "[REDACTED]"`, "Bearer [REDACTED]", `User: "bob"`, "[REDACTED]\"")
			},
			Calls: []llmtest.Call{call("frame", map[string]any{"fid": "main.NewRegistry#1"})},
		},
		llmtest.Turn{
			Check: toolResultsContain(`Password: "[REDACTED]"`, "return &Registry{}"),
			Calls: []llmtest.Call{nilmapFinish("")},
		},
		llmtest.Turn{Text: []string{"It is not."}},
	)
	cfg := llmConfig(srv, hints)
	cfg.RedactPatterns = []string{`corp-internal-id-\d+`}
	dbg := secretDebugger{s}
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), dbg, cfg, offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	// The developer's question carries a secret too.
	if _, err := conv.Ask(context.Background(), "is corp-internal-id-77 involved?", rec.emit); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		for _, sec := range secrets {
			if strings.Contains(r.Body, sec) || strings.Contains(r.Text(), sec) {
				t.Errorf("a request holds the secret %q", sec)
			}
		}
	}
	if strings.Contains(rec.json()+conv.Diagnosis().Text(), testKey) {
		t.Errorf("the API key is in an event or the diagnosis")
	}
}

// testLLMFollowUp: a follow-up question continues the same history: the
// second request holds the first exchange and the question; a prose answer
// keeps the diagnosis, a new finish replaces it.
func testLLMFollowUp(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	var first *llmtest.Request
	srv := llmtest.New(t,
		llmtest.Turn{Calls: []llmtest.Call{call("frame", map[string]any{"fid": "main.NewRegistry#1"})}},
		llmtest.Turn{Calls: []llmtest.Call{nilmapFinish("")}},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				// system, context, call, result, call(finish), result, question
				if len(r.Messages) != 7 {
					return fmt.Errorf("%d messages, want 7", len(r.Messages))
				}
				if m := r.Messages[2]; m.Role != "assistant" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "frame" {
					return fmt.Errorf("message 3 is %+v", m)
				}
				if m := r.Messages[3]; m.Role != "tool" || !strings.Contains(m.Content, "return &Registry{}") {
					return fmt.Errorf("message 4 is %+v", m)
				}
				if m := r.Messages[5]; m.Role != "tool" || !strings.Contains(m.Content, "adi recorded the diagnosis") {
					return fmt.Errorf("message 6 is %+v", m)
				}
				if m := r.Messages[6]; m.Role != "user" || !strings.HasPrefix(m.Content, "Why not make the map lazily in Add?") {
					return fmt.Errorf("message 7 is %+v", m)
				}
				first = r
				return nil
			},
			Text: []string{"Making it in Add ", "would work too, but the constructor is where the invariant belongs."},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				if first == nil || len(r.Messages) != 9 || r.Messages[7].Role != "assistant" ||
					!strings.HasPrefix(r.Messages[7].Content, "Making it in Add") {
					return fmt.Errorf("the second follow-up does not continue the history (%d messages)", len(r.Messages))
				}
				return nil
			},
			Calls: []llmtest.Call{nilmapFinish(nilmapFix)},
		},
	)
	cfg := llmConfig(srv, hints)
	conv, err := Converse(context.Background(), s, cfg, offline.Options{Target: target, NoVerify: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d1 := conv.Diagnosis()
	rec := &recorder{t: t}
	d2, err := conv.Ask(context.Background(), "Why not make the map lazily in Add?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if d2 != d1 || !strings.HasPrefix(conv.Answer(), "Making it in Add would work too") {
		t.Errorf("a prose answer changed the diagnosis, or the answer is %q", conv.Answer())
	}
	if len(rec.of(report.EventDiagnosis)) != 0 || len(rec.of(report.EventUsage)) != 1 {
		t.Errorf("events of a prose answer: %v", rec.kinds())
	}
	d3, err := conv.Ask(context.Background(), "Give the fix then.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d3 == d1 || d3.Fix == "" || d3.Verification == nil || d3.Verification.Status != report.NotRun {
		t.Errorf("the new finish gave %+v", d3)
	}
	if u := conv.Usage(); u.Rounds != 4 {
		t.Errorf("conversation usage %+v, want 4 rounds", u)
	}
}

// testLLMEvidenceCheck: invented values, frames and lines are flagged,
// shown in the text, and lower the confidence; the model is told.
func testLLMEvidenceCheck(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	srv := llmtest.New(t,
		llmtest.Turn{Calls: []llmtest.Call{call("finish", map[string]any{
			"root_cause":  map[string]any{"file": "testdata/nilmap/main.go", "line": 24, "func": "main.NewRegistry", "fid": "main.NewRegistry#1"},
			"summary":     "the map is nil",
			"explanation": "made up",
			"evidence": []map[string]any{
				{"fid": "main.(*Registry).Add#1", "line": 24, "claim": "the map has an entry", "value": `r.ports = map[string]int{"db": 8001}`},
				{"fid": "main.NewRegistry#7", "claim": "a seventh registry"},
				{"fid": "main.load#1", "line": 12, "claim": "load starts at the struct", "value": "base = 8000"},
				{"fid": "main.(*Registry).Add#1", "claim": "the panic", "value": "assignment to entry in nil map"},
			},
			"fix":        "",
			"confidence": "high",
		})}},
	)
	rec := &recorder{t: t}
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res := rec.of(report.EventToolResult); len(res) != 1 || !strings.Contains(res[0].Result, "These claims are not supported by the recording") {
		t.Errorf("the model was not told: %+v", res)
	}
	d := conv.Diagnosis()
	want := []string{
		"root cause: line 24 is not in main.NewRegistry (lines 17-19 of testdata/nilmap/main.go)",
		"evidence 1: the value `r.ports = map[string]int{\"db\": 8001}` does not appear among the recorded values of main.(*Registry).Add#1 or in any tool result",
		"evidence 2: no frame main.NewRegistry#7 in the recording: main.NewRegistry was invoked 1 time(s), use main.NewRegistry#1 to main.NewRegistry#1",
		"evidence 3: line 12 is not in main.load (lines 32-36 of testdata/nilmap/main.go)",
	}
	if strings.Join(d.Unsupported, "\n") != strings.Join(want, "\n") {
		t.Errorf("unsupported:\n%s\nwant:\n%s", strings.Join(d.Unsupported, "\n"), strings.Join(want, "\n"))
	}
	if d.Confidence != report.Medium {
		t.Errorf("confidence %s, want medium", d.Confidence)
	}
	if text := d.Text(); !strings.Contains(text, "not supported by the recording:\n  ✗ root cause: line 24") {
		t.Errorf("the text does not show the flags:\n%s", text)
	}
}

// testLLMFixRetry: a fix that does not apply is reported to the model,
// which corrects it in a second finish; the verified one is the answer.
func testLLMFixRetry(t *testing.T, fx *llmFixture) {
	s, target, hints := fx.session()
	wrong := "--- a/testdata/nilmap/main.go\n+++ b/testdata/nilmap/main.go\n@@ -17,3 +17,3 @@\n func NewRegistry() *Registry {\n-\treturn &Registry{order: nil}\n+\treturn &Registry{ports: map[string]int{}}\n }\n"
	srv := llmtest.New(t,
		llmtest.Turn{Calls: []llmtest.Call{nilmapFinish(wrong)}},
		llmtest.Turn{
			Check: toolResultsContain("verification of the fix: does-not-apply", `expected "\treturn &Registry{order: nil}" at line 18`, "call finish again (attempt 2 of 2)"),
			Calls: []llmtest.Call{nilmapFinish(nilmapFix)},
		},
	)
	conv, err := Converse(context.Background(), s, llmConfig(srv, hints), offline.Options{Target: target}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := conv.Diagnosis()
	if d.Verification == nil || d.Verification.Status != report.Passed || d.Rounds != 2 || d.Confidence != report.High {
		t.Errorf("verification %+v, rounds %d, confidence %s", d.Verification, d.Rounds, d.Confidence)
	}
}

// TestConfigFromEnv: flags win over the environment; ADI_LLM_API_KEY
// over OPENAI_API_KEY; no model is ErrNoModel; a model needs a key or a
// base URL; a local base URL needs no key.
func TestConfigFromEnv(t *testing.T) {
	for _, k := range []string{"ADI_LLM_MODEL", "ADI_LLM_BASE_URL", "ADI_LLM_API_KEY", "OPENAI_API_KEY"} {
		t.Setenv(k, "")
	}
	if _, err := ConfigFromEnv("", ""); !errors.Is(err, ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	_, err := ConfigFromEnv("gpt-x", "")
	if err == nil || !strings.Contains(err.Error(), `the model "gpt-x" is asked for but there is no API key`) {
		t.Errorf("a model without a key: %v", err)
	}
	cfg, err := ConfigFromEnv("qwen", "http://localhost:11434")
	if err != nil || cfg.BaseURL != "http://localhost:11434/v1" || cfg.APIKey != "" {
		t.Errorf("Ollama: %+v, %v", cfg, err)
	}
	if _, err := ConfigFromEnv("qwen", "localhost:11434"); err == nil {
		t.Errorf("a base URL without a scheme was accepted")
	}
	t.Setenv("OPENAI_API_KEY", "sk-openai-fallback-000000000000")
	t.Setenv("ADI_LLM_MODEL", "gpt-env")
	cfg, err = ConfigFromEnv("", "")
	if err != nil || cfg.Model != "gpt-env" || cfg.BaseURL != OpenAIBaseURL || cfg.APIKey != "sk-openai-fallback-000000000000" {
		t.Errorf("OpenAI from the environment: %v, %v", cfg, err)
	}
	t.Setenv("ADI_LLM_API_KEY", testKey)
	t.Setenv("ADI_LLM_BASE_URL", "https://llm.example.com/v1/")
	cfg, err = ConfigFromEnv("flag-model", "")
	if err != nil || cfg.Model != "flag-model" || cfg.APIKey != testKey || cfg.BaseURL != "https://llm.example.com/v1" {
		t.Errorf("flags and ADI_ variables: %v, %v", cfg, err)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg); strings.Contains(s, testKey) {
		t.Errorf("printing the configuration shows the key: %s", s)
	}
	if b, _ := json.Marshal(cfg); strings.Contains(string(b), testKey) {
		t.Errorf("the configuration's JSON holds the key: %s", b)
	}
}

// TestCheckNoCalls: execute's guard allows len, cap and conversions, and
// refuses calls of the program's functions and methods.
func TestCheckNoCalls(t *testing.T) {
	for _, ok := range []string{"r.ports == nil", "len(xs) > cap(ys)", "n = 5", "int64(x) + 1", "[]byte(s)[0]", "(*T)(p).f", "m[\"k\"]"} {
		if err := checkNoCalls(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"r.Port(\"api\")", "os.Exit(1)", "f()", "x = g(1)", "len(h())", "func() int { return 1 }()"} {
		if err := checkNoCalls(bad); err == nil {
			t.Errorf("%q allowed", bad)
		}
	}
}

// TestCapResult: a long result is cut at a line boundary with a marker
// saying how much was cut; a short one is left alone.
func TestCapResult(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d of the answer\n", i)
	}
	long := b.String()
	got := capResult(long, 400)
	if len(got) > 400 || !strings.HasPrefix(long, got[:strings.Index(got, "\n[… cut by adi:")]) ||
		!strings.Contains(got, "more lines (") || !strings.HasSuffix(got, "]") {
		t.Errorf("capResult:\n%s", got)
	}
	if capResult("short", 400) != "short" {
		t.Errorf("a short result was changed")
	}
}
