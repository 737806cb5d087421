package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of this package run the adi command for real: they build the
// fixture programs of testdata with the Go toolchain and record them under
// Delve. They are sequential (they change the working directory and TMPDIR).

// repoRoot is the module's root directory; the targets of the tests are
// written relative to it, as a user would type them there.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// lockedBuffer is a bytes.Buffer that run writes to while the test may read
// it (when run hangs).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// adiRun is the result of one call of run.
type adiRun struct {
	Args           []string
	Code           int
	Stdout, Stderr string
	Elapsed        time.Duration
}

// runOptions tune runAdi.
type runOptions struct {
	// Dir is the working directory (default: the repository root).
	Dir string
	// Limit is how long run may take before the test calls it hung, kills
	// its targets and fails (default: 2 minutes).
	Limit time.Duration
	// Ctx is passed to run (default: context.Background()).
	Ctx context.Context
	// Stderr, if set, also receives what run writes to stderr.
	Stderr func(p []byte)
}

// runRepl runs `adi repl ARGS…` with script as standard input (a reader that
// is not a terminal) from the repository root.
func runRepl(t *testing.T, script string, args ...string) adiRun {
	t.Helper()
	return runAdi(t, runOptions{}, script, append([]string{"repl"}, args...)...)
}

// runAdi calls run(ctx, args, script, stdout, stderr) in a fresh TMPDIR, so
// that the builds adi makes (and the processes it starts from them) can be
// told apart from those of other programs running on the machine. After run
// returns it checks that no adi-target process is left.
func runAdi(t *testing.T, o runOptions, script string, args ...string) adiRun {
	t.Helper()
	dir := o.Dir
	if dir == "" {
		dir = repoRoot(t)
	}
	t.Chdir(dir)
	tmp := newTMPDIR(t)
	ctx := o.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	limit := o.Limit
	if limit == 0 {
		limit = 2 * time.Minute
	}
	var stdout, stderr lockedBuffer
	var errw = (interface{ Write([]byte) (int, error) })(&stderr)
	if o.Stderr != nil {
		errw = teeWriter{&stderr, o.Stderr}
	}
	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- run(ctx, args, strings.NewReader(script), &stdout, errw) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(limit):
		t.Errorf("adi %s did not return within %s; stdout so far:\n%s\nstderr so far:\n%s",
			strings.Join(args, " "), limit, clip(stdout.String()), clip(stderr.String()))
		// Unblock it: end the processes it started.
		for _, p := range targetProcs(t, tmp) {
			t.Logf("killing %s (pid %d) to end the hung session", p.exe, p.pid)
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
		select {
		case code = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("adi %s still runs 30s after its target processes were killed", strings.Join(args, " "))
		}
	}
	r := adiRun{Args: args, Code: code, Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	checkNoTargets(t, tmp, "after adi "+strings.Join(args, " ")+" returned")
	return r
}

type teeWriter struct {
	w interface{ Write([]byte) (int, error) }
	f func([]byte)
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.f(p)
	return t.w.Write(p)
}

// newTMPDIR points TMPDIR at a new directory for the rest of the test: adi
// makes its build directories (adi-*) there.
func newTMPDIR(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// targetProc is a running process started from an adi build.
type targetProc struct {
	pid int
	exe string
}

// targetProcs lists the live processes whose executable is an adi build
// (adi-target, adi-target.test) under dir, from /proc/*/exe, or
// /proc/*/cmdline when the link cannot be read.
func targetProcs(t testing.TB, dir string) []targetProc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("scanning processes: %v", err)
	}
	var out []targetProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil || len(b) == 0 {
				continue // gone, or a zombie: not running
			}
			exe, _, _ = strings.Cut(string(b), "\x00")
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		if !strings.HasPrefix(exe, dir+string(filepath.Separator)) || !strings.HasPrefix(filepath.Base(exe), "adi-target") {
			continue
		}
		if isZombie(pid) {
			continue
		}
		out = append(out, targetProc{pid, exe})
	}
	return out
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// checkNoTargets fails the test if a process started from an adi build
// under dir is still running (it waits a little: the kill of a traced
// process takes a moment to be reaped). Leftovers are killed.
func checkNoTargets(t testing.TB, dir, when string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		ps := targetProcs(t, dir)
		if len(ps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range ps {
				t.Errorf("orphan process %s: pid %d still runs %s", p.exe, p.pid, when)
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildFib builds testdata/fib the way adi wants a binary: with DWARF and
// without optimisations.
func buildFib(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fib")
	cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, "./testdata/fib")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/fib: %v\n%s", err, out)
	}
	return bin
}

// script is a command sequence for adi's standard input. Blank and comment
// lines are sent but get no answer; nothing after quit is answered.
type script []string

func (s script) String() string { return strings.Join(s, "\n") + "\n" }

// answered lists the commands that get an answer, in order.
func (s script) answered() []string {
	var out []string
	for _, c := range s {
		c = strings.TrimSpace(c)
		if c == "" || strings.HasPrefix(c, "#") {
			continue
		}
		if c == "quit" || c == "exit" || c == "q" {
			break
		}
		out = append(out, c)
	}
	return out
}

// answers is what a JSON session answered, one line per command.
type answers struct {
	t     *testing.T
	cmds  []string
	lines []string
}

// jsonAnswers checks that stdout holds exactly one line per answered
// command of s, each a JSON object, and returns them.
func jsonAnswers(t *testing.T, r adiRun, s script) *answers {
	t.Helper()
	cmds := s.answered()
	out := strings.TrimSuffix(r.Stdout, "\n")
	var lines []string
	if out != "" {
		lines = strings.Split(out, "\n")
	}
	if len(lines) != len(cmds) {
		t.Fatalf("adi %s: %d lines on stdout for %d commands, want one per command\nstdout:\n%s\nstderr:\n%s",
			strings.Join(r.Args, " "), len(lines), len(cmds), clip(r.Stdout), clip(r.Stderr))
	}
	if !strings.HasSuffix(r.Stdout, "\n") {
		t.Errorf("stdout does not end with a newline")
	}
	for i, l := range lines {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("answer to %q is not a JSON object: %v\n%s", cmds[i], err, clip(l))
		}
	}
	return &answers{t: t, cmds: cmds, lines: lines}
}

