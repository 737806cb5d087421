package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/adi-go/adi/agent/llmtest"
)

// The tests never talk to a real model: whatever the developer's
// environment configures is ignored (the LLM tests set their own).
func init() {
	for _, k := range []string{"ADI_LLM_MODEL", "ADI_LLM_BASE_URL", "ADI_LLM_API_KEY", "OPENAI_API_KEY"} {
		os.Unsetenv(k)
	}
}

// cliKey is the API key of the CLI test; it must not be printed.
const cliKey = "sk-cli-test-KEY-9876543210abcdef"

// TestDiagnoseLLM: adi diagnose --model --base-url drives a scripted model
// (a fake OpenAI server): the model's text streams to the terminal, tool
// calls on lines of their own, then the verified diagnosis; --ask and
// --interactive continue the conversation.
func TestDiagnoseLLM(t *testing.T) {
	t.Setenv("ADI_LLM_API_KEY", cliKey)
	args := func(v any) string { return llmtest.Args(v) }
	srv := llmtest.New(t,
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				if r.Model != "fake-coder" || r.Header.Get("Authorization") != "Bearer "+cliKey {
					return fmt.Errorf("model %q, authorization %q", r.Model, r.Header.Get("Authorization"))
				}
				return r.Contains("Command: go run ./testdata/nilmap", "assignment to entry in nil map", "r.ports[name] = port")
			},
			Text:  []string{"The map is nil in Add; ", "who built the registry?"},
			Calls: []llmtest.Call{{Name: "frame", Args: args(map[string]any{"fid": "main.NewRegistry#1"})}},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				for _, res := range r.ToolResults() {
					if strings.Contains(res, "return &Registry{}") && strings.Contains(res, "returned &main.Registry{ports: nil, order: nil}") {
						return nil
					}
				}
				return fmt.Errorf("the tool result lacks the engine's trace of NewRegistry: %v", r.ToolResults())
			},
			Text: []string{"NewRegistry never makes the map."},
			Calls: []llmtest.Call{{Name: "finish", Args: args(map[string]any{
				"root_cause":  map[string]any{"file": "testdata/nilmap/main.go", "line": 18, "func": "main.NewRegistry", "fid": "main.NewRegistry#1"},
				"summary":     "NewRegistry returns a Registry without its ports map",
				"explanation": "The constructor returns &Registry{}; the first Add writes to the nil map and panics.",
				"evidence": []map[string]any{
					{"fid": "main.NewRegistry#1", "line": 18, "claim": "returns the registry without a map", "value": "&main.Registry{ports: nil, order: nil}"},
				},
				"fix":        "--- a/testdata/nilmap/main.go\n+++ b/testdata/nilmap/main.go\n@@ -17,3 +17,3 @@\n func NewRegistry() *Registry {\n-\treturn &Registry{}\n+\treturn &Registry{ports: map[string]int{}}\n }\n",
				"confidence": "high",
			})}},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error { return r.Contains("adi recorded the diagnosis", "Why not in Add?") },
			Text:  []string{"Add could make it lazily, but the constructor owns the invariant."},
		},
		llmtest.Turn{
			Check: func(r *llmtest.Request) error {
				return r.Contains("Why not in Add?", "the constructor owns", "Any other nil maps?")
			},
			Text: []string{"No: order is a slice, and append handles nil."},
		},
	)
	r := runAdi(t, runOptions{}, "Any other nil maps?\n\n",
		"diagnose", "--model", "fake-coder", "--base-url", srv.BaseURL, "--max-rounds", "5",
		"--ask", "Why not in Add?", "--interactive", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	for _, want := range []string{
		"The map is nil in Add; who built the registry?\n→ frame main.NewRegistry#1\n  ← main.NewRegistry#1() → &main.Registry{ports: nil, order: nil}",
		"NewRegistry never makes the map.\n→ finish\n  ← adi recorded the diagnosis; verification of the fix: passed.\n",
		"\nroot cause: testdata/nilmap/main.go:18 in main.NewRegistry (frame main.NewRegistry#1)\n",
		"verification: passed\n",
		"confidence: high · method: llm · llm · 2 rounds",
		"\n? Why not in Add?\nAdd could make it lazily, but the constructor owns the invariant.\n",
		"\n? Any other nil maps?\nNo: order is a slice, and append handles nil.\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout+r.Stderr, cliKey) {
		t.Errorf("the API key was printed")
	}
	if !strings.Contains(r.Stderr, "adi: diagnosing with model fake-coder at "+srv.BaseURL+" (API key set)") {
		t.Errorf("stderr does not say which model:\n%s", r.Stderr)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

// TestDiagnoseLLMConfig: without a model, adi diagnose says it is offline;
// a model without a key or base URL, and --ask without a model, are usage
// errors; a refused key is an error that does not print the key, followed
// by the offline diagnosis.
func TestDiagnoseLLMConfig(t *testing.T) {
	r := runAdi(t, runOptions{}, "", "diagnose", "--ask", "why?", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--ask and --interactive need a model") {
		t.Errorf("--ask without a model: exit %d\n%s", r.Code, r.Stderr)
	}
	r = runAdi(t, runOptions{}, "", "diagnose", "--model", "gpt-x", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 2 || !strings.Contains(r.Stderr, `the model "gpt-x" is asked for but there is no API key`) {
		t.Errorf("a model without a key: exit %d\n%s", r.Code, r.Stderr)
	}

	r = runAdi(t, runOptions{}, "", "diagnose", "--no-verify", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 0 || !strings.Contains(r.Stderr, "adi: no LLM configured (set ADI_LLM_MODEL") ||
		!strings.Contains(r.Stdout, "· offline") {
		t.Errorf("offline: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}

	t.Setenv("OPENAI_API_KEY", cliKey)
	srv := llmtest.New(t, llmtest.Turn{Status: 401, ErrorBody: `{"error":{"message":"Incorrect API key provided: ` + cliKey + `","type":"invalid_request_error"}}`})
	t.Setenv("ADI_LLM_BASE_URL", srv.BaseURL)
	t.Setenv("ADI_LLM_MODEL", "fake")
	r = runAdi(t, runOptions{}, "", "diagnose", "--no-verify", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 1 || !strings.Contains(r.Stderr, "refused the API key (401 Unauthorized)") ||
		!strings.Contains(r.Stderr, "the offline diagnosis follows") || !strings.Contains(r.Stdout, "root cause: testdata/nilmap/main.go:18") {
		t.Errorf("401: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, cliKey) {
		t.Errorf("the API key was printed:\n%s", r.Stderr)
	}
}
