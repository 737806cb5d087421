package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// dispatch routes a request to its handler.
func (s *session) dispatch(ctx context.Context, req dap.RequestMessage) error {
	switch r := req.(type) {
	case *dap.InitializeRequest:
		return s.onInitialize(r)
	case *dap.LaunchRequest:
		return s.onLaunch(ctx, r)
	case *dap.AttachRequest:
		return errors.New("adi debugs a recording of a run it makes itself: use launch (mode test, run or exec)")
	case *dap.ConfigurationDoneRequest:
		return s.onConfigurationDone(ctx, r)
	case *dap.DisconnectRequest:
		s.shutdown()
		s.send(&dap.DisconnectResponse{Response: s.response(&r.Request)})
		return nil
	case *dap.TerminateRequest:
		s.shutdown()
		s.send(&dap.TerminateResponse{Response: s.response(&r.Request)})
		s.sendEvent(&dap.TerminatedEvent{Event: s.event("terminated")})
		return nil
	case *dap.SetFunctionBreakpointsRequest:
		return s.onSetFunctionBreakpoints(r)
	case *dap.SetBreakpointsRequest:
		return s.onSetBreakpoints(r)
	case *dap.SetExceptionBreakpointsRequest:
		s.send(&dap.SetExceptionBreakpointsResponse{Response: s.response(&r.Request)})
		return nil
	case *dap.ThreadsRequest:
		return s.onThreads(r)
	case *dap.StackTraceRequest:
		return s.onStackTrace(ctx, r)
	case *dap.ScopesRequest:
		return s.onScopes(ctx, r)
	case *dap.VariablesRequest:
		return s.onVariables(r)
	case *dap.EvaluateRequest:
		return s.onEvaluate(ctx, r)
	case *dap.ExceptionInfoRequest:
		return s.onExceptionInfo(r)
	case *dap.SourceRequest:
		return s.onSource(r)
	case *dap.ContinueRequest:
		return s.onNavigate(ctx, &r.Request, navContinue, r.Arguments.ThreadId)
	case *dap.ReverseContinueRequest:
		return s.onNavigate(ctx, &r.Request, navPrev, r.Arguments.ThreadId)
	case *dap.NextRequest:
		return s.onNavigate(ctx, &r.Request, navNext, r.Arguments.ThreadId)
	case *dap.StepBackRequest:
		return s.onNavigate(ctx, &r.Request, navBack, r.Arguments.ThreadId)
	case *dap.StepInRequest:
		return s.onNavigate(ctx, &r.Request, navIn, r.Arguments.ThreadId)
	case *dap.StepOutRequest:
		return s.onNavigate(ctx, &r.Request, navOut, r.Arguments.ThreadId)
	case *dap.PauseRequest:
		// A recording never runs: the session is always stopped.
		s.send(&dap.PauseResponse{Response: s.response(&r.Request)})
		return nil
	case *customRequest:
		if ok, err := s.onAgentRequest(ctx, r); ok {
			return err
		}
		return s.onCustom(ctx, r)
	}
	return fmt.Errorf("adi does not support the %q request", req.GetRequest().Command)
}

// capabilities are advertised truthfully: each is implemented and tested.
// supportsProgressReporting is a client capability in the DAP schema; adi
// echoes it, when the client has it, to say that launch reports progress.
type capabilities struct {
	dap.Capabilities
	SupportsProgressReporting bool `json:"supportsProgressReporting,omitempty"`
}

type initializeResponse struct {
	dap.Response
	Body capabilities `json:"body"`
}

func (s *session) capabilities() capabilities {
	return capabilities{
		Capabilities: dap.Capabilities{
			SupportsConfigurationDoneRequest: true,
			SupportsFunctionBreakpoints:      true,
			SupportsConditionalBreakpoints:   true,
			SupportsStepBack:                 true,
			SupportsEvaluateForHovers:        true,
			SupportsTerminateRequest:         true,
			SupportsExceptionInfoRequest:     true,
		},
		SupportsProgressReporting: s.client.SupportsProgressReporting,
	}
}

