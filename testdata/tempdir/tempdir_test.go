package tempdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := CountLines(path)
	if err != nil || n != 3 {
		t.Errorf("CountLines(%s) = %d, %v, want 3", path, n, err)
	}
}
