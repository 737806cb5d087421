package offline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/engine"
)

// writeModule writes a module of its own with the given files (name →
// source) and returns its directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	}
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// diagnoseIn records argv in the module at dir and diagnoses the run
// offline; the session is closed when the test ends.
func diagnoseIn(t *testing.T, dir string, argv ...string) (*engine.Session, *report.Diagnosis) {
	t.Helper()
	return diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{}, argv...)
}

// diagnoseWith is diagnoseIn with the recording's and the diagnoser's
// options (the target is argv in dir).
func diagnoseWith(t *testing.T, dir string, eo engine.Options, o Options, argv ...string) (*engine.Session, *report.Diagnosis) {
	t.Helper()
	s, err := engine.Open(context.Background(), argv, dir, eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	o.Target = gocmd.Target{Argv: argv, Dir: dir}
	d, err := Diagnose(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d.Text())
	return s, d
}

// clampSrc is a Clamp whose bound is off by one (line 8: x > hi).
const clampSrc = `package m

// Clamp limits x to [lo, hi).
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi - 1
	}
	return x
}
`

// TestDiagnoseModules covers shapes the fixtures do not: a check done by a
// test helper (t.Helper() reports the caller's line), a check in a file
// that is not a test (its own line is reported), an err that is
// overwritten before it is read, a failed subtest among more than the
// diagnoser traces, and a bound met after loop iterations that the trace
// leaves out.
func TestDiagnoseModules(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	cases := []struct {
		name   string
		files  map[string]string
		line   int
		method string
		fix    report.Status
		// reported is where the evidence must show the test's report
		// ("file:line"), if set.
		reported string
	}{
		{"helper check", map[string]string{
			"clamp.go": clampSrc,
			"clamp_test.go": `package m

import "testing"

func check(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

func TestClamp(t *testing.T) {
	check(t, Clamp(5, 0, 10), 5)
	check(t, Clamp(10, 0, 10), 9)
	check(t, Clamp(-3, 0, 10), 0)
}
`}, 8, "boundary", report.Passed, "clamp_test.go:14"},
		{"check in a file that is not a test", map[string]string{
			"clamp.go": clampSrc,
			// A helper of the package itself, without t.Helper(): the test
			// reports its line, in checks.go.
			"checks.go": `package m

import "testing"

func check(t testing.TB, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
`,
			"clamp_test.go": `package m

import "testing"

func TestClamp(t *testing.T) {
	check(t, Clamp(5, 0, 10), 5)
	check(t, Clamp(10, 0, 10), 9)
	check(t, Clamp(-3, 0, 10), 0)
}
`}, 8, "boundary", report.Passed, "checks.go:7"},
		{"overwritten err", map[string]string{
			"area.go": `package m

import "strconv"

// Area parses a width and a height and multiplies them.
func Area(w, h string) (int, error) {
	x, err := strconv.Atoi(w)
	y, err := strconv.Atoi(h)
	if err != nil {
		return 0, err
	}
	return x * y, nil
}
`,
			"area_test.go": `package m

import "testing"

func TestArea(t *testing.T) {
	if _, err := Area("x3", "4"); err == nil {
		t.Errorf("Area(x3, 4) succeeded, want an error")
	}
}

func TestAreaOK(t *testing.T) {
	if a, err := Area("3", "4"); err != nil || a != 12 {
		t.Errorf("Area(3, 4) = %d, %v", a, err)
	}
}
`}, 7, "dropped-error", "", "area_test.go:7"},
		// More subtests than the diagnoser traces, the failing one late:
		// it is found by the name its *testing.T runs.
		{"late subtest", map[string]string{
			"clamp.go": clampSrc,
			"clamp_test.go": `package m

import "testing"

func TestClamp(t *testing.T) {
	cases := []struct {
		name    string
		x, want int
	}{
		{"zero", 0, 0}, {"one", 1, 1}, {"two", 2, 2}, {"three", 3, 3}, {"four", 4, 4}, {"five", 5, 5},
		{"six", 6, 6}, {"seven", 7, 7}, {"eight", 8, 8}, {"nine", 9, 9}, {"below", -3, 0}, {"far below", -30, 0},
		{"the bound", 10, 9}, {"above", 11, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Clamp(c.x, 0, 10); got != c.want {
				t.Errorf("Clamp(%d, 0, 10) = %d, want %d", c.x, got, c.want)
			}
		})
	}
}
`}, 8, "boundary", report.Passed, "clamp_test.go:17"},
		// The bound is met in a loop's last iteration, with a variable
		// that the iterations left out of the trace changed.
		{"bound after skipped iterations", map[string]string{
			"fit.go": `package m

// Fit returns how many of the widths fit, one after the other, in w.
func Fit(widths []int, w int) int {
	total := 0
	for i, x := range widths {
		if total+x >= w {
			return i
		}
		total += x
	}
	return len(widths)
}
`,
			"fit_test.go": `package m

import "testing"

func TestFit(t *testing.T) {
	if n := Fit([]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 10); n != 10 {
		t.Errorf("Fit(ten 1s, 10) = %d, want 10", n)
	}
}
`}, 7, "boundary", report.Passed, "fit_test.go:7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, tc.files)
			before := agenttest.HashTree(t, dir)
			s, d := diagnoseIn(t, dir, "go", "test", ".")
			checkWellFormed(t, s.Recording().Lookup, d)
			agenttest.SameTree(t, dir, before)
			if d.RootCause.Line != tc.line || d.Method != tc.method {
				t.Errorf("root cause line %d by %s, want line %d by %s", d.RootCause.Line, d.Method, tc.line, tc.method)
			}
			if len(d.Evidence) == 0 || d.Evidence[0].Claim == "" || d.Evidence[0].File == "" {
				t.Errorf("no evidence of the failed check: %+v", d.Evidence)
			}
			if tc.reported != "" && !slices.ContainsFunc(d.Evidence, func(e report.Evidence) bool {
				return fmt.Sprintf("%s:%d", filepath.Base(e.File), e.Line) == tc.reported && strings.Contains(e.Claim, "reported")
			}) {
				t.Errorf("no evidence of the report at %s: %+v", tc.reported, d.Evidence)
			}
			switch {
			case tc.fix == "" && d.Fix != "":
				t.Errorf("unexpected fix:\n%s", d.Fix)
			case tc.fix != "" && (d.Verification == nil || d.Verification.Status != tc.fix):
				t.Errorf("verification %+v, want %s", d.Verification, tc.fix)
			}
		})
	}
}

