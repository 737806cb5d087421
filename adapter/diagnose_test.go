package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/adapter/daptest"
	"github.com/adi-go/adi/agent"
)

// The agent's requests over a pipe, with the real engine on the testdata
// fixtures: adi/diagnose streams adi/agent events and answers with the
// diagnosis; adi/cancel stops it; adi/verifyFix checks a diff.

// agentRoot is the repository's root (the fixtures' module).
func agentRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), ".."))
}

// agentLog is a debug-level logger whose output is shown when the test
// fails.
func agentLog(t testing.TB) *slog.Logger {
	buf := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// agentSession serves one session of srv over io.Pipes; the session must
// end when the test does.
func agentSession(t *testing.T, srv *adapter.Server) *daptest.Client {
	t.Helper()
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStream(context.Background(), cr, sw)
		sw.Close()
		cr.Close()
		done <- err
	}()
	c := daptest.New(t, sr, cw)
	t.Cleanup(func() {
		cw.Close()
		sr.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("the session did not end 30s after its client went away")
		}
	})
	return c
}

// nilmapLaunch launches testdata/nilmap (mode run) from the repository.
func nilmapLaunch(t testing.TB) map[string]any {
	return map[string]any{"mode": "run", "program": filepath.Join(agentRoot(t), "testdata", "nilmap")}
}

// diagnosisBody is the part of adi/diagnose's answer the tests read.
type diagnosisBody struct {
	agent.Diagnosis
	Text string `json:"text"`
}

// decodeBody decodes a response's body into v.
func decodeBody(t *testing.T, m daptest.Msg, v any) {
	t.Helper()
	if err := m.Decode(v); err != nil {
		t.Fatalf("decoding the answer to %s: %v\n%s", m.Command, err, m.Raw)
	}
}

// kinds lists the kinds of events.
func kinds(events []agent.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, string(e.Kind))
	}
	return out
}

