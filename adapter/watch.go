package adapter

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-dap"

	"github.com/adi-go/adi/agent"
)

// While a target is launched the session watches the .go files of its
// module (agent.Watcher: recursive, debounced, editors' temporary files
// ignored) and sends adi/sourceChanged when some are saved, so that the
// editor can offer to record again: the recording is of the code as it
// was. Watching stops when the session is terminated or disconnected.

// sourceChangedBody is the body of an adi/sourceChanged event.
type sourceChangedBody struct {
	// Files are the saved files, absolute (empty when Lost).
	Files []string `json:"files"`
	// Stale: the recording no longer matches the sources.
	Stale bool `json:"stale"`
	// Root is the watched module directory.
	Root string `json:"root"`
	// Lost: the system dropped events, any file may have changed.
	Lost bool `json:"lost,omitempty"`
}

// sourceWatch is a running watch and the goroutine forwarding its changes.
type sourceWatch struct {
	w    *agent.Watcher
	done chan struct{}
}

// startWatch starts watching the module of the launched target. Failing to
// watch (no module, the system's limit of watches) is logged, not an
// error: the session works without it.
func (s *session) startWatch(a *LaunchArgs, dir string) {
	if s.srv.NoWatch || s.watch != nil {
		return
	}
	root, err := watchRoot(a, dir)
	if err != nil {
		s.log.Info("not watching the sources", "err", err)
		return
	}
	w, err := agent.Watch(root, agent.WatchOptions{Debounce: s.srv.WatchDebounce, Log: func(format string, args ...any) {
		s.log.Warn(fmt.Sprintf(format, args...))
	}})
	if err != nil {
		s.log.Warn("cannot watch the sources: adi/sourceChanged will not be sent", "root", root, "err", err)
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "console",
			Output: "adi: not watching the sources for changes: " + err.Error() + "\n"}})
		return
	}
	s.log.Debug("watching the sources", "root", root, "dirs", w.Dirs())
	sw := &sourceWatch{w: w, done: make(chan struct{})}
	go func() {
		defer close(sw.done)
		for c := range w.Changes() {
			files := c.Files
			if files == nil {
				files = []string{}
			}
			s.sendEvent(&customEvent{Event: s.event("adi/sourceChanged"),
				Body: sourceChangedBody{Files: files, Stale: true, Root: root, Lost: c.Lost}})
		}
	}()
	s.watch = sw
}

// stopWatch stops watching and waits for the forwarding goroutine.
func (s *session) stopWatch() {
	if s.watch == nil {
		return
	}
	s.watch.w.Close()
	<-s.watch.done
	s.watch = nil
}

// watchRoot is the module directory of a launch: the go.mod above the
// package (test, run) or the working directory (exec).
func watchRoot(a *LaunchArgs, dir string) (string, error) {
	start := dir
	if a.Mode != "exec" {
		p := a.Program
		if !filepath.IsAbs(p) && a.Cwd != "" {
			p = filepath.Join(a.Cwd, p)
		}
		if fi, err := os.Stat(p); err == nil {
			start = p
			if !fi.IsDir() {
				start = filepath.Dir(p)
			}
		}
	}
	return agent.ModuleRoot(start)
}
