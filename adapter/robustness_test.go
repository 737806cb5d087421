package adapter_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/adapter/daptest"
)

// Malformed input, requests out of order, failed launches and clients that
// vanish: each gets an error response or a clean close, never a crash, the
// server goes on serving other sessions, and no process of the session
// remains.

// frameMsg frames a message body as DAP does.
func frameMsg(body string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// server opens sessions on one server of some kind.
type server struct {
	name string
	dial func(t *testing.T) *conn
}

// servers are an in-process Server (srv; nil for a default one), `adi dap`
// (a process per session) and one `adi dap --listen` shared by the
// sessions of the test.
func servers(t *testing.T, srv *adapter.Server) []server {
	if srv == nil {
		srv = &adapter.Server{Log: testLogger(t)}
	}
	tcp := startTCPServer(t)
	return []server{
		{"pipe", func(t *testing.T) *conn { return pipeSession(t, srv) }},
		{"stdio", func(t *testing.T) *conn { return stdioSession(t, nil) }},
		{"tcp", tcp.dial},
	}
}

// stillServes checks that the server answers a new session.
func stillServes(t *testing.T, s server) {
	t.Helper()
	c := s.dial(t)
	initialize(t, c.Client, false)
	disconnect(t, c)
}

func TestMalformedFraming(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		// output: the server says why it closes, in an output event.
		output bool
	}{
		{"missing Content-Length", "Content-Type: application/json\r\n\r\n{}", true},
		{"no header", `{"seq":2,"type":"request","command":"threads"}` + "\r\n\r\n", true},
		{"body over 4 MiB", "Content-Length: 4194305\r\n\r\n", true},
		{"body of 1 TiB", "Content-Length: 1099511627776\r\n\r\n", true},
		{"bad delimiter", "Content-Length: 2\r\nX\r\n{}", true},
		{"length out of range", "Content-Length: 99999999999999999999\r\n\r\n", false},
	}
	for _, s := range servers(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					c := s.dial(t)
					initialize(t, c.Client, false)
					c.SendRaw([]byte(tc.raw))
					msgs, closed := c.Drain(10 * time.Second)
					if !closed {
						t.Fatalf("the connection is still open 10s after %q\n%s", tc.raw, c.Traffic())
					}
					said := false
					for _, m := range msgs {
						said = said || m.Event == "output" && strings.Contains(string(m.Body), "malformed DAP message")
					}
					if tc.output && !said {
						t.Errorf("no output event saying why the connection closed\n%s", c.Traffic())
					}
					if !c.Ended(30 * time.Second) {
						t.Errorf("the session did not end")
					}
				})
			}
			stillServes(t, s)
		})
	}
}

// answered sends a raw message and waits for the response to seq.
func answered(t *testing.T, c *daptest.Client, seq int, body string) daptest.Msg {
	t.Helper()
	c.SendRaw(frameMsg(body))
	m, ok := c.Expect(10*time.Second, func(m daptest.Msg) bool { return m.Type == "response" && m.RequestSeq == seq })
	if !ok {
		t.Fatalf("no response to %s\n%s", body, c.Traffic())
	}
	return m
}

