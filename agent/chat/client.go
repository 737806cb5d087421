// Package chat is the client of an OpenAI-compatible chat completions
// endpoint (OpenAI, Azure, Ollama, vLLM, LM Studio, llama.cpp server)
// through go-openai: streamed answers, retries of 429s, 5xxs and dropped
// streams with backoff, errors that say what to do, and the Redactor that
// keeps API keys and other secrets out of everything sent or reported.
package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Error is a failure of the model endpoint: a refused key, a bad
// request, an endpoint that stays overloaded or keeps cutting its stream
// off. Its message never holds the API key.
type Error struct {
	// Status is the HTTP status (0 when none was received).
	Status int
	// Retries is how many times the request was retried.
	Retries int
	// Message says what happened and what to do.
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Client streams chat completions from an OpenAI-compatible endpoint,
// retrying 429s, 5xxs and dropped streams with backoff.
type Client struct {
	api *openai.Client
	ep  Endpoint
	red *Redactor
	hdr *headerDoer
	// noUsage is set once the endpoint refused stream_options.
	noUsage bool
	// sleep waits between retries (time.Sleep honouring ctx; tests keep it).
	sleep func(ctx context.Context, d time.Duration) error
}

// headerDoer is the HTTP client of go-openai, remembering the Retry-After
// header of the last response.
type headerDoer struct {
	c          *http.Client
	azure      bool
	key        string
	mu         sync.Mutex
	retryAfter string
}

// Do sends req and notes Retry-After.
func (h *headerDoer) Do(req *http.Request) (*http.Response, error) {
	if h.azure && h.key != "" {
		req.Header.Set("api-key", h.key)
	}
	resp, err := h.c.Do(req)
	h.mu.Lock()
	h.retryAfter = ""
	if resp != nil {
		h.retryAfter = resp.Header.Get("Retry-After")
	}
	h.mu.Unlock()
	return resp, err
}

// lastRetryAfter returns the Retry-After of the last response, if any.
func (h *headerDoer) lastRetryAfter() (time.Duration, bool) {
	h.mu.Lock()
	v := h.retryAfter
	h.mu.Unlock()
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// Endpoint is where a Client sends its requests and how it retries them.
type Endpoint struct {
	// BaseURL is the endpoint's URL up to its /v1; APIKey may be "" for a
	// local server that wants none.
	BaseURL string
	APIKey  string
	// HTTPClient sends the requests (nil: a client without timeout).
	HTTPClient *http.Client
	// MaxRetries bounds the retries of one request after a 429, a 5xx or a
	// dropped stream (0: none); RetryDelay is the first backoff, doubled on
	// each retry.
	MaxRetries int
	RetryDelay time.Duration
}

// NewClient builds the client of an endpoint; red redacts what its errors
// say.
func NewClient(ep Endpoint, red *Redactor) *Client {
	hc := ep.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	hd := &headerDoer{c: hc, key: ep.APIKey, azure: strings.Contains(strings.ToLower(ep.BaseURL), ".openai.azure.com")}
	oc := openai.DefaultConfig(ep.APIKey)
	oc.BaseURL = ep.BaseURL
	oc.HTTPClient = hd
	return &Client{api: openai.NewClientWithConfig(oc), ep: ep, red: red, hdr: hd, sleep: sleepCtx}
}

// sleepCtx sleeps d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reply is one streamed answer of the model.
type Reply struct {
	// Text is the answer's prose and Calls its tool calls.
	Text  string
	Calls []openai.ToolCall
	// Prompt and Completion tokens, as reported (or estimated when the
	// endpoint reported none).
	Prompt, Completion int
	estimated          bool
	finishReason       string
}

// retryable is an error after which the same request is sent again.
type retryable struct {
	status int
	what   string
}

func (r *retryable) Error() string { return r.what }

// Complete sends one request and streams its answer, calling onText with
// each text delta as it arrives. It retries 429s, 5xxs and dropped streams
// (onNotice says so, for the person watching) up to MaxRetries times.
func (cc *Client) Complete(ctx context.Context, req openai.ChatCompletionRequest, onText, onNotice func(string)) (*Reply, error) {
	var last *retryable
	for attempt := 0; ; attempt++ {
		if cc.noUsage {
			req.StreamOptions = nil
		} else {
			req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
		}
		rep, err := cc.once(ctx, req, onText)
		if err == nil {
			return rep, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var rt *retryable
		if !errors.As(err, &rt) {
			return nil, err
		}
		if rt.status == -1 { // stream_options refused: resend at once
			cc.noUsage = true
			attempt--
			continue
		}
		last = rt
		if attempt >= cc.ep.MaxRetries {
			break
		}
		wait := cc.ep.RetryDelay << attempt
		wait = wait/2 + rand.N(wait/2+1)
		if ra, ok := cc.hdr.lastRetryAfter(); ok && rt.status == http.StatusTooManyRequests {
			wait = min(ra, 30*time.Second)
		}
		wait = min(wait, 30*time.Second)
		onNotice(fmt.Sprintf("%s; retrying in %s (%d of %d)", rt.what, wait.Round(time.Millisecond), attempt+1, cc.ep.MaxRetries))
		if err := cc.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	return nil, &Error{Status: last.status, Retries: cc.ep.MaxRetries,
		Message: fmt.Sprintf("the model endpoint at %s failed %d times: %s", SafeURL(cc.ep.BaseURL), cc.ep.MaxRetries+1, last.what)}
}

// once sends the request once and reads the stream to its end.
func (cc *Client) once(ctx context.Context, req openai.ChatCompletionRequest, onText func(string)) (*Reply, error) {
	stream, err := cc.api.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return nil, cc.classify(ctx, err, req)
	}
	defer stream.Close()
	rep := &Reply{}
	type partial struct {
		id, name string
		args     strings.Builder
	}
	var calls []*partial
	byIndex := map[int]*partial{}
	var usage *openai.Usage
	var text strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &retryable{status: 0, what: "the model's stream was cut off (" + cc.red.Scrub(shortErr(err)) + ")"}
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // only one choice is asked for
			}
			d := ch.Delta
			if d.Content != "" {
				text.WriteString(d.Content)
				onText(d.Content)
			}
			for i, tc := range d.ToolCalls {
				idx := i
				if tc.Index != nil {
					idx = *tc.Index
				} else if tc.ID == "" && len(calls) > 0 {
					idx = -1 // a continuation without index: the last call
				}
				var p *partial
				if idx == -1 {
					p = calls[len(calls)-1]
				} else if p = byIndex[idx]; p == nil {
					p = &partial{}
					byIndex[idx] = p
					calls = append(calls, p)
				}
				if tc.ID != "" && p.id == "" {
					p.id = tc.ID
				}
				if n := tc.Function.Name; n != "" && n != p.name {
					p.name += n
				}
				p.args.WriteString(tc.Function.Arguments)
			}
			if fc := d.FunctionCall; fc != nil { // the legacy form
				if len(calls) == 0 || fc.Name != "" && calls[len(calls)-1].name != "" {
					calls = append(calls, &partial{})
				}
				p := calls[len(calls)-1]
				p.name += fc.Name
				p.args.WriteString(fc.Arguments)
			}
			if ch.FinishReason != "" {
				rep.finishReason = string(ch.FinishReason)
			}
		}
	}
	if rep.finishReason == "" && (text.Len() > 0 || len(calls) > 0 || usage == nil) {
		// [DONE] (or the end of the body) came before the model said it
		// had finished: the answer is cut.
		return nil, &retryable{what: "the model's stream ended before its answer was complete"}
	}
	rep.Text = text.String()
	for i, p := range calls {
		id := p.id
		if id == "" {
			id = fmt.Sprintf("call_adi_%d", i+1)
		}
		rep.Calls = append(rep.Calls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: p.name, Arguments: p.args.String()}})
	}
	if usage != nil {
		rep.Prompt, rep.Completion = usage.PromptTokens, usage.CompletionTokens
	} else {
		rep.estimated = true
		rep.Prompt = EstimateTokens(requestBytes(req))
		n := len(rep.Text)
		for _, c := range rep.Calls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
		rep.Completion = EstimateTokens(n)
	}
	return rep, nil
}

