package adapter_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/engine/trace"
)

// BenchmarkFirstStop measures what a person waits for: the time from
// initialize to the first stopped event, with the real engine, in process
// (the go build cache is warm after the first iteration): initialize,
// launch (build and record), configurationDone, stopped.
//
//	go test ./adapter -run '^$' -bench FirstStop
func BenchmarkFirstStop(b *testing.B) {
	for _, bc := range []struct {
		name   string
		launch func(b *testing.B) map[string]any
	}{
		{"nilmap-run", func(b *testing.B) map[string]any {
			return map[string]any{"mode": "run", "program": fixture(b, "nilmap")}
		}},
		{"nilptr-test", func(b *testing.B) map[string]any {
			return map[string]any{"mode": "test", "program": fixture(b, "nilptr"), "testRun": "TestGreetings"}
		}},
		{"fib10-exec", func(b *testing.B) map[string]any {
			return map[string]any{"mode": "exec", "program": fibBinary(b), "args": []string{"10"}}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := bc.launch(b)
			var total time.Duration
			for b.Loop() {
				c := pipeSession(b, &adapter.Server{})
				start := time.Now()
				c.Request("initialize", map[string]any{"adapterID": "adi"})
				c.Request("launch", args)
				c.Request("configurationDone", nil)
				c.Stopped()
				total += time.Since(start)
				c.Request("disconnect", nil)
				c.Ended(30 * time.Second)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-stop")
		})
	}
}

// BenchmarkNavigation100k measures the latency, seen by a DAP client, of
// continue, reverseContinue and stackTrace on a recording of 100,003
// frames: main.main#1 calling main.first, then 100 recursions of main.walk
// 1,000 deep (each ending in main.leaf), then main.last.
//
// Recording that many frames under Delve takes minutes, so the recording
// is synthetic and served by fakeDebuggee: B and T are a real
// engine.Session's, but the engine builds an FLT by re-executing the
// program, which a synthetic recording cannot, and its continue and prev
// build the FLT of the frame they reach; so the fake keeps its own
// inspection index and re-implements continue and prev over it (the same
// linear scan of T for the next or previous frame matching B as
// engine.Session.move) and answers every FLT with a small fixed trace.
// The figures are the adapter's cost plus that scan, without FLT building
// (a cache hit in the engine once a frame has been visited).
//
// "sparse": B = {main.first, main.last}: continue and reverseContinue
// cross the whole recording. "dense": B = {main.leaf}: they move between
// neighbouring leaves, 1,000 frames apart and 1,000 deep, where
// stackTrace returns 20 frames (levels 20, as VS Code asks first) or all
// 1,002.
//
//	go test ./adapter -run '^$' -bench Navigation100k
func BenchmarkNavigation100k(b *testing.B) {
	rec := chainRecording(100, 1000)
	for _, bc := range []struct {
		name  string
		funcs []string
		from  string // where the cycle starts
	}{
		{"sparse", []string{"main.first", "main.last"}, "main.first#1"},
		{"dense", []string{"main.leaf"}, "main.leaf#50"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opener := &fakeOpener{rec: func() *trace.Recording { return rec }}
			c := pipeSession(b, &adapter.Server{Open: opener.Open})
			c.Request("initialize", map[string]any{"adapterID": "adi"})
			c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
			var bps []map[string]any
			for _, fn := range bc.funcs {
				bps = append(bps, map[string]any{"name": fn})
			}
			c.Request("setFunctionBreakpoints", map[string]any{"breakpoints": bps})
			c.Request("configurationDone", nil)
			c.Stopped()
			_, st := c.Navigate("adi/stepInto", map[string]any{"fid": bc.from})
			th := st.ThreadId

			var cont, rev, stack20, stackAll time.Duration
			for b.Loop() {
				t0 := time.Now()
				st := c.Step("continue", th)
				cont += time.Since(t0)
				if st.Reason != "function breakpoint" {
					b.Fatalf("continue: %+v", st)
				}
				t0 = time.Now()
				c.Request("stackTrace", map[string]any{"threadId": th, "levels": 20})
				stack20 += time.Since(t0)
				t0 = time.Now()
				c.Request("stackTrace", map[string]any{"threadId": th})
				stackAll += time.Since(t0)
				t0 = time.Now()
				st = c.Step("reverseContinue", th)
				rev += time.Since(t0)
				if st.Reason != "function breakpoint" || st.Description != bc.from {
					b.Fatalf("reverseContinue: %+v", st)
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
			b.ReportMetric(per(cont), "ns/continue")
			b.ReportMetric(per(rev), "ns/reverseContinue")
			b.ReportMetric(per(stack20), "ns/stackTrace20")
			b.ReportMetric(per(stackAll), "ns/stackTraceAll")
			c.Request("disconnect", nil)
		})
	}
}

// BenchmarkSetFunctionBreakpoints100k is the cost of setting B on the
// same recording: each breakpoint counts its matching frames.
func BenchmarkSetFunctionBreakpoints100k(b *testing.B) {
	rec := chainRecording(100, 1000)
	opener := &fakeOpener{rec: func() *trace.Recording { return rec }}
	c := pipeSession(b, &adapter.Server{Open: opener.Open})
	c.Request("initialize", map[string]any{"adapterID": "adi"})
	c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
	for i := 0; b.Loop(); i++ {
		c.Request("setFunctionBreakpoints", map[string]any{"breakpoints": []any{
			map[string]any{"name": "main.walk", "condition": fmt.Sprintf("depth == %d", i%1000)},
		}})
	}
	c.Request("disconnect", nil)
}
