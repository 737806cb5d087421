package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/trace"
)

// customArgs are the arguments of the adi/* requests; each uses some.
type customArgs struct {
	FID       string `json:"fid"`
	Func      string `json:"func"`
	Condition string `json:"condition"`
	Depth     *int   `json:"depth"`
	Line      int    `json:"line"`
	K         int    `json:"k"`
	Stmt      string `json:"stmt"`
}

// onCustom runs an ADI command. The response body is the engine's JSON
// answer with the compact text added as "text"; a navigation also sends
// stopped, so that the editor's views follow.
func (s *session) onCustom(ctx context.Context, r *customRequest) error {
	d, err := s.debuggee()
	if err != nil {
		return err
	}
	var a customArgs
	if len(r.Arguments) > 0 {
		if err := json.Unmarshal(r.Arguments, &a); err != nil {
			return fmt.Errorf("%s: bad arguments: %v", r.Command, err)
		}
	}
	line, err := commandLine(r.Command, &a)
	if err != nil {
		return err
	}
	from := d.Current()
	ans, err := d.Exec(ctx, line)
	if err != nil {
		return err
	}
	body, err := answerBody(ans.JSON, ans.Text)
	if err != nil {
		return err
	}
	if r.Command == "adi/frame" && from != nil && (a.FID == "" || a.FID == from.FID.String()) {
		// The inspected frame: which of its steps the editor is at, so a
		// view need not guess it from the line (a loop repeats lines).
		body = withField(body, "current_step", s.step)
	}
	s.send(&customResponse{Response: s.response(&r.Request), Body: body})

	switch r.Command {
	case "adi/continue", "adi/prev", "adi/stepInto", "adi/stepOut":
		cur := d.Current()
		flt, err := d.FLT(ctx, cur)
		if err != nil {
			return s.stopHere("step", "")
		}
		reason := "step"
		switch {
		case sameFrame(cur, from):
			s.step = min(s.step, max(len(flt.Steps)-1, 0))
		case r.Command == "adi/stepOut":
			s.step = callingStep(flt, from.FID)
		default:
			reason = s.arrive(flt, r.Command != "adi/stepInto")
		}
		return s.stopHere(reason, "")
	}
	return nil
}

// commandLine writes a custom request as a line of the engine's command
// language.
func commandLine(command string, a *customArgs) (string, error) {
	need := func(v, name string) error {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("%s needs %q", command, name)
		}
		return nil
	}
	switch command {
	case "adi/frame":
		return strings.TrimSpace("frame " + a.FID), nil
	case "adi/frames":
		return "frames " + a.Func, need(a.Func, "func")
	case "adi/callTree":
		l := strings.TrimSpace("call-tree " + a.FID)
		if a.Depth != nil {
			l += " " + strconv.Itoa(*a.Depth)
		}
		return l, nil
	case "adi/break":
		return strings.TrimSpace("break " + a.Func + " " + a.Condition), need(a.Func, "func")
	case "adi/clear":
		return strings.TrimSpace("clear " + a.Func + " " + a.Condition), nil
	case "adi/continue":
		return "continue", nil
	case "adi/prev":
		return "prev", nil
	case "adi/stepInto":
		return "step-into " + a.FID, need(a.FID, "fid")
	case "adi/stepOut":
		return "step-out", nil
	case "adi/execute":
		if err := need(a.FID, "fid"); err != nil {
			return "", err
		}
		if a.Line < 1 {
			return "", fmt.Errorf("%s needs \"line\", a line of the frame's function", command)
		}
		k := a.K
		if k == 0 {
			k = 1
		}
		return fmt.Sprintf("execute %s %d %d %s", a.FID, a.Line, k, a.Stmt), need(a.Stmt, "stmt")
	case "adi/outcome":
		return "outcome", nil
	}
	return "", fmt.Errorf("unknown adi request %q", command)
}

// maxBody keeps a response well under go-dap's 4 MiB message limit.
const maxBody = 3 << 20

// withField adds "key": v to a JSON object body (not to a truncated one).
func withField(body json.RawMessage, key string, v any) json.RawMessage {
	vb, err := json.Marshal(v)
	if err != nil || len(body) < 2 || body[len(body)-1] != '}' || bytes.Contains(body, []byte(`"truncated":true`)) {
		return body
	}
	kb, _ := json.Marshal(key)
	out := append([]byte(nil), body[:len(body)-1]...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	out = append(append(append(append(out, kb...), ':'), vb...), '}')
	return out
}

// answerBody is the JSON object v with "text" added; an answer too large
// for one DAP message is replaced by its text, cut, with a marker.
func answerBody(v any, text string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := trace.WriteJSON(&buf, v, ""); err != nil {
		return nil, err
	}
	b := bytes.TrimSpace(buf.Bytes())
	tb, _ := json.Marshal(text)
	if len(b)+len(tb) < maxBody && len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' {
		out := append([]byte(nil), b[:len(b)-1]...)
		if len(b) > 2 {
			out = append(out, ',')
		}
		out = append(append(append(out, `"text":`...), tb...), '}')
		return out, nil
	}
	cut := text
	if len(cut) > maxBody/2 {
		cut = cut[:maxBody/2] + "\n…"
	}
	return json.Marshal(map[string]any{
		"truncated": true,
		"text":      cut,
		"note":      fmt.Sprintf("the answer was %d bytes, over the DAP message limit: only the start of its text is here; ask for less (a smaller call-tree depth, one frame)", len(b)+len(tb)),
	})
}
