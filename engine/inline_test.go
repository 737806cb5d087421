package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/trace"
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

// TestPCSymsOncePerBuild: what the binary's tables say of a PC is looked
// up by the first recording that meets it, and found by the next ones.
func TestPCSymsOncePerBuild(t *testing.T) {
	inst, prog := buildFib(t)
	in := inst.in
	var sites []trace.Pos
	for i := 0; i < 2; i++ {
		rec, err := inst.Record(context.Background(), prog, RecordOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in.pcs.mu.Lock()
		looked, fns, calls := in.pcs.looked, len(in.pcs.fns), len(in.pcs.calls)
		in.pcs.mu.Unlock()
		if fns == 0 || calls == 0 {
			t.Fatalf("recording %d: the build knows %d functions and %d calls, want some", i+1, fns, calls)
		}
		if looked != fns+calls {
			t.Errorf("recording %d: %d lookups in the tables for %d PCs", i+1, looked, fns+calls)
		}
		// fib#2 is called by fib#1, at fib(n-1) + fib(n-2).
		sites = append(sites, rec.CallSiteOf(2))
	}
	for i, p := range sites {
		if filepath.Base(p.File) != "main.go" || p.Line != 16 {
			t.Errorf("recording %d: fib#2 was called at %v, want main.go:16", i+1, p)
		}
	}
}