// TestDiagnoseTableDriven: a table-driven test whose first case fails,
// among 1,500. Its frame's trace is built up to the reported line only,
// not through the 7,000 statements of its loop (which take a minute to
// step through and would be cut at the step limit).
func TestDiagnoseTableDriven(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"sign.go": `package m

// Sign returns -1, 0 or 1 as x is negative, zero or positive.
func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x >= 0 {
		return 1
	}
	return 0
}
`,
		"sign_test.go": `package m

import "testing"

func TestSign(t *testing.T) {
	for x := 0; x < 1500; x++ {
		want := 0
		if x > 0 {
			want = 1
		}
		if got := Sign(x); got != want {
			t.Errorf("Sign(%d) = %d, want %d", x, got, want)
		}
	}
}
`})
	argv := []string{"go", "test", "."}
	s, err := engine.Open(context.Background(), argv, dir, engine.Options{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	d, err := Diagnose(context.Background(), s, Options{Target: gocmd.Target{Argv: argv, Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diagnosed in %s:\n%s", time.Since(start).Round(time.Millisecond), d.Text())
	checkWellFormed(t, s.Recording().Lookup, d)
	if d.RootCause.Line != 8 || d.Method != "boundary" || d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("root cause line %d by %s, verification %+v: want line 8 by boundary, passed", d.RootCause.Line, d.Method, d.Verification)
	}
	if strings.Contains(d.Partial, "was cut") {
		t.Errorf("partial: %s", d.Partial)
	}
	// The failed case's check, and what the test reported; the other
	// 1,499 calls of Sign are not the evidence.
	var got []string
	for _, e := range d.Evidence[:min(2, len(d.Evidence))] {
		got = append(got, e.Claim+" — "+e.Value)
	}
	if want := "the test's check `got != want` failed: m.Sign#1 returned 1 — got = 1, want = 0|the test reported — Sign(0) = 1, want 0"; strings.Join(got, "|") != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
}

// TestDiagnoseOverlay: a test run with its own -overlay, which replaces the
// file under test with one that has the bug (on disk the file is fixed and
// its lines are elsewhere). The rules read the overlay's lines, which ran,
// and the fix is made against them and verified.
func TestDiagnoseOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"clamp.go": `package m

// Clamp limits x to [lo, hi).
//
// On disk, fixed; the overlay has the bug.
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x >= hi {
		return hi - 1
	}
	return x
}
`,
		"clamp.txt": clampSrc,
		"ov.json":   `{"Replace": {"clamp.go": "clamp.txt"}}`,
		"clamp_test.go": `package m

import "testing"

func TestClamp(t *testing.T) {
	if got := Clamp(10, 0, 10); got != 9 {
		t.Errorf("Clamp(10, 0, 10) = %d, want 9", got)
	}
}
`})
	before := agenttest.HashTree(t, dir)
	_, d := diagnoseIn(t, dir, "go", "test", "-overlay=ov.json", ".")
	agenttest.SameTree(t, dir, before)
	if d.RootCause.Line != 8 || d.Method != "boundary" {
		t.Errorf("root cause line %d by %s, want line 8 (the overlay's x > hi) by boundary", d.RootCause.Line, d.Method)
	}
	if !strings.Contains(d.Fix, "-\tif x > hi {") {
		t.Errorf("the fix is not made against the overlay's lines:\n%s", d.Fix)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
}

// TestDiagnoseVetOff: a test run with -vet=off, whose test file go vet
// would refuse (a non-constant format string): the recording, the tests'
// coverage and the fix's verification build it as go test does with the
// flag, and the fix is verified.
func TestDiagnoseVetOff(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"clamp.go": clampSrc,
		"clamp_test.go": `package m

import (
	"fmt"
	"testing"
)

func TestClamp(t *testing.T) {
	if got := Clamp(10, 0, 10); got != 9 {
		msg := fmt.Sprintf("Clamp(10, 0, 10) = %d, want 9", got)
		t.Errorf(msg)
	}
}

func TestClampIn(t *testing.T) {
	if got := Clamp(5, 0, 10); got != 5 {
		t.Errorf("Clamp(5, 0, 10) = %d", got)
	}
}
`})
	if r := gocmd.Run(context.Background(), dir, nil, time.Minute, "go", "test", "."); !strings.Contains(r.Output, "non-constant format string") {
		t.Fatalf("%s: want go vet's printf check to fail\n%s", r.Line, r.Output)
	}
	_, d := diagnoseIn(t, dir, "go", "test", "-vet=off", ".")
	if d.RootCause.Line != 8 {
		t.Errorf("root cause line %d by %s, want line 8 (x > hi)", d.RootCause.Line, d.Method)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
}

