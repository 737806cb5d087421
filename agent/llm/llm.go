// Package llm is the LLM agent (DESIGN.md §6, ChatDBG's "take the wheel"): a model
// behind any OpenAI-compatible endpoint drives adi's commands through tool
// calls and ends with a structured Diagnosis, which adi checks against the
// recording and verifies by re-running, like the offline one.
//
// Entry points:
//
//	cfg, err := llm.ConfigFromEnv(modelFlag, baseURLFlag) // llm.ErrNoModel: use offline.Diagnose
//	conv, err := llm.Converse(ctx, sess, cfg, opts, emit) // the first diagnosis
//	d := conv.Diagnosis()
//	d, err = conv.Ask(ctx, "why is r.ports nil?", emit)     // a follow-up, same history
//
// Converse is NewConversation (which runs the offline diagnoser for the
// hints, unless cfg.Hints is set, and builds the first message) followed
// by Ask(ctx, "", emit). Ask streams Events through emit as they happen:
// text deltas, each tool call and its (capped, redacted) result, then the
// diagnosis and the usage of that answer; a failure ends with an error
// event instead. One Ask runs at a time; a Conversation is otherwise safe
// to share.
//
// The first Ask always ends with a diagnosis: the model's, when it calls
// finish (its evidence checked, Unsupported listing the claims the
// recording does not support, its fix verified), else — when a budget
// (cfg.MaxRounds, cfg.MaxTokens, cfg.Timeout) runs out or the model never
// calls finish — the offline diagnosis marked Partial. A follow-up may be
// answered in prose only (Answer returns it, and Ask returns the current
// diagnosis) or with a new finish. Errors: offline.ErrPassed for a run that did not
// fail, *chat.Error for an endpoint that refuses the key, the request, or
// stays unavailable after the retries, and the context's error when ctx
// is cancelled. The API key never appears in an event, error or diagnosis.
//
// The model is reached through package chat (the OpenAI wire format,
// retries, redaction), configured from flags and the environment
// (llmconfig.go); every text sent to the model or put in an event is
// redacted first. The tools are the command language plus source look-up
// (tools.go), and the model's claims are checked against the recording
// (evidence.go).
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/offline"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/agent/verify"
	"github.com/adi-go/adi/engine"
)

// Conversation is a dialogue between the model and adi about one
// recording: the message history, the budgets, the diagnosis so far.
type Conversation struct {
	dbg    Debugger
	cfg    Config
	opts   offline.Options
	client *chat.Client
	red    *chat.Redactor
	src    *syntax.Cache
	tools  []openai.Tool
	// pkg is the target's package (nil: no verification); root the module
	// directory that source and diffs are relative to.
	pkg              *gocmd.Package
	root, modulePath string
	hints            *report.Diagnosis

	// askMu serialises Ask (it owns messages and seen); mu guards last,
	// answer and total, which the accessors read during an Ask.
	askMu    sync.Mutex
	mu       sync.Mutex
	messages []openai.ChatCompletionMessage
	// seen holds what the model was shown: the first message and every
	// tool result (for the evidence check).
	seen   []string
	first  string
	last   *report.Diagnosis
	answer string
	total  report.Usage
}

// Converse starts a conversation about the failing run recorded in dbg and
// asks the model for its diagnosis (Ask with no question). The conversation
// is returned whenever it could be set up, even with an Ask error, so that
// a caller can fall back to its Hints; its Diagnosis is the answer.
func Converse(ctx context.Context, dbg Debugger, cfg Config, opts offline.Options, emit report.Emit) (*Conversation, error) {
	c, err := NewConversation(ctx, dbg, cfg, opts)
	if err != nil {
		if emit != nil {
			red, _ := chat.NewRedactor(nil, true, cfg.APIKey)
			emit(report.Event{Kind: report.EventError, Text: red.Scrub(err.Error())})
		}
		return nil, err
	}
	_, err = c.Ask(ctx, "", emit)
	return c, err
}

