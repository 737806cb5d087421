package target

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSplitOverlay: the target's -overlay, in either form, is split off its
// build flags and read with its paths made absolute.
func TestSplitOverlay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ov.json"), []byte(`{"Replace": {"a.go": "b.txt", "/abs/c.go": ""}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{filepath.Join(dir, "a.go"): filepath.Join(dir, "b.txt"), "/abs/c.go": ""}
	for _, flags := range [][]string{
		{"-tags=x", "-overlay=ov.json", "-race"},
		{"-tags=x", "-overlay", "ov.json", "-race"},
		{"-tags=x", "--overlay=" + filepath.Join(dir, "ov.json"), "-race"},
	} {
		rest, replace, err := SplitOverlay(flags, dir)
		if err != nil {
			t.Fatalf("%q: %v", flags, err)
		}
		if !reflect.DeepEqual(rest, []string{"-tags=x", "-race"}) || !reflect.DeepEqual(replace, want) {
			t.Errorf("%q: flags %q, replacements %v", flags, rest, replace)
		}
	}
	if _, _, err := SplitOverlay([]string{"-overlay=missing.json"}, dir); err == nil || !strings.Contains(err.Error(), "reading the target's -overlay") {
		t.Errorf("a missing overlay: %v", err)
	}
	if rest, replace, err := SplitOverlay([]string{"-v"}, dir); err != nil || replace != nil || !reflect.DeepEqual(rest, []string{"-v"}) {
		t.Errorf("no overlay: %q %v %v", rest, replace, err)
	}
}

// TestCutOverlay: every -overlay flag goes but adi's own, and the path
// the last one named is returned.
func TestCutOverlay(t *testing.T) {
	args := []string{"go", "test", "-overlay=/tmp/adi.json", "-count=1", "-overlay", "a.json", "./pkg", "--overlay=b.json", "-run", "X"}
	rest, path := CutOverlay(args, "-overlay=/tmp/adi.json")
	if want := []string{"go", "test", "-overlay=/tmp/adi.json", "-count=1", "./pkg", "-run", "X"}; !reflect.DeepEqual(rest, want) || path != "b.json" {
		t.Errorf("CutOverlay = %q, %q; want %q, b.json", rest, path, want)
	}
}
