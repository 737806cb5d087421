package offline

import (
	"context"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/agenttest"
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
