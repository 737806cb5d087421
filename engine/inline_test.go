package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadInlineTreesBadInput: a file that is not a Go binary gives an
// error that says why; the builder then keeps the inlined code's line.
// (The differential test checks the trees of a real binary: libpanic's
// fmt.Println.)
func TestLoadInlineTreesBadInput(t *testing.T) {
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("not a binary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{text, "reading the inline trees of " + text},
		{"/bin/true", "no .gopclntab or .text section"},
		{filepath.Join(t.TempDir(), "missing"), "no such file"},
	} {
		if _, err := os.Stat("/bin/true"); c.path == "/bin/true" && err != nil {
			continue
		}
		if _, err := loadInlineTrees(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.path, err, c.want)
		}
	}
}