// TestDiagnoseNilmap: adi/diagnose on testdata/nilmap streams its progress
// as adi/agent text events and ends with a diagnosis event (root cause
// testdata/nilmap/main.go:18) and a usage event; the response is the
// diagnosis and its text. adi/verifyFix passes the diagnosis's fix and
// fails a wrong one; the fixture's file is untouched. A follow-up question
// gets the same diagnosis from the offline diagnoser, with a note.
func TestDiagnoseNilmap(t *testing.T) {
	src := filepath.Join(agentRoot(t), "testdata", "nilmap", "main.go")
	before, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true})
	c.Launch(nilmapLaunch(t))

	m, events := c.Agent("adi/diagnose", map[string]any{})
	if !m.Success {
		t.Fatalf("adi/diagnose failed: %s\n%s", m.ErrorText(), c.Traffic())
	}
	var d diagnosisBody
	if err := m.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if rc := d.RootCause; rc.File != "testdata/nilmap/main.go" || rc.Line != 18 || rc.Func != "main.NewRegistry" || rc.FID == "" {
		t.Errorf("root cause %+v, want testdata/nilmap/main.go:18 in main.NewRegistry", rc)
	}
	if !strings.HasPrefix(d.Text, "root cause: testdata/nilmap/main.go:18 in main.NewRegistry") {
		t.Errorf("the answer's text does not start with the root cause:\n%s", d.Text)
	}
	if d.Source != "offline" || d.Verification == nil || d.Verification.Status != agent.Passed ||
		!strings.Contains(d.Fix, "+\treturn &Registry{ports: map[string]int{}}") {
		t.Errorf("source %q, fix %q, verification %+v; want offline, the map made in NewRegistry, passed", d.Source, d.Fix, d.Verification)
	}

	// The stream: text progress, then the diagnosis, then the usage.
	ks := kinds(events)
	if len(events) < 3 || ks[0] != "text" || ks[len(ks)-2] != "diagnosis" || ks[len(ks)-1] != "usage" {
		t.Fatalf("adi/agent events %v, want text…, diagnosis, usage", ks)
	}
	for _, e := range events[:len(events)-2] {
		if e.Kind != agent.EventText || !strings.HasSuffix(e.Text, "\n") {
			t.Errorf("progress event %+v, want a text line", e)
		}
	}
	var progress strings.Builder
	for _, e := range events {
		progress.WriteString(e.Text)
	}
	if !strings.Contains(progress.String(), "tracing the panic") || !strings.Contains(progress.String(), "verifying") {
		t.Errorf("the progress does not say that the panic is traced and the fix verified:\n%s", progress.String())
	}
	de := events[len(events)-2]
	if de.Diagnosis == nil || de.Diagnosis.RootCause != d.RootCause || de.Diagnosis.Fix != d.Fix {
		t.Errorf("the diagnosis event %+v differs from the answer %+v", de.Diagnosis, d.RootCause)
	}
	if u := events[len(events)-1].Usage; u == nil || u.Rounds != 0 || u.PromptTokens != 0 {
		t.Errorf("usage %+v, want 0 rounds and tokens (offline)", u)
	}

	// The session still navigates after a diagnosis.
	if b := c.Request("adi/frame", map[string]any{}); !strings.Contains(string(b.Body), "main.(*Registry).Add#1") {
		t.Errorf("adi/frame after adi/diagnose: %s", b.Body)
	}

	// adi/verifyFix: the fix passes, a wrong diff fails, a stale one does
	// not apply.
	var v struct {
		agent.Verification
		Text string `json:"text"`
	}
	decodeBody(t, c.Request("adi/verifyFix", map[string]any{"diff": d.Fix}), &v)
	if v.Status != agent.Passed || !strings.HasPrefix(v.Text, "verification: passed") || !strings.Contains(v.Command, "-overlay=") {
		t.Errorf("verifying the diagnosis's fix: %+v", v)
	}
	wrong := strings.Join([]string{
		"--- a/testdata/nilmap/main.go",
		"+++ b/testdata/nilmap/main.go",
		"@@ -38,3 +38,3 @@",
		" func main() {",
		"-\tfmt.Println(\"loading services\")",
		"+\tfmt.Println(\"loading the services\")",
		" \tr := NewRegistry()",
		"",
	}, "\n")
	decodeBody(t, c.Request("adi/verifyFix", map[string]any{"diff": wrong}), &v)
	if v.Status != agent.Failed || !strings.Contains(v.Output, "assignment to entry in nil map") || !strings.Contains(v.Text, "| ") {
		t.Errorf("verifying a wrong diff: %+v, want failed with the panic", v)
	}
	stale := strings.Replace(wrong, "loading services", "loading all services", 1)
	decodeBody(t, c.Request("adi/verifyFix", map[string]any{"diff": stale}), &v)
	if v.Status != agent.DoesNotApply {
		t.Errorf("verifying a diff that does not apply: %+v", v)
	}
	if msg := c.Fails("adi/verifyFix", map[string]any{}); !strings.Contains(msg, `needs "diff"`) {
		t.Errorf("adi/verifyFix without a diff: %q", msg)
	}

	// A follow-up question: the offline diagnoser says it does not answer
	// questions and gives its diagnosis again, at once.
	start := time.Now()
	m, events = c.Agent("adi/diagnose", map[string]any{"question": "why is the map nil?"})
	if !m.Success {
		t.Fatalf("the follow-up adi/diagnose failed: %s", m.ErrorText())
	}
	var again diagnosisBody
	m.Decode(&again)
	if again.RootCause != d.RootCause || time.Since(start) > 5*time.Second {
		t.Errorf("follow-up: root cause %+v after %s, want %+v at once", again.RootCause, time.Since(start), d.RootCause)
	}
	if ks := kinds(events); len(ks) != 3 || ks[0] != "text" || !strings.Contains(events[0].Text, "does not answer questions") {
		t.Errorf("follow-up events %v (%+v), want a text note, diagnosis, usage", ks, events)
	}

	if after, _ := os.ReadFile(src); !bytes.Equal(before, after) {
		t.Errorf("testdata/nilmap/main.go changed")
	}
	c.Request("disconnect", map[string]any{"terminateDebuggee": true})
}