// NewConversation prepares a conversation without calling the model: it
// resolves the target's package, runs the offline diagnoser for the hints
// (unless cfg.Hints is set) and builds the first message.
func NewConversation(ctx context.Context, dbg Debugger, cfg Config, opts offline.Options) (*Conversation, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, ErrNoModel
	}
	cfg = cfg.withDefaults()
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	rec := dbg.Recording()
	if offline.Passed(rec) {
		return nil, offline.ErrPassed
	}
	red, err := chat.NewRedactor(cfg.RedactPatterns, cfg.NoDefaultRedaction, cfg.APIKey)
	if err != nil {
		return nil, err
	}
	c := &Conversation{dbg: dbg, cfg: cfg, opts: opts, red: red, src: syntax.NewCache(), tools: toolSchemas()}
	c.client = chat.NewClient(chat.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient,
		MaxRetries: cfg.MaxRetries, RetryDelay: cfg.RetryDelay}, red)
	if len(opts.Target.Argv) > 0 {
		c.src.Overlay(opts.Target.Overlay())
		t := opts.Target
		if p := dbg.Program(); p != nil {
			t.Env = append(append([]string(nil), p.Env...), t.Env...)
		}
		if pkg, err := gocmd.Resolve(ctx, t); err == nil {
			c.pkg, c.root, c.modulePath = pkg, pkg.Root(), pkg.ModulePath
		} else {
			opts.Log("adi: no verification of the model's fix: %v", err)
		}
	}
	if c.root == "" {
		c.root = findModuleRoot(dbg)
	}
	c.hints = cfg.Hints
	if c.hints == nil {
		opts.Log("adi: running the offline diagnoser for the model's hints")
		h, err := offline.Diagnose(ctx, dbg, opts)
		switch {
		case errors.Is(err, offline.ErrPassed):
			return nil, err
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			opts.Log("adi: no offline hints: %v", err)
		default:
			c.hints = h
		}
	}
	c.first = red.Redact(c.firstMessage(ctx))
	c.seen = []string{c.first}
	c.messages = []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: systemPrompt},
		{Role: openai.ChatMessageRoleUser, Content: c.first},
	}
	return c, nil
}

