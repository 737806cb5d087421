// Package agent diagnoses a failing recorded run: where the bug is (file,
// line, function, frame), why, the evidence from the recording, and one
// concrete fix checked by re-running the tests. It is what `adi diagnose`
// prints and what the DAP adapter's adi/diagnose streams.
//
// This package is the facade that adapter/ and cmd/adi import; each job
// lives in a package of its own under agent/, and the names here are
// those packages' entry points:
//
//   - offline: the rule-based diagnoser (Diagnose, Options, ErrPassed) —
//     panic origin tracing, spectrum-based fault localisation, rules over
//     the failing tests' frames, fix templates.
//   - llm: the LLM agent (Converse, NewConversation, Conversation,
//     LLMConfig, ConfigFromEnv, ErrNoLLM): the model's loop, with the
//     command language as its tools and its claims checked against the
//     recording.
//   - chat: the client of the OpenAI-compatible endpoint (go-openai,
//     retries) and the redaction of everything sent to it or emitted.
//   - verify: a fix applied to overlay copies and checked by re-running
//     (Verify, VerifyOptions), and written to the user's files only
//     through Apply.
//   - watch: saved source files under a module, through fsnotify (Watch,
//     Watcher, WatchOptions, Change).
//   - report: the Diagnosis, its Verification, its text, and the Events
//     that stream it.
//   - gocmd: the recorded command line (Target) resolved to its Go
//     package, and the go commands run for it (TargetRoot, ModuleRoot).
//   - udiff and syntax: unified diffs, and the parsed Go files the
//     diagnosers read.
//
// The engine is seen through the Debugger interface, which *engine.Session
// implements.
package agent
