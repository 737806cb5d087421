// Package agent diagnoses a failing recorded run: where the bug is (file,
// line, function, frame), why, the evidence from the recording, and one
// concrete fix checked by re-running the tests. It is what `adi diagnose`
// prints.
//
// The diagnoser here is the offline one (no model; DESIGN.md §6). Like
// AgentDebugX's rule packs it is deterministic and runs before any LLM:
//
//   - Panic origin tracing (origin.go, panicrule.go): the bad value of a
//     panicking statement (nil map, nil pointer, index and length, divisor,
//     …) is followed backwards through Frame Lifetime Traces: the ΔS that
//     assigned it, the argument it came in through, the callee that
//     returned it, to the statement where it became bad.
//   - Spectrum-based fault localisation (coverage.go, sbfl.go): the
//     package's tests run one by one (subtests separately) with Go's own
//     coverage; statements are ranked by Ochiai suspiciousness.
//   - Rules over the failing test's frames (failing.go, rule_*.go): the
//     frame whose result the failed assertion rejected, boundary
//     comparisons whose operands were equal, dropped errors that were
//     non-nil, writes to a value receiver's copy. They break SBFL's ties.
//   - Fix templates (templates.go) only where safe, verified (verify.go)
//     by applying the diff to an overlay copy (go build -overlay) and
//     re-running the failing command and the package's tests; the user's
//     files change only through Apply, on request.
//
// The LLM agent (llm.go: Converse, Conversation.Ask) hands the same
// recording to a model behind any OpenAI-compatible endpoint, with the
// command language as its tools, the offline diagnosis as hints, and the
// same Diagnosis as its answer, checked against the recording
// (evidence.go) and verified like the offline fixes.
//
// The engine is seen through the Debugger interface, which *engine.Session
// implements. A Diagnosis renders as text for a person (Text) and as JSON.
package agent
