package trace

import (
	"testing"
	"time"
)

// BenchmarkBuildOffHeap builds, as the instrumenting recorder does, an
// index off the heap of fib(27)'s 635,621 frames (a binary tree of calls),
// from room for 16,384 frames: ns/op is per recording, enter-ms the time
// the rows were added in, index-ms the time of Index after them (its
// callee and per-function lists).
//
//	go test ./engine/trace -run '^$' -bench BuildOffHeap -benchtime 5x
func BenchmarkBuildOffHeap(b *testing.B) {
	var enter, index time.Duration
	for range b.N {
		r := &Recording{}
		if err := r.OffHeap(16<<10, 32<<10, 0); err != nil {
			b.Fatal(err)
		}
		fn := r.FuncID("main.fib", Pos{File: "/src/main.go", Line: 12})
		start := time.Now()
		seq := uint64(0)
		var fib func(n, parent int)
		fib = func(n, parent int) {
			seq++
			at := r.Enter(&Entry{Func: fn, Index: int(seq), Parent: parent, Goroutine: 1, EntrySeq: seq})
			if n >= 2 {
				fib(n-1, at)
				fib(n-2, at)
			}
			seq++
			r.SetExit(at, Returned, seq)
		}
		fib(27, -1)
		mid := time.Now()
		r.Index()
		enter += mid.Sub(start)
		index += time.Since(mid)
		if k := r.Children(0); len(k) != 2 {
			b.Fatalf("fib#1 has %d callees", len(k))
		}
	}
	b.ReportMetric(float64(enter.Milliseconds())/float64(b.N), "enter-ms")
	b.ReportMetric(float64(index.Microseconds())/1000/float64(b.N), "index-ms")
}
