package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/adi-go/adi/agent"
	"github.com/adi-go/adi/engine"
)

// diagnoseResult is the --json answer: the diagnosis, the answers to
// follow-up questions, and what --apply did.
type diagnoseResult struct {
	*agent.Diagnosis
	Answers    []followUp `json:"answers,omitempty"`
	LLMError   string     `json:"llm_error,omitempty"`
	Applied    []string   `json:"applied,omitempty"`
	ApplyError string     `json:"apply_error,omitempty"`
}

// followUp is a follow-up question and the model's answer.
type followUp struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, "; ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// diagnoseMain is "adi diagnose": record the target, diagnose the failure
// (offline, or with the LLM agent when a model is configured), print the
// diagnosis. Exit code 0 when a diagnosis was made, 1 when the target
// passed (or could not be recorded, or the model failed), 2 on usage
// errors.
func diagnoseMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi diagnose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the diagnosis as one line of JSON (the model's text goes to stderr)")
	apply := fs.Bool("apply", false, "write the fix to your files, if its verification passed")
	noVerify := fs.Bool("no-verify", false, "propose a fix without re-running the tests with it")
	offline := fs.Bool("offline", false, "use the offline diagnoser even when a model is configured")
	model := fs.String("model", "", "the model of the LLM agent (default $ADI_LLM_MODEL; none: offline)")
	baseURL := fs.String("base-url", "", "the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default $ADI_LLM_BASE_URL, else OpenAI)")
	maxRounds := fs.Int("max-rounds", agent.DefaultMaxRounds, "the model's turns per question")
	maxTokens := fs.Int("max-tokens", agent.DefaultMaxTokens, "prompt plus completion tokens per question")
	llmTimeout := fs.Duration("llm-timeout", agent.DefaultLLMTimeout, "wall time per question (the fix's verification not included)")
	allowCalls := fs.Bool("allow-calls", false, "let the model's execute call functions of the program")
	var asks stringList
	fs.Var(&asks, "ask", "a follow-up question to ask after the diagnosis (repeatable; needs a model)")
	interactive := fs.Bool("interactive", false, "after the diagnosis, read follow-up questions from standard input, one a line")
	opts := engineFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: adi diagnose [flags] -- TARGET

Records TARGET and finds the root cause of its failure: with the LLM agent
when a model is configured (--model or ADI_LLM_MODEL, with ADI_LLM_API_KEY
or OPENAI_API_KEY, or --base-url / ADI_LLM_BASE_URL for a local server such
as Ollama), else offline (panic origin tracing, spectrum-based fault
localisation over the package's tests, rules over the recorded frames).
A proposed fix is verified by re-running the tests on an overlay copy;
your files change only with --apply.

flags:
`)
		fs.PrintDefaults()
	}
	targetArgs, code, ok := parseWithTarget(fs, args, stderr)
	if !ok {
		return code
	}
	var cfg agent.LLMConfig
	useLLM := false
	if !*offline {
		c, err := agent.ConfigFromEnv(*model, *baseURL)
		switch {
		case errors.Is(err, agent.ErrNoLLM):
			if len(asks) > 0 || *interactive {
				fmt.Fprintln(stderr, "adi: --ask and --interactive need a model:", err)
				return 2
			}
			fmt.Fprintln(stderr, "adi: no LLM configured (set ADI_LLM_MODEL or --model, with ADI_LLM_API_KEY, or ADI_LLM_BASE_URL for a local server): using the offline diagnoser")
		case err != nil:
			fmt.Fprintln(stderr, "adi:", err)
			return 2
		default:
			cfg, useLLM = c, true
			cfg.MaxRounds, cfg.MaxTokens, cfg.Timeout, cfg.AllowCalls = *maxRounds, *maxTokens, *llmTimeout, *allowCalls
		}
	} else if len(asks) > 0 || *interactive {
		fmt.Fprintln(stderr, "adi: --ask and --interactive need a model, not --offline")
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	fail := func(err error) int {
		if *asJSON {
			writeJSONLine(stdout, map[string]string{"error": err.Error()})
		}
		fmt.Fprintln(stderr, "adi:", err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	opts.Log = logf
	sess, err := engine.Open(ctx, targetArgs, dir, *opts)
	if err != nil {
		return fail(err)
	}
	defer sess.Close()
	target := agent.Target{Argv: targetArgs, Dir: dir, Env: opts.Env}
	aopts := agent.Options{Target: target, NoVerify: *noVerify, CommandTimeout: opts.ExecTimeout, Log: logf}
	res := diagnoseResult{}
	var diag *agent.Diagnosis
	if useLLM {
		var stop bool
		var code int
		diag, stop, code = converse(ctx, sess, cfg, aopts, asks, *interactive, *asJSON, stdin, stdout, stderr, &res)
		if stop {
			return code
		}
	} else {
		diag, err = agent.Diagnose(ctx, sess, aopts)
	}
	if errors.Is(err, agent.ErrPassed) {
		if *asJSON {
			writeJSONLine(stdout, map[string]any{"passed": true, "message": err.Error()})
		} else {
			fmt.Fprintln(stdout, err.Error())
		}
		return 1
	}
	if err != nil {
		return fail(err)
	}
	res.Diagnosis = diag
	if *apply {
		files, err := agent.Apply(ctx, target, diag)
		if err != nil {
			res.ApplyError = err.Error()
			fmt.Fprintln(stderr, "adi: not applied:", err)
		}
		res.Applied = files
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return fail(err)
		}
		return 0
	}
	if !useLLM {
		fmt.Fprint(stdout, diag.Text())
	}
	for _, f := range res.Applied {
		fmt.Fprintf(stdout, "applied the fix to %s\n", f)
	}
	return 0
}

// converse runs the LLM agent: the diagnosis streamed to the terminal,
// then the --ask questions and, with --interactive, those read from stdin.
// It returns the final diagnosis, or stop with the exit code when there is
// nothing more to do.
func converse(ctx context.Context, sess *engine.Session, cfg agent.LLMConfig, opts agent.Options, asks []string, interactive, asJSON bool,
	stdin io.Reader, stdout, stderr io.Writer, res *diagnoseResult) (diag *agent.Diagnosis, stop bool, code int) {
	out := stdout
	if asJSON {
		out = stderr
	}
	tw := &transcript{w: out, atStart: true}
	opts.Log("adi: diagnosing with %s", cfg)
	conv, err := agent.Converse(ctx, sess, cfg, opts, tw.emit)
	if errors.Is(err, agent.ErrPassed) {
		if asJSON {
			writeJSONLine(stdout, map[string]any{"passed": true, "message": err.Error()})
		} else {
			fmt.Fprintln(stdout, err.Error())
		}
		return nil, true, 1
	}
	if err != nil {
		tw.newline()
		fmt.Fprintln(stderr, "adi:", err)
		if ctx.Err() != nil {
			return nil, true, 130
		}
		if conv == nil || conv.Hints() == nil {
			if asJSON {
				writeJSONLine(stdout, map[string]string{"error": err.Error()})
			}
			return nil, true, 1
		}
		// The model failed: the offline diagnosis is still worth showing.
		h := *conv.Hints()
		h.Partial = strings.TrimPrefix(h.Partial+"; the LLM agent failed: "+err.Error(), "; ")
		if asJSON {
			res.Diagnosis, res.LLMError = &h, err.Error()
			writeJSONLine(stdout, res)
		} else {
			fmt.Fprintln(stderr, "adi: the offline diagnosis follows")
			fmt.Fprint(stdout, h.Text())
		}
		return nil, true, 1
	}
	diag = conv.Diagnosis()
	tw.diagnosis(diag, asJSON)
	ask := func(q string) bool {
		if !asJSON {
			tw.newline()
			fmt.Fprintf(out, "\n? %s\n", q)
			tw.atStart = true
		}
		before := conv.Diagnosis()
		d, err := conv.Ask(ctx, q, tw.emit)
		if err != nil {
			tw.newline()
			fmt.Fprintln(stderr, "adi:", err)
			return false
		}
		res.Answers = append(res.Answers, followUp{Question: q, Answer: conv.Answer()})
		if d != before {
			tw.diagnosis(d, asJSON)
		}
		tw.newline()
		return true
	}
	for _, q := range asks {
		if !ask(q) {
			return conv.Diagnosis(), false, 0
		}
	}
	if interactive {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for {
			fmt.Fprint(stderr, "\nask (an empty line ends)> ")
			if !sc.Scan() {
				break
			}
			q := strings.TrimSpace(sc.Text())
			if q == "" || q == "quit" || q == "exit" {
				break
			}
			if !ask(q) {
				break
			}
		}
		fmt.Fprintln(stderr)
	}
	return conv.Diagnosis(), false, 0
}

// transcript prints the agent's events for a person: its text as it
// streams, each tool call and a summary of its result on lines of their
// own.
type transcript struct {
	w       io.Writer
	atStart bool
}

// write prints s and remembers whether the line is done.
func (t *transcript) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(t.w, s)
	t.atStart = strings.HasSuffix(s, "\n")
}

// newline ends the current line, if one is open.
func (t *transcript) newline() {
	if !t.atStart {
		t.write("\n")
	}
}

// emit is the agent.Emit of the terminal.
func (t *transcript) emit(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		t.write(e.Text)
	case agent.EventToolCall:
		t.newline()
		t.write("→ " + e.Text + "\n")
	case agent.EventToolResult:
		t.write("  ← " + e.Text + "\n")
	}
}

// diagnosis prints a diagnosis after the transcript (not in JSON mode,
// where it is printed at the end).
func (t *transcript) diagnosis(d *agent.Diagnosis, asJSON bool) {
	if asJSON || d == nil {
		return
	}
	t.newline()
	t.write("\n" + d.Text())
}