// TestDiagnoseBeforeLaunch: the agent's requests need a launched target.
func TestDiagnoseBeforeLaunch(t *testing.T) {
	c := agentSession(t, &adapter.Server{Log: agentLog(t)})
	c.Request("initialize", map[string]any{"adapterID": "adi"})
	if msg := c.Fails("adi/diagnose", nil); !strings.Contains(msg, "launch") {
		t.Errorf("adi/diagnose before launch: %q", msg)
	}
	if msg := c.Fails("adi/verifyFix", map[string]any{"diff": "--- a/x.go\n+++ b/x.go\n"}); !strings.Contains(msg, "launch") {
		t.Errorf("adi/verifyFix before launch: %q", msg)
	}
	if msg := c.Fails("adi/diagnose", map[string]any{"question": 3}); !strings.Contains(msg, "bad arguments") {
		t.Errorf("adi/diagnose with a bad question: %q", msg)
	}
	var b struct {
		Cancelled bool   `json:"cancelled"`
		Text      string `json:"text"`
	}
	decodeBody(t, c.Request("adi/cancel", nil), &b)
	if b.Cancelled || !strings.Contains(b.Text, "nothing to cancel") {
		t.Errorf("adi/cancel with nothing running: %+v", b)
	}
}

// wantCancelled checks that a cancelled adi/diagnose answered with an
// error response "cancelled" after an adi/agent error event "cancelled".
func wantCancelled(t *testing.T, c *daptest.Client, m daptest.Msg, events []agent.Event) {
	t.Helper()
	if m.Success || m.Message != "cancelled" {
		t.Errorf("the cancelled adi/diagnose answered success=%v message %q, want an error \"cancelled\"\n%s", m.Success, m.Message, c.Traffic())
	}
	if len(events) == 0 || events[len(events)-1].Kind != agent.EventError || events[len(events)-1].Text != "cancelled" {
		t.Errorf("adi/agent events of the cancelled adi/diagnose: %+v, want the last an error \"cancelled\"", events)
	}
	for _, e := range events {
		if e.Kind == agent.EventDiagnosis {
			t.Errorf("a cancelled adi/diagnose sent a diagnosis")
		}
	}
}

// cancelBody is adi/cancel's answer.
type cancelBody struct {
	Cancelled bool `json:"cancelled"`
	Requests  int  `json:"requests"`
}

// TestDiagnoseCancel: adi/cancel is answered at once while the offline
// diagnoser works (on the reading goroutine: the worker is busy), the
// diagnosis ends with "cancelled", and the session goes on: the next
// adi/diagnose makes a whole diagnosis.
func TestDiagnoseCancel(t *testing.T) {
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true})
	c.Launch(nilmapLaunch(t))

	dseq := c.Send("adi/diagnose", nil)
	cseq := c.Send("adi/cancel", nil)
	var cancelResp, diagResp *daptest.Msg
	var msgs []daptest.Msg
	for cancelResp == nil || diagResp == nil {
		m := c.Next()
		switch {
		case m.Type == "response" && m.RequestSeq == cseq:
			if diagResp != nil {
				t.Errorf("adi/cancel was answered after the diagnosis it cancelled")
			}
			cancelResp = &m
		case m.Type == "response" && m.RequestSeq == dseq:
			diagResp = &m
		default:
			msgs = append(msgs, m)
		}
	}
	var cb cancelBody
	cancelResp.Decode(&cb)
	if !cancelResp.Success || !cb.Cancelled || cb.Requests != 1 {
		t.Errorf("adi/cancel: success %v, body %s; want cancelled 1", cancelResp.Success, cancelResp.Body)
	}
	wantCancelled(t, c, *diagResp, daptest.AgentEvents(t, msgs))

	// The next diagnosis is whole (the cancelled one left nothing behind).
	m, events := c.Agent("adi/diagnose", nil)
	var d diagnosisBody
	m.Decode(&d)
	if !m.Success || d.RootCause.Line != 18 || events[len(events)-2].Kind != agent.EventDiagnosis {
		t.Errorf("adi/diagnose after a cancelled one: %s %+v", m.ErrorText(), d.RootCause)
	}
	c.Request("disconnect", nil)
}

