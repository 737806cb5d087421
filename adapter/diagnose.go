package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/agent"
	"github.com/adi-go/adi/engine"
)

// The agent's requests (DESIGN.md §5):
//
//   - adi/diagnose {question?} finds the root cause of the launched run's
//     failure. While it works it streams adi/agent events (body: an
//     agent.Event: text, toolCall, toolResult, usage); it ends with a
//     diagnosis event and a usage event and answers with the Diagnosis as
//     JSON plus its "text" — or with an error event and an error response.
//     A further adi/diagnose (a follow-up question) goes to the same
//     Diagnoser, which keeps the conversation.
//   - adi/verifyFix {diff} applies a unified diff to an overlay copy and
//     re-runs the launched command and its package's tests; it answers
//     with the agent.Verification plus "text". The user's files are never
//     touched.
//   - adi/cancel {requestId?} cancels the running adi/diagnose or
//     adi/verifyFix (and those still queued; only requestId's when given).
//     It is answered at once, on the reading goroutine, since the worker
//     runs one request at a time; the cancelled request answers with an
//     error response whose message is "cancelled" (as DAP's own cancel
//     has it), and a cancelled adi/diagnose sends an adi/agent error event
//     "cancelled".
//
// Nothing secret goes out: the values of the environment variables that
// look like credentials (API keys, tokens, passwords), of this process and
// of the launch's env, are replaced by [redacted] in every adi/agent event
// and in the answers of these requests.

// Diagnoser answers the adi/diagnose requests of one debugging session.
//
// Diagnose answers question about the recorded failure ("" on the first
// request: find the root cause) and returns the diagnosis. emit streams
// what it does meanwhile as adi/agent events: text, toolCall and
// toolResult events are relayed as they come. The stream's end is the
// adapter's, from what Diagnose returns: a diagnosis event then a usage
// event, or (a usage event and) an error event. A Diagnoser's own
// diagnosis and error events are dropped, and its usage events are held
// back, the last sent at the end (without one, the usage is the
// Diagnosis's rounds and tokens): agent.Conversation's Ask, which ends
// its stream the same way, can be relayed as it is. ctx is
// cancelled by adi/cancel and by disconnect or terminate; a Diagnoser then
// returns promptly (what it returns is not used). emit may be called from
// any goroutine until Diagnose returns.
type Diagnoser interface {
	Diagnose(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error)
}

// DiagnoserFunc makes a function a Diagnoser.
type DiagnoserFunc func(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error)

// Diagnose calls f.
func (f DiagnoserFunc) Diagnose(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error) {
	return f(ctx, question, emit)
}

// NewDiagnoserFunc makes the Diagnoser of a launched session (see
// Server.NewDiagnoser). dbg is the session's recording; opts has the
// launched command line (Target) and the timeout of each command
// (CommandTimeout), as the offline diagnoser wants them.
type NewDiagnoserFunc func(dbg agent.Debugger, opts agent.Options) (Diagnoser, error)

// OfflineDiagnoser is the Diagnoser of a session when the Server has no
// NewDiagnoser: agent.Diagnose, the rule-based diagnoser that needs no
// model, whose progress lines stream as text events. It cannot answer
// questions: a follow-up adi/diagnose gets the same diagnosis again, with
// a text event saying so.
func OfflineDiagnoser(dbg agent.Debugger, opts agent.Options) (Diagnoser, error) {
	o := &offlineDiagnoser{dbg: dbg, opts: opts}
	return DiagnoserFunc(o.diagnose), nil
}

type offlineDiagnoser struct {
	dbg  agent.Debugger
	opts agent.Options
	last *agent.Diagnosis // the answer, once one was complete
}

func (o *offlineDiagnoser) diagnose(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error) {
	if question != "" {
		emit(agent.Event{Kind: agent.EventText, Text: "The offline diagnoser does not answer questions (no model is configured); this is its diagnosis of the failure.\n"})
	}
	if o.last != nil {
		return o.last, nil
	}
	opts := o.opts
	opts.Log = func(format string, a ...any) {
		emit(agent.Event{Kind: agent.EventText, Text: strings.TrimPrefix(fmt.Sprintf(format, a...), "adi: ") + "\n"})
	}
	diag, err := agent.Diagnose(ctx, o.dbg, opts)
	if err == nil && ctx.Err() == nil && diag != nil && diag.Partial == "" {
		o.last = diag
	}
	return diag, err
}

