package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watchOutput follows what adi watch prints, line by line.
type watchOutput struct {
	t     *testing.T
	lines chan string
	seen  []string
	// stderr is adi's log, shown when the test fails.
	stderr *lockedBuffer
}

// waitFor reads lines until one contains want and returns the lines read
// on the way (want's included).
func (o *watchOutput) waitFor(want string, d time.Duration) []string {
	o.t.Helper()
	start := len(o.seen)
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-o.lines:
			if !ok {
				o.t.Fatalf("adi watch ended before printing %q\nstdout:\n%s\nstderr:\n%s", want, clip(strings.Join(o.seen, "\n")), clip(o.stderr.String()))
			}
			o.seen = append(o.seen, l)
			if strings.Contains(l, want) {
				return o.seen[start:]
			}
		case <-deadline:
			o.t.Fatalf("adi watch did not print %q within %s\nstdout:\n%s\nstderr:\n%s", want, d, clip(strings.Join(o.seen, "\n")), clip(o.stderr.String()))
		}
	}
}

// TestWatchTurnsGreen: adi watch diagnoses a failing target, and saving
// the fix turns it green without restarting adi; a save that does not
// compile shows the compiler's message. Ctrl-C ends it cleanly: exit code
// 0, no target process left, no build directory left.
func TestWatchTurnsGreen(t *testing.T) {
	mod := t.TempDir()
	if real, err := filepath.EvalSymlinks(mod); err == nil {
		mod = real
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "nilmap", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/w\n\ngo 1.26\n"), 0o644)
	file := filepath.Join(mod, "main.go")
	os.WriteFile(file, src, 0o644)
	t.Chdir(mod)
	tmp := newTMPDIR(t)

	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	outR, outW := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"watch", "--debounce", "100ms", "--", "go", "run", "."}, strings.NewReader(""), outW, stderr)
		outW.Close()
	}()
	o := &watchOutput{t: t, lines: make(chan string, 1024), stderr: stderr}
	go func() {
		defer close(o.lines)
		in := bufio.NewScanner(outR)
		for in.Scan() {
			o.lines <- in.Text()
		}
	}()
	defer func() {
		// Unblock run if the test failed half way.
		interrupt()
		go io.Copy(io.Discard, outR)
	}()

	o.waitFor("adi watch: go run . fails", 2*time.Minute)
	o.waitFor("root cause: main.go:18 in main.NewRegistry", 10*time.Second)
	o.waitFor("confidence: high", 10*time.Second)

	// Save the fix, as an editor does.
	fixed := strings.Replace(string(src), "return &Registry{}", "return &Registry{ports: map[string]int{}}", 1)
	if err := os.WriteFile(file, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	o.waitFor("adi watch: saved main.go; running go run . again", 30*time.Second)
	between := o.waitFor("adi watch: go run . passes", 2*time.Minute)
	for _, l := range between {
		if strings.Contains(l, "root cause") {
			t.Errorf("a diagnosis after the fix was saved:\n%s", strings.Join(between, "\n"))
			break
		}
	}

	// A save that does not compile: the compiler's message.
	broken := strings.Replace(fixed, "return &Registry{ports: map[string]int{}}", "return &Registry{ports: map[string]int{}", 1)
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	o.waitFor("adi watch: saved main.go; running go run . again", 30*time.Second)
	o.waitFor("adi watch: go run . cannot be recorded:", 2*time.Minute)
	o.waitFor("main.go:", 10*time.Second)

	// Ctrl-C.
	interrupt()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("adi watch exited with %d after Ctrl-C, want 0\nstderr:\n%s", code, clip(stderr.String()))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("adi watch still runs 30s after Ctrl-C\nstderr:\n%s", clip(stderr.String()))
	}
	if !strings.Contains(stderr.String(), "adi: stopped watching") {
		t.Errorf("stderr does not say that adi stopped watching:\n%s", clip(stderr.String()))
	}
	checkNoTargets(t, tmp, "after adi watch stopped")
	if left, _ := filepath.Glob(filepath.Join(tmp, "adi-*")); len(left) > 0 {
		t.Errorf("build directories left after adi watch stopped: %v", left)
	}
	if now, _ := os.ReadFile(file); string(now) != broken {
		t.Errorf("adi watch changed main.go:\n%s", now)
	}
}

// TestWatchInterruptDuringRun: Ctrl-C while the target is being recorded
// ends adi watch at once, leaving no process or build behind.
func TestWatchInterruptDuringRun(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	var stderr []byte
	started := make(chan struct{})
	var once bool
	o := runOptions{Ctx: ctx, Limit: time.Minute, Stderr: func(p []byte) {
		stderr = append(stderr, p...)
		if !once && strings.Contains(string(stderr), "adi: recording") {
			once = true
			close(started)
		}
	}}
	go func() {
		select {
		case <-started:
		case <-time.After(time.Minute):
		}
		interrupt()
	}()
	r := runAdi(t, o, "", "watch", "--", "go", "run", "./testdata/spin")
	if r.Code != 0 || !strings.Contains(r.Stderr, "adi: stopped watching") {
		t.Errorf("exit code %d, want 0 and 'stopped watching'\nstderr:\n%s", r.Code, clip(r.Stderr))
	}
	if r.Elapsed > 45*time.Second {
		t.Errorf("adi watch took %s to stop", r.Elapsed)
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "adi-*")); len(left) > 0 {
		t.Errorf("build directories left after Ctrl-C: %v", left)
	}
}

// TestWatchUsage: no target, a binary target, stray arguments: exit 2.
func TestWatchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"watch"},
		{"watch", "--", "./fib"},
		{"watch", "stray", "--", "go", "run", "./testdata/nilmap"},
		{"watch", "--no-such-flag", "--", "go", "run", "./testdata/nilmap"},
	} {
		if r := runAdi(t, runOptions{}, "", args...); r.Code != 2 {
			t.Errorf("adi %s: exit %d, want 2\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	if r := runAdi(t, runOptions{}, "", "watch", "-h"); r.Code != 0 || !strings.Contains(r.Stderr, "usage: adi watch") {
		t.Errorf("adi watch -h: exit %d\n%s", r.Code, r.Stderr)
	}
}