// with returns a that reports to t (a subtest).
func (a *answers) with(t *testing.T) *answers {
	b := *a
	b.t = t
	return &b
}

// line returns the answer to the command cmd (its first occurrence).
func (a *answers) line(cmd string) string {
	a.t.Helper()
	for i, c := range a.cmds {
		if c == cmd {
			return a.lines[i]
		}
	}
	a.t.Fatalf("no command %q in the script", cmd)
	return ""
}

// decode decodes the answer to cmd into v, failing the test if it is an
// error.
func (a *answers) decode(cmd string, v any) {
	a.t.Helper()
	l := a.line(cmd)
	if msg, ok := errorAnswer(l); ok {
		a.t.Fatalf("%s: error %q", cmd, msg)
	}
	if err := json.Unmarshal([]byte(l), v); err != nil {
		a.t.Fatalf("%s: decoding %s: %v", cmd, clip(l), err)
	}
}

// keys checks that the answer to cmd has the given top-level keys.
func (a *answers) keys(cmd string, keys ...string) {
	a.t.Helper()
	var obj map[string]json.RawMessage
	json.Unmarshal([]byte(a.line(cmd)), &obj)
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			a.t.Errorf("%s: the answer has no %q key: %s", cmd, k, clip(a.line(cmd)))
		}
	}
}

// err returns the error message that answered cmd, failing the test if
// the answer is not {"error": "…"}.
func (a *answers) err(cmd string) string {
	a.t.Helper()
	msg, ok := errorAnswer(a.line(cmd))
	if !ok {
		a.t.Errorf("%s: want an error, got %s", cmd, clip(a.line(cmd)))
	}
	return msg
}