// TestDiagnoseDiscardedResults: a result discarded with _ is taken for a
// dropped error only when it may be one. runtime.Caller's last result is
// a bool and (*runtime.Func).FileLine's a line number (their declarations
// say so); os.ReadFile's is an error.
func TestDiagnoseDiscardedResults(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	test := `package m

import "testing"

func TestHere(t *testing.T) {
	if got := Here(); got != "here_test.go" {
		t.Errorf("Here() = %q, want here_test.go", got)
	}
}
`
	for _, tc := range []struct {
		name, src string
		dropped   bool
	}{
		{"not errors", `package m

import (
	"path/filepath"
	"runtime"
)

// Here returns the name of the file it is called from (but 0 is Here).
func Here() string {
	pc, _, _, _ := runtime.Caller(0)
	fn := runtime.FuncForPC(pc)
	file, _ := fn.FileLine(pc)
	return filepath.Base(file)
}
`, false},
		{"an error", `package m

import (
	"os"
	"strings"
)

// Here returns the name of the file it is called from, as a file says.
func Here() string {
	data, _ := os.ReadFile("testdata/here.txt")
	return strings.TrimSpace(string(data))
}
`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"here.go": tc.src, "here_test.go": test})
			_, d := diagnoseIn(t, dir, "go", "test", ".")
			if got := d.Method == "dropped-error"; got != tc.dropped {
				t.Errorf("method %s at line %d, dropped error %v, want %v", d.Method, d.RootCause.Line, got, tc.dropped)
			}
			if tc.dropped && (d.RootCause.Line != 10 || !strings.Contains(d.Summary, "discards the error of os.ReadFile")) {
				t.Errorf("root cause line %d: %s; want line 10, the error of os.ReadFile", d.RootCause.Line, d.Summary)
			}
		})
	}
}

// TestDiagnoseAssertPanics: a test whose helper panics when its condition
// is false (assert(t, got == want), as tidwall/gjson's tests have it). The
// helper's panic is the test's check failing, not the bug: the evidence is
// the check at the test's call of the helper, with the result it rejected,
// and the rules look for the bug from there (before, the root cause was
// "m.assert panics: assert failed").
func TestDiagnoseAssertPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"clamp.go": clampSrc,
		"clamp_test.go": `package m

import "testing"

func assert(t testing.TB, cond bool) {
	if !cond {
		panic("assert failed")
	}
}

func TestClamp(t *testing.T) {
	assert(t, Clamp(5, 0, 10) == 5)
	assert(t, Clamp(10, 0, 10) == 9)
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.RootCause.Line != 8 || d.Method != "boundary" {
		t.Errorf("root cause line %d by %s, want line 8 (x > hi) by boundary", d.RootCause.Line, d.Method)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
	var claims []string
	for _, e := range d.Evidence {
		claims = append(claims, e.Claim)
	}
	if want := "the test's check `assert(t, Clamp(10, 0, 10) == 9)` failed: m.Clamp#2 returned 10"; !slices.Contains(claims, want) {
		t.Errorf("evidence %q, want %q", claims, want)
	}
}

// TestDiagnoseRecomputedNil: an error discarded where recomputing the call
// on the failing path shows it was nil is not the bug (before, it was
// named the root cause as an error that "could not be recomputed").
func TestDiagnoseRecomputedNil(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"half.go": `package m

import "strconv"

// Half returns half the number s spells, rounded down (but up).
func Half(s string) int {
	n, _ := strconv.Atoi(s)
	return (n + 1) / 2
}
`,
		"half_test.go": `package m

import "testing"

