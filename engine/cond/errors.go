package cond

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors, checked with errors.Is. The errors the package returns
// carry their own message; the sentinels only classify them.
var (
	// ErrSyntax classifies conditions that do not parse or use a construct
	// outside the supported language (function calls, composite literals…).
	ErrSyntax = errors.New("condition does not parse")
	// ErrUnknownName classifies *UnknownNameError: the condition reads a name
	// the frame does not have.
	ErrUnknownName = errors.New("unknown name in condition")
	// ErrType classifies operations on values of the wrong type: comparing a
	// string to an int, && on numbers, selecting a field of a slice…
	ErrType = errors.New("type error in condition")
	// ErrCut classifies conditions that need a part of a value the recording
	// left out because of its limits (string length, depth, elements).
	ErrCut = errors.New("value cut at recording time")
)

// The recording limits to raise when a value was cut (engine.Limits:
// MaxString, MaxDepth, MaxElems).
const (
	hintString = "raise --max-string"
	hintDepth  = "raise --max-depth"
	hintElems  = "raise --max-elems"
)

// supported lists the language for "not supported" messages.
const supported = "supported: comparisons, && || !, arithmetic, len(x), field selection, indexing"

// UnknownNameError reports a name that the frame does not have. Known lists
// the names the frame has, in the caller's order, when they are known: Check
// fills it, Eval and Evaluate cannot (they only see a lookup function) and
// leave it nil.
type UnknownNameError struct {
	Name  string
	Known []string

	what string // "condition" or "expression"; "" means condition
}

// Error returns `unknown name "m" in condition; the frame has: n, s`.
func (e *UnknownNameError) Error() string {
	what := e.what
	if what == "" {
		what = "condition"
	}
	msg := "unknown name " + strconv.Quote(e.Name) + " in " + what
	switch {
	case e.Known == nil:
		return msg
	case len(e.Known) == 0:
		return msg + "; the frame has no arguments or results"
	}
	return msg + "; the frame has: " + strings.Join(e.Known, ", ")
}

// Is makes errors.Is(err, ErrUnknownName) true.
func (e *UnknownNameError) Is(target error) bool { return target == ErrUnknownName }

// condError is an error with its own message, classified by a sentinel.
type condError struct {
	kind error
	msg  string
}

func (e *condError) Error() string { return e.msg }
func (e *condError) Unwrap() error { return e.kind }

// errorf returns an error with the formatted message that errors.Is matches
// against kind (nil for an unclassified error).
func errorf(kind error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if kind == nil {
		return errors.New(msg)
	}
	return &condError{kind: kind, msg: msg}
}
