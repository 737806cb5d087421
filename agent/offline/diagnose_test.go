package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/agent/udiff"
	"github.com/adi-go/adi/engine/trace"
)

// TestDiagnoseFixtures runs the offline diagnoser on every buggy fixture
// and checks the root cause against testdata/README.md, the evidence
// against the recording, the fix's verification, and that the user's files
// are untouched.
func TestDiagnoseFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs every fixture")
	}
	for _, tc := range agenttest.Fixtures {
		t.Run(tc.Name, func(t *testing.T) {
			dir := filepath.Join(agenttest.RepoRoot(t), "testdata", tc.Name)
			before := agenttest.HashTree(t, dir)
			s, target := agenttest.Record(t, tc.Argv...)
			d, err := Diagnose(context.Background(), s, Options{Target: target})
			if err != nil {
				t.Fatalf("Diagnose: %v", err)
			}
			t.Logf("%s\n%s", strings.Join(tc.Argv, " "), d.Text())
			agenttest.SameTree(t, dir, before)
			checkWellFormed(t, s.Recording().Lookup, d)

			found := d.RootCause.File == tc.File && d.RootCause.Line == tc.Line
			inEvidence := syntax.FuncName(d.RootCause.Func) == tc.Func && hasEvidenceAt(d, tc.File, tc.Line)
			switch {
			case tc.Required && !found && !inEvidence:
				t.Errorf("root cause %s:%d in %s; want %s:%d in %s (or that function with the line in the evidence)",
					d.RootCause.File, d.RootCause.Line, d.RootCause.Func, tc.File, tc.Line, tc.Func)
			case !found && d.Confidence == report.High:
				t.Errorf("confidently wrong: root cause %s:%d with confidence high; the bug is at %s:%d", d.RootCause.File, d.RootCause.Line, tc.File, tc.Line)
			}
			if !tc.Required {
				return
			}
			if tc.Fix == "" {
				if d.Fix != "" {
					t.Errorf("a fix was proposed where no template is safe:\n%s", d.Fix)
				}
				return
			}
			if d.Fix == "" || d.Verification == nil {
				t.Fatalf("no fix (or no verification) proposed; want one whose verification is %s", tc.Fix)
			}
			if d.Verification.Status != tc.Fix {
				t.Errorf("verification %s, want %s:\n%s", d.Verification.Status, tc.Fix, d.Verification.Output)
			}
			if !strings.Contains(d.Fix, "--- a/"+tc.File+"\n+++ b/"+tc.File+"\n") {
				t.Errorf("the fix does not change %s relative to the module root:\n%s", tc.File, d.Fix)
			}
			if d.Confidence != report.High {
				t.Errorf("confidence %s with a verified fix, want high", d.Confidence)
			}
		})
	}
}

// checkWellFormed checks what every diagnosis must hold: a summary, an
// explanation, evidence from recorded frames, no model usage offline, and
// a JSON form with the documented keys.
func checkWellFormed(t *testing.T, lookup func(fid trace.FID) (*trace.Frame, bool), d *report.Diagnosis) {
	t.Helper()
	if d.Summary == "" || d.Explanation == "" || d.Method == "" || d.Source != "offline" {
		t.Errorf("incomplete diagnosis: summary %q, explanation %q, method %q, source %q", d.Summary, d.Explanation, d.Method, d.Source)
	}
	if d.Rounds != 0 || d.PromptTokens != 0 || d.CompletionTokens != 0 {
		t.Errorf("offline diagnosis used a model: %d rounds, %d+%d tokens", d.Rounds, d.PromptTokens, d.CompletionTokens)
	}
	for _, e := range d.Evidence {
		if e.FID == "" {
			continue
		}
		fid, err := trace.ParseFID(e.FID)
		if err != nil {
			t.Errorf("evidence %+v: %v", e, err)
			continue
		}
		if _, ok := lookup(fid); !ok {
			t.Errorf("evidence %+v names a frame the recording does not hold", e)
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"root_cause", "summary", "explanation", "evidence", "fix", "confidence", "method", "candidates", "rounds", "prompt_tokens", "completion_tokens"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if d.Fix != "" {
		if _, err := udiff.Parse(d.Fix); err != nil {
			t.Errorf("the fix is not a valid unified diff: %v\n%s", err, d.Fix)
		}
	}
}

// hasEvidenceAt reports whether some evidence is at file:line.
func hasEvidenceAt(d *report.Diagnosis, file string, line int) bool {
	for _, e := range d.Evidence {
		if e.File == file && e.Line == line {
			return true
		}
	}
	return false
}

// TestDiagnosePassed: a run that passes has nothing to diagnose.
func TestDiagnosePassed(t *testing.T) {
	s, target := agenttest.Record(t, "go", "run", "./testdata/fib", "5")
	_, err := Diagnose(context.Background(), s, Options{Target: target})
	if !IsPassed(err) {
		t.Fatalf("Diagnose of a passing run: %v, want ErrPassed", err)
	}
	if want := "the target passed: nothing to diagnose"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestDiagnoseNoVerify proposes the fix without running it, and without a
// target command line it still traces the panic (no spectrum, no
// verification, and the diagnosis says so).
func TestDiagnoseNoVerify(t *testing.T) {
	s, target := agenttest.Record(t, "go", "run", "./testdata/nilmap")
	d, err := Diagnose(context.Background(), s, Options{Target: target, NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Fix == "" || d.Verification == nil || d.Verification.Status != report.NotRun {
		t.Errorf("with NoVerify: fix %q, verification %+v; want a fix that was not run", d.Fix, d.Verification)
	}
	d, err = Diagnose(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.RootCause.Line != 18 || !strings.Contains(d.Partial, "no target command line") {
		t.Errorf("without a target: root cause %+v, partial %q", d.RootCause, d.Partial)
	}
	if d.Verification == nil || d.Verification.Status != report.NotRun {
		t.Errorf("without a target the fix cannot be verified: %+v", d.Verification)
	}
	fmt.Fprint(testWriter{t}, d.Text())
}

// testWriter logs what is written to it.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
