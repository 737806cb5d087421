package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/adi-go/adi/agent/chat"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine/trace"
)

// toolNames are the tools the model is offered, in the order of the
// schema list.
var toolNames = []string{
	"frame", "step_out", "step_into", "call_tree", "frames", "execute",
	"break", "clear", "continue", "prev", "outcome", "source", "finish",
}

// prop builds a JSON schema property.
func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

// object builds a JSON schema object with its required properties.
func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// fidProp is the schema of a frame id argument.
var fidProp = prop("string", "frame id FUNC#N, e.g. main.fib#3")

// toolSchemas returns the tool definitions sent with every request.
func toolSchemas() []openai.Tool {
	evidence := object(map[string]any{
		"fid":   prop("string", "the frame that shows it"),
		"file":  prop("string", "file, relative to the module root"),
		"line":  prop("integer", "line in that file"),
		"claim": prop("string", "what the frame or value shows"),
		"value": prop("string", "the recorded value(s), copied from a tool result, e.g. r.ports = nil"),
	}, "claim")
	defs := map[string]struct {
		desc   string
		params map[string]any
	}{
		"frame": {"The Frame Lifetime Trace of a frame: its arguments, every statement it ran with the variables each one changed, its calls with their results, how it ended. Default: the inspected frame.",
			object(map[string]any{"fid": fidProp})},
		"step_out":  {"Move to the caller of the inspected frame and show its trace.", object(map[string]any{})},
		"step_into": {"Move to frame fid (e.g. a callee named in a trace) and show its trace.", object(map[string]any{"fid": fidProp}, "fid")},
		"call_tree": {"The calls below a frame with their arguments and results.",
			object(map[string]any{"fid": fidProp, "depth": prop("integer", "levels to show (default 3)")})},
		"frames": {"Every recorded invocation of a function, with arguments and results.",
			object(map[string]any{"func": prop("string", "function name, e.g. main.fib or parser.Parse")}, "func")},
		"execute": {"Re-run the program to the k-th time line runs in frame fid and evaluate a Go expression over the variables in scope there; an assignment (x = 5) is a what-if: the frame then runs on and its results or panic are reported.",
			object(map[string]any{
				"fid":  fidProp,
				"line": prop("integer", "a line of fid's function"),
				"k":    prop("integer", "which visit of the line (1 = first; default 1)"),
				"stmt": prop("string", "an expression (r.ports == nil, len(xs)) or an assignment (n = 5)"),
			}, "fid", "line", "stmt")},
		"break": {"Add a breakpoint on a function, with an optional condition over its arguments and results (r0, r1 for unnamed results); answers how many frames match. continue and prev then move between them.",
			object(map[string]any{"func": prop("string", "function name"), "cond": prop("string", "Go expression, e.g. n == 3 && r0 > 1")}, "func")},
		"clear": {"Remove breakpoints: one (func and cond), all of func, or all (no arguments).",
			object(map[string]any{"func": prop("string", "function name"), "cond": prop("string", "the condition it was added with")})},
		"continue": {"Move to the next frame matching a breakpoint and show its trace.", object(map[string]any{})},
		"prev":     {"Move to the previous frame matching a breakpoint and show its trace.", object(map[string]any{})},
		"outcome":  {"How the run ended: exit code, panic and its stack with frame ids, failed tests, output.", object(map[string]any{})},
		"source": {"Source lines of the module: a function's body (func) or a range of a file (file, start, end).",
			object(map[string]any{
				"func":  prop("string", "function name, e.g. main.NewRegistry"),
				"file":  prop("string", "file relative to the module root"),
				"start": prop("integer", "first line"),
				"end":   prop("integer", "last line (at most 200 lines)"),
			})},
		"finish": {"Give the diagnosis and end: the root cause, the evidence from the tools, and exactly one fix as a unified diff.",
			object(map[string]any{
				"root_cause": object(map[string]any{
					"file": prop("string", "file relative to the module root"),
					"line": prop("integer", "the line to change"),
					"func": prop("string", "its function"),
					"fid":  prop("string", "a frame that ran it"),
				}, "file", "line", "func"),
				"summary":     prop("string", "one line: what is wrong, where"),
				"explanation": prop("string", "why, in two or three sentences"),
				"evidence":    map[string]any{"type": "array", "items": evidence, "description": "frames and values from the tool results that show it"},
				"fix":         prop("string", "one unified diff (--- a/FILE, +++ b/FILE, @@ hunks) with paths relative to the module root"),
				"confidence":  map[string]any{"type": "string", "enum": []string{"high", "medium", "low"}},
			}, "root_cause", "summary", "explanation", "evidence", "fix", "confidence")},
	}
	out := make([]openai.Tool, 0, len(toolNames))
	for _, n := range toolNames {
		d := defs[n]
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: n, Description: d.desc, Parameters: d.params,
		}})
	}
	return out
}