// agentState is the session's state for the agent's requests. The reader
// goroutine queues and cancels; the worker starts and finishes.
type agentState struct {
	mu        sync.Mutex
	queued    map[int]bool // adi/diagnose and adi/verifyFix read, not finished
	cancelled map[int]bool // of those, the ones adi/cancel cancelled
	running   context.CancelFunc
	runSeq    int

	// diagnoser answers adi/diagnose (worker only).
	diagnoser Diagnoser

	secretsOnce sync.Once
	secrets     [][]byte // JSON-escaped secret values, longest first
}

// queue notes an agent request read from the client.
func (a *agentState) queue(seq int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.queued == nil {
		a.queued, a.cancelled = map[int]bool{}, map[int]bool{}
	}
	a.queued[seq] = true
}

// start makes cancel the running request's; false: it was cancelled
// while queued.
func (a *agentState) start(seq int, cancel context.CancelFunc) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancelled[seq] {
		return false
	}
	a.running, a.runSeq = cancel, seq
	return true
}

// finish forgets a request.
func (a *agentState) finish(seq int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.queued, seq)
	delete(a.cancelled, seq)
	if a.runSeq == seq {
		a.running, a.runSeq = nil, 0
	}
}

// cancel marks the queued and running agent requests cancelled (only the
// one numbered id when id > 0), calls answer with how many while no
// request can finish, then cancels the running one's context: adi/cancel
// is answered before the requests it cancelled.
func (a *agentState) cancel(id int, answer func(n int)) {
	a.mu.Lock()
	n := 0
	for seq := range a.queued {
		if (id <= 0 || seq == id) && !a.cancelled[seq] {
			a.cancelled[seq] = true
			n++
		}
	}
	var running context.CancelFunc
	if a.running != nil && a.cancelled[a.runSeq] {
		running = a.running
	}
	answer(n)
	a.mu.Unlock()
	if running != nil {
		running()
	}
}

// isCancelled reports whether adi/cancel cancelled request seq (it may
// have finished its work meanwhile: it still answers "cancelled").
func (a *agentState) isCancelled(seq int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cancelled[seq]
}

// early handles, on the reading goroutine, what cannot wait for the
// worker: adi/cancel is answered at once, and the agent's requests are
// noted so that it can cancel them before they start. It reports whether
// req was handled.
func (s *session) early(req dap.RequestMessage) bool {
	r, ok := req.(*customRequest)
	if !ok {
		return false
	}
	switch r.Command {
	case "adi/cancel":
		s.onCancel(r)
		return true
	case "adi/diagnose", "adi/verifyFix":
		s.agent.queue(r.Seq)
	}
	return false
}

// onAgentRequest routes the agent's requests (on the worker).
func (s *session) onAgentRequest(ctx context.Context, r *customRequest) (handled bool, err error) {
	switch r.Command {
	case "adi/diagnose":
		return true, s.onDiagnose(ctx, r)
	case "adi/verifyFix":
		return true, s.onVerifyFix(ctx, r)
	case "adi/cancel":
		// Answered by the reader; here only when a test calls dispatch.
		s.onCancel(r)
		return true, nil
	}
	return false, nil
}

// errCancelledID is the error id of a cancelled request.
const errCancelledID = 3100

func (s *session) onCancel(r *customRequest) {
	var a struct {
		RequestID int `json:"requestId"`
	}
	if len(r.Arguments) > 0 {
		if err := json.Unmarshal(r.Arguments, &a); err != nil {
			s.sendError(&r.Request, errBadRequest, summary(r.Command), "bad arguments: "+err.Error())
			return
		}
	}
	s.agent.cancel(a.RequestID, func(n int) {
		text := "nothing to cancel: no adi/diagnose or adi/verifyFix is running"
		if n > 0 {
			text = fmt.Sprintf("cancelled %d request(s)", n)
		}
		body, _ := json.Marshal(map[string]any{"cancelled": n > 0, "requests": n, "text": text})
		s.send(&customResponse{Response: s.response(&r.Request), Body: body})
	})
}

