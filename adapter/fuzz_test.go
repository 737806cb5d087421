package adapter_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
)

// FuzzReadMessage feeds arbitrary bytes to a session as its client's
// stream. The session must end (the stream ends) without a panic — none in
// the reader, and none in a handler either: handlers' panics are recovered
// and logged as "internal error handling a request", which counts as a
// failure here — and must close every debuggee it opened. Launches get a
// small synthetic recording from a fake Opener, so that the handlers run
// on a debuggee without anything ever being built.
//
//	go test ./adapter -run '^$' -fuzz FuzzReadMessage -fuzztime 30s
func FuzzReadMessage(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opener := &fakeOpener{rec: smallRecording}
		logs := &panicLog{}
		srv := &adapter.Server{Open: opener.Open, Log: slog.New(logs)}
		done := make(chan error, 1)
		go func() { done <- srv.ServeStream(context.Background(), bytes.NewReader(data), io.Discard) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the session did not end 20s after its stream did")
		}
		if msg := logs.first(); msg != "" {
			t.Fatalf("%s", msg)
		}
		if n := opener.unclosed(); n != 0 {
			t.Fatalf("%d debuggees left open when the session ended", n)
		}
	})
}

// panicLog is a slog.Handler that keeps the first internal error logged.
type panicLog struct {
	mu  sync.Mutex
	msg string
}

func (h *panicLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *panicLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *panicLog) WithGroup(string) slog.Handler            { return h }

func (h *panicLog) Handle(_ context.Context, r slog.Record) error {
	if !strings.HasPrefix(r.Message, "internal error") && !strings.HasPrefix(r.Message, "encoding a DAP message") {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.msg == "" {
		h.msg = b.String()
	}
	return nil
}

func (h *panicLog) first() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.msg
}

