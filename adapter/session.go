package adapter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/engine/trace"
)

// session is one DAP connection and the debugging session it drives.
//
// Goroutines: serve's goroutine reads and decodes messages; every request
// except disconnect and terminate goes, in order, to the worker goroutine,
// which runs the handlers one at a time (so handlers never race on the
// session's state). disconnect and terminate first cancel the request the
// worker is running (a recording or a re-execution can take a while), then
// queue behind it. adi/cancel is answered by serve's goroutine itself: it
// cancels the running (or queued) adi/diagnose and adi/verifyFix
// (diagnose.go). Messages to the client are written by send, from any
// goroutine, under writeMu, which also numbers them.
type session struct {
	srv   *Server
	log   *slog.Logger
	codec *dap.Codec
	in    *bufio.Reader
	out   io.Writer

	writeMu sync.Mutex
	seq     int

	// opMu guards cancelOp, the cancel function of the running request.
	opMu     sync.Mutex
	cancelOp context.CancelFunc

	// ctx lives as long as the session: work deferred past the request
	// that set it up (a scope built when the client opens it) runs in it.
	ctx context.Context

	// The state below is used by the worker goroutine only.
	client  dap.InitializeRequestArguments
	launch  *LaunchArgs
	dbg     Debuggee
	done    bool // terminated or disconnected: the debuggee is gone
	fnBPs   []bp // function breakpoints set by setFunctionBreakpoints
	bpID    int
	lineBPs map[string][]lineBP
	// step is the index of the current statement in the inspected frame's
	// trace (next and stepBack move it).
	step    int
	handles handles
	stopped bool

	// agent is the state of adi/diagnose, adi/verifyFix and adi/cancel
	// (diagnose.go); watch reports saved sources while a target is
	// launched (watch.go).
	agent agentState
	watch *sourceWatch
}

// bp is a breakpoint the client set, as given to the engine.
type bp struct{ fn, cond string }

// lineBP is a line breakpoint: a breakpoint on the enclosing function,
// positioned at the line.
type lineBP struct {
	fn   string
	line int
	cond string
}

// errTerminated is returned by handlers once the debuggee is gone.
var errTerminated = errors.New("the debug session has ended: start a new debug session")

// serve reads messages until the client goes away or disconnects.
func (s *session) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	work := make(chan dap.RequestMessage, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for req := range work {
			s.handle(ctx, req)
		}
	}()
	defer func() {
		// The client is gone or disconnected: what is still queued is for
		// nobody, so it runs cancelled and ends at once.
		close(work)
		cancel()
		wg.Wait()
		s.srv.exclusive(s.shutdown)
	}()
	for {
		content, err := dap.ReadBaseMessage(s.in)
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			var bpe *dap.BaseProtocolError
			if errors.As(err, &bpe) {
				// The framing is lost: nothing after this can be read.
				s.log.Warn("malformed DAP message header; closing the connection", "err", err)
				s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{
					Category: "important", Output: "adi: malformed DAP message (" + err.Error() + "); closing the connection\n"}})
				return err
			}
			return err
		}
		msg, err := s.codec.DecodeMessage(content)
		if err != nil {
			if !s.badMessage(content, err) {
				return fmt.Errorf("undecodable DAP message: %v", err)
			}
			continue
		}
		req, ok := msg.(dap.RequestMessage)
		if !ok {
			s.log.Debug("ignoring a message that is not a request", "msg", string(content))
			continue
		}
		s.log.Debug("<- request", "command", req.GetRequest().Command, "seq", req.GetSeq())
		if s.early(req) {
			continue
		}
		switch req.(type) {
		case *dap.DisconnectRequest, *dap.TerminateRequest:
			s.cancelRunning()
		}
		work <- req
		if _, ok := req.(*dap.DisconnectRequest); ok {
			return nil
		}
	}
}

// badMessage answers a message that could not be decoded: a request whose
// seq can be read gets an error response naming what was wrong. For
// anything else no answer can reach the client's request, which would wait
// for ever: it reports false, and the connection is closed (as Delve does).
func (s *session) badMessage(content []byte, err error) bool {
	var head struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(content, &head) != nil || head.Type != "request" || head.Seq <= 0 {
		s.log.Warn("undecodable DAP message; closing the connection", "err", err, "msg", truncate(string(content), 200))
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{
			Category: "important", Output: "adi: undecodable DAP message (" + err.Error() + "); closing the connection\n"}})
		return false
	}
	var fe *dap.DecodeProtocolMessageFieldError
	msg := err.Error()
	if errors.As(err, &fe) && fe.SubType == "Request" || errors.As(err, &fe) && fe.FieldName == "command" {
		msg = fmt.Sprintf("unknown request %q: adi supports the standard DAP requests it advertises and %v", head.Command, customCommands)
	}
	s.log.Warn("bad request", "command", head.Command, "err", err)
	s.sendError(&dap.Request{ProtocolMessage: dap.ProtocolMessage{Seq: head.Seq, Type: "request"}, Command: head.Command},
		errBadRequest, "bad request", msg)
	return true
}

