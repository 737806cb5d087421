package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adi-go/adi/adapter/daptest"
	"github.com/adi-go/adi/agent/llmtest"
)

// TestDAPDiagnoseLLM: adi dap --model --base-url answers adi/diagnose with
// the LLM agent, streaming its tool calls as adi/agent events; the model
// sees the engine's own answers; the key appears in no event.
func TestDAPDiagnoseLLM(t *testing.T) {
	const key = "sk-dap-test-KEY-0123456789abcdef"
	t.Setenv("ADI_LLM_API_KEY", key)
	srv := llmtest.New(t,
		llmtest.Turn{
			Check: func(r *llmtest.Request) error { return r.Contains("assignment to entry in nil map") },
			Text:  []string{"Who made the registry?"},
			Calls: []llmtest.Call{{Name: "frame", Args: llmtest.Args(map[string]any{"fid": "main.NewRegistry#1"})}},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				for _, res := range r.ToolResults() {
					if strings.Contains(res, "return &Registry{}") {
						return nil
					}
				}
				return fmt.Errorf("no trace of NewRegistry in the tool results: %v", r.ToolResults())
			},
			Calls: []llmtest.Call{{Name: "finish", Args: llmtest.Args(map[string]any{
				"root_cause":  map[string]any{"file": "testdata/nilmap/main.go", "line": 18, "func": "main.NewRegistry", "fid": "main.NewRegistry#1"},
				"summary":     "NewRegistry returns a Registry without its map",
				"explanation": "The constructor returns &Registry{}; Add writes to the nil map.",
				"evidence":    []map[string]any{{"fid": "main.NewRegistry#1", "line": 18, "claim": "no map", "value": "&main.Registry{ports: nil, order: nil}"}},
				"confidence":  "medium",
			})}},
		},
	)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"dap", "--model", "fake-coder", "--base-url", srv.BaseURL}, inR, outW, io.Discard)
		outW.Close()
	}()
	c := daptest.New(t, outR, inW)
	c.Request("initialize", map[string]any{"adapterID": "adi", "linesStartAt1": true})
	c.Request("launch", map[string]any{"mode": "run", "program": filepath.Join(repoRoot(t), "testdata/nilmap")})
	c.Request("configurationDone", nil)
	c.Stopped()
	m, events := c.Response(c.Send("adi/diagnose", map[string]any{}))
	if !m.Success {
		t.Fatalf("adi/diagnose: %s\n%s", m.ErrorText(), c.Traffic())
	}
	var kinds []string
	for _, e := range events {
		if e.Event == "adi/agent" {
			var body struct{ Kind, Text string }
			e.Decode(&body)
			kinds = append(kinds, body.Kind)
		}
		if strings.Contains(e.Raw, key) {
			t.Errorf("the API key is in an event: %s", e.Raw)
		}
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "toolCall toolResult") || !strings.Contains(got, "diagnosis") {
		t.Errorf("adi/agent event kinds: %s", got)
	}
	if !strings.Contains(string(m.Body), `"line":18`) || strings.Contains(string(m.Body), key) {
		t.Errorf("diagnosis: %s", m.Body)
	}
	c.Request("disconnect", nil)
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("adi dap exited %d", code)
	}
}