// toolArgs are the arguments of every tool but finish; each tool reads
// its own.
type toolArgs struct {
	FID   string   `json:"fid"`
	Func  string   `json:"func"`
	Cond  string   `json:"cond"`
	Depth *flexInt `json:"depth"`
	Line  *flexInt `json:"line"`
	K     *flexInt `json:"k"`
	Stmt  string   `json:"stmt"`
	File  string   `json:"file"`
	Start *flexInt `json:"start"`
	End   *flexInt `json:"end"`
}

// finishArgs are the arguments of finish.
type finishArgs struct {
	RootCause struct {
		File string  `json:"file"`
		Line flexInt `json:"line"`
		Func string  `json:"func"`
		FID  string  `json:"fid"`
	} `json:"root_cause"`
	Summary     string `json:"summary"`
	Explanation string `json:"explanation"`
	Evidence    []struct {
		FID   string  `json:"fid"`
		File  string  `json:"file"`
		Line  flexInt `json:"line"`
		Claim string  `json:"claim"`
		Value string  `json:"value"`
	} `json:"evidence"`
	Fix        string `json:"fix"`
	Confidence string `json:"confidence"`
}

// flexInt is an integer argument that a model may also write as a string
// ("18").
type flexInt int

// UnmarshalJSON accepts 18, 18.0 and "18".
func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return nil
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(u)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) {
		return fmt.Errorf("want an integer, got %s", b)
	}
	*n = flexInt(f)
	return nil
}

// intOr returns *p, or def when p is nil.
func intOr(p *flexInt, def int) int {
	if p == nil {
		return def
	}
	return int(*p)
}

// toolError is a tool result telling the model what was wrong with its
// call; the loop goes on.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// badArgs builds a toolError for a tool's arguments.
func badArgs(tool, format string, a ...any) error {
	return &toolError{fmt.Sprintf("%s: %s", tool, fmt.Sprintf(format, a...))}
}

// decodeArgs unmarshals a tool call's JSON arguments into v, with errors
// a model can act on.
func decodeArgs(tool, args string, v any) error {
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	dec := json.NewDecoder(strings.NewReader(args))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return badArgs(tool, "argument %q must be %s, not a JSON %s; resend the call with valid arguments", te.Field, jsonKind(te.Type.String()), te.Value)
		default:
			return badArgs(tool, "the arguments are not a valid JSON object (%v): %s; resend the call with valid JSON arguments", err, chat.Clip(args, 200))
		}
	}
	if dec.More() {
		return badArgs(tool, "the arguments hold more than one JSON value: %s", chat.Clip(args, 200))
	}
	return nil
}

// jsonKind names a Go type as the JSON schema does.
func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

// oneWord checks that a command argument is one word (no spaces or line
// breaks that would change the command line).
func oneWord(tool, name, v string) error {
	if v == "" || strings.ContainsAny(v, " \t\r\n") {
		return badArgs(tool, "argument %q must be one word, e.g. main.fib or main.fib#3; got %q", name, v)
	}
	return nil
}

// oneLineArg checks that a free-text argument has no line break.
func oneLineArg(tool, name, v string) error {
	if strings.ContainsAny(v, "\r\n") {
		return badArgs(tool, "argument %q must be on one line", name)
	}
	return nil
}