// handle runs one request on the worker goroutine.
func (s *session) handle(ctx context.Context, req dap.RequestMessage) {
	ctx, cancel := context.WithCancel(ctx)
	s.opMu.Lock()
	s.cancelOp = cancel
	s.opMu.Unlock()
	defer func() {
		s.opMu.Lock()
		s.cancelOp = nil
		s.opMu.Unlock()
		cancel()
		if r := recover(); r != nil {
			// A handler bug must not take the server down with it.
			s.log.Error("internal error handling a request", "command", req.GetRequest().Command, "panic", r)
			s.sendError(req.GetRequest(), errInternal, "internal error", fmt.Sprint(r))
		}
	}()
	s.srv.workMu.Lock()
	defer s.srv.workMu.Unlock()
	if err := s.dispatch(ctx, req); err != nil {
		s.sendError(req.GetRequest(), errorID(err), summary(req.GetRequest().Command), err.Error())
	}
}

func (s *session) cancelRunning() {
	s.opMu.Lock()
	if s.cancelOp != nil {
		s.cancelOp()
	}
	s.opMu.Unlock()
}

// shutdown ends the debuggee: every process and file of the session goes.
func (s *session) shutdown() {
	s.stopWatch()
	if s.dbg != nil {
		if err := s.dbg.Close(); err != nil {
			s.log.Warn("closing the debug session", "err", err)
		}
		s.dbg = nil
	}
	s.done = true
}

// send writes one message to the client.
func (s *session) send(m dap.Message) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.seq++
	switch m := m.(type) {
	case dap.ResponseMessage:
		m.GetResponse().Seq = s.seq
	case dap.EventMessage:
		m.GetEvent().Seq = s.seq
	}
	b, err := json.Marshal(m)
	if err != nil {
		s.log.Error("encoding a DAP message", "err", err)
		return
	}
	if len(b) > maxMessage {
		// A client must get an answer to each request: a response too
		// large for one message becomes an error response saying so.
		s.log.Error("DAP message over the 4 MiB limit", "bytes", len(b))
		r, ok := m.(dap.ResponseMessage)
		if !ok {
			return
		}
		e := &dap.ErrorResponse{Response: *r.GetResponse()}
		e.Success = false
		e.Message = "response too large"
		e.Body.Error = &dap.ErrorMessage{Id: errCommand, ShowUser: true,
			Format: fmt.Sprintf("response too large: the answer was %d bytes, over the DAP limit of 4 MiB; ask for less (page the request)", len(b))}
		if b, err = json.Marshal(e); err != nil {
			return
		}
	}
	if err := dap.WriteBaseMessage(s.out, b); err != nil {
		s.log.Debug("writing to the client", "err", err)
		return
	}
	s.log.Debug("-> message", "msg", truncate(string(b), 300))
}

func (s *session) sendEvent(e dap.EventMessage) { s.send(e) }

func (s *session) event(name string) dap.Event {
	return dap.Event{ProtocolMessage: dap.ProtocolMessage{Type: "event"}, Event: name}
}

// response returns the success response header for req.
func (s *session) response(req *dap.Request) dap.Response {
	return dap.Response{ProtocolMessage: dap.ProtocolMessage{Type: "response"}, RequestSeq: req.Seq, Success: true, Command: req.Command}
}

// sendError answers req with an error: summary in the message, "summary:
// details" for the user.
func (s *session) sendError(req *dap.Request, id int, sum, details string) {
	r := &dap.ErrorResponse{Response: s.response(req)}
	r.Success = false
	r.Message = sum
	r.Body.Error = &dap.ErrorMessage{Id: id, Format: sum + ": " + details, ShowUser: true}
	s.send(r)
}

// Error ids of adi's error responses.
const (
	errBadRequest = 3000 + iota
	errNotLaunched
	errLaunch
	errCommand
	errTerminatedID
	errInternal
)

func errorID(err error) int {
	switch {
	case errors.Is(err, errTerminated):
		return errTerminatedID
	case errors.Is(err, errNoSession):
		return errNotLaunched
	}
	return errCommand
}

func summary(command string) string { return command + " failed" }

// maxMessage is go-dap's limit on a message's content.
const maxMessage = 4 << 20

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// errNoSession is returned by requests that need a launched target.
var errNoSession = errors.New("no program is being debugged yet: send launch first")

// debuggee returns the session's debuggee or why there is none.
func (s *session) debuggee() (Debuggee, error) {
	switch {
	case s.done:
		return nil, errTerminated
	case s.dbg == nil:
		return nil, errNoSession
	}
	return s.dbg, nil
}

// inspected is the frame the session inspects and its trace.
func (s *session) inspected(ctx context.Context) (*trace.FLT, error) {
	d, err := s.debuggee()
	if err != nil {
		return nil, err
	}
	f := d.Current()
	if f == nil {
		return nil, errors.New("the recording has no frames of the target's module")
	}
	return d.FLT(ctx, f)
}
