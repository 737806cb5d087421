package agent

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

// fixtureCase is a testdata bug with its documented root cause
// (testdata/README.md).
type fixtureCase struct {
	name string
	argv []string
	// file and line are the root cause; fn is its function's short name.
	file string
	line int
	fn   string
	// required: the diagnoser must name the line (or the function with the
	// line in its evidence). The others are diagnosed as well as they can
	// be, and must not be confidently wrong.
	required bool
	// fix is the verification status the proposed fix must reach ("": no
	// fix is proposed).
	fix report.Status
}

// fixtureCases are the buggy fixtures of testdata/README.md.
var fixtureCases = []fixtureCase{
	{"nilmap", []string{"go", "run", "./testdata/nilmap"}, "testdata/nilmap/main.go", 18, "NewRegistry", true, report.Passed},
	{"nilptr", []string{"go", "test", "./testdata/nilptr"}, "testdata/nilptr/nilptr.go", 40, "Greeting", true, ""},
	{"index", []string{"go", "run", "./testdata/index"}, "testdata/index/main.go", 17, "pageCount", true, report.Passed},
	{"offbyone", []string{"go", "test", "./testdata/offbyone"}, "testdata/offbyone/offbyone.go", 21, "SumFirst", true, report.Passed},
	{"search", []string{"go", "test", "./testdata/search"}, "testdata/search/search.go", 24, "Index", true, report.Passed},
	{"droppederr", []string{"go", "test", "./testdata/droppederr"}, "testdata/droppederr/droppederr.go", 19, "parseLine", true, ""},
	{"deferrecover", []string{"go", "test", "./testdata/deferrecover"}, "testdata/deferrecover/deferrecover.go", 21, "stats", true, report.Passed},
	{"tabletest", []string{"go", "test", "./testdata/tabletest", "-run", "TestFormatSize"}, "testdata/tabletest/tabletest.go", 13, "scale", true, report.Passed},
	{"recursion", []string{"go", "test", "./testdata/recursion", "-run", "TestFib10"}, "testdata/recursion/recursion.go", 7, "Fib", true, report.Passed},
	{"methods", []string{"go", "test", "./testdata/methods"}, "testdata/methods/methods.go", 13, "Inc", true, report.Passed},
	{"closure", []string{"go", "run", "./testdata/closure"}, "testdata/closure/main.go", 18, "formatters", false, ""},
	{"generics", []string{"go", "test", "./testdata/generics"}, "testdata/generics/generics.go", 22, "Pop", false, ""},
	{"pipeline", []string{"go", "run", "./testdata/pipeline"}, "testdata/pipeline/main.go", 37, "fanOut", false, ""},
}

// TestDiagnoseFixtures runs the offline diagnoser on every buggy fixture
// and checks the root cause against testdata/README.md, the evidence
// against the recording, the fix's verification, and that the user's files
// are untouched.
func TestDiagnoseFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs every fixture")
	}
	for _, tc := range fixtureCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(agenttest.RepoRoot(t), "testdata", tc.name)
			before := agenttest.HashTree(t, dir)
			s, target := agenttest.Record(t, tc.argv...)
			d, err := Diagnose(context.Background(), s, Options{Target: target})
			if err != nil {
				t.Fatalf("Diagnose: %v", err)
			}
			t.Logf("%s\n%s", strings.Join(tc.argv, " "), d.Text())
			agenttest.SameTree(t, dir, before)
			checkWellFormed(t, s.Recording().Lookup, d)

			found := d.RootCause.File == tc.file && d.RootCause.Line == tc.line
			inEvidence := syntax.FuncName(d.RootCause.Func) == tc.fn && hasEvidenceAt(d, tc.file, tc.line)
			switch {
			case tc.required && !found && !inEvidence:
				t.Errorf("root cause %s:%d in %s; want %s:%d in %s (or that function with the line in the evidence)",
					d.RootCause.File, d.RootCause.Line, d.RootCause.Func, tc.file, tc.line, tc.fn)
			case !found && d.Confidence == report.High:
				t.Errorf("confidently wrong: root cause %s:%d with confidence high; the bug is at %s:%d", d.RootCause.File, d.RootCause.Line, tc.file, tc.line)
			}
			if !tc.required {
				return
			}
			if tc.fix == "" {
				if d.Fix != "" {
					t.Errorf("a fix was proposed where no template is safe:\n%s", d.Fix)
				}
				return
			}
			if d.Fix == "" || d.Verification == nil {
				t.Fatalf("no fix (or no verification) proposed; want one whose verification is %s", tc.fix)
			}
			if d.Verification.Status != tc.fix {
				t.Errorf("verification %s, want %s:\n%s", d.Verification.Status, tc.fix, d.Verification.Output)
			}
			if !strings.Contains(d.Fix, "--- a/"+tc.file+"\n+++ b/"+tc.file+"\n") {
				t.Errorf("the fix does not change %s relative to the module root:\n%s", tc.file, d.Fix)
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