// commandLine builds the engine command line of a tool call (every tool
// but source and finish).
func (c *Conversation) commandLine(tool string, a *toolArgs) (string, error) {
	switch tool {
	case "continue", "prev", "outcome":
		return tool, nil
	case "step_out":
		return "step-out", nil
	case "step_into":
		if err := oneWord(tool, "fid", a.FID); err != nil {
			return "", err
		}
		return "step-into " + a.FID, nil
	case "frame":
		if a.FID == "" {
			return "frame", nil
		}
		if err := oneWord(tool, "fid", a.FID); err != nil {
			return "", err
		}
		return "frame " + a.FID, nil
	case "call_tree":
		line := "call-tree"
		if a.FID != "" {
			if err := oneWord(tool, "fid", a.FID); err != nil {
				return "", err
			}
			line += " " + a.FID
		}
		if a.Depth != nil {
			d := int(*a.Depth)
			if d < 0 || d > 10 {
				return "", badArgs(tool, "depth must be 0 to 10, got %d", d)
			}
			line += " " + strconv.Itoa(d)
		}
		return line, nil
	case "frames":
		if err := oneWord(tool, "func", a.Func); err != nil {
			return "", err
		}
		return "frames " + a.Func, nil
	case "break":
		if err := oneWord(tool, "func", a.Func); err != nil {
			return "", err
		}
		if err := oneLineArg(tool, "cond", a.Cond); err != nil {
			return "", err
		}
		return strings.TrimSpace("break " + a.Func + " " + a.Cond), nil
	case "clear":
		if a.Func == "" {
			if a.Cond != "" {
				return "", badArgs(tool, "a cond needs its func")
			}
			return "clear", nil
		}
		if err := oneWord(tool, "func", a.Func); err != nil {
			return "", err
		}
		if err := oneLineArg(tool, "cond", a.Cond); err != nil {
			return "", err
		}
		return strings.TrimSpace("clear " + a.Func + " " + a.Cond), nil
	case "execute":
		if err := oneWord(tool, "fid", a.FID); err != nil {
			return "", err
		}
		line, k := intOr(a.Line, 0), intOr(a.K, 1)
		if line <= 0 || k <= 0 {
			return "", badArgs(tool, "line and k must be positive integers (got line %d, k %d)", line, k)
		}
		stmt := strings.TrimSpace(a.Stmt)
		if stmt == "" {
			return "", badArgs(tool, "stmt is required: an expression or an assignment")
		}
		if err := oneLineArg(tool, "stmt", stmt); err != nil {
			return "", err
		}
		if !c.cfg.AllowCalls {
			if err := checkNoCalls(stmt); err != nil {
				return "", badArgs(tool, "%v", err)
			}
		}
		return fmt.Sprintf("execute %s %d %d %s", a.FID, line, k, stmt), nil
	}
	return "", fmt.Errorf("internal error: no command for tool %q", tool)
}

// conversions are the predeclared types a call expression may convert
// to without calling a function.
var conversions = []string{
	"bool", "byte", "rune", "string", "int", "int8", "int16", "int32", "int64",
	"uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64",
	"complex64", "complex128", "error", "any",
}

// checkNoCalls refuses a statement that calls a function: only len and
// cap, and conversions to predeclared, pointer, slice and map types, are
// allowed (ChatDBG's allow-list: evaluating must not run the program's
// code).
func checkNoCalls(stmt string) error {
	src := "package p\nfunc _() {\n" + stmt + "\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("cannot parse %q as a Go expression or assignment: %v", stmt, strings.TrimPrefix(err.Error(), "4:"))
	}
	var bad string
	ast.Inspect(f.Decls[0].(*ast.FuncDecl).Body, func(n ast.Node) bool {
		if bad != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			switch fn := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				if fn.Name == "len" || fn.Name == "cap" || slices.Contains(conversions, fn.Name) {
					return true
				}
			case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.InterfaceType:
				return true
			}
			bad = exprText(n.Fun)
			return false
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt, *ast.SendStmt:
			bad = "a function literal, go, defer or send"
			return false
		}
		return true
	})
	if bad != "" {
		return fmt.Errorf("execute may not call functions (%s): only len and cap are allowed, because calling runs the program's code; adi was started without --allow-calls. Inspect the values instead (fields, indexes, comparisons)", bad)
	}
	return nil
}

