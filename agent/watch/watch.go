// Package watch reports the Go source files saved under a module's
// directory tree, one debounced Change per burst of saves, through
// fsnotify (DESIGN.md §6: a saved file marks recordings stale).
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watched tree must be quiet before a burst
// of saves is reported as one Change.
const DefaultDebounce = 300 * time.Millisecond

// Options configure Start.
type Options struct {
	// Debounce is how long the tree must be quiet after a save before the
	// saves so far are reported together (default DefaultDebounce). A tree
	// that never goes quiet is reported every 10 debounces at most.
	Debounce time.Duration
	// Log receives what the watcher could not do (a directory it cannot
	// watch, events the system dropped); nil: nothing is said.
	Log func(format string, args ...any)
}

// Change is a batch of saved source files.
type Change struct {
	// Files are the .go files (and go.mod, go.sum, go.work) that were
	// written, created, removed or renamed, as absolute paths, sorted.
	Files []string `json:"files"`
	// Lost is set when the system dropped events (its queue overflowed):
	// any file may have changed.
	Lost bool `json:"lost,omitempty"`
}

// Watcher reports the source files saved under a module's directories, one
// Change per burst of saves. It watches the directories recursively with
// fsnotify (new directories are added as they appear) and skips .git,
// vendor, node_modules, hidden directories and nested modules; testdata is
// watched. Editors' temporary files are ignored: emacs' .#x.go locks,
// x.go~ backups, vim's .x.go.swp and 4913 probes, *.tmp, and any .go file
// that is created and removed again within the debounce.
type Watcher struct {
	root     string
	fsw      *fsnotify.Watcher
	debounce time.Duration
	logf     func(string, ...any)
	changes  chan Change
	done     chan struct{}
	stop     sync.Once
	wg       sync.WaitGroup
	dirs     int // directories watched (the loop's after Start returns)
	ndirs    int // directories watched when Start returned
}

// pending is a file saved since the last Change.
type pending struct {
	// created: the first event of the burst created it, so a burst that
	// also removes it leaves nothing behind (an editor's scratch file).
	created bool
}

// Start watches the directory tree at root. Close the watcher to
// stop; Changes is closed then.
func Start(root string, o Options) (*Watcher, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watching %s: not a directory", abs)
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching %s: %w%s", abs, err, limitHint(err))
	}
	w := &Watcher{
		root: abs, fsw: fsw, debounce: o.Debounce, logf: logf,
		changes: make(chan Change), done: make(chan struct{}),
	}
	if err := fsw.Add(abs); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watching %s: %w%s", abs, err, limitHint(err))
	}
	w.dirs = 1
	w.addTree(abs, nil)
	w.ndirs = w.dirs
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Root is the watched directory.
func (w *Watcher) Root() string { return w.root }

// Dirs is how many directories were watched when Start returned.
func (w *Watcher) Dirs() int { return w.ndirs }

// Changes delivers the batches of saved files. It is closed by Close.
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Close stops watching and waits for the watcher's goroutine to end.
func (w *Watcher) Close() error {
	var err error
	w.stop.Do(func() {
		close(w.done)
		err = w.fsw.Close()
		w.wg.Wait()
	})
	return err
}

// loop turns fsnotify's events into debounced Changes. A Change not yet
// taken is merged with the next one, so a slow reader never blocks the
// watching.
func (w *Watcher) loop() {
	defer w.wg.Done()
	defer close(w.changes)
	saved := map[string]*pending{}
	var ready *Change
	var quiet, deadline <-chan time.Time
	var quietT, deadlineT *time.Timer
	stopTimers := func() {
		if quietT != nil {
			quietT.Stop()
		}
		if deadlineT != nil {
			deadlineT.Stop()
		}
		quiet, deadline, quietT, deadlineT = nil, nil, nil, nil
	}
	defer stopTimers()
	touched := func() {
		if quietT == nil {
			quietT = time.NewTimer(w.debounce)
			deadlineT = time.NewTimer(10 * w.debounce)
			quiet, deadline = quietT.C, deadlineT.C
			return
		}
		quietT.Reset(w.debounce)
	}
	lost := false
	flush := func() {
		stopTimers()
		c := w.settle(saved, lost)
		clear(saved)
		lost = false
		if c == nil {
			return
		}
		if ready == nil {
			ready = c
			return
		}
		ready.Files = mergeSorted(ready.Files, c.Files)
		ready.Lost = ready.Lost || c.Lost
	}
	for {
		var out chan Change
		var next Change
		if ready != nil {
			out, next = w.changes, *ready
		}
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.event(ev, saved) {
				touched()
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.logf("adi: the system dropped file events (its queue overflowed): any file may have changed")
				lost = true
				touched()
				continue
			}
			w.logf("adi: watching %s: %v", w.root, err)
		case <-quiet:
			flush()
		case <-deadline:
			flush()
		case out <- next:
			ready = nil
		}
	}
}

