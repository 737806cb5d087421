//go:build linux && amd64

package adirt

import (
	"os"
	"testing"
)

func fibPlain(n int) int {
	if n < 2 {
		return n
	}
	return fibPlain(n-1) + fibPlain(n-2)
}

// fibHooked is fibPlain as the instrumenter rewrites it.
func fibHooked(n int) (r int) {
	h := E1(1, &n)
	defer X1(h, &r)
	if n < 2 {
		return n
	}
	return fibHooked(n-1) + fibHooked(n-2)
}

func startRecording(t testing.TB) {
	dir := t.TempDir()
	if d := os.Getenv("ADI_RECORD_DIR"); d != "" {
		dir = d
	}
	f, err := os.CreateTemp(dir, "records")
	if err != nil {
		t.Fatal(err)
	}
	file, enabled = f, true
	t.Cleanup(func() { enabled = false; f.Close(); os.Remove(f.Name()) })
}

// BenchmarkHooks measures the cost of the hooks per call of a recursive
// function: ns/op is per fib(20) (21,891 calls).
//
//	go test ./engine/instrument/rt -bench Hooks
func BenchmarkHooks(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fibPlain(20)
		}
	})
	b.Run("hooked", func(b *testing.B) {
		startRecording(b)
		for i := 0; i < b.N; i++ {
			fibHooked(20)
		}
	})
}

func TestHooksRecord(t *testing.T) {
	startRecording(t)
	before := seq.Load()
	if fibHooked(5) != 5 {
		t.Fatal("fib(5)")
	}
	// 15 calls: an entry and an exit each, plus the goroutine's record.
	if n := seq.Load() - before; n != 31 {
		t.Fatalf("%d records, want 31", n)
	}
}
