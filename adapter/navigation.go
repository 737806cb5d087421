package adapter

import (
	"context"
	"fmt"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

type navKind int

const (
	navContinue navKind = iota // ADI continue
	navPrev                    // ADI prev
	navNext                    // next statement of the inspected frame
	navBack                    // previous statement
	navIn                      // into the current statement's callee
	navOut                     // ADI step-out
)

// onNavigate answers a stepping request at once (as DAP wants) and then
// moves, ending in a stopped event that says where, or why it could not.
func (s *session) onNavigate(ctx context.Context, req *dap.Request, kind navKind, _ int) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	switch kind {
	case navContinue:
		s.send(&dap.ContinueResponse{Response: s.response(req), Body: dap.ContinueResponseBody{AllThreadsContinued: true}})
	case navPrev:
		s.send(&dap.ReverseContinueResponse{Response: s.response(req)})
	case navNext:
		s.send(&dap.NextResponse{Response: s.response(req)})
	case navBack:
		s.send(&dap.StepBackResponse{Response: s.response(req)})
	case navIn:
		s.send(&dap.StepInResponse{Response: s.response(req)})
	case navOut:
		s.send(&dap.StepOutResponse{Response: s.response(req)})
	}
	reason, desc, err := s.move(ctx, d, kind)
	if err != nil {
		// The response is sent: say what went wrong where the user looks,
		// and stay stopped where the session was.
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "important", Output: "adi: " + err.Error() + "\n"}})
		return s.stopHere("step", err.Error())
	}
	return s.stopHere(reason, desc)
}

// move changes the inspected frame or statement and returns the stop's
// reason and description.
func (s *session) move(ctx context.Context, d Debuggee, kind navKind) (reason, desc string, err error) {
	switch kind {
	case navContinue, navPrev:
		var nav *engine.Nav
		if kind == navContinue {
			nav, err = d.Continue(ctx)
		} else {
			nav, err = d.Prev(ctx)
		}
		if err != nil {
			return "", "", err
		}
		if !nav.Moved {
			return "step", nav.Note, nil
		}
		return s.arrive(nav.FLT, true), "", nil
	case navNext, navBack:
		flt, err := s.inspected(ctx)
		if err != nil {
			return "", "", err
		}
		if kind == navNext {
			if s.step+1 >= len(flt.Steps) {
				return "step", "end of " + flt.Frame.FID.String() + ": " + trace.ExitText(flt.Frame), nil
			}
			s.step++
		} else {
			if s.step == 0 {
				return "step", "start of " + flt.Frame.FID.String(), nil
			}
			s.step--
		}
		return "step", "", nil
	case navIn:
		flt, err := s.inspected(ctx)
		if err != nil {
			return "", "", err
		}
		if s.step < len(flt.Steps) && len(flt.Steps[s.step].Callees) > 0 {
			if _, err := d.StepInto(ctx, flt.Steps[s.step].Callees[0]); err != nil {
				return "", "", err
			}
			s.step = 0
			return "step", "", nil
		}
		return s.move(ctx, d, navNext)
	case navOut:
		from := d.Current()
		nav, err := d.StepOut(ctx)
		if err != nil {
			return "", "", err
		}
		if !nav.Moved {
			return "step", nav.Note, nil
		}
		s.step = callingStep(nav.FLT, from.FID)
		return "step", "", nil
	}
	return "", "", fmt.Errorf("internal error: unknown navigation %d", kind)
}

// arrive positions the statement index in a frame reached through a
// breakpoint: at the first visit of a line breakpoint's line, else at the
// first statement. It returns the stop reason.
func (s *session) arrive(flt *trace.FLT, byBreakpoint bool) string {
	s.step = 0
	for _, lb := range s.allLineBPs() {
		if lb.fn != flt.Frame.FID.Func {
			continue
		}
		for i, st := range flt.Steps {
			if st.Line == lb.line {
				s.step = i
				return "breakpoint"
			}
		}
	}
	if byBreakpoint {
		return "function breakpoint"
	}
	return "step"
}

// callingStep is the index of the statement of flt that called child.
func callingStep(flt *trace.FLT, child trace.FID) int {
	for i, st := range flt.Steps {
		for _, c := range st.Callees {
			if c == child {
				return i
			}
		}
	}
	for _, sk := range flt.Skipped {
		for _, c := range sk.Callees {
			if c == child {
				return max(sk.After, 0)
			}
		}
	}
	return 0
}

// stop positions the session at its starting point and says so.
func (s *session) stop(ctx context.Context, reason, desc string) error {
	flt, err := s.inspected(ctx)
	if err == nil {
		s.step = 0
		switch reason {
		case "exception":
			s.step = max(len(flt.Steps)-1, 0) // where the panic happened
		case "breakpoint":
			reason = s.arrive(flt, true)
		}
	} else {
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "important",
			Output: "adi: no statement trace for this frame: " + err.Error() + "\n"}})
	}
	return s.stopHere(reason, desc)
}

// stopHere sends the stopped event for the current position.
func (s *session) stopHere(reason, desc string) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	s.handles.reset()
	s.stopped = true
	body := dap.StoppedEventBody{Reason: reason, Description: desc, AllThreadsStopped: true, ThreadId: 1}
	if f := d.Current(); f != nil {
		body.ThreadId = int(f.Goroutine)
		if body.Description == "" {
			body.Description = f.FID.String()
		}
	}
	s.sendEvent(&dap.StoppedEvent{Event: s.event("stopped"), Body: body})
	return nil
}