// blockingDiagnoser is an LLM-like diagnoser that says something, then
// works until it is cancelled.
func blockingDiagnoser(started chan<- struct{}, returned chan<- error) adapter.NewDiagnoserFunc {
	return func(dbg agent.Debugger, opts agent.Options) (adapter.Diagnoser, error) {
		return adapter.DiagnoserFunc(func(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error) {
			emit(agent.Event{Kind: agent.EventText, Text: "Looking at the panic. "})
			emit(agent.Event{Kind: agent.EventToolCall, Tool: "frame", ID: "call-1", Args: json.RawMessage(`{"fid":"main.main#1"}`)})
			close(started)
			<-ctx.Done()
			returned <- ctx.Err()
			return nil, ctx.Err()
		}), nil
	}
}

// TestDiagnoseCancelRunning: with a Diagnoser that works until cancelled
// (as the LLM agent does between rounds), adi/cancel during its work ends
// it: its context is cancelled, the request answers "cancelled" after the
// events streamed so far and an error event.
func TestDiagnoseCancelRunning(t *testing.T) {
	started, returned := make(chan struct{}), make(chan error, 1)
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true, NewDiagnoser: blockingDiagnoser(started, returned)})
	c.Launch(nilmapLaunch(t))

	dseq := c.Send("adi/diagnose", map[string]any{"question": "why?"})
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatalf("the diagnoser did not start\n%s", c.Traffic())
	}
	var cb cancelBody
	cm, early := c.Response(c.Send("adi/cancel", map[string]any{"requestId": dseq}))
	cm.Decode(&cb)
	if !cb.Cancelled || cb.Requests != 1 {
		t.Errorf("adi/cancel {requestId: %d}: %s", dseq, cm.Body)
	}
	select {
	case err := <-returned:
		if err != context.Canceled {
			t.Errorf("the diagnoser's context ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the diagnoser's context was not cancelled")
	}
	m, msgs := c.Response(dseq)
	events := daptest.AgentEvents(t, append(early, msgs...))
	wantCancelled(t, c, m, events)
	if ks := kinds(events); len(ks) != 3 || ks[0] != "text" || ks[1] != "toolCall" || events[1].Tool != "frame" {
		t.Errorf("events %v, want text, toolCall, error", ks)
	}
	// A cancel naming another request cancels nothing.
	decodeBody(t, c.Request("adi/cancel", map[string]any{"requestId": 9999}), &cb)
	if cb.Cancelled {
		t.Errorf("adi/cancel of an unknown request: %+v", cb)
	}
	c.Request("disconnect", nil)
}

// TestDiagnoseDisconnectCancels: disconnecting during a diagnosis cancels
// it; the session ends.
func TestDiagnoseDisconnectCancels(t *testing.T) {
	started, returned := make(chan struct{}), make(chan error, 1)
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true, NewDiagnoser: blockingDiagnoser(started, returned)})
	c.Launch(nilmapLaunch(t))
	c.Send("adi/diagnose", nil)
	<-started
	c.Request("disconnect", nil)
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("disconnect did not cancel the diagnosis")
	}
}

