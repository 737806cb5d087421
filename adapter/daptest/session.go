package daptest

import (
	"encoding/json"
	"time"

	"github.com/google/go-dap"
)

// Navigate sends a request that moves the session (continue, next,
// stepBack, adi/continue, …), requires it to succeed, and returns its
// response and the stopped event that follows it. A stopped event before
// the response fails the test: the response comes first.
func (c *Client) Navigate(command string, args any) (Msg, dap.StoppedEventBody) {
	c.t.Helper()
	m, events := c.Response(c.Send(command, args))
	if !m.Success {
		c.t.Fatalf("%s failed: %s\n%s", command, m.ErrorText(), c.Traffic())
	}
	for _, e := range events {
		if e.Event == "stopped" {
			c.t.Fatalf("%s: a stopped event came before the response\n%s", command, c.Traffic())
		}
	}
	return m, c.Stopped()
}

// Step sends a stepping request on thread and returns the stopped event
// that ends it.
func (c *Client) Step(command string, thread int) dap.StoppedEventBody {
	c.t.Helper()
	_, st := c.Navigate(command, map[string]any{"threadId": thread})
	return st
}

// StackTrace returns the whole stack of thread.
func (c *Client) StackTrace(thread int) []dap.StackFrame {
	c.t.Helper()
	var b dap.StackTraceResponseBody
	c.Decode(c.Request("stackTrace", map[string]any{"threadId": thread}), &b)
	return b.StackFrames
}

// Scopes returns the scopes of a frame.
func (c *Client) Scopes(frameID int) []dap.Scope {
	c.t.Helper()
	var b dap.ScopesResponseBody
	c.Decode(c.Request("scopes", map[string]any{"frameId": frameID}), &b)
	return b.Scopes
}

// Variables returns the variables behind a reference; args may add
// "start" and "count".
func (c *Client) Variables(ref int, args map[string]any) []dap.Variable {
	c.t.Helper()
	a := map[string]any{"variablesReference": ref}
	for k, v := range args {
		a[k] = v
	}
	var b dap.VariablesResponseBody
	c.Decode(c.Request("variables", a), &b)
	return b.Variables
}

// Evaluate evaluates an expression in a context ("", "hover", "watch",
// "repl") and returns the response, successful or not.
func (c *Client) Evaluate(expr, context string) Msg {
	c.t.Helper()
	args := map[string]any{"expression": expr}
	if context != "" {
		args["context"] = context
	}
	m, _ := c.Response(c.Send("evaluate", args))
	return m
}

// Body decodes a successful response's body into a generic object.
func (c *Client) Body(m Msg) map[string]any {
	c.t.Helper()
	var b map[string]any
	c.Decode(m, &b)
	return b
}

// Decode decodes a response's body into v, failing the test if it cannot.
func (c *Client) Decode(m Msg, v any) {
	c.t.Helper()
	if err := json.Unmarshal(m.Body, v); err != nil {
		c.t.Fatalf("decoding the body of %s: %v\n%s", m.Command, err, c.Traffic())
	}
}

// Drain collects the adapter's messages until it closes the connection
// (closed is true) or d passes.
func (c *Client) Drain(d time.Duration) (msgs []Msg, closed bool) {
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return msgs, true
			}
			c.log = append(c.log, "<- "+truncate(m.Raw))
			msgs = append(msgs, m)
		case <-deadline:
			return msgs, false
		}
	}
}

// Expect waits up to d for a message that satisfies ok, skipping others;
// it reports false if the connection closes or d passes first.
func (c *Client) Expect(d time.Duration, ok func(Msg) bool) (Msg, bool) {
	deadline := time.After(d)
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				return Msg{}, false
			}
			c.log = append(c.log, "<- "+truncate(m.Raw))
			if ok(m) {
				return m, true
			}
		case <-deadline:
			return Msg{}, false
		}
	}
}
