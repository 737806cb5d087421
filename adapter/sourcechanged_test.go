package adapter_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
)

// sourceChanged is the body of adi/sourceChanged.
type sourceChanged struct {
	Files []string `json:"files"`
	Stale bool     `json:"stale"`
	Root  string   `json:"root"`
}

// copyFixture copies a testdata program into a module of its own and
// returns the module's directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	mod := t.TempDir()
	if real, err := filepath.EvalSymlinks(mod); err == nil {
		mod = real
	}
	src := filepath.Join(agentRoot(t), "testdata", name)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(mod, e.Name()), b, 0o644)
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/w\n\ngo 1.26\n"), 0o644)
	return mod
}

// watchGoroutines counts this process's goroutines that watch sources
// (the watcher's loop and the session's forwarder).
func watchGoroutines() int {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "watch.(*Watcher).loop") || strings.Contains(g, "adapter.(*session).startWatch") {
			n++
		}
	}
	return n
}

// settles waits up to d for the count of watching goroutines to be n.
func settles(n int, d time.Duration) (int, bool) {
	deadline := time.Now().Add(d)
	for {
		got := watchGoroutines()
		if got == n || time.Now().After(deadline) {
			return got, got == n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// appendLine saves a file with a line added, as an editor does.
func appendLine(t *testing.T, file, line string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, []byte(line+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSourceChanged: while a copied fixture is launched, saving one of its
// .go files sends adi/sourceChanged {files, stale: true}, once per burst;
// other files are not sources. After terminate nothing is watched any
// more, and the watching goroutines are gone.
func TestSourceChanged(t *testing.T) {
	base := watchGoroutines()
	mod := copyFixture(t, "nilmap")
	main := filepath.Join(mod, "main.go")
	c := agentSession(t, &adapter.Server{Log: agentLog(t), WatchDebounce: 100 * time.Millisecond})
	c.Launch(map[string]any{"mode": "run", "program": mod})
	if n, ok := settles(base+2, 5*time.Second); !ok {
		t.Errorf("%d watching goroutines while launched, want %d", n, base+2)
	}

	// A burst of saves is one event.
	for i := range 5 {
		appendLine(t, main, "// save "+string(rune('a'+i)))
	}
	m, ok := c.EventWithin("adi/sourceChanged", 10*time.Second)
	if !ok {
		t.Fatalf("no adi/sourceChanged after saving main.go\n%s", c.Traffic())
	}
	var b sourceChanged
	if err := m.Decode(&b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Files, []string{main}) || !b.Stale || b.Root != mod {
		t.Errorf("adi/sourceChanged %s, want files [%s], stale, root %s", m.Body, main, mod)
	}
	if m, ok := c.EventWithin("adi/sourceChanged", time.Second); ok {
		t.Errorf("a second adi/sourceChanged for one burst of saves: %s", m.Body)
	}

	// Not sources: an editor's scratch files, notes.
	for _, name := range []string{".#main.go", "main.go~", ".main.go.swp", "4913", "notes.txt"} {
		os.WriteFile(filepath.Join(mod, name), []byte("scratch"), 0o644)
	}
	if m, ok := c.EventWithin("adi/sourceChanged", time.Second); ok {
		t.Errorf("adi/sourceChanged for temporary files: %s", m.Body)
	}

	// A new package directory is watched too.
	pkg := filepath.Join(mod, "internal", "ports")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "ports.go"), []byte("package ports\n"), 0o644)
	if m, ok := c.EventWithin("adi/sourceChanged", 10*time.Second); !ok {
		t.Errorf("no adi/sourceChanged for a file in a new directory\n%s", c.Traffic())
	} else if m.Decode(&b); !reflect.DeepEqual(b.Files, []string{filepath.Join(pkg, "ports.go")}) {
		t.Errorf("adi/sourceChanged %s, want the new file", m.Body)
	}

	// The session still works (navigation is unaffected).
	c.Request("threads", nil)

	// terminate stops the watching.
	c.Request("terminate", nil)
	c.Event("terminated")
	if n, ok := settles(base, 5*time.Second); !ok {
		t.Errorf("%d watching goroutines after terminate, want %d", n, base)
	}
	appendLine(t, main, "// after terminate")
	if m, ok := c.EventWithin("adi/sourceChanged", time.Second); ok {
		t.Errorf("adi/sourceChanged after terminate: %s", m.Body)
	}
	c.Request("disconnect", nil)
}

// TestSourceChangedDisconnect: a client that disconnects without
// terminate leaves no watching goroutine behind.
func TestSourceChangedDisconnect(t *testing.T) {
	base := watchGoroutines()
	mod := copyFixture(t, "nilmap")
	c := agentSession(t, &adapter.Server{Log: agentLog(t), WatchDebounce: 50 * time.Millisecond})
	c.Launch(map[string]any{"mode": "run", "program": mod})
	if n, ok := settles(base+2, 5*time.Second); !ok {
		t.Errorf("%d watching goroutines while launched, want %d", n, base+2)
	}
	c.Request("disconnect", map[string]any{"terminateDebuggee": true})
	if n, ok := settles(base, 5*time.Second); !ok {
		t.Errorf("%d watching goroutines after disconnect, want %d", n, base)
	}
}

// TestSourceChangedVanishedClient: the session of a client that vanished
// stops watching when it ends.
func TestSourceChangedVanishedClient(t *testing.T) {
	base := watchGoroutines()
	mod := copyFixture(t, "nilmap")
	t.Run("session", func(t *testing.T) {
		c := agentSession(t, &adapter.Server{Log: agentLog(t)})
		c.Launch(map[string]any{"mode": "run", "program": mod})
		if n, ok := settles(base+2, 5*time.Second); !ok {
			t.Errorf("%d watching goroutines while launched, want %d", n, base+2)
		}
		// The subtest's cleanup closes the client's streams.
	})
	if n, ok := settles(base, 5*time.Second); !ok {
		t.Errorf("%d watching goroutines after the client vanished, want %d", n, base)
	}
}

// TestSourceChangedNoWatch: Server.NoWatch turns the watching off, and a
// session that is not launched watches nothing.
func TestSourceChangedNoWatch(t *testing.T) {
	base := watchGoroutines()
	mod := copyFixture(t, "nilmap")
	c := agentSession(t, &adapter.Server{Log: agentLog(t), NoWatch: true, WatchDebounce: 50 * time.Millisecond})
	c.Launch(map[string]any{"mode": "run", "program": mod})
	if n := watchGoroutines(); n != base {
		t.Errorf("%d watching goroutines with NoWatch, want %d", n, base)
	}
	appendLine(t, filepath.Join(mod, "main.go"), "// saved")
	if m, ok := c.EventWithin("adi/sourceChanged", time.Second); ok {
		t.Errorf("adi/sourceChanged with NoWatch: %s", m.Body)
	}
	c.Request("disconnect", nil)

	c2 := agentSession(t, &adapter.Server{Log: agentLog(t)})
	c2.Request("initialize", map[string]any{"adapterID": "adi"})
	if n := watchGoroutines(); n != base {
		t.Errorf("%d watching goroutines before launch, want %d", n, base)
	}
	c2.Request("disconnect", nil)
}