// cancelled answers a cancelled request.
func (s *session) cancelled(r *customRequest, emit agent.Emit) error {
	if emit != nil {
		emit(agent.Event{Kind: agent.EventError, Text: "cancelled"})
	}
	s.sendError(&r.Request, errCancelledID, "cancelled", r.Command+" was cancelled")
	return nil
}

// agentError answers a failed agent request (redacted), after an error
// event when emit is set.
func (s *session) agentError(r *customRequest, emit agent.Emit, err error) error {
	if emit != nil {
		emit(agent.Event{Kind: agent.EventError, Text: err.Error()})
	}
	s.sendError(&r.Request, errorID(err), summary(r.Command), string(s.redact([]byte(err.Error()))))
	return nil
}

// agentTarget is the launched command line as the agent wants it, and the
// engine options of the launch.
func (s *session) agentTarget() (agent.Target, engine.Options, error) {
	if s.launch == nil {
		return agent.Target{}, engine.Options{}, errNoSession
	}
	argv, dir, err := targetCommand(s.launch)
	o := s.launchOptions(s.launch)
	return agent.Target{Argv: argv, Dir: dir, Env: o.Env}, o, err
}

func (s *session) onDiagnose(ctx context.Context, r *customRequest) error {
	defer s.agent.finish(r.Seq)
	var a struct {
		Question string `json:"question"`
	}
	if len(r.Arguments) > 0 {
		if err := json.Unmarshal(r.Arguments, &a); err != nil {
			return fmt.Errorf("%s: bad arguments: %v", r.Command, err)
		}
	}
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	dbg, ok := d.(agent.Debugger)
	if !ok {
		return errors.New("this session's recording cannot be diagnosed: its debuggee has no program")
	}
	emit := s.agentEmit()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.agent.start(r.Seq, cancel) {
		return s.cancelled(r, emit)
	}
	if s.agent.diagnoser == nil {
		t, o, err := s.agentTarget()
		if err != nil {
			return s.agentError(r, emit, err)
		}
		mk := s.srv.NewDiagnoser
		if mk == nil {
			mk = OfflineDiagnoser
		}
		dg, err := mk(dbg, agent.Options{Target: t, CommandTimeout: o.ExecTimeout})
		if err != nil {
			return s.agentError(r, emit, err)
		}
		s.agent.diagnoser = dg
	}
	from := d.Current()
	var mu sync.Mutex
	open := true
	var usage *agent.Usage // the Diagnoser's last usage, sent at the end
	diag, err := s.agent.diagnoser.Diagnose(ctx, a.Question, func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !open: // a Diagnoser's goroutine that emits late is not heard
		case e.Kind == agent.EventUsage && e.Usage != nil:
			u := *e.Usage
			usage = &u
		case e.Kind != agent.EventDiagnosis && e.Kind != agent.EventError && e.Kind != agent.EventUsage:
			emit(e)
		}
	})
	mu.Lock()
	open = false
	mu.Unlock()
	if usage != nil && (err != nil || ctx.Err() != nil || diag == nil || s.agent.isCancelled(r.Seq)) {
		emit(agent.Event{Kind: agent.EventUsage, Usage: usage})
	}
	switch {
	case ctx.Err() != nil || s.agent.isCancelled(r.Seq):
		return s.cancelled(r, emit)
	case err != nil:
		return s.agentError(r, emit, err)
	case diag == nil:
		return s.agentError(r, emit, errors.New("the diagnoser gave no diagnosis"))
	}
	if usage == nil {
		usage = &agent.Usage{Rounds: diag.Rounds, PromptTokens: diag.PromptTokens, CompletionTokens: diag.CompletionTokens}
	}
	emit(agent.Event{Kind: agent.EventDiagnosis, Diagnosis: diag})
	emit(agent.Event{Kind: agent.EventUsage, Usage: usage})
	body, err := answerBody(diag, diag.Text())
	if err != nil {
		return err
	}
	s.send(&customResponse{Response: s.response(&r.Request), Body: s.redact(body)})
	if !sameFrame(d.Current(), from) {
		// The agent moved the session (break, continue): the editor's
		// views follow.
		s.step = 0
		return s.stopHere("step", "")
	}
	return nil
}

