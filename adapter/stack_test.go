package adapter_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/engine/trace"
)

// deepRecording is main.main#1 calling main.deep `depth` deep, each frame
// with a long argument and a long file name: its stack, in one message, is
// well over go-dap's 4 MiB.
func deepRecording(depth int) *trace.Recording {
	var fs []*trace.Frame
	counts := map[string]int{}
	long := strings.Repeat("x", 200)
	caller := newFrame(&fs, counts, "main.main", trace.FID{}, 10)
	for i := range depth {
		caller = newFrame(&fs, counts, "main.deep", caller, 20,
			intValue("n", i), trace.Value{Name: "s", Type: "string", Kind: trace.KindString, Text: `"` + long + `"`})
	}
	file := "/src/" + strings.Repeat("very-long-directory-name/", 8) + "main.go"
	for _, f := range fs {
		f.Decl.File = file
		if f.CallSite.File != "" {
			f.CallSite.File = file
		}
	}
	return trace.NewRecording(fs...)
}

// Responses larger than a DAP message are paged or cut, never dropped.
func TestLargeResponses(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	const depth = 20000
	t.Run("deep stack", func(t *testing.T) {
		// A stackTrace request without "levels" on a 20,001-frame stack (an 8 MB
		// response) is rejected with "response too large: … ask for less (page
		// the request)"; the issue wants such responses paged or cut, never
		// rejected: the frames that fit, with totalFrames 20001, so that the
		// client pages through the rest.
		opener := &fakeOpener{rec: func() *trace.Recording { return deepRecording(depth) }}
		c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
		c.Timeout = 20 * time.Second
		initialize(t, c.Client, false)
		c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
		c.Request("configurationDone", nil)
		c.Stopped()
		_, st := c.Navigate("adi/stepInto", map[string]any{"fid": "main.deep#20000"})
		var b struct {
			StackFrames []struct {
				Name string `json:"name"`
			} `json:"stackFrames"`
			TotalFrames int `json:"totalFrames"`
		}
		c.Client.Decode(c.Request("stackTrace", map[string]any{"threadId": st.ThreadId, "levels": 20}), &b)
		if len(b.StackFrames) != 20 || b.TotalFrames != depth+1 || !strings.HasPrefix(b.StackFrames[0].Name, "main.deep#20000(") {
			t.Errorf("stackTrace levels 20: %d frames of %d, first %v; want 20 of %d", len(b.StackFrames), b.TotalFrames, b.StackFrames[:min(1, len(b.StackFrames))], depth+1)
		}
		c.Client.Decode(c.Request("stackTrace", map[string]any{"threadId": st.ThreadId, "startFrame": depth - 5, "levels": 20}), &b)
		if len(b.StackFrames) != 6 || b.StackFrames[5].Name != "main.main#1()" {
			t.Errorf("stackTrace from frame %d: %d frames, want the last 6", depth-5, len(b.StackFrames))
		}
		m, _ := c.Response(c.Send("stackTrace", map[string]any{"threadId": st.ThreadId}))
		if !m.Success || len(m.Raw) > 4<<20 {
			t.Errorf("stackTrace of all frames: success=%v %q, %d bytes", m.Success, m.ErrorText(), len(m.Raw))
		}
		c.Client.Decode(m, &b)
		if b.TotalFrames != depth+1 || len(b.StackFrames) == 0 {
			t.Errorf("stackTrace of all frames: %d frames, totalFrames %d; want some frames of %d", len(b.StackFrames), b.TotalFrames, depth+1)
		}
		disconnect(t, c)
	})
	t.Run("large answers", func(t *testing.T) {
		opener := &fakeOpener{rec: func() *trace.Recording { return chainRecording(100, 1000) }}
		c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
		c.Timeout = time.Minute
		initialize(t, c.Client, false)
		c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
		c.Request("configurationDone", nil)
		c.Stopped()
		for _, r := range []struct {
			command string
			args    map[string]any
		}{
			{"adi/callTree", map[string]any{"fid": "main.main#1", "depth": 2000}},
			{"adi/frames", map[string]any{"func": "main.walk"}},
		} {
			m, _ := c.Response(c.Send(r.command, r.args))
			if !m.Success {
				t.Errorf("%s: %s", r.command, m.ErrorText())
				continue
			}
			b := c.Body(m)
			note, _ := b["note"].(string)
			if text, _ := b["text"].(string); b["truncated"] != true || text == "" || !strings.Contains(note, "over the DAP message limit") {
				t.Errorf("%s: %d bytes, truncated=%v, note %q: want the text, cut, with a marker", r.command, len(m.Raw), b["truncated"], note)
			}
		}
		disconnect(t, c)
	})
}

// A line breakpoint names its file as the client does.
//
// SetBreakpoints compares the client's path with the recorded file name as
// strings: a path that is not clean
// (/work/main/testdata/nilmap/../nilmap/main.go) is "main.(*Registry).Add
// (around line 24) never ran in the recorded run", unverified, though the
// source is found and the function ran. Paths should be compared cleaned
// (and, better, after resolving symlinks).
func TestLineBreakpointPathNotClean(t *testing.T) {
	dir := fixture(t, "nilmap")
	c := pipeSession(t, nil)
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "run", "program": dir}, false, "loading services")
	path := filepath.Join(dir, "..", "nilmap") + "/../nilmap/main.go"
	lbs := setBreakpoints(t, c.Client, path, 24)
	wantBreakpoint(t, path+":24", lbs[0], true, "in main.(*Registry).Add: 1 matching frame")
	disconnect(t, c)
}

// A stack frame's source is in its own function, also for a test function
// that ran a subtest: t.Run spawns the subtest's goroutine inside the
// testing package, and the frame must be shown at its t.Run line, not at
// the go statement in testing.go.
func TestSpawnedFrameSource(t *testing.T) {
	const pkg = "github.com/adi-go/adi/testdata/tabletest."
	dir := fixture(t, "tabletest")
	c := pipeSession(t, nil)
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "test", "program": dir, "testRun": "TestFormatSize/exactly_1KiB"}, false, "--- FAIL")
	c.Request("configurationDone", nil)
	c.Stopped()
	_, st := c.Navigate("adi/stepInto", map[string]any{"fid": pkg + "FormatSize#1"})
	stack := c.StackTrace(st.ThreadId)
	for _, f := range stack {
		if f.Source == nil || filepath.Dir(f.Source.Path) != dir {
			path := ""
			if f.Source != nil {
				path = f.Source.Path
			}
			t.Errorf("frame %s is shown at %s:%d, outside testdata/tabletest", f.Name, path, f.Line)
		}
	}
	disconnect(t, c)
}
