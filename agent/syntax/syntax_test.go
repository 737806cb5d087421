package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverlay: a file the overlay replaces is read from its replacement,
// under its own path; one it deletes is not there.
func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.go", "package p\n\nfunc A() int { return 1 }\n")
	alt := write("a.txt", "package p\n\n// A, as it ran.\nfunc A() int { return 2 }\n")
	b := write("b.go", "package p\n")

	c := NewCache()
	c.Overlay(map[string]string{a: alt, b: ""})
	f, err := c.File(a)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != a || f.LineText(4) != "func A() int { return 2 }" {
		t.Errorf("a.go: path %s, line 4 %q; want a.go with the replacement's line", f.Path, f.LineText(4))
	}
	if _, err := c.File(b); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "-overlay") {
		t.Errorf("b.go, deleted by the overlay: %v", err)
	}
	if f, err := NewCache().File(a); err != nil || f.LineText(3) != "func A() int { return 1 }" {
		t.Errorf("without the overlay, a.go line 3: %q, %v", f.LineText(3), err)
	}
}