// fuzzSeeds are whole client streams: valid sessions that go through
// every request, and malformed messages of each kind. The valid sessions
// are split by concern, each short: the fuzzer minimises every new input
// it finds, at a cost that grows with the input's size.
func fuzzSeeds() [][]byte {
	seq := 0
	req := func(command, args string) string {
		seq++
		if args == "" {
			return fmt.Sprintf(`{"seq":%d,"type":"request","command":%q}`, seq, command)
		}
		return fmt.Sprintf(`{"seq":%d,"type":"request","command":%q,"arguments":%s}`, seq, command, args)
	}
	stream := func(bodies ...string) []byte {
		var b []byte
		for _, body := range bodies {
			b = append(b, frameMsg(body)...)
		}
		return b
	}
	// started launches and stops at main.load#1 (frame id 2).
	started := func(bodies ...string) []byte {
		seq = 0
		return stream(append([]string{
			req("initialize", `{"supportsProgressReporting":true}`),
			req("launch", `{"mode":"run","program":"/fake"}`),
			req("setFunctionBreakpoints", `{"breakpoints":[{"name":"main.load"}]}`),
			req("configurationDone", ""),
		}, bodies...)...)
	}
	return [][]byte{
		started(
			req("setFunctionBreakpoints", `{"breakpoints":[{"name":"main.load"},{"name":"main.add","condition":"i > 0"},{"name":"main.ad"}]}`),
			req("setBreakpoints", `{"source":{"path":"/src/example.com/fake/main.go"},"breakpoints":[{"line":31}]}`),
			req("setExceptionBreakpoints", `{"filters":[]}`),
		),
		started(
			req("threads", ""),
			req("stackTrace", `{"threadId":1,"startFrame":0,"levels":20}`),
			req("scopes", `{"frameId":2}`),
			req("variables", `{"variablesReference":1}`),
			req("variables", `{"variablesReference":5,"start":1,"count":2}`),
			req("variables", `{"variablesReference":6}`),
		),
		started(
			req("evaluate", `{"expression":"len(items) + 1","context":"watch"}`),
			req("evaluate", `{"expression":"cfg.N","context":"hover","frameId":2}`),
			req("evaluate", `{"expression":"frames main.add","context":"repl"}`),
			req("exceptionInfo", `{"threadId":1}`),
		),
		started(
			req("continue", `{"threadId":1}`),
			req("reverseContinue", `{"threadId":1}`),
			req("next", `{"threadId":1}`),
			req("stepBack", `{"threadId":1}`),
			req("stepIn", `{"threadId":1}`),
			req("stepOut", `{"threadId":1}`),
			req("pause", `{"threadId":1}`),
		),
		started(
			req("adi/frame", `{"fid":"main.load#1"}`),
			req("adi/frames", `{"func":"main.add"}`),
			req("adi/callTree", `{"depth":3}`),
			req("adi/break", `{"func":"main.add"}`),
			req("adi/continue", ""),
			req("adi/prev", ""),
		),
		started(
			req("adi/stepInto", `{"fid":"main.add#2"}`),
			req("adi/stepOut", ""),
			req("adi/clear", `{"func":"main.load"}`),
			req("adi/execute", `{"fid":"main.add#1","line":31,"k":1,"stmt":"i*2"}`),
			req("adi/outcome", ""),
		),
		started(req("terminate", ""), req("stackTrace", `{"threadId":1}`), req("launch", `{"program":"/fake"}`), req("disconnect", ""), req("threads", "")),
		stream(req("launch", `{"mode":"test","program":"/broken"}`), req("stackTrace", `{"threadId":1}`)),
		stream(req("launch", `{"mode":"exec","program":"/fake","buildFlags":["-race"]}`), req("source", `{"source":{"path":"/nonexistent"}}`)),
		stream(req("launch", `{"mode":7}`), req("stackTrace", `{"threadId":"one"}`), req("fooBar", `{}`), `{"seq":9,"type":"request"}`),
		stream(`{"seq":1,"type":"request","command":`, `[1,2,3]`, `{"seq":"x","type":"request","command":"threads"}`, `null`, `{}`),
		stream(`{"seq":1,"type":"event","event":"output"}`, `{"seq":2,"type":"response","request_seq":1,"command":"threads","success":true}`),
		started(req("adi/callTree", `{"depth":"deep"}`), req("adi/frame", `{"fid":"x#0"}`), req("variables", `{"variablesReference":-1}`)),
		[]byte("Content-Type: application/json\r\n\r\n{}"),
		[]byte("Content-Length: 4194305\r\n\r\n"),
		[]byte("Content-Length: 99999999999999999999\r\n\r\n"),
		[]byte("Content-Length: 2\r\nX\r\n{}"),
		[]byte("Content-Length: 100\r\n\r\n{\"seq\":1"),
		[]byte(""),
	}
}

// The valid session among the seeds reaches the handlers: every request
// is answered, and the ones that should succeed on the fake's recording
// do, so the fuzzer starts from streams that go deep. (Fed from a
// bytes.Reader, as the fuzzer does, the stream ends at once and the end
// cancels the request then running; here the client waits for the
// answers before it closes.)
func TestFuzzSeedSession(t *testing.T) {
	t.Parallel() // no Delve in this process: see TestConcurrentSessions
	for i, seed := range fuzzSeeds()[:6] {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			opener := &fakeOpener{rec: smallRecording}
			c := pipeSession(t, &adapter.Server{Open: opener.Open, Log: testLogger(t)})
			c.SendRaw(seed)
			want := bytes.Count(seed, []byte(`"type":"request"`))
			for n := 0; n < want; {
				m := c.Next()
				if m.Type != "response" {
					continue
				}
				n++
				if !m.Success && m.Command != "adi/execute" {
					t.Errorf("%s failed: %s", m.Command, m.ErrorText())
				}
			}
			c.Kill()
			if !c.Ended(10 * time.Second) {
				t.Errorf("the session did not end")
			}
			if n := opener.unclosed(); n != 0 {
				t.Errorf("%d debuggees left open", n)
			}
		})
	}
}