// findModuleRoot is the directory of the go.mod above the recorded
// functions' files (or the program's directory), "" when none.
func findModuleRoot(dbg Debugger) string {
	var start string
	rec := dbg.Recording()
	if rec.Len() > 0 {
		start = filepath.Dir(rec.At(engine.StartIndex(rec)).Decl.File)
	}
	if start == "" || start == "." {
		if p := dbg.Program(); p != nil {
			start = p.Dir
		}
	}
	for d := start; d != "" && d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// Diagnosis returns the current diagnosis (nil before the first answer).
func (c *Conversation) Diagnosis() *report.Diagnosis {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Answer returns the model's prose of the last answer (for a follow-up
// answered without finish, the answer itself).
func (c *Conversation) Answer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answer
}

// setAnswer records the prose of the last answer.
func (c *Conversation) setAnswer(s string) {
	c.mu.Lock()
	c.answer = s
	c.mu.Unlock()
}

// Usage returns what the whole conversation has cost so far.
func (c *Conversation) Usage() report.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Hints returns the offline diagnosis the first message was seeded with
// (nil when the offline diagnoser failed).
func (c *Conversation) Hints() *report.Diagnosis { return c.hints }

// FirstMessage returns the failure context sent as the first user
// message, as sent (redacted).
func (c *Conversation) FirstMessage() string { return c.first }

// FirstMessageTokens estimates the size of the first request's prompt in
// tokens (4 bytes a token): the instructions, the failure context and the
// tool definitions.
func (c *Conversation) FirstMessageTokens() int {
	return chat.EstimateTokens(len(systemPrompt) + len(c.first) + toolSchemaBytes)
}

// ask is the state of one Ask.
type ask struct {
	ctx, lctx context.Context // lctx carries the time budget
	emit      report.Emit
	use       report.Usage
	final     *report.Diagnosis
	done      bool
	fixTries  int
}

// Ask asks the model a question in the conversation (question "" on the
// first call: diagnose the failure) and returns the resulting diagnosis.
// Follow-ups see the whole history. See the top of this file for what is
// emitted and returned.
func (c *Conversation) Ask(ctx context.Context, question string, emit report.Emit) (*report.Diagnosis, error) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	a := &ask{ctx: ctx, emit: c.safeEmit(emit)}
	initial := c.Diagnosis() == nil
	mark := len(c.messages)
	if q := strings.TrimSpace(question); q != "" {
		if initial {
			q = "The developer asks: " + q
		} else {
			q += followUpNote
		}
		c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: c.red.Redact(q)})
	}
	lctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	a.lctx = lctx
	c.setAnswer("")

	stop, warned := "", false
	for !a.done {
		if a.use.Rounds >= c.cfg.MaxRounds {
			stop = fmt.Sprintf("the budget of %d rounds was used up", c.cfg.MaxRounds)
			break
		}
		if n := a.use.PromptTokens + a.use.CompletionTokens; n >= c.cfg.MaxTokens {
			stop = fmt.Sprintf("the budget of %d tokens was used up (%d used)", c.cfg.MaxTokens, n)
			break
		}
		if lctx.Err() != nil && ctx.Err() == nil {
			stop = fmt.Sprintf("the time budget of %s was used up", c.cfg.Timeout)
			break
		}
		if a.final == nil && initial && !warned && c.cfg.MaxRounds > 1 && a.use.Rounds == c.cfg.MaxRounds-1 {
			warned = true
			c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: lastRoundNote})
		}
		req := openai.ChatCompletionRequest{Model: c.cfg.Model, Messages: c.messages, Tools: c.tools}
		rep, err := c.client.Complete(lctx, req,
			func(s string) { a.emit(report.Event{Kind: report.EventText, Text: s}) },
			func(s string) { a.emit(report.Event{Kind: report.EventText, Text: "\n[adi: " + s + "]\n"}) })
		if err != nil {
			if ctx.Err() == nil && lctx.Err() != nil {
				stop = fmt.Sprintf("the time budget of %s was used up", c.cfg.Timeout)
				break
			}
			c.messages = c.messages[:mark]
			return nil, c.fail(a, err)
		}
		a.use.Rounds++
		a.use.PromptTokens += rep.Prompt
		a.use.CompletionTokens += rep.Completion
		c.mu.Lock()
		c.total.Rounds++
		c.total.PromptTokens += rep.Prompt
		c.total.CompletionTokens += rep.Completion
		c.mu.Unlock()
		if rep.Text == "" && len(rep.Calls) == 0 {
			if initial && a.final == nil {
				c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: nudgeNote})
				continue
			}
			break // an empty answer to a follow-up
		}
		c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant,
			Content: c.red.Scrub(rep.Text), ToolCalls: rep.Calls})
		if len(rep.Calls) == 0 {
			if initial && a.final == nil {
				c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: nudgeNote})
				continue
			}
			c.setAnswer(c.red.Scrub(rep.Text))
			break
		}
		for _, call := range rep.Calls {
			result := c.runTool(a, call)
			if strings.TrimSpace(result) == "" {
				result = "(no output)"
			}
			c.messages = append(c.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
				Content: result, ToolCallID: call.ID})
		}
		if ctx.Err() != nil {
			c.messages = c.messages[:mark]
			return nil, c.fail(a, ctx.Err())
		}
	}
	if ctx.Err() != nil {
		c.messages = c.messages[:mark]
		return nil, c.fail(a, ctx.Err())
	}

	var d *report.Diagnosis
	switch {
	case a.final != nil:
		d = a.final
		if stop != "" && d.Verification != nil && d.Verification.Status != report.Passed && d.Verification.Status != report.NotRun {
			d.Partial = joinNotes(d.Partial, stop+" before the model corrected its fix")
		}
	case initial:
		reason := stop
		if reason == "" {
			reason = "the model did not call finish"
		}
		d = c.partial(reason)
	default:
		d = c.Diagnosis()
		if stop != "" {
			a.emit(report.Event{Kind: report.EventText, Text: "\n[adi: the answer stopped: " + stop + "]\n"})
			c.setAnswer(joinNotes(c.Answer(), "(stopped: "+stop+")"))
		}
	}
	if a.final != nil || initial {
		d.Rounds, d.PromptTokens, d.CompletionTokens = a.use.Rounds, a.use.PromptTokens, a.use.CompletionTokens
		c.mu.Lock()
		c.last = d
		c.mu.Unlock()
		a.emit(report.Event{Kind: report.EventDiagnosis, Diagnosis: d})
	}
	u := a.use
	a.emit(report.Event{Kind: report.EventUsage, Usage: &u})
	return d, nil
}