// event notes one fsnotify event and reports whether it concerns a source
// file (so that the debounce starts again).
func (w *Watcher) event(ev fsnotify.Event, saved map[string]*pending) bool {
	name := filepath.Clean(ev.Name)
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
			if skipDir(name, w.root) {
				return false
			}
			// A new directory: watch it and what is already in it (a file
			// written before the watch was added has no event of its own).
			if err := w.fsw.Add(name); err != nil {
				w.logf("adi: cannot watch the new directory %s: %v%s", name, err, limitHint(err))
				return false
			}
			w.dirs++
			n := len(saved)
			w.addTree(name, saved)
			return len(saved) > n
		}
	}
	if !isSource(name) || underSkipped(name, w.root) {
		return false
	}
	if _, ok := saved[name]; !ok {
		saved[name] = &pending{created: ev.Has(fsnotify.Create)}
	}
	return true
}

// settle turns the saves of a burst into a Change: a file created and
// removed within it is dropped (nil when nothing is left).
func (w *Watcher) settle(saved map[string]*pending, lost bool) *Change {
	c := &Change{Lost: lost}
	for name, p := range saved {
		if _, err := os.Lstat(name); err != nil && p.created {
			continue
		}
		c.Files = append(c.Files, name)
	}
	if len(c.Files) == 0 && !lost {
		return nil
	}
	slices.Sort(c.Files)
	return c
}

// addTree watches the directories below dir (dir itself is watched
// already). When saved is not nil, the source files found are noted as
// created: they appeared with a new directory.
func (w *Watcher) addTree(dir string, saved map[string]*pending) {
	var warned bool
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // gone or unreadable: nothing to watch there
		}
		if !d.IsDir() {
			if saved != nil && isSource(path) {
				if _, ok := saved[path]; !ok {
					saved[path] = &pending{created: true}
				}
			}
			return nil
		}
		if path == dir {
			return nil
		}
		if skipDir(path, w.root) {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(path); err != nil {
			if !warned {
				w.logf("adi: cannot watch %s: %v%s", path, err, limitHint(err))
				warned = true
			}
			return filepath.SkipDir
		}
		w.dirs++
		return nil
	})
}

// skipDir reports whether a directory below root is not watched: version
// control, vendored and JavaScript dependencies, hidden directories (.git,
// .idea, .vscode, caches) and nested modules (their own go.mod).
func skipDir(path, root string) bool {
	if path == root {
		return false
	}
	base := filepath.Base(path)
	switch base {
	case "vendor", "node_modules":
		return true
	}
	if strings.HasPrefix(base, ".") {
		return true
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return true
	}
	return false
}

// underSkipped reports whether path lies in a directory that is not
// watched (an event can still name one: a file moved there, a directory
// that became a module).
func underSkipped(path, root string) bool {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		switch {
		case part == "..":
			return true
		case part == "vendor", part == "node_modules", strings.HasPrefix(part, "."):
			return true
		}
	}
	return false
}

// isSource reports whether a saved file matters to a build: a .go file
// that the go command reads (not one whose name starts with "." or "_",
// like emacs' .#x.go lock files), or go.mod, go.sum, go.work. Editors'
// other temporary files (x.go~, .x.go.swp, 4913, *.tmp, x.go___jb_tmp___)
// do not end in .go.
func isSource(path string) bool {
	base := filepath.Base(path)
	switch base {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	}
	if !strings.HasSuffix(base, ".go") || base == ".go" {
		return false
	}
	return !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "_") && !strings.HasPrefix(base, "#")
}

// mergeSorted merges two sorted lists of paths without duplicates.
func mergeSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// limitHint explains the errors of Linux's inotify limits.
func limitHint(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "no space left on device"):
		return " (the limit of inotify watches is reached: raise fs.inotify.max_user_watches)"
	case strings.Contains(s, "too many open files"):
		return " (the limit of inotify instances is reached: raise fs.inotify.max_user_instances)"
	}
	return ""
}