// alive checks that the session still answers.
func alive(t *testing.T, c *daptest.Client, after string) {
	t.Helper()
	if m, _ := c.Response(c.Send("threads", nil)); !m.Success {
		t.Errorf("after %s, threads failed: %s", after, m.ErrorText())
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	opener := &fakeOpener{rec: smallRecording}
	srv := &adapter.Server{Open: opener.Open, Log: testLogger(t)}
	c := pipeSession(t, srv)
	initialize(t, c.Client, false)

	raw := []struct {
		name, body, want string
	}{
		{"wrong argument types", `{"seq":100,"type":"request","command":"stackTrace","arguments":{"threadId":"one","levels":true}}`, "threadId"},
		{"arguments not an object", `{"seq":101,"type":"request","command":"setBreakpoints","arguments":5}`, "SetBreakpointsRequest.arguments"},
		{"unknown command", `{"seq":102,"type":"request","command":"fooBar","arguments":{}}`, `"fooBar"`},
		{"unknown adi command", `{"seq":103,"type":"request","command":"adi/fooBar"}`, `"adi/fooBar"`},
		{"no command", `{"seq":104,"type":"request"}`, "request"},
		{"launch arguments of the wrong types", `{"seq":105,"type":"request","command":"launch","arguments":{"mode":7,"program":["x"]}}`, "launch arguments are not valid"},
		{"custom arguments of the wrong types", `{"seq":106,"type":"request","command":"adi/callTree","arguments":{"depth":"deep"}}`, "send launch first"},
	}
	for _, tc := range raw {
		m := answered(t, c.Client, seqOf(tc.body), tc.body)
		if m.Success || !strings.Contains(m.ErrorText(), tc.want) {
			t.Errorf("%s: success=%v %q, want an error containing %q", tc.name, m.Success, m.ErrorText(), tc.want)
		}
		alive(t, c.Client, tc.name)
	}

	for _, tc := range []struct {
		name    string
		command string
		args    map[string]any
		want    string
	}{
		{"attach", "attach", map[string]any{}, "use launch"},
		{"launch without program", "launch", map[string]any{"mode": "run"}, `"program"`},
		{"launch of an unknown mode", "launch", map[string]any{"mode": "debug", "program": "."}, `unknown mode "debug"`},
		{"exec with build flags", "launch", map[string]any{"mode": "exec", "program": "/bin/true", "buildFlags": []string{"-race"}}, "buildFlags"},
	} {
		fails(t, c.Client, tc.command, tc.args, tc.want)
		alive(t, c.Client, tc.name)
	}
	if n := len(opener.opened); n != 0 {
		t.Errorf("%d debuggees opened by failed launches", n)
	}

	// With a debuggee.
	c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
	c.Request("configurationDone", nil)
	c.Stopped()
	m := answered(t, c.Client, 200, `{"seq":200,"type":"request","command":"adi/callTree","arguments":{"depth":"deep"}}`)
	if m.Success || !strings.Contains(m.ErrorText(), "bad arguments") {
		t.Errorf("adi/callTree with depth \"deep\": success=%v %q", m.Success, m.ErrorText())
	}
	for _, tc := range []struct {
		command string
		args    map[string]any
		want    string
	}{
		{"launch", map[string]any{"mode": "run", "program": "/fake"}, "already being debugged"},
		{"adi/frame", map[string]any{"fid": "nosuch"}, "malformed frame id"},
		{"adi/frame", map[string]any{"fid": "main.nosuch#1"}, "never invoked"},
		{"adi/stepInto", map[string]any{}, `"fid"`},
		{"adi/execute", map[string]any{"fid": "main.load#1"}, `"line"`},
		{"adi/frames", map[string]any{}, `"func"`},
		{"adi/break", map[string]any{"func": "main.nosuch"}, "main.nosuch"},
		{"adi/clear", map[string]any{"func": "main.load"}, "no breakpoint main.load"},
		{"scopes", map[string]any{"frameId": 0}, "no frame with id 0"},
		{"scopes", map[string]any{"frameId": 1 << 40}, "no frame with id"},
		{"variables", map[string]any{"variablesReference": 12345}, "unknown variables reference"},
		{"evaluate", map[string]any{"expression": "", "context": "hover"}, "evaluate"},
		{"source", map[string]any{}, "source"},
		{"stackTrace", map[string]any{"threadId": 1, "startFrame": -5, "levels": -1}, ""},
	} {
		m, _ := c.Response(c.Send(tc.command, tc.args))
		if tc.want == "" {
			if !m.Success {
				t.Errorf("%s %v: %s, want success", tc.command, tc.args, m.ErrorText())
			}
			continue
		}
		if m.Success || !strings.Contains(m.ErrorText(), tc.want) {
			t.Errorf("%s %v: success=%v %q, want an error containing %q", tc.command, tc.args, m.Success, m.ErrorText(), tc.want)
		}
		alive(t, c.Client, tc.command)
	}
	disconnect(t, c)
	if n := opener.unclosed(); n != 0 {
		t.Errorf("%d debuggees not closed after disconnect", n)
	}
}

// seqOf reads the seq of a raw message.
func seqOf(body string) int {
	var seq int
	fmt.Sscanf(body[strings.Index(body, `"seq":`)+6:], "%d", &seq)
	return seq
}

// A request whose JSON does not parse cannot be answered by seq, but the
// client must learn that it was rejected: an error response (with the seq
// when it can be read) or a clean close.
//
// A message whose JSON does not decode, or whose protocol fields (seq,
// type) have the wrong types, is only logged: the client gets neither an
// error response nor a closed connection and waits forever for the response
// to its request.
func TestBadJSONIsAnswered(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	for _, body := range []string{
		`{"seq":7,"type":"request","command":`,
		`[1,2,3]`,
		`{"seq":"seven","type":"request","command":"threads"}`,
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			c := pipeSession(t, nil)
			initialize(t, c.Client, false)
			c.SendRaw(frameMsg(body))
			m, ok := c.Expect(3*time.Second, func(m daptest.Msg) bool { return m.Type == "response" })
			switch {
			case ok && m.Success:
				t.Errorf("%s: a successful response", body)
			case !ok && !c.Ended(time.Second):
				t.Errorf("%s: no error response and the connection is still open 3s later\n%s", body, c.Traffic())
			}
		})
	}
}

