// Package offline is the rule-based diagnoser (no model; DESIGN.md §6):
// given a recorded failing run it finds where the bug is (file, line,
// function, frame), why, the evidence from the recording, and one concrete
// fix checked by re-running the tests. It is what `adi diagnose` prints
// when no model is configured, and the hints the LLM agent starts from.
// Like AgentDebugX's rule packs it is deterministic:
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
//   - Fix templates (templates.go) only where safe, made into unified
//     diffs (package udiff) and verified by re-running (package verify).
//
// The engine is seen through the Debugger interface, which *engine.Session
// implements.
package offline