// exprText renders an expression for a message.
func exprText(e ast.Expr) string { return types.ExprString(e) + "(…)" }

// sourceTool answers the source tool: a function's body or a range of
// lines of a module file, numbered.
func (c *Conversation) sourceTool(a *toolArgs) (string, error) {
	const maxLines = 200
	switch {
	case a.Func != "":
		file, start, end, err := c.funcSource(a.Func)
		if err != nil {
			return "", err
		}
		if end-start+1 > maxLines {
			end = start + maxLines - 1
		}
		return c.numbered(file, start, end)
	case a.File != "":
		start, end := intOr(a.Start, 1), intOr(a.End, 0)
		if end == 0 {
			end = start + 59
		}
		if start < 1 || end < start {
			return "", badArgs("source", "start must be 1 or more and end at least start (got %d and %d)", start, end)
		}
		if end-start+1 > maxLines {
			end = start + maxLines - 1
		}
		abs, err := c.moduleFile(a.File)
		if err != nil {
			return "", err
		}
		return c.numbered(abs, start, end)
	}
	return "", badArgs("source", "give func (a function's body) or file with start and end (a range of lines)")
}

// moduleFile resolves a path given by the model to a Go file inside the
// module (absolute), refusing anything outside it.
func (c *Conversation) moduleFile(p string) (string, error) {
	if c.root == "" {
		return "", &toolError{"source: the module root is not known, so no file can be shown; use func instead"}
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(c.root, filepath.FromSlash(p))
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(c.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", badArgs("source", "%q is not inside the module; only the module's files can be shown", p)
	}
	if !strings.HasSuffix(abs, ".go") && filepath.Base(abs) != "go.mod" {
		return "", badArgs("source", "%q is not a Go file", p)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		if r, err := filepath.Rel(c.root, resolved); err != nil || strings.HasPrefix(r, "..") {
			if rr, err := filepath.EvalSymlinks(c.root); err != nil || !strings.HasPrefix(resolved, rr+string(filepath.Separator)) {
				return "", badArgs("source", "%q leads outside the module", p)
			}
		}
	}
	if _, err := os.Stat(abs); err != nil {
		return "", badArgs("source", "no file %s in the module", c.relPath(abs))
	}
	return abs, nil
}

// numbered renders lines start..end of an absolute file path.
func (c *Conversation) numbered(abs string, start, end int) (string, error) {
	f, err := c.src.File(abs)
	if err != nil && f == nil {
		return "", &toolError{"source: " + err.Error()}
	}
	lines := strings.Split(string(f.Src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if start > len(lines) {
		return "", badArgs("source", "%s has %d lines; start %d is past its end", c.relPath(abs), len(lines), start)
	}
	end = min(end, len(lines))
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d\n", c.relPath(abs), start, end)
	w := len(strconv.Itoa(end))
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%*d  %s\n", w, i, strings.ReplaceAll(lines[i-1], "\t", "    "))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// funcSource finds a function's span: a recorded function by its
// declaration, else a declaration in the recorded functions' directories.
func (c *Conversation) funcSource(name string) (file string, start, end int, err error) {
	rec := c.dbg.Recording()
	if fn := resolveFunc(rec, name); fn != "" {
		if fs := rec.Invocations(fn); len(fs) > 0 && fs[0].Decl.File != "" {
			d := fs[0].Decl
			if s, e, ok := c.funcSpan(d.File, d.Line); ok {
				return d.File, s, e, nil
			}
		}
	}
	// Not recorded (never called, or not user code): look through the
	// files of the recorded functions' packages.
	want := syntax.FuncName(name)
	recv := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		if j := strings.LastIndexByte(name[:i], '.'); j >= 0 || strings.Contains(name[:i], "(") {
			recv = strings.Trim(name[j+1:i], "(*)")
		}
	}
	dirs := map[string]bool{}
	for _, fn := range rec.Funcs() {
		if decl := rec.DeclOf(fn); decl.File != "" {
			dirs[filepath.Dir(decl.File)] = true
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if c.root != "" {
			if r, err := filepath.Rel(c.root, dir); err != nil || strings.HasPrefix(r, "..") {
				continue
			}
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range paths {
			sf, err := c.src.File(p)
			if err != nil || sf.AST == nil {
				continue
			}
			for _, d := range sf.AST.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Name.Name != want {
					continue
				}
				if recv != "" && (fd.Recv == nil || len(fd.Recv.List) == 0 || strings.Trim(types.ExprString(fd.Recv.List[0].Type), "*") != recv) {
					continue
				}
				return p, sf.Line(fd.Pos()), sf.Line(fd.End()), nil
			}
		}
	}
	return "", 0, 0, badArgs("source", "no function %q found in the recording or its packages; the recorded functions include %s", name, strings.Join(firstN(rec.Funcs(), 12), ", "))
}

// funcSpan returns the lines of the function (declaration or literal)
// that starts at line declLine of file.
func (c *Conversation) funcSpan(file string, declLine int) (start, end int, ok bool) {
	sf, err := c.src.File(file)
	if err != nil || sf.AST == nil {
		return 0, 0, false
	}
	ast.Inspect(sf.AST, func(n ast.Node) bool {
		if ok || n == nil {
			return false
		}
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if s := sf.Line(n.Pos()); s == declLine {
				start, end, ok = s, sf.Line(n.End()), true
				return false
			}
		}
		return true
	})
	return start, end, ok
}

// resolveFunc finds a recorded function by the names people (and models)
// write: the full name, a name without its package path, a generic name
// without "[...]". "" when none or several match.
func resolveFunc(rec *trace.Recording, name string) string {
	if rec.HasFunc(name) {
		return name
	}
	var found []string
	for _, fn := range rec.Funcs() {
		plain := strings.ReplaceAll(fn, "[...]", "")
		if plain == name {
			return fn
		}
		if strings.HasSuffix(plain, "/"+name) || strings.HasSuffix(fn, "/"+name) {
			found = append(found, fn)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// lookupFID finds a recorded frame by a frame id as a model writes it
// (with or without the package path).
func lookupFID(rec *trace.Recording, s string) (*trace.Frame, error) {
	fid, err := trace.ParseFID(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if f, ok := rec.Lookup(fid); ok {
		return f, nil
	}
	if fn := resolveFunc(rec, fid.Func); fn != "" {
		fid.Func = fn
	}
	return rec.Frame(fid)
}

// firstN returns at most n elements of xs.
func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return append(slices.Clone(xs[:n]), "…")
	}
	return xs
}

// capResult cuts a tool result to max bytes at a line boundary, saying
// what was cut.
func capResult(s string, max int) string {
	if len(s) <= max {
		return s
	}
	keep := max - 160
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && s[keep]&0xC0 == 0x80 {
		keep--
	}
	if i := strings.LastIndexByte(s[:keep], '\n'); i > keep/2 {
		keep = i
	}
	rest := s[keep:]
	lines := strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		lines++
	}
	return s[:keep] + fmt.Sprintf("\n[… cut by adi: %d more lines (%d bytes) of this answer; ask for less, e.g. a smaller call_tree depth, one frame, or a narrower source range]", lines, len(rest))
}

// summarize is a one-line summary of a tool result for a person.
func summarize(result string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(result), "\n")
	n := strings.Count(strings.TrimSpace(result), "\n") + 1
	s := chat.Clip(first, 140)
	if n > 1 {
		s += fmt.Sprintf(" (%d lines)", n)
	}
	return s
}

// toolSchemaBytes is the size of the tool definitions sent with each
// request (measured once).
var toolSchemaBytes = func() int {
	n := 0
	for _, t := range toolSchemas() {
		b, _ := t.MarshalJSON()
		n += len(b)
	}
	return n
}()