func (s *session) onVerifyFix(ctx context.Context, r *customRequest) error {
	defer s.agent.finish(r.Seq)
	var a struct {
		Diff string `json:"diff"`
	}
	if len(r.Arguments) > 0 {
		if err := json.Unmarshal(r.Arguments, &a); err != nil {
			return fmt.Errorf("%s: bad arguments: %v", r.Command, err)
		}
	}
	if strings.TrimSpace(a.Diff) == "" {
		return fmt.Errorf("%s needs %q: a unified diff, paths relative to the module root", r.Command, "diff")
	}
	if _, err := s.debuggee(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.agent.start(r.Seq, cancel) {
		return s.cancelled(r, nil)
	}
	t, o, err := s.agentTarget()
	if err != nil {
		return s.agentError(r, nil, err)
	}
	v, err := agent.Verify(ctx, t, a.Diff, agent.VerifyOptions{Timeout: o.ExecTimeout, Stdin: o.Stdin,
		Log: func(format string, args ...any) {
			s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "console",
				Output: string(s.redact([]byte(fmt.Sprintf(format, args...)))) + "\n"}})
		}})
	switch {
	case ctx.Err() != nil || s.agent.isCancelled(r.Seq):
		return s.cancelled(r, nil)
	case err != nil:
		return s.agentError(r, nil, err)
	}
	body, err := answerBody(v, verificationText(v))
	if err != nil {
		return err
	}
	s.send(&customResponse{Response: s.response(&r.Request), Body: s.redact(body)})
	return nil
}

// verificationText is a verification as adi diagnose prints it.
func verificationText(v *agent.Verification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verification: %s\n", v.Status)
	for _, c := range strings.Split(v.Command, "\n") {
		if c != "" {
			b.WriteString("  $ " + c + "\n")
		}
	}
	if v.Status != agent.Passed && v.Output != "" {
		for _, l := range strings.Split(strings.TrimRight(v.Output, "\n"), "\n") {
			b.WriteString("  | " + l + "\n")
		}
	}
	return b.String()
}

// agentEmit sends agent events as adi/agent events, redacted.
func (s *session) agentEmit() agent.Emit {
	return func(e agent.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			s.log.Error("encoding an agent event", "err", err)
			return
		}
		s.sendEvent(&customEvent{Event: s.event("adi/agent"), Body: json.RawMessage(s.redact(b))})
	}
}

// secretName matches the names of environment variables whose values are
// credentials.
var secretName = regexp.MustCompile(`(?i)(api_?key|token|secret|passw|credential|private_?key|session_?key|access_?key|auth_?key|authorization|bearer)`)

// minSecret is the shortest value treated as a secret (shorter ones, like
// AUTH=1, would blank out ordinary text).
const minSecret = 8

// redact replaces the values of secret-looking environment variables (of
// this process and of the launch) in b, a JSON text or plain text.
func (s *session) redact(b []byte) []byte {
	s.agent.secretsOnce.Do(func() {
		env := os.Environ()
		if s.launch != nil {
			for k, v := range s.launch.Env {
				env = append(env, k+"="+v)
			}
		}
		seen := map[string]bool{}
		for _, kv := range env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || len(v) < minSecret || !secretName.MatchString(k) || seen[v] {
				continue
			}
			seen[v] = true
			// As it is, and as JSON writes it (with and without
			// escaping <, > and &).
			forms := map[string]bool{v: true}
			for _, html := range []bool{true, false} {
				var q bytes.Buffer
				enc := json.NewEncoder(&q)
				enc.SetEscapeHTML(html)
				enc.Encode(v)
				b := bytes.TrimSpace(q.Bytes())
				forms[string(b[1:len(b)-1])] = true
			}
			for f := range forms {
				s.agent.secrets = append(s.agent.secrets, []byte(f))
			}
		}
		sort.Slice(s.agent.secrets, func(i, j int) bool { return len(s.agent.secrets[i]) > len(s.agent.secrets[j]) })
	})
	for _, sec := range s.agent.secrets {
		if bytes.Contains(b, sec) {
			b = bytes.ReplaceAll(b, sec, []byte("[redacted]"))
		}
	}
	return b
}
