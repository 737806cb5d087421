// Package llmtest is a fake OpenAI-compatible chat completions server for
// tests of adi's LLM agent. It speaks the real wire format — POST
// /v1/chat/completions with "stream": true answered as text/event-stream
// "data: {...}" chunks ending with "data: [DONE]", tool calls split across
// chunks by index, a final usage chunk — and answers each request with the
// next scripted Turn, recording the requests so that a test can assert on
// what the model was sent. It depends on no client library: the wire
// format is written out here.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Turn is the scripted answer to one request.
type Turn struct {
	// Status, when not 0 or 200, answers with that HTTP status and
	// ErrorBody (default: an OpenAI-style error object).
	Status    int
	ErrorBody string
	// Header is added to the response (e.g. Retry-After).
	Header map[string]string
	// Text is streamed as content deltas, one chunk each.
	Text []string
	// Calls are streamed after the text, each call's arguments split into
	// pieces across chunks.
	Calls []Call
	// Usage is the final usage chunk, sent when the request asks for it
	// (default: 100 prompt and 20 completion tokens).
	Usage *Usage
	// Drop cuts the connection after the text (and the first piece of the
	// first call): no finish_reason, no [DONE].
	Drop bool
	// Delay waits before answering (or until the client goes away).
	Delay time.Duration
	// Check asserts on the request; its error fails the test.
	Check func(r *Request) error
}

// Call is a scripted tool call.
type Call struct {
	ID, Name string
	// Args is the JSON arguments text, sent as is (it may be malformed).
	Args string
}

// Usage is the token count of a turn.
type Usage struct{ Prompt, Completion int }

// Request is a recorded request.
type Request struct {
	Header   http.Header
	Body     string
	Model    string
	Stream   bool
	Usage    bool // stream_options.include_usage
	Messages []Message
	Tools    []string
}

// Message is a message of a recorded request.
type Message struct {
	Role       string
	Content    string
	ToolCallID string
	ToolCalls  []Call
}

// ToolResults returns the tool messages after the last assistant message
// (the answers to the previous turn's calls), by call id.
func (r *Request) ToolResults() map[string]string {
	out := map[string]string{}
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "assistant"; i-- {
		if r.Messages[i].Role == "tool" {
			out[r.Messages[i].ToolCallID] = r.Messages[i].Content
		}
	}
	return out
}

// Server is the fake endpoint. BaseURL is what a client is configured
// with (ending in /v1).
type Server struct {
	*httptest.Server
	BaseURL string

	t     testing.TB
	mu    sync.Mutex
	turns []Turn
	reqs  []*Request
}

// New starts a server answering with turns in order; it is closed when
// the test ends. A request beyond the script fails the test.
func New(t testing.TB, turns ...Turn) *Server {
	s := &Server{t: t, turns: turns}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	s.BaseURL = s.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// wireRequest is the part of a chat completion request the fake reads.
type wireRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		s.t.Errorf("llmtest: the request is not JSON: %v\n%s", err, body)
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req := &Request{Header: r.Header.Clone(), Body: string(body), Model: wr.Model, Stream: wr.Stream,
		Usage: wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage}
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID}
		switch c := m.Content.(type) {
		case string:
			msg.Content = c
		case nil:
		default:
			b, _ := json.Marshal(c)
			msg.Content = string(b)
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	var turn Turn
	ok := n < len(s.turns)
	if ok {
		turn = s.turns[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("llmtest: request %d is beyond the %d scripted turns", n+1, len(s.turns))
		http.Error(w, `{"error":{"message":"no more scripted turns","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	if !wr.Stream {
		s.t.Errorf("llmtest: request %d does not ask for a stream", n+1)
	}
	if turn.Check != nil {
		if err := turn.Check(req); err != nil {
			s.t.Errorf("llmtest: turn %d: %v", n+1, err)
		}
	}
	if turn.Delay > 0 {
		select {
		case <-time.After(turn.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range turn.Header {
		w.Header().Set(k, v)
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		eb := turn.ErrorBody
		if eb == "" {
			eb = fmt.Sprintf(`{"error":{"message":"scripted error %d","type":"server_error","code":null}}`, turn.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Status)
		io.WriteString(w, eb)
		return
	}
	s.stream(w, wr.Model, n, turn, req.Usage)
}

// stream writes a turn as server-sent events.
func (s *Server) stream(w http.ResponseWriter, model string, n int, turn Turn, usage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	id := fmt.Sprintf("chatcmpl-fake-%d", n+1)
	send := func(v any) {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1700000000 + n, "model": model}
		for k, x := range v.(map[string]any) {
			chunk[k] = x
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	choice := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	send(choice(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, t := range turn.Text {
		send(choice(map[string]any{"content": t}, nil))
	}
	for i, c := range turn.Calls {
		cid := c.ID
		if cid == "" {
			cid = fmt.Sprintf("call_%d_%d", n+1, i+1)
		}
		pieces := split(c.Args, 3)
		send(choice(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": cid, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": pieces[0]},
		}}}, nil))
		if turn.Drop {
			panic(http.ErrAbortHandler) // cut the connection mid-answer
		}
		for _, p := range pieces[1:] {
			send(choice(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": p},
			}}}, nil))
		}
	}
	if turn.Drop {
		panic(http.ErrAbortHandler)
	}
	finish := "stop"
	if len(turn.Calls) > 0 {
		finish = "tool_calls"
	}
	send(choice(map[string]any{}, finish))
	if usage {
		u := turn.Usage
		if u == nil {
			u = &Usage{Prompt: 100, Completion: 20}
		}
		send(map[string]any{"choices": []any{}, "usage": map[string]any{
			"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion,
		}})
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

// split cuts s into up to n pieces of about equal size ("" gives one
// empty piece).
func split(s string, n int) []string {
	if len(s) < n*2 {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		cut := size
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// Args marshals v as a tool call's arguments.
func Args(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Text is the decoded text of the request's messages: every content and
// every tool call's name and arguments, one per line.
func (r *Request) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
		for _, c := range m.ToolCalls {
			b.WriteString(c.Name + " " + c.Args + "\n")
		}
	}
	return b.String()
}

// Contains reports whether the request's messages (decoded) contain every
// one of subs, naming the first missing one.
func (r *Request) Contains(subs ...string) error {
	text := r.Text()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			return fmt.Errorf("the request does not contain %q", s)
		}
	}
	return nil
}