func TestRequestsBeforeLaunch(t *testing.T) {
	const want = "no program is being debugged yet: send launch first"
	reqs := []struct {
		command string
		args    map[string]any
	}{
		{"configurationDone", nil},
		{"setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "main.main"}}}},
		{"setBreakpoints", map[string]any{"source": map[string]any{"path": "/x/main.go"}, "breakpoints": []any{map[string]any{"line": 3}}}},
		{"stackTrace", map[string]any{"threadId": 1}},
		{"scopes", map[string]any{"frameId": 1}},
		{"variables", map[string]any{"variablesReference": 1}},
		{"evaluate", map[string]any{"expression": "x"}},
		{"exceptionInfo", map[string]any{"threadId": 1}},
		{"continue", map[string]any{"threadId": 1}},
		{"reverseContinue", map[string]any{"threadId": 1}},
		{"next", map[string]any{"threadId": 1}},
		{"stepBack", map[string]any{"threadId": 1}},
		{"stepIn", map[string]any{"threadId": 1}},
		{"stepOut", map[string]any{"threadId": 1}},
		{"adi/frame", nil},
		{"adi/callTree", map[string]any{"depth": 2}},
		{"adi/continue", nil},
		{"adi/outcome", nil},
	}
	for _, s := range servers(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			c := s.dial(t)
			initialize(t, c.Client, false)
			// Clients ask for threads eagerly: before launch there are
			// none.
			var threads struct {
				Threads []any `json:"threads"`
			}
			c.Client.Decode(c.Request("threads", nil), &threads)
			if threads.Threads == nil || len(threads.Threads) != 0 {
				t.Errorf("threads before launch: %v, want []", threads.Threads)
			}
			for _, r := range reqs {
				msg := c.Fails(r.command, r.args)
				if !strings.Contains(msg, want) || !strings.HasPrefix(msg, r.command+" failed: ") {
					t.Errorf("%s before launch: %q, want %q", r.command, msg, r.command+" failed: "+want)
				}
			}
			c.Request("pause", map[string]any{"threadId": 1})
			disconnect(t, c)
		})
	}
}

func TestRequestsAfterTerminate(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	opener := &fakeOpener{rec: smallRecording}
	c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
	initialize(t, c.Client, false)
	c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
	c.Request("configurationDone", nil)
	st := c.Stopped()
	m, _ := c.Response(c.Send("terminate", nil))
	if !m.Success {
		t.Fatalf("terminate: %s", m.ErrorText())
	}
	c.Event("terminated")
	if n := opener.unclosed(); n != 0 {
		t.Errorf("terminate left the debuggee open")
	}
	const want = "the debug session has ended"
	for _, r := range []struct {
		command string
		args    map[string]any
	}{
		{"stackTrace", map[string]any{"threadId": st.ThreadId}},
		{"threads", nil},
		{"scopes", map[string]any{"frameId": 1}},
		{"variables", map[string]any{"variablesReference": 1}},
		{"evaluate", map[string]any{"expression": "i"}},
		{"continue", map[string]any{"threadId": st.ThreadId}},
		{"stepBack", map[string]any{"threadId": st.ThreadId}},
		{"setFunctionBreakpoints", map[string]any{"breakpoints": []any{}}},
		{"configurationDone", nil},
		{"adi/frame", nil},
		{"adi/outcome", nil},
	} {
		fails(t, c.Client, r.command, r.args, want)
	}
	// terminate twice is harmless.
	c.Request("terminate", nil)
	disconnect(t, c)
}