func TestHalf(t *testing.T) {
	if got := Half("5"); got != 2 {
		t.Errorf("Half(5) = %d, want 2", got)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method == "dropped-error" {
		t.Errorf("root cause line %d by %s: %s; strconv.Atoi(\"5\") returned no error", d.RootCause.Line, d.Method, d.Summary)
	}
}

// TestDiagnoseLogged: a line the test logged (t.Logf) reads in the output
// as a failure's does; it is not a failed check (before, the evidence
// began "the test's check `t.Logf(…)` failed").
func TestDiagnoseLogged(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"clamp.go": clampSrc,
		"clamp_test.go": `package m

import "testing"

func TestClamp(t *testing.T) {
	t.Logf("checking %d bounds", 2)
	if got := Clamp(10, 0, 10); got != 9 {
		t.Errorf("Clamp(10, 0, 10) = %d, want 9", got)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	for _, e := range d.Evidence {
		if strings.Contains(e.Claim, "Logf") || strings.Contains(e.Value, "checking 2 bounds") {
			t.Errorf("evidence %q — %q: a logged line taken for a failure", e.Claim, e.Value)
		}
	}
	if d.RootCause.Line != 8 {
		t.Errorf("root cause line %d by %s, want line 8 (x > hi)", d.RootCause.Line, d.Method)
	}
}

// TestDiagnoseNotReproduced: a test that counts allocations fails as adi
// builds it (New is not inlined there, and its D escapes to the heap) and
// passes as go test builds it: the diagnosis says so, from a re-run, and
// names no root cause. A test that fails only after another one ran
// (TestA leaves a value remembered) passes alone too, but fails in the
// re-run: it is diagnosed as before.
func TestDiagnoseNotReproduced(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	src := `package m

type D struct{ n int }

func New() *D { return &D{} }

func (d *D) Add(x int) { d.n += x }

var last int

// Remember keeps x; Recall gives it back once.
func Remember(x int) { last = x }

func Recall() int {
	x := last
	last = 0
	return x
}
`
	dir := writeModule(t, map[string]string{"d.go": src, "d_test.go": `package m

import "testing"

var sink int

func TestAllocs(t *testing.T) {
	n := testing.AllocsPerRun(10, func() {
		d := New()
		d.Add(1)
		sink = d.n
	})
	if n > 0 {
		t.Fatalf("%v allocations, want none", n)
	}
}
`})
	if r := gocmd.Run(context.Background(), dir, nil, time.Minute, "go", "test", "-count=1", "."); !r.OK() {
		t.Fatalf("%s: want it to pass natively\n%s", r.Line, r.Output)
	}
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "re-run" || !strings.Contains(d.Summary, "TestAllocs fail only as adi builds them") || d.RootCause.File != "" {
		t.Errorf("method %q, summary %q, root cause %+v; want the failure said to come from adi's build, by a re-run, and no root cause", d.Method, d.Summary, d.RootCause)
	}

	dir = writeModule(t, map[string]string{"d.go": src, "d_test.go": `package m

import "testing"

func TestA(t *testing.T) { Remember(3) }

func TestB(t *testing.T) {
	if got := Recall(); got != 0 {
		t.Fatalf("Recall() = %d, want 0: nothing remembered", got)
	}
}
`})
	_, d = diagnoseIn(t, dir, "go", "test", ".")
	if d.Method == "re-run" || strings.Contains(d.Summary, "only as adi builds them") {
		t.Errorf("method %q, summary %q; want TestB's failure diagnosed, not said to come from adi's build", d.Method, d.Summary)
	}
}

// TestDiagnoseGuardedPanic: an index out of range whose guard before it is
// off by one (Set grows the slice for i > len, not i >= len). The panic
// names the index, with no fix; the boundary rule finds the guard met
// exactly, and its fix, verified, is the root cause.
func TestDiagnoseGuardedPanic(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"bits.go": `package m

type Bits struct{ words []bool }

// Set sets bit i, growing the set as needed.
func (b *Bits) Set(i int) {
	if i > len(b.words) {
		b.words = append(b.words, make([]bool, i+1-len(b.words))...)
	}
	b.words[i] = true
}

func (b *Bits) Has(i int) bool { return i < len(b.words) && b.words[i] }
`,
		"bits_test.go": `package m

import "testing"

func TestSet(t *testing.T) {
	var b Bits
	b.Set(0)
	if !b.Has(0) {
		t.Fatal("bit 0 not set")
	}
}

func TestSetFar(t *testing.T) {
	var b Bits
	b.Set(5)
	if !b.Has(5) || b.Has(4) {
		t.Fatal("bit 5 alone should be set")
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "boundary" || d.RootCause.Line != 7 {
		t.Errorf("root cause line %d by %s, want line 7 (i > len(b.words)) by the boundary rule", d.RootCause.Line, d.Method)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
}

// TestDiagnoseGuardedPanicLoop: the guard off by one is in a function
// called several times before the call that panics (a heap's sift-down,
// its right child read one past the end when the heap has an even size):
// the boundary rule traces the panic's own frames, not the function's
// first call, which met no bound.
func TestDiagnoseGuardedPanicLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"heap.go": `package m

// Heap is a min-heap of ints.
type Heap struct{ items []any }

func less(a, b any) bool { return a.(int) < b.(int) }

// at returns the item at i, nil past the end.
func (h *Heap) at(i int) any {
	if i < len(h.items) {
		return h.items[i]
	}
	return nil
}

// down moves the item at i down to its place.
func (h *Heap) down(i int) {
	n := len(h.items)
	for 2*i+1 < n {
		m := 2*i + 1
		if r := m + 1; r <= n && less(h.at(r), h.at(m)) {
			m = r
		}
		if !less(h.at(m), h.at(i)) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// New makes a heap of the values.
func New(values ...int) *Heap {
	h := &Heap{}
	for _, v := range values {
		h.items = append(h.items, v)
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

// Pop removes and returns the least value.
func (h *Heap) Pop() int {
	top := h.items[0].(int)
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	h.down(0)
	return top
}
`,
		"heap_test.go": `package m

import "testing"

func TestNew(t *testing.T) {
	if h := New(5, 2, 4, 1, 3); h.items[0] != 1 {
		t.Fatalf("least %v, want 1", h.items[0])
	}
}

func TestPopAll(t *testing.T) {
	h := New(9, 4, 7, 1, 8, 2, 6)
	for _, want := range []int{1, 2, 4, 6, 7, 8, 9} {
		if got := h.Pop(); got != want {
			t.Fatalf("Pop() = %d, want %d", got, want)
		}
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "boundary" || d.RootCause.Line != 21 {
		t.Errorf("root cause line %d by %s, want line 21 (r <= n) by the boundary rule", d.RootCause.Line, d.Method)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
}

// TestDiagnoseBoundInAssignment: the comparison off by one is assigned
// (`full := q.Len() >= q.max`), not an if's condition, and one side is a
// call, of a method or of a generic function: it is evaluated with the
// result the call's frame returned.
func TestDiagnoseBoundInAssignment(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	for _, tc := range []struct{ name, count string }{
		{"method", "q.Len()"},
		{"generic", "count(q.items)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{
				"queue.go": `package m

// Queue keeps the last max items pushed.
type Queue struct {
	items []int
	max   int
}

func (q *Queue) Len() int { return len(q.items) }

// Push adds v, dropping the oldest item when the queue is over its size;
// it reports whether it dropped one.
func (q *Queue) Push(v int) bool {
	q.items = append(q.items, v)
	full := ` + tc.count + ` >= q.max
	if full {
		q.items = q.items[1:]
	}
	return full
}

func count[T any](xs []T) int { return len(xs) }
`,
				"queue_test.go": `package m

import "testing"

func TestPush(t *testing.T) {
	q := &Queue{max: 2}
	q.Push(1)
	if q.Push(2) || q.Len() != 2 {
		t.Fatalf("pushing 2 items on a queue of 2 dropped one: %v", q.items)
	}
}

func TestPushOver(t *testing.T) {
	q := &Queue{max: 2}
	for v := 1; v <= 3; v++ {
		q.Push(v)
	}
	if q.Len() != 2 || q.items[0] != 2 {
		t.Fatalf("items %v, want [2 3]", q.items)
	}
}
`})
			_, d := diagnoseIn(t, dir, "go", "test", ".")
			if d.Method != "boundary" || d.RootCause.Line != 15 {
				t.Errorf("root cause line %d by %s, want line 15 (%s >= q.max) by the boundary rule", d.RootCause.Line, d.Method, tc.count)
			}
			if d.Verification == nil || d.Verification.Status != report.Passed {
				t.Errorf("verification %+v, want passed", d.Verification)
			}
		})
	}
}

// TestDiagnoseTableAssert: a table-driven test checks each case with
// testify's assert.Equal (a stand-in module of that path, its Equal and
// Assertions.Equal), whose line every case runs: the failed check is the
// visit of the first case that failed (Sum#2 of TestSum, Sum#5 of
// TestSumMethods), not the first case's. Sum(1)'s loop ends at once, so
// the debugger never shows its i: the bound `i < n` is met by the value
// i's init gives.
func TestDiagnoseTableAssert(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": `module example.com/m

go 1.26

require github.com/stretchr/testify v1.11.1

replace github.com/stretchr/testify => ./testify
`,
		"testify/go.mod": "module github.com/stretchr/testify\n\ngo 1.26\n",
		"testify/assert/assert.go": `package assert

import "reflect"

type TestingT interface {
	Errorf(format string, args ...any)
	Helper()
}

func Equal(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	t.Helper()
	if !reflect.DeepEqual(expected, actual) {
		t.Errorf("Not equal: expected: %v, actual: %v", expected, actual)
		return false
	}
	return true
}

type Assertions struct{ t TestingT }

func New(t TestingT) *Assertions { return &Assertions{t} }

func (a *Assertions) Equal(expected, actual any, msgAndArgs ...any) bool {
	a.t.Helper()
	return Equal(a.t, expected, actual, msgAndArgs...)
}
`,
		"sum.go": `package m

// Sum adds the numbers from 1 to n.
func Sum(n int) int {
	total := 0
	for i := 1; i < n; i++ {
		total += i
	}
	return total
}
`,
		"sum_test.go": `package m

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSum(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 0}, {1, 1}, {3, 6}} {
		got := Sum(tc.n)
		assert.Equal(t, tc.want, got)
	}
}

func TestSumMethods(t *testing.T) {
	a := assert.New(t)
	for _, tc := range []struct{ n, want int }{{0, 0}, {2, 3}} {
		got := Sum(tc.n)
		a.Equal(tc.want, got, "Sum(%d)", tc.n)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	var checks []string
	for _, e := range d.Evidence {
		if strings.Contains(e.Claim, "check") {
			checks = append(checks, e.Claim)
		}
	}
	if len(checks) != 2 || !strings.Contains(checks[0], "m.Sum#2 returned 0") || !strings.Contains(checks[1], "m.Sum#5 returned 1") {
		t.Errorf("the failed checks:\n%s\nwant Sum#2 (TestSum's second case) and Sum#5 (TestSumMethods' second)", strings.Join(checks, "\n"))
	}
	if d.Method != "boundary" || d.RootCause.Line != 6 {
		t.Errorf("root cause line %d by %s, want line 6 (i < n) by the boundary rule", d.RootCause.Line, d.Method)
	}
}

// TestDiagnoseInfallibleWrites: `_, _ = b.WriteString(…)` and `_, _ =
// fmt.Fprint(&b, …)` on a bytes.Buffer discard an error that is always
// nil: no dropped error is a suspect, and the separator written only
// between words is the root cause.
func TestDiagnoseInfallibleWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"list.go": `package m

import (
	"bytes"
	"fmt"
)

// List writes the words as a list: [a, b].
func List(words []string) string {
	var b bytes.Buffer
	_, _ = b.WriteString("[")
	for i, w := range words {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(w)
	}
	_, _ = fmt.Fprint(&b, "]")
	return b.String()
}
`,
		"list_test.go": `package m

import "testing"

func TestListOne(t *testing.T) {
	if got := List([]string{"a"}); got != "[a]" {
		t.Errorf("List = %q, want [a]", got)
	}
}

func TestListTwo(t *testing.T) {
	if got := List([]string{"a", "b"}); got != "[a, b]" {
		t.Errorf("List = %q, want [a, b]", got)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.RootCause.Line != 14 {
		t.Errorf("root cause line %d by %s, want line 14 (the separator)", d.RootCause.Line, d.Method)
	}
	for _, c := range d.Candidates {
		if strings.Contains(c.Reason, "dropped-error") {
			t.Errorf("suspect %s:%d: %s", c.File, c.Line, c.Reason)
		}
	}
}

// TestDiagnoseMultilineErrorf: a t.Errorf over two lines whose second
// calls a function runs its first line again: the failed case is one
// check, with its report.
func TestDiagnoseMultilineErrorf(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"double.go": `package m

// Double returns twice n.
func Double(n int) int { return n + n + 1 }
`,
		"double_test.go": `package m

import (
	"strconv"
	"testing"
)

func TestDouble(t *testing.T) {
	for _, n := range []int{1, 2} {
		if got := Double(n); got != 2*n {
			t.Errorf("Double(%d) = %d, want %s",
				n, got, strconv.Itoa(2*n))
		}
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	var checks, reports []string
	for _, e := range d.Evidence {
		switch {
		case strings.Contains(e.Claim, "check"):
			checks = append(checks, e.Claim)
		case strings.Contains(e.Claim, "reported"):
			reports = append(reports, e.Claim)
		}
	}
	if len(checks) != 1 || len(reports) != 1 || !strings.Contains(checks[0], "m.Double#1 returned 3") {
		t.Errorf("the failed checks:\n%s\nreports:\n%s\nwant Double#1's, once", strings.Join(checks, "\n"), strings.Join(reports, "\n"))
	}
}

// TestDiagnoseSliceBounds: a slice expression's high bound one short
// (`l.items[i+1:len(l.items)-1]`) panics when i is the last index, with
// bounds [3:2]: the slice expression is the one those bounds are of, and
// dropping the -1 is verified.
func TestDiagnoseSliceBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"list.go": `package m

type List struct{ items []int }

// Remove removes the item at i.
func (l *List) Remove(i int) {
	copy(l.items[i:], l.items[i+1:len(l.items)-1])
	l.items = l.items[:len(l.items)-1]
}
`,
		"list_test.go": `package m

import (
	"slices"
	"testing"
)

func TestRemoveFirst(t *testing.T) {
	l := &List{items: []int{1, 2, 3}}
	l.Remove(0)
	if !slices.Equal(l.items, []int{2, 3}) {
		t.Errorf("items %v, want [2 3]", l.items)
	}
}

func TestRemoveLast(t *testing.T) {
	l := &List{items: []int{1, 2, 3}}
	l.Remove(2)
	if !slices.Equal(l.items, []int{1, 2}) {
		t.Errorf("items %v, want [1 2]", l.items)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "panic-origin" || d.RootCause.Line != 7 || !strings.Contains(d.Summary, "l.items[i+1:len(l.items)-1]") || !strings.Contains(d.Summary, "[3:2]") {
		t.Errorf("root cause line %d by %s: %s; want line 7 by panic-origin, the slice expression with bounds [3:2]", d.RootCause.Line, d.Method, d.Summary)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed || !strings.Contains(d.Fix, "+\tcopy(l.items[i:], l.items[i+1:len(l.items)])") {
		t.Errorf("verification %+v, fix:\n%s\nwant the -1 dropped, verified", d.Verification, d.Fix)
	}
}

// afterTests are the tests of an After(xs, i) that returns the items
// after index i, none when i is the last or past it.
const afterTests = `package m

import (
	"slices"
	"testing"
)

func TestAfter(t *testing.T) {
	if got := After([]int{1, 2, 3}, 1); !slices.Equal(got, []int{3}) {
		t.Errorf("After(…, 1) = %v, want [3]", got)
	}
}

func TestAfterPast(t *testing.T) {
	if got := After([]int{1, 2, 3}, 3); len(got) != 0 {
		t.Errorf("After(…, 3) = %v, want none", got)
	}
}
`

// TestDiagnoseSliceGuard: a slice bounds panic whose own fix (dropping
// the +1 of `xs[i+1:]`) is refuted by the other tests; the guard before
// it, off by one (`i > len(xs)`), is then looked for, and its fix passes.
func TestDiagnoseSliceGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"after.go": `package m

// After returns the items after index i: none when i is the last or past
// it.
func After(xs []int, i int) []int {
	if i > len(xs) {
		return nil
	}
	return xs[i+1:]
}
`,
		"after_test.go": afterTests})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "boundary" || d.RootCause.Line != 6 {
		t.Errorf("root cause line %d by %s: %s; want line 6 (i > len(xs)) by the boundary rule", d.RootCause.Line, d.Method, d.Summary)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("verification %+v, want passed", d.Verification)
	}
}

// TestDiagnoseUnverifiedBound: a bound met exactly on the failing path
// (len(p) <= 1 with a one-letter key) whose fix is not verified is no
// stronger than the spectrum: the statement run by the failing test alone
// (the value cut one byte late and upper-cased) is the root cause, and the
// bound a suspect.
func TestDiagnoseUnverifiedBound(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{"pairs.go": `package m

import "strings"

// Pairs parses "a=1,b=2" into its keys and values; a key alone has "".
func Pairs(s string) map[string]string {
	out := map[string]string{}
	for _, p := range strings.Split(s, ",") {
		k, v := cut(p)
		out[k] = v
	}
	return out
}

func cut(p string) (string, string) {
	if len(p) <= 1 {
		return p, "" // a one-letter key
	}
	for i := 0; i < len(p); i++ {
		if p[i] == ':' || p[i] == '=' {
			return p[:i], strings.ToUpper(p[i+1:])
		}
	}
	return p, ""
}
`, "pairs_test.go": `package m

import "testing"

func TestPairs(t *testing.T) {
	got := Pairs("a=x,b")
	if got["a"] != "x" || got["b"] != "" {
		t.Fatalf("Pairs = %q", got)
	}
}

func TestKeys(t *testing.T) {
	if got := Pairs("key,k"); len(got) != 2 || got["key"] != "" || got["k"] != "" {
		t.Fatalf("Pairs = %q", got)
	}
}
`})
	_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{NoVerify: true}, "go", "test", ".")
	if d.Method != "sbfl" || d.RootCause.Line != 21 {
		t.Errorf("root cause line %d by %s, want line 21 (the value's slice) by the spectrum", d.RootCause.Line, d.Method)
	}
	found := false
	for _, c := range d.Candidates {
		found = found || c.Line == 16
	}
	if !found {
		t.Errorf("candidates %+v, want the bound at line 16 among them", d.Candidates)
	}
}

// TestDiagnoseHang: a test that waits an hour (Run counts one worker too
// many, and gives up on them after an hour: the runtime sees no deadlock)
// is killed at the recording's timeout. The diagnosis says where each
// goroutine was, from the recording alone (a re-run of the test would hang
// again), the test's goroutine first.
func TestDiagnoseHang(t *testing.T) {
	if testing.Short() {
		t.Skip("records")
	}
	dir := writeModule(t, map[string]string{
		"work.go": `package m

import (
	"sync"
	"time"
)

// Run runs n workers and waits for them, up to an hour.
func Run(n int, out chan<- int) bool {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 1; i < n; i++ {
		go work(i, &wg, out)
	}
	done := make(chan bool)
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(time.Hour):
		return false
	}
}

func work(i int, wg *sync.WaitGroup, out chan<- int) {
	defer wg.Done()
	out <- i
}
`,
		"work_test.go": `package m

import "testing"

func TestRun(t *testing.T) {
	out := make(chan int, 10)
	if !Run(3, out) || len(out) != 3 {
		t.Fatalf("%d results, want 3", len(out))
	}
}
`})
	_, d := diagnoseWith(t, dir, engine.Options{Timeout: 3 * time.Second}, Options{}, "go", "test", ".")
	if d.Method != "hang" || d.RootCause.Func != "example.com/m.Run" || !strings.Contains(d.Summary, "did not end") {
		t.Errorf("method %q, root cause %+v, summary %q; want the hang, in m.Run", d.Method, d.RootCause, d.Summary)
	}
	if len(d.Evidence) != 2 || !strings.Contains(d.Evidence[0].Claim, "m.Run#1, called by example.com/m.TestRun#1 at work_test.go:7") ||
		!strings.HasPrefix(d.Evidence[0].Value, "n = 3, out = ") ||
		!strings.Contains(d.Evidence[1].Claim, "m.Run.func1#1, called by a go statement of example.com/m.Run#1 at work.go:16") {
		t.Errorf("evidence %+v, want m.Run#1 called by the test, with its arguments, then the goroutine waiting for the workers", d.Evidence)
	}
}

// TestDiagnoseSliceShort: Median of an even count averages a slice of one
// element where it needs the middle two. No rule matches (Mean's error,
// discarded, is recorded nil on the failing path: no dropped error); the
// spectrum ranks the statement first, and its slice's off-by-one edits
// are verified: `l/2+1` passes.
func TestDiagnoseSliceShort(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"median.go": `package m

import (
	"errors"
	"slices"
)

// Mean is the average of xs.
func Mean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, errors.New("no numbers")
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs)), nil
}