// classify turns an error of sending the request into a retryable, an
// Error, or the context's error.
func (cc *Client) classify(ctx context.Context, err error, req openai.ChatCompletionRequest) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	status, msg := 0, ""
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		status, msg = ae.HTTPStatusCode, ae.Message
	case errors.As(err, &re):
		status, msg = re.HTTPStatusCode, strings.TrimSpace(string(re.Body))
		if re.Err != nil && msg == "" {
			msg = re.Err.Error()
		}
	}
	msg = Clip(cc.red.Redact(strings.Join(strings.Fields(msg), " ")), 300)
	where := SafeURL(cc.ep.BaseURL)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		keyNote := "no API key was sent; set ADI_LLM_API_KEY (or OPENAI_API_KEY)"
		if cc.ep.APIKey != "" {
			keyNote = "check ADI_LLM_API_KEY (or OPENAI_API_KEY)"
		}
		return &Error{Status: status, Message: fmt.Sprintf("the model endpoint at %s refused the API key (%d %s): %s. %s",
			where, status, http.StatusText(status), orNone(msg), keyNote)}
	case status == http.StatusNotFound:
		return &Error{Status: status, Message: fmt.Sprintf("the model endpoint at %s answered 404 for model %q: %s (is the base URL right, with its /v1, and does it serve that model?)",
			where, req.Model, orNone(msg))}
	case status == http.StatusBadRequest && req.StreamOptions != nil && strings.Contains(strings.ToLower(msg), "stream_options"):
		return &retryable{status: -1, what: "stream_options refused"}
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return &retryable{status: status, what: fmt.Sprintf("the model endpoint answered %d %s (%s)", status, http.StatusText(status), orNone(msg))}
	case status != 0:
		return &Error{Status: status, Message: fmt.Sprintf("the model endpoint at %s answered %d %s: %s", where, status, http.StatusText(status), orNone(msg))}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Message: fmt.Sprintf("cannot reach the model endpoint at %s: connection refused (is the server running?)", where)}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &retryable{what: "cannot reach the model endpoint at " + where + ": " + cc.red.Redact(shortErr(err))}
	}
	// Refused before sending (an unknown model for chat completions, a
	// request the library rejects): retrying cannot help.
	return &Error{Message: fmt.Sprintf("the request for model %q was not sent: %s", req.Model, cc.red.Redact(shortErr(err)))}
}

// orNone is s, or "no message" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "no message"
	}
	return s
}

// shortErr is an error's text without the URL net/http puts in it (which
// could hold credentials in its query).
func shortErr(err error) string {
	s := err.Error()
	if i := strings.Index(s, `": `); strings.HasPrefix(s, "Post \"") && i > 0 {
		s = s[i+3:]
	}
	return s
}

// EstimateTokens approximates a token count from a byte count: about 4
// bytes a token for English and code (what OpenAI's tokenizers average).
func EstimateTokens(bytes int) int { return (bytes + 3) / 4 }

// requestBytes is the size of a request's messages and tools.
func requestBytes(req openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Role) + 8
		for _, c := range m.ToolCalls {
			n += len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments) + 16
		}
	}
	for _, t := range req.Tools {
		b, _ := t.MarshalJSON()
		n += len(b)
	}
	return n
}

// SafeURL is a URL for messages: without user information or query (either
// may hold a credential).
func SafeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

// Clip cuts s to n bytes at a UTF-8 boundary, marking the cut with "…"
// (text for the model and for messages is kept short with it).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