// fail ends an Ask with an error: the usage so far, then the error event.
// The error is scrubbed of the key.
func (c *Conversation) fail(a *ask, err error) error {
	u := a.use
	a.emit(report.Event{Kind: report.EventUsage, Usage: &u})
	msg := err.Error()
	if errors.Is(err, context.Canceled) {
		msg = "cancelled"
	}
	a.emit(report.Event{Kind: report.EventError, Text: c.red.Scrub(msg)})
	var le *chat.Error
	if errors.As(err, &le) {
		le.Message = c.red.Scrub(le.Message)
	}
	return err
}

// partial is the answer when the model gave none: the offline diagnosis,
// marked partial with the reason.
func (c *Conversation) partial(reason string) *report.Diagnosis {
	note := reason + "; this is the offline diagnosis"
	if c.hints == nil {
		return &report.Diagnosis{Summary: "the model stopped before giving a diagnosis, and the offline diagnoser found none",
			Confidence: report.Low, Method: "none", Source: "llm", Evidence: []report.Evidence{}, Candidates: []report.Candidate{}, Partial: reason}
	}
	d := *c.hints
	d.Partial = joinNotes(note, c.hints.Partial)
	return &d
}

// joinNotes joins non-empty notes with "; ".
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// safeEmit wraps emit: nil discards, and no text leaves with the key in it.
func (c *Conversation) safeEmit(emit report.Emit) report.Emit {
	return func(e report.Event) {
		if emit == nil {
			return
		}
		e.Text = c.red.Scrub(e.Text)
		e.Result = c.red.Scrub(e.Result)
		if len(e.Args) > 0 {
			e.Args = json.RawMessage(c.red.Scrub(string(e.Args)))
		}
		emit(e)
	}
}

// runTool runs one tool call and returns the result to send back.
func (c *Conversation) runTool(a *ask, call openai.ToolCall) string {
	name := strings.TrimSpace(call.Function.Name)
	args := call.Function.Arguments
	raw := json.RawMessage(args)
	if strings.TrimSpace(args) == "" {
		raw = json.RawMessage("{}")
	} else if !json.Valid(raw) {
		q, _ := json.Marshal(args)
		raw = q
	}
	// The call is shown before it runs: as the command line when it makes
	// one, else by its name.
	shown := false
	show := func(label string) {
		if !shown {
			shown = true
			a.emit(report.Event{Kind: report.EventToolCall, Tool: name, ID: call.ID, Args: raw, Text: label})
		}
	}
	var result string
	var err error
	switch {
	case name == "finish":
		show(name)
		result, err = c.finish(a, args)
	case !isTool(name):
		err = &toolError{fmt.Sprintf("there is no tool %q; the tools are %s", name, strings.Join(toolNames, ", "))}
	default:
		var ta toolArgs
		if err = decodeArgs(name, args, &ta); err != nil {
			break
		}
		if name == "source" {
			show(sourceLabel(&ta))
			result, err = c.sourceTool(&ta)
			break
		}
		var line string
		if line, err = c.commandLine(name, &ta); err != nil {
			break
		}
		show(line)
		var ans *engine.Answer
		if ans, err = c.dbg.Exec(a.lctx, line); err == nil {
			result = ans.Text
		}
	}
	show(name)
	if err != nil {
		var te *toolError
		switch {
		case errors.As(err, &te):
			result = "error: " + te.msg
		case a.lctx.Err() != nil:
			result = "error: stopped: " + a.lctx.Err().Error()
		default:
			result = "error: " + err.Error()
		}
	}
	result = capResult(c.red.Redact(result), c.cfg.MaxToolResult)
	c.seen = append(c.seen, result)
	a.emit(report.Event{Kind: report.EventToolResult, Tool: name, ID: call.ID, Result: result, Text: summarize(result)})
	return result
}