// Median is the middle number of xs, or the mean of the middle two.
func Median(xs []float64) float64 {
	c := slices.Sorted(slices.Values(xs))
	l := len(c)
	if l%2 == 1 {
		return c[l/2]
	}
	m, _ := Mean(c[l/2-1 : l/2])
	return m
}
`,
		"median_test.go": `package m

import "testing"

func TestMedianOdd(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median(3, 1, 2) = %v, want 2", got)
	}
}

func TestMedianEven(t *testing.T) {
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median(4, 1, 3, 2) = %v, want 2.5", got)
	}
}

func TestMean(t *testing.T) {
	if got, err := Mean([]float64{1, 2}); got != 1.5 || err != nil {
		t.Errorf("Mean(1, 2) = %v, %v", got, err)
	}
}
`})
	// Unverified, a dropped error would outrank the spectrum, and an
	// edit not run is no fix.
	_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{NoVerify: true}, "go", "test", ".")
	if d.Method != "sbfl" || d.RootCause.Line != 27 || d.Fix != "" {
		t.Errorf("without verification: root cause line %d by %s: %s, fix %q; want line 27 by the spectrum, no fix", d.RootCause.Line, d.Method, d.Summary, d.Fix)
	}
	_, d = diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "sbfl" || d.RootCause.Line != 27 {
		t.Errorf("root cause line %d by %s: %s; want line 27 (the slice) by the spectrum", d.RootCause.Line, d.Method, d.Summary)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed || !strings.Contains(d.Fix, "c[l/2-1 : l/2+1]") {
		t.Errorf("fix %q, verification %+v; want c[l/2-1 : l/2+1], passed", d.Fix, d.Verification)
	}
}

// TestDiagnoseSliceNoGuard: After slices past the end when i is the last
// index, for want of a guard. The panic's off-by-one edit of the slice
// (`xs[i:]`) mends the panicking test and breaks the other: refuted, it
// is no fix to offer, and the diagnosis says it was tried.
func TestDiagnoseSliceNoGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"after.go": `package m

