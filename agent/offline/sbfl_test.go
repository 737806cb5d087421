package offline

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestOchiai checks the scores on a small spectrum: one failing test, two
// passing ones, and a panicking test that wrote no coverage.
func TestOchiai(t *testing.T) {
	l := func(n int) lineKey { return lineKey{"f.go", n} }
	set := func(ns ...int) map[lineKey]bool {
		m := map[lineKey]bool{}
		for _, n := range ns {
			m[l(n)] = true
		}
		return m
	}
	units := []unit{
		{name: "TestFail", failed: true, lines: set(1, 2, 3)},
		{name: "TestPass1", lines: set(1, 2)},
		{name: "TestPass2", lines: set(1, 4)},
		{name: "TestPanics", failed: true, nocover: true},
	}
	ranked, totalFailed := ochiai(units)
	if totalFailed != 1 {
		t.Errorf("totalFailed %d, want 1 (the test without coverage is left out)", totalFailed)
	}
	want := map[int]float64{3: 1, 2: 1 / math.Sqrt(2), 1: 1 / math.Sqrt(3), 4: 0}
	if len(ranked) != len(want) {
		t.Fatalf("ranked %d lines, want %d: %+v", len(ranked), len(want), ranked)
	}
	for i, s := range ranked {
		if math.Abs(s.score-want[s.line.line]) > 1e-9 {
			t.Errorf("line %d: score %v, want %v", s.line.line, s.score, want[s.line.line])
		}
		if i > 0 && ranked[i-1].score < s.score {
			t.Errorf("not sorted: %+v", ranked)
		}
	}
	if ranked[0].line.line != 3 {
		t.Errorf("top line %d, want 3", ranked[0].line.line)
	}
}

// TestLeafSubtests reads subtests from go test -v output.
func TestLeafSubtests(t *testing.T) {
	out := `=== RUN   TestA
=== RUN   TestA/x
=== RUN   TestA/y
=== RUN   TestA/y/deep
=== RUN   TestA/z#01
    a_test.go:9: failed
--- FAIL: TestA (0.00s)
`
	got := leafSubtests(out, "TestA")
	want := []string{"TestA/x", "TestA/y/deep", "TestA/z#01"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	if p := subtestPattern("TestA/y/deep"); p != "^TestA$/^y$/^deep$" {
		t.Errorf("pattern %q", p)
	}
	if p := subtestPattern("TestA/z#01"); p != `^TestA$/^z#01$` {
		t.Errorf("pattern %q", p)
	}
}

// TestReadProfile maps coverage blocks to the statements inside them.
func TestReadProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "c.out")
	os.WriteFile(prof, []byte(`mode: count
example.com/m/p/f.go:3.20,5.10 2 1
example.com/m/p/f.go:5.10,7.3 1 0
example.com/m/p/g.go:1.1,2.2 1 4
example.com/m/other/f.go:3.20,5.10 2 1
`), 0o644)
	f := filepath.Join(dir, "f.go")
	stmts := map[string][]stmtPos{f: {{4, 2}, {5, 2}, {6, 3}}}
	got, err := readProfile(prof, "example.com/m/p", dir, stmts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[lineKey{f, 4}] || !got[lineKey{f, 5}] {
		t.Errorf("executed %v, want lines 4 and 5 of f.go (line 6 is in a block that did not run)", got)
	}
	if _, err := readProfile(filepath.Join(dir, "missing.out"), "x", dir, stmts); err == nil {
		t.Error("a missing profile (a test that panicked) must be an error")
	}
}