// After terminate the session says "launch again to debug".
//
// A launch after terminate builds and records the whole program, then
// closes it and fails with "the debug session has ended: launch again to
// debug" — the very thing it just did. It should either debug the new
// launch or refuse at once, without recording, in words that do not ask for
// another launch.
func TestLaunchAfterTerminate(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	opener := &fakeOpener{rec: smallRecording}
	c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
	initialize(t, c.Client, false)
	c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
	c.Request("configurationDone", nil)
	c.Stopped()
	c.Request("terminate", nil)
	c.Event("terminated")
	m, _ := c.Response(c.Send("launch", map[string]any{"mode": "run", "program": "/fake"}))
	if !m.Success {
		if strings.Contains(m.ErrorText(), "launch again") {
			t.Errorf("launch after terminate fails with %q: it asks for what was just done", m.ErrorText())
		}
		if len(opener.opened) > 1 {
			t.Errorf("launch after terminate recorded the program (%d recordings) and then refused it", len(opener.opened))
		}
	}
	disconnect(t, c)
	if n := opener.unclosed(); n != 0 {
		t.Errorf("%d debuggees left open", n)
	}
}

func TestLaunchBuildFailure(t *testing.T) {
	broken := fixture(t, "broken")
	for _, tr := range transports[:2] {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.start(t, nil)
			progress := tr.name == "pipe"
			initialize(t, c.Client, progress)
			m, events := c.Response(c.Send("launch", map[string]any{"mode": "test", "program": broken}))
			if m.Success {
				t.Fatalf("launch of testdata/broken succeeded")
			}
			msg := m.ErrorText()
			for _, want := range []string{"launch failed: ", "broken.go:9:30: undefined: suffix", `broken.go:15:6: cannot use "len"`} {
				if !strings.Contains(msg, want) {
					t.Errorf("launch error %q does not contain %q", msg, want)
				}
			}
			if progress {
				ended := false
				for _, e := range events {
					ended = ended || e.Event == "progressEnd" && strings.Contains(string(e.Body), `"failed"`)
				}
				if !ended {
					t.Errorf("no progressEnd saying the launch failed")
				}
			}
			fails(t, c.Client, "stackTrace", map[string]any{"threadId": 1}, "send launch first")
			if tr.name == "pipe" {
				// The session is still usable: launch something that builds.
				launch(t, c.Client, map[string]any{"mode": "run", "program": fixture(t, "nilmap")}, progress, "loading services")
				c.Request("configurationDone", nil)
				wantStop(t, "after a failed launch", c.Stopped(), "exception", "panic: assignment to entry in nil map")
			}
			disconnect(t, c)
		})
	}
	noTargetProcesses(t, 10*time.Second)
}

func TestClientVanishes(t *testing.T) {
	dirs := buildDirs()
	spin := fixture(t, "spin")
	nilmap := fixture(t, "nilmap")
	// waitOutput waits for the program's output to contain s.
	waitOutput := func(t *testing.T, c *conn, s string) {
		t.Helper()
		if _, ok := c.Expect(time.Minute, func(m daptest.Msg) bool {
			var b dap.OutputEventBody
			return m.Event == "output" && m.Decode(&b) == nil && strings.Contains(b.Output, s)
		}); !ok {
			t.Fatalf("no output %q\n%s", s, c.Traffic())
		}
	}
	// running checks that a target of these tests runs: the scan sees it.
	running := func(t *testing.T) {
		t.Helper()
		if len(targetProcesses(t)) == 0 {
			t.Errorf("no target process found while one runs: the scan for orphans would see none either")
		}
	}
	cases := []struct {
		name string
		run  func(t *testing.T, c *conn)
	}{
		{"during the build", func(t *testing.T, c *conn) {
			c.Send("launch", map[string]any{"mode": "run", "program": nilmap, "buildFlags": []string{"-a"}})
			c.Event("progressUpdate")
			time.Sleep(200 * time.Millisecond)
			c.Kill()
		}},
		{"during the recording", func(t *testing.T, c *conn) {
			c.Send("launch", map[string]any{"mode": "run", "program": spin, "timeout": 60})
			waitOutput(t, c, "waiting, tick 1\n")
			running(t)
			c.Kill()
		}},
		{"after stopping", func(t *testing.T, c *conn) {
			launch(t, c.Client, map[string]any{"mode": "run", "program": nilmap}, true, "loading services")
			c.Request("configurationDone", nil)
			c.Stopped()
			c.Kill()
		}},
		{"during a re-execution", func(t *testing.T, c *conn) {
			// spin's main never returns: the trace of main.main#1, which
			// the stop after configurationDone needs, re-executes it
			// until the exec timeout.
			launch(t, c.Client, map[string]any{"mode": "run", "program": spin, "timeout": 1, "execTimeout": 60}, true, "spin: starting")
			c.Request("configurationDone", nil)
			time.Sleep(time.Second)
			running(t)
			c.Kill()
		}},
		{"disconnect during the recording", func(t *testing.T, c *conn) {
			seq := c.Send("launch", map[string]any{"mode": "run", "program": spin, "timeout": 60})
			waitOutput(t, c, "waiting, tick 1\n")
			running(t)
			d := c.Send("disconnect", map[string]any{"terminateDebuggee": true})
			// The recording is cut: the launch fails, or answers with
			// what was recorded; either way it is answered.
			c.Response(seq)
			if m, _ := c.Response(d); !m.Success {
				t.Errorf("disconnect: %s", m.ErrorText())
			}
		}},
	}
	for _, s := range servers(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			// One at a time: see TestConcurrentSessions.
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					c := s.dial(t)
					initialize(t, c.Client, true)
					tc.run(t, c)
					if !c.Ended(30 * time.Second) {
						t.Errorf("the session did not end 30s after its client went away")
					}
					noTargetProcesses(t, 10*time.Second)
				})
			}
			stillServes(t, s)
		})
	}
	if d := newBuildDirs(dirs); len(d) > 0 {
		t.Errorf("build directories of ended sessions remain: %v", d)
	}
}

