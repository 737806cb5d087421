// Package daptest is a DAP client for tests: it sends requests to an
// adapter over any stream and waits for the responses and events they
// cause, failing the test with the traffic so far when something else
// arrives.
package daptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-dap"
)

// Client talks to one adapter session.
type Client struct {
	t    testing.TB
	w    io.Writer
	wmu  sync.Mutex
	seq  int
	msgs chan Msg
	// Timeout bounds each wait (default 2 minutes: launch builds and records).
	Timeout time.Duration
	log     []string
}

// Msg is one message from the adapter, decoded generically.
type Msg struct {
	Type       string          `json:"type"`
	Seq        int             `json:"seq"`
	Command    string          `json:"command"`
	Event      string          `json:"event"`
	RequestSeq int             `json:"request_seq"`
	Success    bool            `json:"success"`
	Message    string          `json:"message"`
	Body       json.RawMessage `json:"body"`
	Raw        string          `json:"-"`
}

// Decode decodes the message's body into v.
func (m *Msg) Decode(v any) error { return json.Unmarshal(m.Body, v) }

// ErrorText is the user-facing text of an error response.
func (m *Msg) ErrorText() string {
	var b dap.ErrorResponseBody
	json.Unmarshal(m.Body, &b)
	if b.Error != nil {
		return b.Error.Format
	}
	return m.Message
}

// New starts reading the adapter's messages from r.
func New(t testing.TB, r io.Reader, w io.Writer) *Client {
	c := &Client{t: t, w: w, msgs: make(chan Msg, 1024), Timeout: 2 * time.Minute}
	go func() {
		defer close(c.msgs)
		br := bufio.NewReader(r)
		for {
			content, err := dap.ReadBaseMessage(br)
			if err != nil {
				return
			}
			var m Msg
			if err := json.Unmarshal(content, &m); err != nil {
				continue
			}
			m.Raw = string(content)
			c.msgs <- m
		}
	}()
	return c
}

// Send sends a request and returns its seq.
func (c *Client) Send(command string, args any) int {
	c.t.Helper()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatalf("encoding %s: %v", command, err)
	}
	c.log = append(c.log, "-> "+string(b))
	if err := dap.WriteBaseMessage(c.w, b); err != nil {
		c.t.Fatalf("sending %s: %v", command, err)
	}
	return c.seq
}

// SendRaw writes bytes as they are (for malformed-input tests).
func (c *Client) SendRaw(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(b)
}

// Next returns the next message, failing the test after the timeout.
func (c *Client) Next() Msg {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatalf("the adapter closed the connection\n%s", c.Traffic())
		}
		c.log = append(c.log, "<- "+truncate(m.Raw))
		return m
	case <-time.After(c.Timeout):
		c.t.Fatalf("no message from the adapter in %s\n%s", c.Timeout, c.Traffic())
	}
	return Msg{}
}

// Closed reports whether the adapter closes the connection within d,
// skipping any messages before that.
func (c *Client) Closed(d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return true
			}
			c.log = append(c.log, "<- "+truncate(m.Raw))
		case <-deadline:
			return false
		}
	}
}

// Response waits for the response to request seq, collecting the events
// that arrive before it.
func (c *Client) Response(seq int) (Msg, []Msg) {
	c.t.Helper()
	var events []Msg
	for {
		m := c.Next()
		if m.Type == "response" && m.RequestSeq == seq {
			return m, events
		}
		events = append(events, m)
	}
}

// Request sends a request and returns its successful response.
func (c *Client) Request(command string, args any) Msg {
	c.t.Helper()
	m, _ := c.Response(c.Send(command, args))
	if !m.Success {
		c.t.Fatalf("%s failed: %s\n%s", command, m.ErrorText(), c.Traffic())
	}
	return m
}

// Fails sends a request and returns the text of its error response.
func (c *Client) Fails(command string, args any) string {
	c.t.Helper()
	m, _ := c.Response(c.Send(command, args))
	if m.Success {
		c.t.Fatalf("%s succeeded, want an error\n%s", command, c.Traffic())
	}
	return m.ErrorText()
}

// Event waits for the named event, skipping others.
func (c *Client) Event(name string) Msg {
	c.t.Helper()
	for {
		m := c.Next()
		if m.Type == "event" && m.Event == name {
			return m
		}
	}
}

// Stopped waits for the stopped event and returns its body.
func (c *Client) Stopped() dap.StoppedEventBody {
	c.t.Helper()
	var b dap.StoppedEventBody
	m := c.Event("stopped")
	if err := m.Decode(&b); err != nil {
		c.t.Fatal(err)
	}
	return b
}

// Traffic is the conversation so far, for failure messages.
func (c *Client) Traffic() string {
	start := max(0, len(c.log)-40)
	return "traffic (last messages):\n" + strings.Join(c.log[start:], "\n")
}

func truncate(s string) string {
	if len(s) > 400 {
		return s[:400] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}
