package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adi-go/adi/engine/instrument"
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

// TestInlineTreesOncePerBuild: an instrumented build's inline trees are
// read with the build, once, and the builder of every recording of it uses
// them: a builder that read them itself spent tens of milliseconds of a
// test binary's recording on it while the target ran ahead (errgroup's
// tests: 98% of their records read after the run).
func TestInlineTreesOncePerBuild(t *testing.T) {
	inst, prog := buildFib(t)
	in := inst.in
	// BuildInstrumented returns once they are read.
	trees := in.inl
	if trees == nil {
		t.Fatal("the build's inline trees are not read")
	}
	for i := 0; i < 2; i++ {
		f := writeRecords(t, in, prog.Args, prog.Dir, t.TempDir())
		tf, err := instrument.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := newBuilder(in, DefaultLimits, in.symbols, tf, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.inl(); got != trees {
			t.Errorf("recording %d: the builder's inline trees are %p, not the build's %p", i+1, got, trees)
		}
		tf.Close()
		f.Close()
	}
}
