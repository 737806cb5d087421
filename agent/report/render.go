package report

import (
	"fmt"
	"strings"

	"github.com/adi-go/adi/agent/syntax"
)

// Text renders the diagnosis for a person: the root cause with file:line
// first, then why, the evidence, the fix and its verification, and the
// other suspects.
func (d *Diagnosis) Text() string {
	var b strings.Builder
	rc := d.RootCause
	if rc.File != "" {
		fmt.Fprintf(&b, "root cause: %s:%d", rc.File, rc.Line)
		if rc.Func != "" {
			fmt.Fprintf(&b, " in %s", syntax.ShortFunc(rc.Func))
		}
		if rc.FID != "" {
			fmt.Fprintf(&b, " (frame %s)", syntax.ShortFunc(rc.FID))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("root cause: not found\n")
	}
	fmt.Fprintf(&b, "  %s\n", d.Summary)
	if d.Explanation != "" {
		b.WriteString("\nwhy:\n")
		b.WriteString(indentWrap(d.Explanation, "  ", 90))
	}
	if len(d.Evidence) > 0 {
		b.WriteString("\nevidence:\n")
		for _, e := range d.Evidence {
			where := ""
			if e.File != "" {
				where = fmt.Sprintf("%s:%d", e.File, e.Line)
			}
			if e.FID != "" {
				where = strings.TrimSpace(where + " " + syntax.ShortFunc(e.FID))
			}
			line := "  • "
			if where != "" {
				line += where + ": "
			}
			line += e.Claim
			if e.Value != "" {
				line += " — " + e.Value
			}
			b.WriteString(line + "\n")
		}
	}
	if len(d.Unsupported) > 0 {
		b.WriteString("\nnot supported by the recording:\n")
		for _, u := range d.Unsupported {
			b.WriteString("  ✗ " + u + "\n")
		}
	}
	if d.Fix != "" {
		b.WriteString("\nfix:\n")
		for _, l := range strings.Split(strings.TrimRight(d.Fix, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
	} else {
		if d.Source == "llm" {
			b.WriteString("\nfix: none proposed\n")
		} else {
			b.WriteString("\nfix: none proposed (no fix template of adi applies here and passes the tests)\n")
		}
	}
	if v := d.Verification; v != nil {
		fmt.Fprintf(&b, "\nverification: %s\n", v.Status)
		for _, c := range strings.Split(v.Command, "\n") {
			if c != "" {
				b.WriteString("  $ " + c + "\n")
			}
		}
		if v.Status != Passed && v.Output != "" {
			for _, l := range strings.Split(v.Output, "\n") {
				b.WriteString("  | " + l + "\n")
			}
		}
	}
	if len(d.Candidates) > 0 {
		b.WriteString("\nother suspects:\n")
		for _, c := range d.Candidates {
			fn := ""
			if c.Func != "" {
				fn = " " + syntax.ShortFunc(c.Func)
			}
			fmt.Fprintf(&b, "  %s:%d%s (%.2f) %s\n", c.File, c.Line, fn, c.Score, c.Reason)
		}
	}
	fmt.Fprintf(&b, "\nconfidence: %s · method: %s · %s", d.Confidence, d.Method, d.Source)
	if d.Rounds > 0 || d.PromptTokens > 0 {
		fmt.Fprintf(&b, " · %d rounds, %d+%d tokens", d.Rounds, d.PromptTokens, d.CompletionTokens)
	}
	b.WriteString("\n")
	if d.Partial != "" {
		b.WriteString(indentWrap("partial: "+d.Partial, "", 100))
	}
	return b.String()
}

// indentWrap wraps text at width columns, each line indented.
func indentWrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
	return b.String()
}