// Paging arguments are clamped to what there is.
//
// StackTrace's startFrame+levels and variables' start+count overflow for a
// large levels or count (9223372036854775807, which a client may send to
// mean "all"): the slice bounds go negative, the handler panics, and the
// client gets "internal error: runtime error: slice bounds out of range"
// instead of the frames or variables.
func TestPagingOverflow(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	opener := &fakeOpener{rec: smallRecording}
	c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
	initialize(t, c.Client, false)
	c.Request("launch", map[string]any{"mode": "run", "program": "/fake"})
	c.Request("configurationDone", nil)
	st := c.Stopped()
	m, _ := c.Response(c.Send("stackTrace", map[string]any{"threadId": st.ThreadId, "startFrame": 1, "levels": math.MaxInt64}))
	if !m.Success {
		t.Errorf("stackTrace startFrame 1 levels MaxInt64: %s", m.ErrorText())
	}
	stack := c.StackTrace(st.ThreadId)
	refs := scopeRefs(t, c.Client, stack[0].Id, "Arguments", "Locals", "Changes by this statement", "Return")
	m, _ = c.Response(c.Send("variables", map[string]any{"variablesReference": refs["Arguments"], "start": 1, "count": math.MaxInt64}))
	if !m.Success {
		t.Errorf("variables start 1 count MaxInt64: %s", m.ErrorText())
	}
	disconnect(t, c)
}

// A client that vanishes with requests still queued: the session ends
// promptly, and its processes with it.
//
// When the client's stream ends, serve cancels only the request running at
// that moment; the requests still queued then run one after the other, each
// in a fresh context, for a client that is gone. Here configurationDone and
// three watch evaluations on spin (whose main never returns) each
// re-execute the program until the exec timeout (3s), so the session, with
// a traced process, lives on for about 9s after its client left. The end of
// the stream should cancel the session's context, or the queue should be
// dropped.
func TestQueuedRequestsAfterVanish(t *testing.T) {
	c := pipeSession(t, nil)
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "run", "program": fixture(t, "spin"), "timeout": 1, "execTimeout": 3}, false, "spin: starting")
	c.Send("configurationDone", nil)
	for range 3 {
		c.Send("evaluate", map[string]any{"expression": "cap(p)", "context": "watch"})
	}
	time.Sleep(500 * time.Millisecond)
	c.Kill()
	start := time.Now()
	if !c.Ended(2 * time.Second) {
		t.Errorf("the session did not end 2s after its client went away")
	}
	noTargetProcesses(t, time.Second)
	if !c.Ended(time.Minute) {
		t.Errorf("the session did not end a minute after its client went away")
	}
	t.Logf("the session ended %s after its client went away", time.Since(start).Round(100*time.Millisecond))
}