func (s *session) onInitialize(r *dap.InitializeRequest) error {
	s.client = r.Arguments
	s.send(&initializeResponse{Response: s.response(&r.Request), Body: s.capabilities()})
	return nil
}

func (s *session) onLaunch(ctx context.Context, r *dap.LaunchRequest) error {
	if s.dbg != nil {
		return errors.New("a program is already being debugged in this session")
	}
	if s.done {
		return errors.New("this debug session was terminated: start a new debug session")
	}
	var args LaunchArgs
	if err := json.Unmarshal(r.Arguments, &args); err != nil {
		return fmt.Errorf("the launch arguments are not valid: %v", err)
	}
	argv, dir, err := targetCommand(&args)
	if err != nil {
		return err
	}
	opts := s.launchOptions(&args)
	if args.Recorder != "" {
		if opts.Recorder, err = engine.ParseRecorder(args.Recorder); err != nil {
			return err
		}
	}

	progress := s.client.SupportsProgressReporting
	id := fmt.Sprintf("adi-launch-%d", r.Seq)
	if progress {
		s.sendEvent(&dap.ProgressStartEvent{Event: s.event("progressStart"), Body: dap.ProgressStartEventBody{
			ProgressId: id, Title: "adi: recording", RequestId: r.Seq, Message: strings.Join(argv, " ")}})
	}
	opts.Log = func(format string, a ...any) {
		msg := strings.TrimPrefix(fmt.Sprintf(format, a...), "adi: ")
		if progress {
			s.sendEvent(&dap.ProgressUpdateEvent{Event: s.event("progressUpdate"), Body: dap.ProgressUpdateEventBody{ProgressId: id, Message: msg}})
		} else {
			s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "console", Output: "adi: " + msg + "\n"}})
		}
	}
	out := &lineOutput{send: func(stream, text string) {
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: stream, Output: text}})
	}}
	opts.Output = out.write
	open := s.srv.Open
	if open == nil {
		open = OpenEngine
	}
	dbg, err := open(ctx, argv, dir, opts)
	out.flush()
	if progress {
		msg := "recorded"
		if err != nil {
			msg = "failed"
		}
		s.sendEvent(&dap.ProgressEndEvent{Event: s.event("progressEnd"), Body: dap.ProgressEndEventBody{ProgressId: id, Message: msg}})
	}
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	if s.done {
		dbg.Close() // disconnected while recording
		return errTerminated
	}
	s.dbg, s.launch = dbg, &args
	s.startWatch(&args, dir)
	s.send(&dap.LaunchResponse{Response: s.response(&r.Request)})
	s.sendEvent(&dap.InitializedEvent{Event: s.event("initialized")})
	return nil
}

// launchOptions are the server's defaults with the request's limits.
func (s *session) launchOptions(a *LaunchArgs) engine.Options {
	o := s.srv.Defaults
	set := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	set(&o.Limits.MaxFrames, a.MaxFrames)
	set(&o.Limits.MaxSteps, a.MaxSteps)
	set(&o.Limits.MaxString, a.MaxString)
	set(&o.Limits.MaxElems, a.MaxElems)
	set(&o.Limits.MaxDepth, a.MaxDepth)
	if a.LoopFirst > 0 || a.LoopLast > 0 {
		o.Limits.LoopKeepFirst, o.Limits.LoopKeepLast = a.LoopFirst, a.LoopLast
	}
	if a.Timeout > 0 {
		o.Timeout = time.Duration(a.Timeout * float64(time.Second))
	}
	if a.ExecTimeout > 0 {
		o.ExecTimeout = time.Duration(a.ExecTimeout * float64(time.Second))
	}
	o.Trace = append(o.Trace, a.Trace...)
	keys := make([]string, 0, len(a.Env))
	for k := range a.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.Env = append(o.Env, k+"="+a.Env[k])
	}
	return o
}

