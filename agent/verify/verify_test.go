package verify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adi-go/adi/agent/agenttest"
	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/udiff"
)

// offbyoneTarget is the failing test of testdata/offbyone.
var offbyoneTarget = []string{"go", "test", "./testdata/offbyone", "-run", "TestSumFirst"}

// Diffs against testdata/offbyone/offbyone.go, written as a person (or a
// model) would: paths relative to the module root.
const (
	correctDiff = `--- a/testdata/offbyone/offbyone.go
+++ b/testdata/offbyone/offbyone.go
@@ -18,7 +18,7 @@
 // SumFirst returns the sum of the first n elements of xs.
 func SumFirst(xs []int, n int) int {
 	total := 0
-	for i := 0; i < n-1; i++ {
+	for i := 0; i < n; i++ {
 		total += xs[i]
 	}
 	return total
`
	wrongDiff = `--- a/testdata/offbyone/offbyone.go
+++ b/testdata/offbyone/offbyone.go
@@ -17,7 +17,7 @@
 
 // SumFirst returns the sum of the first n elements of xs.
 func SumFirst(xs []int, n int) int {
-	total := 0
+	total := 1
 	for i := 0; i < n-1; i++ {
 		total += xs[i]
 	}
`
	staleDiff = `--- a/testdata/offbyone/offbyone.go
+++ b/testdata/offbyone/offbyone.go
@@ -18,7 +18,7 @@
 // SumFirst returns the sum of the first n elements of xs.
 func SumFirst(xs []int, n int) int {
 	total := 0
-	for i := 0; i <= n-1; i++ {
+	for i := 0; i < n; i++ {
 		total += xs[i]
 	}
 	return total
`
	brokenDiff = `--- a/testdata/offbyone/offbyone.go
+++ b/testdata/offbyone/offbyone.go
@@ -21,1 +21,1 @@
-	for i := 0; i < n-1; i++ {
+	for i := 0; i < m; i++ {
`
	outsideDiff = `--- a/../outside.go
+++ b/../outside.go
@@ -1,1 +1,1 @@
-package x
+package y
`
)

// TestVerify: a correct diff passes, a wrong one fails, one that does not
// apply or does not build is reported as such, and the user's files stay
// byte-identical throughout.
func TestVerify(t *testing.T) {
	root := agenttest.RepoRoot(t)
	dir := filepath.Join(root, "testdata", "offbyone")
	before := agenttest.HashTree(t, dir)
	target := gocmd.Target{Argv: offbyoneTarget, Dir: root}
	cases := []struct {
		name, diff string
		want       report.Status
		output     string // in the verification output
	}{
		{"correct", correctDiff, report.Passed, ""},
		{"wrong", wrongDiff, report.Failed, "SumFirst(xs, 25) = 853, want 925"},
		{"stale", staleDiff, report.DoesNotApply, "hunk 1 of testdata/offbyone/offbyone.go"},
		{"does-not-build", brokenDiff, report.DoesNotBuild, "undefined: m"},
		{"outside the module", outsideDiff, report.DoesNotApply, "not inside the module"},
		{"not a diff", "please change line 21", report.DoesNotApply, "no file header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Fix(context.Background(), target, tc.diff, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.want {
				t.Errorf("status %s, want %s\ncommand: %s\noutput:\n%s", v.Status, tc.want, v.Command, v.Output)
			}
			if !strings.Contains(v.Output, tc.output) {
				t.Errorf("output lacks %q:\n%s", tc.output, v.Output)
			}
			if tc.want == report.Passed {
				// The failing command, then the whole package: -run selected
				// only some of its tests.
				for _, c := range []string{"go test -overlay=<overlay> -count=1 ./testdata/offbyone -run TestSumFirst", "go test -overlay=<overlay> -count=1 ./testdata/offbyone"} {
					if !strings.Contains(v.Command+"\n", c+"\n") {
						t.Errorf("commands lack %q:\n%s", c, v.Command)
					}
				}
			}
			agenttest.SameTree(t, dir, before)
		})
	}
}

