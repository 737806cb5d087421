package llm

import (
	"context"
	"testing"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/offline"
)

// BenchmarkFirstMessage measures the LLM agent's first request for every
// testdata bug: the failure context (the first user message: outcome,
// failing frame's trace, call path, offline hints) and the whole first
// prompt (with the instructions and the tool definitions), in tokens
// estimated at 4 bytes a token, and the time to build it (the recording
// and the offline hints are made once, outside the timing).
//
//	go test ./agent/llm -run '^$' -bench FirstMessage -benchtime 1x
func BenchmarkFirstMessage(b *testing.B) {
	ctx := context.Background()
	for _, tc := range agenttest.Fixtures {
		b.Run(tc.Name, func(b *testing.B) {
			s, target := agenttest.Record(b, tc.Argv...)
			hints, err := offline.Diagnose(ctx, s, offline.Options{Target: target})
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Model: "bench", BaseURL: "http://127.0.0.1:1/v1", Hints: hints}
			var c *Conversation
			for b.Loop() {
				if c, err = NewConversation(ctx, s, cfg, offline.Options{Target: target}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(chat.EstimateTokens(len(c.FirstMessage()))), "msg-tokens")
			b.ReportMetric(float64(c.FirstMessageTokens()), "prompt-tokens")
		})
	}
}
