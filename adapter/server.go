package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/adi-go/adi/engine"
)

// Server serves DAP sessions. Each connection is its own session; a failure
// in one never ends another or the server.
type Server struct {
	// Open records a target (engine.Open through OpenEngine by default).
	Open Opener
	// Defaults are the engine options launch starts from.
	Defaults engine.Options
	// Log receives the server's log; DAP traffic is logged at debug level.
	Log *slog.Logger

	// workMu runs the requests of all sessions one at a time. Delve's
	// native backend waits for its targets with wait4(-1), which reaps ANY
	// child of this process: another session's go build, go test or
	// target would be taken from it. So no two sessions may run child
	// processes at once; sessions stay independent in everything else.
	workMu sync.Mutex

	// NewDiagnoser makes the Diagnoser that answers a session's
	// adi/diagnose requests. It is called on the session's first
	// adi/diagnose; the Diagnoser it returns answers every later one (a
	// follow-up question continues its conversation). nil: the offline
	// diagnoser (OfflineDiagnoser, agent.Diagnose).
	//
	// This is where the LLM agent plugs in: set it to a function that
	// starts the agent's conversation over dbg (the recording) and opts
	// (the launched command line), returning a Diagnoser whose Diagnose
	// asks it the question and streams through emit.
	NewDiagnoser NewDiagnoserFunc
	// NoWatch turns off watching the launched target's module for saved
	// .go files (and the adi/sourceChanged events).
	NoWatch bool
	// WatchDebounce is how long the module must be quiet after a save
	// before adi/sourceChanged is sent (0: agent.DefaultDebounce).
	WatchDebounce time.Duration
}

func (srv *Server) logger() *slog.Logger {
	if srv.Log != nil {
		return srv.Log
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func (srv *Server) newSession(r io.Reader, w io.Writer, log *slog.Logger) *session {
	return &session{
		srv: srv, log: log, codec: newCodec(),
		in: newReader(r), out: w,
		lineBPs: map[string][]lineBP{},
	}
}

// ServeStream serves one session over a pair of streams (stdio for VS
// Code's executable adapters and nvim-dap) until the client disconnects or
// the streams close.
func (srv *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer) error {
	return srv.newSession(r, w, srv.logger()).serve(ctx)
}

// Listen accepts connections on addr until ctx is done, serving each as its
// own session. ready is called with the bound address once listening.
func (srv *Server) Listen(ctx context.Context, addr string, ready func(net.Addr)) error {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if ready != nil {
		ready(l.Addr())
	}
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for n := 1; ; n++ {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		log := srv.logger().With("session", n, "client", c.RemoteAddr().String())
		log.Info("client connected")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			closeOnDone := context.AfterFunc(sctx, func() { c.Close() })
			defer closeOnDone()
			if err := srv.newSession(c, c, log).serve(sctx); err != nil {
				log.Warn("session ended with an error", "err", err)
			}
			log.Info("client disconnected")
		}()
	}
}

// exclusive runs f holding the server's work lock (see workMu).
func (srv *Server) exclusive(f func()) {
	srv.workMu.Lock()
	defer srv.workMu.Unlock()
	f()
}