// After returns the items after index i: none when i is the last.
func After(xs []int, i int) []int {
	return xs[i+1:]
}
`,
		"after_test.go": afterTests})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "panic-origin" || d.RootCause.Line != 5 {
		t.Errorf("root cause line %d by %s: %s; want line 5 (the slice) by the panic rule", d.RootCause.Line, d.Method, d.Summary)
	}
	if d.Fix != "" || d.Verification != nil {
		t.Errorf("fix %q, verification %+v; want none: the edit was refuted", d.Fix, d.Verification)
	}
	if !strings.Contains(d.Explanation, "`xs[i+1:]` → `xs[i:]`") {
		t.Errorf("explanation %q does not name the edit tried", d.Explanation)
	}
}

// TestDiagnoseIndexOnePast: Nearest reads the element of a 1-based rank
// with the rank as a 0-based index, one past the end at 100%. The index
// is traced to the rank's computation, which is right: the edit at the
// use, `xs[r]` → `xs[r-1]`, is verified, and the root cause is the
// indexing.
func TestDiagnoseIndexOnePast(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"rank.go": `package m

// Nearest is the element of sorted xs at the nearest rank of percent p:
// the ceil(len(xs)*p/100)-th, the first for 0.
func Nearest(xs []int, p int) int {
	r := (len(xs)*p + 99) / 100
	if r == 0 {
		return xs[0]
	}
	return xs[r]
}
`,
		"rank_test.go": `package m