// errorAnswer reports whether l is exactly {"error": msg}.
func errorAnswer(l string) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(l), &obj) != nil || len(obj) != 1 {
		return "", false
	}
	raw, ok := obj["error"]
	if !ok {
		return "", false
	}
	var msg string
	if json.Unmarshal(raw, &msg) != nil {
		return "", false
	}
	return msg, true
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

// The JSON contract of the answers, as far as the tests read it.

type valueJ struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
	Kind  string `json:"kind"`
	Nil   bool   `json:"nil"`
	Len   *int64 `json:"len"`
}

type posJ struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type changeJ struct {
	Var  string  `json:"var"`
	Old  *string `json:"old"`
	New  string  `json:"new"`
	Type string  `json:"type"`
}

type stepJ struct {
	File      string    `json:"file"`
	Line      int       `json:"line"`
	Stmt      string    `json:"stmt"`
	Changes   []changeJ `json:"changes"`
	Callees   []string  `json:"callees"`
	Iteration int       `json:"iteration"`
}

type skipJ struct {
	After      int      `json:"after"`
	Line       int      `json:"line"`
	Iterations int      `json:"iterations"`
	Steps      int      `json:"steps"`
	Callees    []string `json:"callees"`
}

type frameJ struct {
	FID       string   `json:"fid"`
	Func      string   `json:"func"`
	Index     int      `json:"index"`
	Caller    *string  `json:"caller"`
	Goroutine int64    `json:"goroutine"`
	CallSite  posJ     `json:"call_site"`
	Args      []valueJ `json:"args"`
	Results   []valueJ `json:"results"`
	Exit      string   `json:"exit"`
	Panic     *string  `json:"panic"`
	Decl      *posJ    `json:"decl"`
	// FLT only:
	Steps     []stepJ `json:"steps"`
	Skipped   []skipJ `json:"skipped"`
	Truncated bool    `json:"truncated"`
	Note      string  `json:"note"`
	// Navigation only:
	Moved *bool `json:"moved"`
}

type framesJ struct {
	Func   string   `json:"func"`
	Frames []frameJ `json:"frames"`
}

type breakJ struct {
	Breakpoint struct {
		Func      string `json:"func"`
		Condition string `json:"condition"`
	} `json:"breakpoint"`
	Matches int `json:"matches"`
}

type bpListJ struct {
	Cleared     *int `json:"cleared"`
	Breakpoints []struct {
		Func      string `json:"func"`
		Condition string `json:"condition"`
	} `json:"breakpoints"`
}

type nodeJ struct {
	FID       string   `json:"fid"`
	Args      []valueJ `json:"args"`
	Results   []valueJ `json:"results"`
	Panic     *string  `json:"panic"`
	Exit      string   `json:"exit"`
	Children  []nodeJ  `json:"children"`
	More      int      `json:"more"`
	Goroutine int64    `json:"goroutine"`
}

type treeJ struct {
	Root *nodeJ `json:"root"`
}

type outcomeJ struct {
	ExitCode int `json:"exit_code"`
	Panic    *struct {
		Value     string  `json:"value"`
		Goroutine int64   `json:"goroutine"`
		Frame     *string `json:"frame"`
		Stack     []struct {
			Func string  `json:"func"`
			File string  `json:"file"`
			Line int     `json:"line"`
			FID  *string `json:"fid"`
		} `json:"stack"`
	} `json:"panic"`
	FailedTests []string `json:"failed_tests"`
	Output      string   `json:"output"`
	Killed      bool     `json:"killed"`
	Partial     string   `json:"partial"`
}

type execJ struct {
	FID     string   `json:"fid"`
	Line    int      `json:"line"`
	K       int      `json:"k"`
	Stmt    string   `json:"stmt"`
	Value   *string  `json:"value"`
	Type    string   `json:"type"`
	WhatIf  bool     `json:"what_if"`
	Results []valueJ `json:"results"`
	Panic   *string  `json:"panic"`
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// argValue returns the value text of the named argument or result.
func argValue(vs []valueJ, name string) string {
	for _, v := range vs {
		if v.Name == name {
			return v.Value
		}
	}
	return "<none>"
}
