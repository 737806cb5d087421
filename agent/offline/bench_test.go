package offline

import (
	"context"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/engine"
)

// BenchmarkDiagnose measures the offline diagnoser on every testdata bug:
// wall time per diagnosis (spectrum, traces, rules and verification; the
// recording is made once, outside the timing, and each iteration starts
// from a fresh session so that no trace is cached), the model's rounds and
// tokens (0 offline), and whether the documented root cause was found.
//
//	go test ./agent/offline -run '^$' -bench Diagnose -benchtime 1x
func BenchmarkDiagnose(b *testing.B) {
	for _, tc := range agenttest.Fixtures {
		b.Run(tc.Name, func(b *testing.B) {
			s, target := agenttest.Record(b, tc.Argv...)
			var d *report.Diagnosis
			for b.Loop() {
				fresh := engine.NewSession(s.Recording(), s.Program(), engine.DefaultLimits, 2*time.Minute)
				var err error
				d, err = Diagnose(context.Background(), fresh, Options{Target: target})
				if err != nil {
					b.Fatal(err)
				}
			}
			found := 0.0
			if d.RootCause.File == tc.File && d.RootCause.Line == tc.Line {
				found = 1
			}
			verified := 0.0
			if d.Verification != nil && d.Verification.Status == report.Passed {
				verified = 1
			}
			b.ReportMetric(found, "found")
			b.ReportMetric(verified, "verified")
			b.ReportMetric(float64(d.Rounds), "rounds")
			b.ReportMetric(float64(d.PromptTokens+d.CompletionTokens), "tokens")
		})
	}
}

// BenchmarkDiagnoseWholeRun measures the diagnoser on a large recording
// whose scope is the whole run: testdata/bench/fib (635,623 frames),
// recorded once and diagnosed as though it had exited with status 1, so
// that every rule walks every frame (the boundary rule fires on fib's base
// case). Fixes are not verified: the figures are the diagnoser's own, the
// traces it re-executes included.
//
//	go test ./agent/offline -run '^$' -bench DiagnoseWholeRun -benchtime 3x
func BenchmarkDiagnoseWholeRun(b *testing.B) {
	argv := []string{"go", "run", "./testdata/bench/fib"}
	root := agenttest.RepoRoot(b)
	s, err := engine.Open(context.Background(), argv, root,
		engine.Options{Limits: engine.Limits{MaxFrames: 1_000_000}, Timeout: 2 * time.Minute})
	if err != nil {
		b.Fatalf("recording %v: %v", argv, err)
	}
	defer s.Close()
	rec := s.Recording()
	rec.Outcome.ExitCode = 1
	target := gocmd.Target{Argv: argv, Dir: root}
	var d *report.Diagnosis
	b.ReportAllocs()
	for b.Loop() {
		fresh := engine.NewSession(rec, s.Program(), engine.DefaultLimits, 2*time.Minute)
		d, err = Diagnose(context.Background(), fresh, Options{Target: target, NoVerify: true})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d frames: %s at %s:%d", rec.Len(), d.Method, d.RootCause.File, d.RootCause.Line)
	b.ReportMetric(float64(rec.Len()), "frames")
}