// sourceLabel shows a source call: "source FUNC" or "source FILE:START-END".
func sourceLabel(ta *toolArgs) string {
	if ta.File == "" {
		return strings.TrimSpace("source " + ta.Func)
	}
	l := "source " + ta.File
	if ta.Start != nil {
		l += fmt.Sprintf(":%d", *ta.Start)
		if ta.End != nil {
			l += fmt.Sprintf("-%d", *ta.End)
		}
	}
	return l
}

// isTool reports whether name is one of the offered tools.
func isTool(name string) bool {
	for _, n := range toolNames {
		if n == name {
			return true
		}
	}
	return false
}

// finish reads the model's diagnosis, checks its evidence, verifies its
// fix and records it; the result tells the model how it went.
func (c *Conversation) finish(a *ask, args string) (string, error) {
	var fa finishArgs
	if err := decodeArgs("finish", args, &fa); err != nil {
		return "", err
	}
	var missing []string
	if strings.TrimSpace(fa.RootCause.File) == "" {
		missing = append(missing, "root_cause.file")
	}
	if fa.RootCause.Line <= 0 {
		missing = append(missing, "root_cause.line (a positive integer)")
	}
	if strings.TrimSpace(fa.Summary) == "" {
		missing = append(missing, "summary")
	}
	if len(missing) > 0 {
		return "", badArgs("finish", "missing %s; call finish again with them", strings.Join(missing, ", "))
	}
	conf := report.Confidence(strings.ToLower(strings.TrimSpace(fa.Confidence)))
	if conf != report.High && conf != report.Medium && conf != report.Low {
		conf = report.Medium
	}
	s := c.red.Scrub
	d := &report.Diagnosis{
		RootCause:   report.Location{File: s(fa.RootCause.File), Line: int(fa.RootCause.Line), Func: s(fa.RootCause.Func), FID: s(fa.RootCause.FID)},
		Summary:     s(fa.Summary),
		Explanation: s(fa.Explanation),
		Evidence:    []report.Evidence{},
		Fix:         normalizeDiff(s(fa.Fix)),
		Confidence:  conf,
		Method:      "llm",
		Source:      "llm",
		Candidates:  []report.Candidate{},
	}
	for _, e := range fa.Evidence {
		d.Evidence = append(d.Evidence, report.Evidence{FID: s(e.FID), File: s(e.File), Line: int(e.Line), Claim: s(e.Claim), Value: s(e.Value)})
	}
	if c.hints != nil {
		d.Candidates = c.hints.Candidates
	}
	d.Unsupported = c.checkEvidence(a.lctx, d)

	var b strings.Builder
	head := "adi recorded the diagnosis"
	if len(d.Unsupported) > 0 {
		head += fmt.Sprintf("; %d claims are not supported by the recording", len(d.Unsupported))
		b.WriteString("\nThese claims are not supported by the recording:\n- " + strings.Join(d.Unsupported, "\n- "))
		if d.Confidence == report.High {
			d.Confidence = report.Medium
		}
	}
	a.fixTries++
	switch {
	case d.Fix == "":
		head += "; no fix was given"
		a.done = true
	case c.opts.NoVerify:
		d.Verification = &report.Verification{Status: report.NotRun, Output: "verification was not asked for"}
		head += "; the fix was not verified (not asked for)"
		a.done = true
	case c.pkg == nil:
		d.Verification = &report.Verification{Status: report.NotRun, Output: "verification needs the go test or go run command of the target"}
		head += "; the fix could not be verified (no go test or go run command)"
		a.done = true
	default:
		c.opts.Log("adi: verifying the model's fix")
		d.Verification = verify.FixIn(a.ctx, c.pkg, d.Fix, verify.Options{Timeout: c.opts.CommandTimeout, Stdin: c.stdin(), Log: c.opts.Log})
		v := d.Verification
		head += fmt.Sprintf("; verification of the fix: %s", v.Status)
		switch {
		case v.Status == report.Passed:
			if len(d.Unsupported) == 0 {
				d.Confidence = report.High
			}
			a.done = true
		case v.Status == report.NotRun || a.fixTries >= c.cfg.MaxFixAttempts:
			if d.Confidence == report.High {
				d.Confidence = report.Medium
			}
			a.done = true
		default:
			if d.Confidence == report.High {
				d.Confidence = report.Medium
			}
			fmt.Fprintf(&b, "\n%s\nCorrect the fix (or the diagnosis) and call finish again (attempt %d of %d).",
				gocmd.Tail(v.Output, 25, 3000), a.fixTries+1, c.cfg.MaxFixAttempts)
		}
	}
	a.final = d
	return head + "." + b.String(), nil
}