// TestApply writes only verified fixes, to a copy of a fixture in a module
// of its own.
func TestApply(t *testing.T) {
	mod := t.TempDir()
	src := filepath.Join(agenttest.RepoRoot(t), "testdata", "offbyone")
	for _, f := range []string{"offbyone.go", "offbyone_test.go"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(mod, "testdata", "offbyone"), 0o755)
		if err := os.WriteFile(filepath.Join(mod, "testdata", "offbyone", f), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644)
	target := gocmd.Target{Argv: offbyoneTarget, Dir: mod}
	file := filepath.Join(mod, "testdata", "offbyone", "offbyone.go")
	orig, _ := os.ReadFile(file)

	var nv *NotVerifiedError
	if _, err := Apply(context.Background(), target, &report.Diagnosis{Fix: correctDiff}); !errors.As(err, &nv) {
		t.Errorf("Apply of an unverified fix: %v, want a NotVerifiedError", err)
	}
	v, err := Fix(context.Background(), target, wrongDiff, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), target, &report.Diagnosis{Fix: wrongDiff, Verification: v}); !errors.As(err, &nv) || nv.Status != report.Failed {
		t.Errorf("Apply of a failed fix: %v, want a NotVerifiedError with status failed", err)
	}
	if now, _ := os.ReadFile(file); string(now) != string(orig) {
		t.Fatal("a refused Apply changed the file")
	}

	v, err = Fix(context.Background(), target, correctDiff, Options{})
	if err != nil || v.Status != report.Passed {
		t.Fatalf("Fix: %v, %+v", err, v)
	}
	files, err := Apply(context.Background(), target, &report.Diagnosis{Fix: correctDiff, Verification: v})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != file {
		t.Errorf("Apply changed %v, want [%s]", files, file)
	}
	now, _ := os.ReadFile(file)
	if !strings.Contains(string(now), "for i := 0; i < n; i++ {") || strings.Contains(string(now), "n-1") {
		t.Errorf("the fix is not in the file:\n%s", now)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v after Apply, want 0640", fi.Mode().Perm())
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/offbyone")
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the package's tests fail after Apply: %v\n%s", err, out)
	}
	// Applying again: the diff no longer applies.
	var pe *udiff.PatchError
	if _, err := Apply(context.Background(), target, &report.Diagnosis{Fix: correctDiff, Verification: v}); !errors.As(err, &pe) {
		t.Errorf("second Apply: %v, want a PatchError", err)
	}
}

// TestVerifyUserOverlay checks fixes of a target built with its own
// -overlay: the fix's overlay is merged with it (the go command keeps the
// last -overlay flag only), and a diff of a file the target's overlay
// replaces applies to the replacement.
func TestVerifyUserOverlay(t *testing.T) {
	mod := t.TempDir()
	src := filepath.Join(agenttest.RepoRoot(t), "testdata", "offbyone")
	pkg := filepath.Join(mod, "testdata", "offbyone")
	os.MkdirAll(pkg, 0o755)
	orig, err := os.ReadFile(filepath.Join(src, "offbyone.go"))
	if err != nil {
		t.Fatal(err)
	}
	test, err := os.ReadFile(filepath.Join(src, "offbyone_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	// On disk, a test that no fix passes; the target's overlay replaces it
	// with the fixture's, and changes SumFirst's first line.
	os.WriteFile(filepath.Join(pkg, "offbyone.go"), orig, 0o644)
	os.WriteFile(filepath.Join(pkg, "offbyone_test.go"), []byte(strings.Replace(string(test), "want := 925", "want := 926", 1)), 0o644)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "extra_test.go"), test, 0o644)
	os.WriteFile(filepath.Join(mod, "overlaid.go"), []byte(strings.Replace(string(orig), "\ttotal := 0\n", "\ttotal := 0 // overlaid\n", 1)), 0o644)
	ov := `{"Replace": {"testdata/offbyone/offbyone_test.go": "extra_test.go", "testdata/offbyone/offbyone.go": "overlaid.go"}}`
	os.WriteFile(filepath.Join(mod, "ov.json"), []byte(ov), 0o644)
	target := gocmd.Target{Argv: []string{"go", "test", "-overlay=ov.json", "./testdata/offbyone", "-run", "TestSumFirst"}, Dir: mod}
	before := agenttest.HashTree(t, mod)

	overlaidDiff := strings.Replace(correctDiff, " \ttotal := 0\n", " \ttotal := 0 // overlaid\n", 1)
	for _, tc := range []struct {
		name, diff string
		want       report.Status
	}{
		{"a fix of the overlay's replacement", overlaidDiff, report.Passed},
		{"a fix of the file on disk", correctDiff, report.DoesNotApply},
		{"a wrong fix", strings.Replace(wrongDiff, "-\ttotal := 0\n", "-\ttotal := 0 // overlaid\n", 1), report.Failed},
	} {
		v, err := Fix(context.Background(), target, tc.diff, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != tc.want {
			t.Errorf("%s: status %s, want %s\ncommand: %s\noutput:\n%s", tc.name, v.Status, tc.want, v.Command, v.Output)
		}
		if tc.want == report.Passed && strings.Count(v.Command, "-overlay") != strings.Count(v.Command, "\n")+1 {
			t.Errorf("%s: a command with more than one -overlay:\n%s", tc.name, v.Command)
		}
	}
	agenttest.SameTree(t, mod, before)
}
