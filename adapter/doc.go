// Package adapter serves recorded Go runs over the Debug Adapter Protocol
// (`adi dap`), so that VS Code's Run and Debug view, nvim-dap, Emacs
// dap-mode, Helix and Zed get a time-travel, function-level view of a run
// with their own debugging UI.
//
// Standard requests map onto the engine's session Σ = (B, T, i):
// setFunctionBreakpoints is B, continue and reverseContinue are the ADI
// continue and prev, stepIn and stepOut move between a frame and its callee
// or caller, next and stepBack walk the statements of the inspected frame's
// trace, stackTrace is the chain of frame ids up to the root. The ADI
// commands themselves are custom requests (adi/frame, adi/callTree, …) whose
// responses carry the engine's JSON and the compact text an LLM reads.
//
// It is the only package that imports github.com/google/go-dap.
package adapter