// stdin is the file the recorded program read as standard input.
func (c *Conversation) stdin() string {
	if p := c.dbg.Program(); p != nil {
		return p.Stdin
	}
	return ""
}

// relPath returns a path relative to the module root when it is inside it
// (a/ and b/ diff prefixes dropped for a file that exists without them).
func (c *Conversation) relPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || c.root == "" {
		return p
	}
	if filepath.IsAbs(p) {
		if r, err := filepath.Rel(c.root, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		if _, err := os.Stat(filepath.Join(c.root, p)); err != nil {
			if _, err := os.Stat(filepath.Join(c.root, p[2:])); err == nil {
				return p[2:]
			}
		}
	}
	return p
}

// normalizeDiff tidies a model's diff: code fences dropped, CRLFs made
// LFs, and each hunk header's line counts recomputed from its lines (models
// miscount them; the lines themselves must still match the file).
func normalizeDiff(diff string) string {
	diff = strings.ReplaceAll(diff, "\r\n", "\n")
	if strings.TrimSpace(diff) == "" {
		return ""
	}
	lines := strings.Split(diff, "\n")
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			continue
		}
		out = append(out, l)
	}
	lines = out
	isFileHeader := func(i int) bool {
		return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
	}
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "@@ ") {
			continue
		}
		end := strings.Index(lines[i][3:], " @@")
		if end < 0 {
			continue
		}
		ranges := strings.Fields(lines[i][3 : 3+end])
		if len(ranges) != 2 || !strings.HasPrefix(ranges[0], "-") || !strings.HasPrefix(ranges[1], "+") {
			continue
		}
		oldStart, _, _ := strings.Cut(ranges[0][1:], ",")
		newStart, _, _ := strings.Cut(ranges[1][1:], ",")
		oldN, newN := 0, 0
		j := i + 1
		for ; j < len(lines); j++ {
			l := lines[j]
			if strings.HasPrefix(l, "@@ ") || isFileHeader(j) || strings.HasPrefix(l, "diff ") {
				break
			}
			switch {
			case l == "":
				// An empty line is context whose space was stripped, unless
				// it ends the hunk.
				rest := true
				for k := j + 1; k < len(lines); k++ {
					if lines[k] != "" {
						rest = strings.HasPrefix(lines[k], "@@ ") || isFileHeader(k) || strings.HasPrefix(lines[k], "diff ")
						break
					}
				}
				if rest {
					goto done
				}
				oldN++
				newN++
			case l[0] == ' ':
				oldN++
				newN++
			case l[0] == '-':
				oldN++
			case l[0] == '+':
				newN++
			}
		}
	done:
		lines[i] = fmt.Sprintf("@@ -%s,%d +%s,%d @@%s", oldStart, oldN, newStart, newN, lines[i][3+end+3:])
	}
	text := strings.Join(lines, "\n")
	return strings.TrimRight(text, "\n") + "\n"
}
