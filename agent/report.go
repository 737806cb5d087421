package agent

import "github.com/adi-go/adi/agent/report"

// The answer of a diagnosis and the events that stream it; see package
// report.
type (
	// Diagnosis is the answer of a diagnoser.
	Diagnosis = report.Diagnosis
	// Location is a statement in the source and the frame that ran it.
	Location = report.Location
	// Evidence is one fact from the recording that supports the diagnosis.
	Evidence = report.Evidence
	// Candidate is another suspect statement.
	Candidate = report.Candidate
	// Confidence grades a diagnosis.
	Confidence = report.Confidence
	// Status is the outcome of verifying a fix.
	Status = report.Status
	// Verification is the result of re-running the target with a fix.
	Verification = report.Verification
	// EventKind names what an Event carries.
	EventKind = report.EventKind
	// Event is one piece of a diagnosis as it is produced.
	Event = report.Event
	// Usage is what a diagnosis cost.
	Usage = report.Usage
	// Emit receives events; nil discards them.
	Emit = report.Emit
)

// Confidences of a Diagnosis.
const (
	High   = report.High
	Medium = report.Medium
	Low    = report.Low
)

// Statuses of a Verification.
const (
	Passed       = report.Passed
	Failed       = report.Failed
	DoesNotApply = report.DoesNotApply
	DoesNotBuild = report.DoesNotBuild
	NotRun       = report.NotRun
)

// Kinds of Event.
const (
	EventText       = report.EventText
	EventToolCall   = report.EventToolCall
	EventToolResult = report.EventToolResult
	EventDiagnosis  = report.EventDiagnosis
	EventError      = report.EventError
	EventUsage      = report.EventUsage
)
