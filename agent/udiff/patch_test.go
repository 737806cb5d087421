package udiff

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// numbered returns n lines "line 1" … "line n", each ending in a newline.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// diffCases are pairs of texts the diff must take one to the other.
var diffCases = []struct{ name, old, new string }{
	{"one line", numbered(20), strings.Replace(numbered(20), "line 10\n", "line ten\n", 1)},
	{"insert at start", numbered(5), "line 0\n" + numbered(5)},
	{"append at end", numbered(5), numbered(6)},
	{"delete", numbered(9), strings.Replace(numbered(9), "line 5\n", "", 1)},
	{"two hunks", numbered(40), strings.Replace(strings.Replace(numbered(40), "line 3\n", "three\n", 1), "line 35\n", "", 1)},
	{"near changes merge", numbered(20), strings.Replace(strings.Replace(numbered(20), "line 5\n", "five\n", 1), "line 9\n", "nine\n", 1)},
	{"no newline at end, changed", "a\nb\nc", "a\nb\nC"},
	{"no newline at end, kept", "a\nb\nc", "A\nb\nc"},
	{"newline added at end", "a\nb", "a\nb\n"},
	{"from empty", "", "package p\n"},
	{"to empty", "package p\n", ""},
}

// TestDiffRoundTrip: every diff made applies back to its new text, and
// git apply agrees with its hunk headers.
func TestDiffRoundTrip(t *testing.T) {
	git, _ := exec.LookPath("git")
	for _, tc := range diffCases {
		t.Run(tc.name, func(t *testing.T) {
			diff := Unified("dir/f.go", tc.old, tc.new)
			fps, err := Parse(diff)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, diff)
			}
			if len(fps) != 1 || fps[0].Path() != "dir/f.go" {
				t.Fatalf("parsed %d files (%v), want dir/f.go", len(fps), fps)
			}
			got, err := fps[0].Apply(tc.old)
			if err != nil {
				t.Fatalf("apply: %v\n%s", err, diff)
			}
			if got != tc.new {
				t.Errorf("round trip gave %q, want %q\n%s", got, tc.new, diff)
			}
			if git == "" {
				return
			}
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "dir"), 0o755)
			os.WriteFile(filepath.Join(dir, "dir", "f.go"), []byte(tc.old), 0o644)
			os.WriteFile(filepath.Join(dir, "fix.diff"), []byte(diff), 0o644)
			cmd := exec.Command(git, "apply", "--unidiff-zero", "fix.diff")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git apply rejects the diff: %v\n%s\n%s", err, out, diff)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "dir", "f.go"))
			if string(b) != tc.new {
				t.Errorf("git apply gave %q, want %q", b, tc.new)
			}
		})
	}
}

// TestDiffFormat pins the exact output for a one-line change.
func TestDiffFormat(t *testing.T) {
	got := Unified("a.go", numbered(20), strings.Replace(numbered(20), "line 10\n", "line ten\n", 1))
	want := `--- a/a.go
+++ b/a.go
@@ -7,7 +7,7 @@
 line 7
 line 8
 line 9
-line 10
+line ten
 line 11
 line 12
 line 13
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPatchMoved: a hunk whose lines moved (the file gained lines above
// it) still applies where its context matches.
func TestPatchMoved(t *testing.T) {
	old := numbered(30)
	diff := Unified("f", old, strings.Replace(old, "line 20\n", "twenty\n", 1))
	moved := "new 1\nnew 2\nnew 3\n" + old
	fps, err := Parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fps[0].Apply(moved)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(moved, "line 20\n", "twenty\n", 1); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPatchErrors: malformed diffs and context that does not match are
// PatchErrors that say where.
func TestPatchErrors(t *testing.T) {
	cases := []struct{ name, diff, want string }{
		{"no header", "change line 3", "no file header"},
		{"no hunk", "--- a/f\n+++ b/f\n", "no @@ hunk"},
		{"bad header", "--- a/f\n+++ b/f\n@@ -x +1 @@\n", "malformed hunk header"},
		{"short hunk", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+two\n", "ends after"},
		{"mismatch", "--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-line two\n+2\n", `hunk 1 of f: expected "line two" at line 2, found "line 2"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pe *PatchError
			fps, err := Parse(tc.diff)
			if err == nil {
				_, err = fps[0].Apply(numbered(5))
			}
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a PatchError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestCleanRel keeps patch paths inside the module.
func TestCleanRel(t *testing.T) {
	for p, ok := range map[string]bool{"a/b.go": true, "./a.go": true, "../a.go": false, "/etc/passwd": false, "a/../../b": false, ".": false} {
		if _, err := CleanRel(p); (err == nil) != ok {
			t.Errorf("CleanRel(%q) error %v, want ok=%v", p, err, ok)
		}
	}
}
