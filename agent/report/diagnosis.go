// Package report holds what a diagnosis produces: the Diagnosis (root
// cause, evidence, fix and its Verification), its text for a person, and
// the Events that stream it while a diagnoser works. The offline
// diagnoser and the LLM agent fill the same structures; the DAP adapter
// and adi diagnose send them on as they are (JSON field names included).
package report

// Diagnosis is the answer of a diagnoser: the root cause of a failing run,
// the evidence for it from the recording, and a fix with its verification.
// The offline diagnoser and the LLM agent fill the same structure.
type Diagnosis struct {
	// RootCause is the statement to change.
	RootCause Location `json:"root_cause"`
	// Summary is one line: what is wrong, where.
	Summary string `json:"summary"`
	// Explanation says why, in two or three sentences.
	Explanation string `json:"explanation"`
	// Evidence lists the frames and values that show it, each taken from
	// the recording (or, where said, from re-running the tests).
	Evidence []Evidence `json:"evidence"`
	// Fix is a unified diff relative to the module root, "" when no fix
	// template is safe for this bug.
	Fix string `json:"fix"`
	// Verification is the result of re-running with Fix applied to an
	// overlay copy; nil when there is no fix.
	Verification *Verification `json:"verification,omitempty"`
	// Confidence is high, medium or low.
	Confidence Confidence `json:"confidence"`
	// Method names the rule that found the root cause.
	Method string `json:"method"`
	// Source is "offline" for the rule-based diagnoser, "llm" for the agent.
	Source string `json:"source"`
	// Candidates are the other suspects, most suspicious first.
	Candidates []Candidate `json:"candidates"`
	// Rounds, PromptTokens and CompletionTokens count the model's use (0
	// offline).
	Rounds           int `json:"rounds"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Unsupported lists the claims of a model's diagnosis that the
	// recording does not support (a frame it lacks, a line outside the
	// frame's function, a value no frame or tool result showed).
	Unsupported []string `json:"unsupported,omitempty"`
	// Partial says why the diagnosis may be incomplete ("" when it is not):
	// a partial recording, a cut trace, a budget that ran out.
	Partial string `json:"partial,omitempty"`
}

// Location is a statement in the source and the frame that ran it.
type Location struct {
	// File is relative to the module root when the file is inside it.
	File string `json:"file"`
	Line int    `json:"line"`
	// Func is the function as the runtime names it.
	Func string `json:"func"`
	// FID is the invocation that ran the statement ("" when none did).
	FID string `json:"fid,omitempty"`
}

// Evidence is one fact from the recording that supports the diagnosis.
type Evidence struct {
	FID   string `json:"fid,omitempty"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Claim string `json:"claim"`
	Value string `json:"value,omitempty"`
}

// Candidate is another suspect statement, ranked by spectrum-based fault
// localisation (and the rules that looked at it).
type Candidate struct {
	File  string  `json:"file"`
	Line  int     `json:"line"`
	Func  string  `json:"func,omitempty"`
	Score float64 `json:"score"`
	// Reason says where the score comes from.
	Reason string `json:"reason"`
}

// Confidence grades a diagnosis.
type Confidence string

const (
	// High: the fix was verified, or the bad value was traced to its origin.
	High Confidence = "high"
	// Medium: a rule matched with evidence, but no fix was verified.
	Medium Confidence = "medium"
	// Low: only the statistical ranking points there.
	Low Confidence = "low"
)

// Status is the outcome of verifying a fix.
type Status string

const (
	// Passed: with the fix, the failing command and the package's tests pass.
	Passed Status = "passed"
	// Failed: the fix builds but a test (or the program) still fails.
	Failed Status = "failed"
	// DoesNotApply: the diff's context does not match the files.
	DoesNotApply Status = "does-not-apply"
	// DoesNotBuild: with the diff applied, the package does not compile.
	DoesNotBuild Status = "does-not-build"
	// NotRun: verification was not attempted (or could not run).
	NotRun Status = "not-run"
)

// Verification is the result of re-running the target with a fix applied
// to an overlay copy of the changed files.
type Verification struct {
	Status Status `json:"status"`
	// Command is what was run, one command per line.
	Command string `json:"command"`
	// Output is the tail of what the commands printed.
	Output string `json:"output"`
}