import "testing"

func TestNearestAll(t *testing.T) {
	if got := Nearest([]int{1, 2, 3, 4, 5}, 100); got != 5 {
		t.Errorf("Nearest(1…5, 100) = %d, want 5", got)
	}
}

func TestNearestNone(t *testing.T) {
	if got := Nearest([]int{1, 2, 3, 4, 5}, 0); got != 1 {
		t.Errorf("Nearest(1…5, 0) = %d, want 1", got)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "panic-origin" || d.RootCause.Line != 10 {
		t.Errorf("root cause line %d by %s: %s; want line 10 (the index) by the panic rule", d.RootCause.Line, d.Method, d.Summary)
	}
	if d.Verification == nil || d.Verification.Status != report.Passed || !strings.Contains(d.Fix, "return xs[r-1]") {
		t.Errorf("fix %q, verification %+v; want xs[r-1], passed", d.Fix, d.Verification)
	}
}

// TestDiagnoseConditionCall: the test checks a method's result in its
// condition (`if c.Over(5)`) right after changing c through other calls:
// the value checked is Over's, not the last Add's, and Over's bound, met
// exactly, is the root cause.
func TestDiagnoseConditionCall(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"counter.go": `package m

// Counter sums what it is given.
type Counter struct{ n int }

// Add adds k and reports whether it changed the sum.
func (c *Counter) Add(k int) bool {
	c.n += k
	return k != 0
}

// Over reports whether the sum is past limit.
func (c *Counter) Over(limit int) bool {
	return c.n >= limit
}
`,
		"counter_test.go": `package m

import "testing"

func TestOver(t *testing.T) {
	c := &Counter{}
	c.Add(2)
	c.Add(3)
	if c.Over(5) {
		t.Error("5 is not over 5")
	}
	if !c.Over(4) {
		t.Error("5 is over 4")
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if len(d.Evidence) == 0 || !strings.Contains(d.Evidence[0].Claim, "(*Counter).Over#1 returned true") {
		t.Errorf("evidence %+v; want the check's value from Over#1", d.Evidence)
	}
	if d.Method != "boundary" || d.RootCause.Line != 14 || d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("root cause line %d by %s: %s, verification %+v; want line 14 by the boundary rule, verified", d.RootCause.Line, d.Method, d.Summary, d.Verification)
	}
}

// TestDiagnoseStateGetter: the test reads a ring's length through a
// getter after three Adds; the getter is right, and the bound that let
// the third Add keep every item (`len(r.items) <= r.n`) is met only in
// that last Add's makeRoom. The calls the test made before on the same
// variable are searched, and of makeRoom the last frame as well as the
// first.
func TestDiagnoseStateGetter(t *testing.T) {
	if testing.Short() {
		t.Skip("records and re-runs")
	}
	dir := writeModule(t, map[string]string{
		"ring.go": `package m

// Ring keeps the last n items added.
type Ring struct {
	items []int
	n     int
}

func New(n int) *Ring { return &Ring{n: n} }

// Add adds x, dropping the oldest item when the ring is full.
func (r *Ring) Add(x int) {
	r.makeRoom()
	r.items = append(r.items, x)
}

func (r *Ring) makeRoom() {
	if len(r.items) <= r.n {
		return
	}
	r.items = r.items[1:]
}

// Len is the number of items kept.
func (r *Ring) Len() int { return len(r.items) }
`,
		"ring_test.go": `package m

import "testing"

func TestRing(t *testing.T) {
	r := New(2)
	r.Add(1)
	r.Add(2)
	r.Add(3)
	if n := r.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
}
`})
	_, d := diagnoseIn(t, dir, "go", "test", ".")
	if d.Method != "boundary" || d.RootCause.Line != 18 || d.Verification == nil || d.Verification.Status != report.Passed {
		t.Errorf("root cause line %d by %s: %s, verification %+v; want line 18 by the boundary rule, verified", d.RootCause.Line, d.Method, d.Summary, d.Verification)
	}
}

// TestDiagnoseDroppedRecordedError: Addr discards the error of the
// module's own parsePort, which the recording shows was not nil on the
// failing path (" 80" is no number): the dropped error, with the callee's
// results as evidence, is the root cause.
func TestDiagnoseDroppedRecordedError(t *testing.T) {
	if testing.Short() {
		t.Skip("records")
	}
	dir := writeModule(t, map[string]string{
		"addr.go": `package m

import (
	"fmt"
	"strconv"
)

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("port %q: %w", s, err)
	}
	return n, nil
}

// Addr joins a host and a port.
func Addr(host, port string) string {
	p, _ := parsePort(port)
	return fmt.Sprintf("%s:%d", host, p)
}
`,
		"addr_test.go": `package m

import "testing"

func TestAddr(t *testing.T) {
	if got := Addr("h", " 80"); got != "h:80" {
		t.Errorf("Addr = %q, want h:80", got)
	}
}
`})
	_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{NoVerify: true}, "go", "test", ".")
	if d.Method != "dropped-error" || d.RootCause.Line != 18 || d.Confidence != report.High {
		t.Errorf("root cause line %d by %s (%s): %s; want line 18 by dropped-error, high", d.RootCause.Line, d.Method, d.Confidence, d.Summary)
	}
	found := false
	for _, e := range d.Evidence {
		found = found || strings.Contains(e.Value, "parsePort#1 returned 0, ")
	}
	if !found {
		t.Errorf("evidence %+v; want parsePort#1's results", d.Evidence)
	}
}
