package agent

import "github.com/adi-go/adi/agent/llm"

// Debugger is what the diagnosers use of an engine session: the recording,
// Frame Lifetime Traces, re-execution (offline.Debugger) and the command
// language (llm.Debugger). The agent never reaches around it (DESIGN.md
// §4); *engine.Session is one.
type Debugger = llm.Debugger
