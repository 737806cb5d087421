package daptest

import (
	"encoding/json"
	"time"

	"github.com/adi-go/adi/agent"
)

// Agent sends an agent request (adi/diagnose) and returns its response,
// successful or not, and the adi/agent events that came before it, in
// order. Other events are skipped.
func (c *Client) Agent(command string, args any) (Msg, []agent.Event) {
	c.t.Helper()
	m, events := c.Response(c.Send(command, args))
	return m, AgentEvents(c.t, events)
}

// AgentEvents decodes the adi/agent events among msgs.
func AgentEvents(t interface {
	Helper()
	Fatalf(string, ...any)
}, msgs []Msg) []agent.Event {
	t.Helper()
	var out []agent.Event
	for _, m := range msgs {
		if m.Type != "event" || m.Event != "adi/agent" {
			continue
		}
		var e agent.Event
		if err := json.Unmarshal(m.Body, &e); err != nil {
			t.Fatalf("adi/agent event with a body that is not an agent.Event: %v\n%s", err, m.Raw)
		}
		out = append(out, e)
	}
	return out
}

// EventWithin waits up to d for the named event, skipping others; false
// when it did not come (the test goes on).
func (c *Client) EventWithin(name string, d time.Duration) (Msg, bool) {
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return Msg{}, false
			}
			c.log = append(c.log, "<- "+truncate(m.Raw))
			if m.Type == "event" && m.Event == name {
				return m, true
			}
		case <-deadline:
			return Msg{}, false
		}
	}
}

// Launch runs the start of a session: initialize, launch with args,
// configurationDone, and the stopped event that follows; it fails the test
// if any fails.
func (c *Client) Launch(args map[string]any) {
	c.t.Helper()
	c.Request("initialize", map[string]any{"clientID": "daptest", "adapterID": "adi", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
	c.Request("launch", args)
	c.Event("initialized")
	c.Request("configurationDone", nil)
	c.Event("stopped")
}
