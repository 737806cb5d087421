package adapter

import (
	"encoding/json"

	"github.com/google/go-dap"
)

// LaunchArgs are the arguments of adi's launch request (launch.json).
type LaunchArgs struct {
	// Mode is "test" (a package's tests), "run" (a main package) or
	// "exec" (a prebuilt binary with DWARF).
	Mode string `json:"mode"`
	// Program is the package directory (test, run) or the binary (exec).
	Program    string            `json:"program"`
	Args       []string          `json:"args"`
	TestRun    string            `json:"testRun"`
	BuildFlags []string          `json:"buildFlags"`
	Env        map[string]string `json:"env"`
	Cwd        string            `json:"cwd"`
	// StopOnEntry stops at the natural starting point (the failing frame)
	// even when breakpoints are set; otherwise the first breakpoint match
	// is where the session stops.
	StopOnEntry bool `json:"stopOnEntry"`

	// adi's limits; zero means the default.
	MaxFrames   int      `json:"maxFrames"`
	MaxSteps    int      `json:"maxSteps"`
	LoopFirst   int      `json:"loopFirst"`
	LoopLast    int      `json:"loopLast"`
	MaxString   int      `json:"maxString"`
	MaxElems    int      `json:"maxElems"`
	MaxDepth    int      `json:"maxDepth"`
	Timeout     float64  `json:"timeout"`     // seconds, the recorded run
	ExecTimeout float64  `json:"execTimeout"` // seconds, each re-execution
	Trace       []string `json:"trace"`
	// Recorder is auto (the default), delve or instrument.
	Recorder string `json:"recorder"`
}

// customRequest is any adi/* request: its arguments are decoded by the
// handler.
type customRequest struct {
	dap.Request
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// customResponse carries an adi/* answer.
type customResponse struct {
	dap.Response
	Body json.RawMessage `json:"body,omitempty"`
}

// customEvent is an adi/* event.
type customEvent struct {
	dap.Event
	Body any `json:"body,omitempty"`
}

// customCommands are the custom requests: the ADI commands, and the
// agent's requests (diagnose.go).
var customCommands = []string{
	"adi/frame", "adi/frames", "adi/callTree", "adi/break", "adi/clear",
	"adi/continue", "adi/prev", "adi/stepInto", "adi/stepOut", "adi/execute",
	"adi/outcome", "adi/diagnose", "adi/cancel", "adi/verifyFix",
}

// newCodec returns a codec that decodes adi's custom requests.
func newCodec() *dap.Codec {
	c := dap.NewCodec()
	for _, cmd := range customCommands {
		c.RegisterRequest(cmd,
			func() dap.Message { return &customRequest{} },
			func() dap.Message { return &customResponse{} })
	}
	return c
}
