package adapter_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Sessions served at the same time by one `adi dap --listen` each get their
// own recording, whatever the others do.
//
// Delve's native Linux backend waits for its target with wait4(-1, …,
// __WALL), which reaps any child of the process: a session recording (or
// re-executing) would steal the wait statuses of another session's go
// build and go list (exec.Cmd.Wait fails with ECHILD) and of its traced
// target. The server runs the sessions' requests one at a time for this
// (Server.workMu); this test shows they stay independent.
func TestConcurrentSessions(t *testing.T) {
	// Runs last (cleanups run in reverse): the server is gone by then;
	// what it left must not count against the tests that follow.
	dirs := buildDirs()
	t.Cleanup(func() {
		killTargets(t)
		for _, d := range newBuildDirs(dirs) {
			os.RemoveAll(d)
		}
	})
	srv := startTCPServer(t)
	type run struct {
		name   string
		launch map[string]any
		reason string
		desc   string
		top    frame
	}
	runs := []run{
		{"nilmap", map[string]any{"mode": "run", "program": fixture(t, "nilmap")},
			"exception", "panic: assignment to entry in nil map",
			frame{"main.(*Registry).Add#1(", filepath.Join(fixture(t, "nilmap"), "main.go"), 24}},
		{"nilptr", map[string]any{"mode": "test", "program": fixture(t, "nilptr"), "testRun": "TestGreetings"},
			"exception", "panic: runtime error: invalid memory address or nil pointer dereference",
			frame{"github.com/adi-go/adi/testdata/nilptr.Greeting#3(", filepath.Join(fixture(t, "nilptr"), "nilptr.go"), 40}},
		{"fib", map[string]any{"mode": "exec", "program": fibBinary(t), "args": []string{"12"}},
			"entry", "main.main#1",
			frame{"main.main#1()", filepath.Join(fixture(t, "fib"), "main.go"), 34}},
	}
	t.Run("group", func(t *testing.T) {
		for _, r := range runs {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				c := srv.dial(t)
				// Alone, each stops within two seconds.
				c.Timeout = 10 * time.Second
				initialize(t, c.Client, false)
				m, _ := c.Response(c.Send("launch", r.launch))
				if !m.Success {
					t.Fatalf("launch: %s", m.ErrorText())
				}
				c.Event("initialized")
				c.Request("configurationDone", nil)
				st := c.Stopped()
				wantStop(t, "configurationDone", st, r.reason, r.desc)
				stack := c.StackTrace(st.ThreadId)
				if len(stack) == 0 || len(stack[0].Name) < len(r.top.name) || stack[0].Name[:len(r.top.name)] != r.top.name || stack[0].Line != r.top.line {
					t.Errorf("top of the stack: %+v, want %+v", stack, r.top)
				}
				disconnect(t, c)
			})
		}
	})
	noTargetProcesses(t, 5*time.Second)
	if !srv.Running() {
		t.Errorf("the server is gone")
	}
}