// TestDiagnoseRedactsSecrets: an API key from the environment never
// reaches the client, whatever the diagnoser puts in its events, its
// diagnosis or its errors; the events and answer a Diagnoser gives are
// relayed, except its own diagnosis and error events (the adapter sends
// those).
func TestDiagnoseRedactsSecrets(t *testing.T) {
	const key = "sk-test-4f1d2c3b5a6e7f8091a2b3c4"
	const token = "ghp_secret/with\"quotes&<chars>"
	t.Setenv("ADI_LLM_API_KEY", key)
	t.Setenv("GITHUB_TOKEN", token)
	asks := 0
	leaky := func(dbg agent.Debugger, opts agent.Options) (adapter.Diagnoser, error) {
		return adapter.DiagnoserFunc(func(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error) {
			asks++
			emit(agent.Event{Kind: agent.EventText, Text: "using the key " + key + " and " + token})
			emit(agent.Event{Kind: agent.EventToolResult, Tool: "frame", Result: "Authorization: Bearer " + key})
			emit(agent.Event{Kind: agent.EventDiagnosis, Diagnosis: &agent.Diagnosis{Summary: "an early one"}})
			emit(agent.Event{Kind: agent.EventError, Text: "not the end"})
			emit(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Rounds: 1, PromptTokens: 10}})
			if asks > 1 {
				return nil, &keyError{key}
			}
			return &agent.Diagnosis{
				RootCause: agent.Location{File: "testdata/nilmap/main.go", Line: 18, Func: "main.NewRegistry"},
				Summary:   "the key is " + key, Explanation: "token " + token,
				Evidence: []agent.Evidence{}, Candidates: []agent.Candidate{}, Confidence: agent.Medium,
				Source: "llm", Rounds: 2, PromptTokens: 100, CompletionTokens: 20,
			}, nil
		}), nil
	}
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true, NewDiagnoser: leaky})
	c.Launch(nilmapLaunch(t))
	// ask sends adi/diagnose and checks every message it causes.
	ask := func(args any) (daptest.Msg, []agent.Event) {
		t.Helper()
		m, msgs := c.Response(c.Send("adi/diagnose", args))
		for _, x := range append(msgs, m) {
			for _, secret := range []string{key, "ghp_secret", `with\"quotes`, "quotes\\u0026"} {
				if strings.Contains(x.Raw, secret) {
					t.Errorf("the secret %q reached the client: %s", secret, x.Raw)
				}
			}
		}
		return m, daptest.AgentEvents(t, msgs)
	}

	m, events := ask(nil)
	if !m.Success {
		t.Fatalf("adi/diagnose: %s", m.ErrorText())
	}
	if ks := strings.Join(kinds(events), ","); ks != "text,toolResult,diagnosis,usage" {
		t.Errorf("events %s, want text,toolResult,diagnosis,usage (the diagnoser's diagnosis and error dropped, its usage last)", ks)
	}
	last := events[len(events)-1].Usage
	if d := events[len(events)-2].Diagnosis; d == nil || d.Source != "llm" || last == nil || last.Rounds != 1 || last.PromptTokens != 10 {
		t.Errorf("closing events %+v, want the diagnosis and the diagnoser's usage", events[len(events)-2:])
	}
	if !strings.Contains(events[0].Text, "using the key [redacted] and [redacted]") || !strings.Contains(string(m.Body), "the key is [redacted]") {
		t.Errorf("the key is not shown as [redacted]: %q, %s", events[0].Text, m.Body)
	}
	// A failing follow-up whose error names the key.
	m, events = ask(map[string]any{"question": "and?"})
	if ks := strings.Join(kinds(events), ","); m.Success || !strings.Contains(m.ErrorText(), "401 for key [redacted]") || ks != "text,toolResult,usage,error" ||
		events[3].Text != "401 for key [redacted]" {
		t.Errorf("failing follow-up: %q, events %s (%+v); want text,toolResult,usage,error", m.ErrorText(), ks, events)
	}
	if asks != 2 {
		t.Errorf("the diagnoser was asked %d times, want 2 (one Diagnoser per session)", asks)
	}
	c.Request("disconnect", nil)
}

type keyError struct{ key string }

func (e *keyError) Error() string { return "401 for key " + e.key }
