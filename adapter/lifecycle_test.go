package adapter_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/adapter/daptest"
)

// TestLifecycle opens and closes 20 sessions against one `adi dap
// --listen`: some end properly (disconnect, or terminate then
// disconnect), the others are killed abruptly (the socket closed with no
// disconnect) during the build, during the recording, during a
// re-execution or after stopping. Afterwards no process started by adi
// remains, no build directory either, and the server still accepts and
// serves a new session.
//
// The sessions follow one another (each ends, as the server's log says,
// before the next starts): concurrent sessions are TestConcurrentSessions'.
func TestLifecycle(t *testing.T) {
	dirs := buildDirs()
	srv := startTCPServer(t)
	nilmap := fixture(t, "nilmap")
	spin := fixture(t, "spin")
	outputContains := func(s string) func(daptest.Msg) bool {
		return func(m daptest.Msg) bool {
			var b dap.OutputEventBody
			return m.Event == "output" && m.Decode(&b) == nil && strings.Contains(b.Output, s)
		}
	}
	stopped := func(t *testing.T, c *conn) {
		t.Helper()
		launch(t, c.Client, map[string]any{"mode": "run", "program": nilmap}, true, "loading services")
		c.Request("configurationDone", nil)
		wantStop(t, "configurationDone", c.Stopped(), "exception", "panic: assignment to entry in nil map")
	}
	scenarios := []struct {
		name string
		run  func(t *testing.T, c *conn)
	}{
		{"disconnect", func(t *testing.T, c *conn) {
			stopped(t, c)
			c.Request("disconnect", map[string]any{"terminateDebuggee": true})
		}},
		{"killed during the build", func(t *testing.T, c *conn) {
			c.Send("launch", map[string]any{"mode": "run", "program": nilmap})
			c.Event("progressStart")
			c.Kill()
		}},
		{"killed during the recording", func(t *testing.T, c *conn) {
			c.Send("launch", map[string]any{"mode": "run", "program": spin, "timeout": 60})
			if _, ok := c.Expect(time.Minute, outputContains("waiting, tick 1\n")); !ok {
				t.Fatalf("spin did not start\n%s", c.Traffic())
			}
			c.Kill()
		}},
		{"killed after stopping", func(t *testing.T, c *conn) {
			stopped(t, c)
			c.Step("next", 1)
			c.Kill()
		}},
		{"terminate and disconnect", func(t *testing.T, c *conn) {
			stopped(t, c)
			c.Request("terminate", nil)
			c.Event("terminated")
			c.Request("disconnect", nil)
		}},
		{"killed during a re-execution", func(t *testing.T, c *conn) {
			launch(t, c.Client, map[string]any{"mode": "run", "program": spin, "timeout": 1, "execTimeout": 60}, true, "spin: starting")
			c.Request("configurationDone", nil)
			time.Sleep(500 * time.Millisecond)
			c.Kill()
		}},
		{"killed right after initialize", func(t *testing.T, c *conn) {
			c.Kill()
		}},
	}
	for i := range 20 {
		sc := scenarios[i%len(scenarios)]
		t.Run(fmt.Sprintf("%02d %s", i+1, sc.name), func(t *testing.T) {
			c := srv.dial(t)
			initialize(t, c.Client, true)
			sc.run(t, c)
			c.Kill()
			if !srv.waitEnded(i+1, 30*time.Second) {
				t.Fatalf("the server did not end session %d 30s after its client went away", i+1)
			}
		})
	}
	noTargetProcesses(t, 10*time.Second)
	if d := newBuildDirs(dirs); len(d) > 0 {
		t.Errorf("build directories of ended sessions remain: %v", d)
	}
	if !srv.Running() {
		t.Fatalf("the server exited")
	}
	t.Run("new session", func(t *testing.T) {
		c := srv.dial(t)
		initialize(t, c.Client, true)
		stopped(t, c)
		disconnect(t, c)
	})
	noTargetProcesses(t, 10*time.Second)
}

// TestNoFramesEndsTheSession launches a test pattern that matches no test:
// the run has no frame of the module, so instead of stopping with an empty
// Call Stack the session says why and ends.
func TestNoFramesEndsTheSession(t *testing.T) {
	c := transports[0].start(t, nil)
	initialize(t, c.Client, false)
	launch(t, c.Client, map[string]any{"mode": "test", "program": fixture(t, "nilptr"), "testRun": "^TestNothing$"}, false, "PASS")
	if m := c.Request("configurationDone", nil); !m.Success {
		t.Fatalf("configurationDone: %s", m.ErrorText())
	}
	var important string
	exited := false
	for {
		m := c.Next()
		if m.Type != "event" {
			continue
		}
		switch m.Event {
		case "output":
			var b dap.OutputEventBody
			m.Decode(&b)
			if b.Category == "important" {
				important += b.Output
			}
		case "exited":
			var b dap.ExitedEventBody
			m.Decode(&b)
			if b.ExitCode != 0 {
				t.Errorf("exited with code %d, want the run's 0", b.ExitCode)
			}
			exited = true
		case "stopped":
			t.Fatalf("stopped with no frame to show:\n%s", c.Traffic())
		}
		if m.Event == "terminated" {
			break
		}
	}
	if !exited {
		t.Error("no exited event before terminated")
	}
	if !strings.Contains(important, `testRun "^TestNothing$" matches no test`) {
		t.Errorf("the message does not say the pattern matched no test: %q", important)
	}
	disconnect(t, c)
}
