package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// systemPrompt is the agent's standing instructions (ChatDBG's "take the
// wheel" prompt, for a recording instead of a live process).
const systemPrompt = `You are adi, a debugging agent for Go. A failing run of a Go program or test was recorded: every call of the module's functions is a frame with an id FUNC#N (the N-th call of FUNC, e.g. main.fib#3), with its arguments, results or panic. You inspect the recording with the tools; they answer in adi's compact text:
- a trace line "23  r.order = append(r.order, name)  r: A → B" is line 23, the statement, and the variables it changed (old → new, or "(new)"); "⇢ pkg.F#2(args) → results" is a call it made.
- execute re-runs the program to a line of a frame and evaluates an expression there; "x = v" is a what-if.

Instructions:
- Assume the test's expectation (or the program's intended behaviour) is right: the bug is in the code under test.
- Find the root cause, not the proximate one: follow the bad value back (step_out, the frames that produced it, their arguments and results) to the statement where it first went wrong; that statement is what the fix changes.
- Base every claim on the tools' answers: cite frame ids, lines and values exactly as the tools printed them. Do not guess values.
- Be economical: a few targeted calls, not a survey. The offline diagnoser's hints may be right or wrong; check them.
- End by calling finish with the root cause, the evidence, and exactly one fix: a minimal unified diff (--- a/FILE, +++ b/FILE, @@ -l,n +l,n @@ hunks with exact context lines, paths relative to the module root). adi verifies it by re-running the tests.`

// followUpNote is appended to a follow-up question.
const followUpNote = "\n\n(Answer briefly, using the tools if you need to. If this changes the diagnosis or the fix, call finish again with the new one; otherwise just answer.)"

// lastRoundNote is sent before the model's last round.
const lastRoundNote = "adi: this is your last turn of the budget. Call finish now with your best diagnosis and fix."

// nudgeNote asks a model that answered without calling finish to call it.
const nudgeNote = "adi: call finish with your diagnosis (root cause, evidence, one fix as a unified diff), or call a tool if you need more evidence."

// Caps of the parts of the first message, in bytes.
const (
	capOutcome  = 2500
	capFLT      = 3000
	capPathLine = 260
	maxPath     = 12
)

// firstMessage builds the failure context of the first message (ChatDBG's
// enriched initial prompt): the command, how the run failed, the failing
// frame's trace, the call path to it, and the offline diagnoser's
// findings as hints.
func (c *Conversation) firstMessage(ctx context.Context) string {
	var b strings.Builder
	rec := c.dbg.Recording()
	if argv := c.opts.Target.Argv; len(argv) > 0 {
		fmt.Fprintf(&b, "Command: %s\n", gocmd.JoinArgs(argv))
	}
	if c.modulePath != "" {
		fmt.Fprintf(&b, "Module: %s (paths below are relative to its root)\n", c.modulePath)
	}
	if rec.Partial != "" {
		fmt.Fprintf(&b, "Note: the recording is partial: %s\n", rec.Partial)
	}

	b.WriteString("\n## How the run failed\n")
	if a, err := c.dbg.Exec(ctx, "outcome"); err == nil {
		b.WriteString(capResult(strings.TrimSpace(a.Text), capOutcome))
	} else {
		b.WriteString("(outcome unavailable: " + err.Error() + ")")
	}
	b.WriteString("\n")

	var failing *trace.Frame
	if rec.Len() > 0 {
		failing = rec.At(engine.StartIndex(rec))
	}
	if failing != nil {
		fmt.Fprintf(&b, "\n## The failing frame %s\n", failing.FID)
		if a, err := c.dbg.Exec(ctx, "frame "+failing.FID.String()); err == nil {
			b.WriteString(capResult(strings.TrimSpace(a.Text), capFLT))
		} else {
			b.WriteString(trace.FrameLine(rec, failing) + "\n(no trace: " + err.Error() + ")")
		}
		b.WriteString("\n")
		var path []string
		for f := failing; f != nil && len(path) < maxPath; {
			p, ok := rec.Lookup(f.Caller)
			if !ok {
				break
			}
			path = append(path, chat.Clip(trace.FrameLine(rec, p), capPathLine))
			f = p
		}
		if len(path) > 0 {
			b.WriteString("\n## Its callers, innermost first\n")
			b.WriteString(strings.Join(path, "\n"))
			b.WriteString("\n")
		}
	}

	if h := c.hints; h != nil {
		b.WriteString("\n## Hints from adi's offline diagnoser (rules and spectrum-based ranking; verify them)\n")
		b.WriteString(hintText(h))
	}
	b.WriteString("\nFind the root cause with the tools and call finish.")
	return b.String()
}

// hintText renders the offline diagnosis compactly for the model.
func hintText(h *report.Diagnosis) string {
	var b strings.Builder
	if rc := h.RootCause; rc.File != "" {
		fmt.Fprintf(&b, "Suspect: %s:%d in %s", rc.File, rc.Line, syntax.ShortFunc(rc.Func))
		if rc.FID != "" {
			fmt.Fprintf(&b, " (%s)", syntax.ShortFunc(rc.FID))
		}
		fmt.Fprintf(&b, ", confidence %s, by %s: %s\n", h.Confidence, h.Method, h.Summary)
	} else {
		fmt.Fprintf(&b, "No suspect: %s\n", h.Summary)
	}
	for i, e := range h.Evidence {
		if i == 6 {
			fmt.Fprintf(&b, "- … %d more\n", len(h.Evidence)-i)
			break
		}
		where := strings.TrimSpace(fmt.Sprintf("%s %s", lineRef(e.File, e.Line), syntax.ShortFunc(e.FID)))
		v := ""
		if e.Value != "" {
			v = " — " + e.Value
		}
		fmt.Fprintf(&b, "- %s: %s%s\n", where, e.Claim, v)
	}
	if h.Fix != "" && h.Verification != nil {
		if len(h.Fix) <= 1500 {
			fmt.Fprintf(&b, "Its fix (verification: %s):\n%s\n", h.Verification.Status, strings.TrimRight(h.Fix, "\n"))
		} else {
			fmt.Fprintf(&b, "It proposed a fix (verification: %s).\n", h.Verification.Status)
		}
	}
	if len(h.Candidates) > 0 {
		b.WriteString("Other suspects:\n")
		for _, cd := range h.Candidates {
			fmt.Fprintf(&b, "- %s:%d %s (%.2f) %s\n", cd.File, cd.Line, syntax.ShortFunc(cd.Func), cd.Score, chat.Clip(cd.Reason, 160))
		}
	}
	return b.String()
}

// lineRef is "file:line", or "" without a file.
func lineRef(file string, line int) string {
	if file == "" {
		return ""
	}
	if line == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}
