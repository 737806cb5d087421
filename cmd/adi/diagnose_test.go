package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagnoseText: adi diagnose on a go run target prints the root cause
// first, the evidence, and a verified fix.
func TestDiagnoseText(t *testing.T) {
	r := runAdi(t, runOptions{}, "", "diagnose", "--", "go", "run", "./testdata/nilmap")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.HasPrefix(r.Stdout, "root cause: testdata/nilmap/main.go:18 in main.NewRegistry") {
		t.Errorf("the output does not start with the root cause:\n%s", r.Stdout)
	}
	for _, want := range []string{
		"evidence:\n",
		"testdata/nilmap/main.go:24 main.(*Registry).Add#1: `r.ports[name] = port` panics",
		"-\treturn &Registry{}\n",
		"+\treturn &Registry{ports: map[string]int{}}\n",
		"verification: passed\n",
		"confidence: high",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestDiagnoseJSON: --json prints one JSON object with the diagnosis.
func TestDiagnoseJSON(t *testing.T) {
	r := runAdi(t, runOptions{}, "", "diagnose", "--json", "--", "go", "test", "./testdata/offbyone")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := strings.Count(strings.TrimSpace(r.Stdout), "\n"); n != 0 {
		t.Errorf("--json printed %d lines, want one:\n%s", n+1, r.Stdout)
	}
	var d struct {
		RootCause struct {
			File string `json:"file"`
			Line int    `json:"line"`
			Func string `json:"func"`
			FID  string `json:"fid"`
		} `json:"root_cause"`
		Evidence     []map[string]any `json:"evidence"`
		Fix          string           `json:"fix"`
		Verification struct {
			Status string `json:"status"`
		} `json:"verification"`
		Confidence string `json:"confidence"`
		Rounds     *int   `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.Stdout)
	}
	rc := d.RootCause
	if rc.File != "testdata/offbyone/offbyone.go" || rc.Line != 21 || !strings.HasSuffix(rc.Func, "offbyone.SumFirst") || rc.FID == "" {
		t.Errorf("root cause %+v, want testdata/offbyone/offbyone.go:21 in SumFirst", rc)
	}
	if d.Verification.Status != "passed" || !strings.Contains(d.Fix, "+\tfor i := 0; i < n; i++ {") {
		t.Errorf("fix %q verified %q, want the off-by-one fix, passed", d.Fix, d.Verification.Status)
	}
	if len(d.Evidence) == 0 || d.Confidence != "high" || d.Rounds == nil || *d.Rounds != 0 {
		t.Errorf("evidence %v, confidence %q, rounds %v", d.Evidence, d.Confidence, d.Rounds)
	}
}

// TestDiagnoseExitCodes: 1 when the target passed, 2 on usage errors.
func TestDiagnoseExitCodes(t *testing.T) {
	r := runAdi(t, runOptions{}, "", "diagnose", "--", "go", "run", "./testdata/fib", "5")
	if r.Code != 1 || strings.TrimSpace(r.Stdout) != "the target passed: nothing to diagnose" {
		t.Errorf("passing target: exit %d, stdout %q; want 1 and the message", r.Code, r.Stdout)
	}
	for _, args := range [][]string{
		{"diagnose"},
		{"diagnose", "--no-such-flag", "--", "go", "run", "./testdata/nilmap"},
		{"diagnose", "stray", "--", "go", "run", "./testdata/nilmap"},
	} {
		if r := runAdi(t, runOptions{}, "", args...); r.Code != 2 {
			t.Errorf("adi %s: exit %d, want 2\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
}

// TestDiagnoseApply: --apply writes the verified fix to the user's files
// (here a copy of testdata/nilmap in a module of its own).
func TestDiagnoseApply(t *testing.T) {
	mod := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "nilmap", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/nilmap\n\ngo 1.26\n"), 0o644)
	file := filepath.Join(mod, "main.go")
	os.WriteFile(file, src, 0o644)
	r := runAdi(t, runOptions{Dir: mod}, "", "diagnose", "--apply", "--", "go", "run", ".")
	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "verification: passed") || !strings.Contains(r.Stdout, "applied the fix to "+file) {
		t.Errorf("the output does not say the verified fix was applied:\n%s", r.Stdout)
	}
	now, _ := os.ReadFile(file)
	if !strings.Contains(string(now), "return &Registry{ports: map[string]int{}}") {
		t.Errorf("main.go was not fixed:\n%s", now)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the fixed program fails: %v\n%s", err, out)
	}
}
