package offline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/engine/trace"
)

// maxHangEvidence bounds the goroutines a hang's diagnosis shows.
const maxHangEvidence = 8

// hung is the diagnosis of a run that adi stopped (at its timeout, or
// interrupted) with frames still running: where each goroutine was when
// it was stopped, from the recording alone. Nothing is run again: a
// re-execution of those frames, or a test run of the spectrum, would wait
// for the same end that never came. It returns nil for a run that ended
// (or had no frame still running).
func (d *diagnoser) hung() *report.Diagnosis {
	if !d.rec.Outcome.Killed {
		return nil
	}
	// The innermost running frame of each goroutine: frames come in order
	// of entry, so a goroutine's last running one.
	inner := map[int64]*trace.Frame{}
	var order []int64
	for f := range d.rec.All {
		if f.Exit != trace.Running {
			continue
		}
		if _, ok := inner[f.Goroutine]; !ok {
			order = append(order, f.Goroutine)
		}
		inner[f.Goroutine] = f
	}
	if len(order) == 0 {
		return nil
	}
	// Test goroutines first (a test's own frame is in a test file), then in
	// order of their first running frame.
	var tests, others []*trace.Frame
	for _, g := range order {
		f := inner[g]
		if d.runsTest(f) {
			tests = append(tests, f)
		} else {
			others = append(others, f)
		}
	}
	frames := append(tests, others...)
	top := frames[0]
	diag := &report.Diagnosis{
		RootCause: report.Location{File: d.rel(top.Decl.File), Line: top.Decl.Line, Func: top.FID.Func, FID: top.FID.String()},
		Summary: fmt.Sprintf("the run did not end: stopped with %d goroutine(s) still running; %s never returned",
			len(frames), top.FID),
		Explanation: "adi stopped the run (at its --timeout, as go test's -timeout would). The frames still running then " +
			"show where each goroutine was: one that waits for ever (a channel no one sends on, a WaitGroup counted " +
			"too high, a lock held) or loops without end. Look at the innermost frame of each (adi repl: frame FID) " +
			"for the statement it was at, or raise --timeout if the run is only slow.",
		Candidates: []report.Candidate{},
		Confidence: report.Low,
		Method:     "hang",
		Source:     "offline",
	}
	for i, f := range frames {
		if i == maxHangEvidence {
			d.note(fmt.Sprintf("%d more goroutines were still running", len(frames)-i))
			break
		}
		claim := fmt.Sprintf("goroutine %d was still in %s, called by %s", f.Goroutine, f.FID, callerText(f))
		var args []string
		for _, a := range f.Args {
			args = append(args, a.Name+" = "+a.Text)
		}
		diag.Evidence = append(diag.Evidence, d.evidence(f, f.Decl, claim, strings.Join(args, ", ")))
	}
	if len(d.rec.Outcome.FailedTests) > 0 {
		d.note("tests that failed before the run was stopped: " + strings.Join(d.rec.Outcome.FailedTests, ", "))
	}
	diag.Partial = strings.Join(d.notes, "; ")
	return diag
}

// runsTest reports whether f is on a test's goroutine: f or a caller of
// it, up to the goroutine's first frame, is declared in a test file.
func (d *diagnoser) runsTest(f *trace.Frame) bool {
	for f != nil {
		if isTestFile(f.Decl.File) {
			return true
		}
		if f.Caller.Func == "" || f.Spawn {
			return false
		}
		f, _ = d.rec.Frame(f.Caller)
	}
	return false
}

// callerText is where f was called from: its caller and the call's line.
func callerText(f *trace.Frame) string {
	if f.Caller.Func == "" {
		return "the runtime"
	}
	if f.Spawn {
		return fmt.Sprintf("a go statement of %s at %s:%d", f.Caller, filepath.Base(f.CallSite.File), f.CallSite.Line)
	}
	return fmt.Sprintf("%s at %s:%d", f.Caller, filepath.Base(f.CallSite.File), f.CallSite.Line)
}