// targetCommand turns launch arguments into the command line adi records
// and the directory it runs in.
func targetCommand(a *LaunchArgs) (argv []string, dir string, err error) {
	if a.Program == "" {
		return nil, "", errors.New(`launch needs "program": the package directory (mode test or run) or the binary (mode exec)`)
	}
	dir = a.Cwd
	if dir == "" {
		dir = a.Program
		if fi, err := os.Stat(a.Program); err == nil && !fi.IsDir() {
			dir = filepath.Dir(a.Program)
		}
	}
	program := a.Program
	if !filepath.IsAbs(program) && a.Cwd != "" {
		program = filepath.Join(a.Cwd, program)
	}
	switch a.Mode {
	case "test", "":
		argv = append([]string{"go", "test"}, a.BuildFlags...)
		argv = append(argv, program)
		if a.TestRun != "" {
			argv = append(argv, "-run", a.TestRun)
		}
		if len(a.Args) > 0 {
			argv = append(append(argv, "-args"), a.Args...)
		}
	case "run":
		argv = append([]string{"go", "run"}, a.BuildFlags...)
		argv = append(append(argv, program), a.Args...)
	case "exec":
		if len(a.BuildFlags) > 0 {
			return nil, "", errors.New(`"buildFlags" make no sense with mode "exec": the binary is already built`)
		}
		argv = append([]string{program}, a.Args...)
	default:
		return nil, "", fmt.Errorf(`unknown mode %q: use "test", "run" or "exec"`, a.Mode)
	}
	return argv, dir, nil
}

// noFramesMessage explains a recording with no frames of the module.
func noFramesMessage(a *LaunchArgs, o *trace.Outcome) string {
	prog, run := "the target", ""
	if a != nil {
		prog, run = a.Program, a.TestRun
	}
	var b strings.Builder
	fmt.Fprintf(&b, "adi: the recorded run has no frames: no function of %s's module ran (exit code %d).\n", prog, o.ExitCode)
	if strings.Contains(o.Output(), "no tests to run") {
		fmt.Fprintf(&b, "adi: go test ran no test: testRun %q matches no test of the package; fix \"testRun\" in the launch configuration (empty: all tests).\n", run)
	} else {
		b.WriteString("adi: check \"program\" and \"args\" in the launch configuration.\n")
	}
	return b.String()
}

func (s *session) onConfigurationDone(ctx context.Context, r *dap.ConfigurationDoneRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	rec := d.Recording()
	if d.Current() == nil {
		// Nothing to inspect: no function of the module ran. Say why and
		// end the session, rather than stop with an empty Call Stack.
		s.send(&dap.ConfigurationDoneResponse{Response: s.response(&r.Request)})
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "important",
			Output: noFramesMessage(s.launch, &rec.Outcome)}})
		s.sendEvent(&dap.ExitedEvent{Event: s.event("exited"), Body: dap.ExitedEventBody{ExitCode: rec.Outcome.ExitCode}})
		s.sendEvent(&dap.TerminatedEvent{Event: s.event("terminated")})
		return nil
	}
	reason, desc := "entry", ""
	if cur := d.Current(); cur != nil && rec.Outcome.Panic != nil && rec.Outcome.Panic.Frame == cur.FID {
		reason, desc = "exception", "panic: "+rec.Outcome.Panic.Value
	}
	if f, ok := d.FirstMatch(); ok && !s.launch.StopOnEntry {
		if _, err := d.StepInto(ctx, f.FID); err == nil {
			reason, desc = "breakpoint", ""
		} else {
			s.log.Warn("cannot stop at the first breakpoint match", "fid", f.FID, "err", err)
		}
	}
	s.send(&dap.ConfigurationDoneResponse{Response: s.response(&r.Request)})
	return s.stop(ctx, reason, desc)
}
