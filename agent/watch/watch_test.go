package watch

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testDebounce keeps the watcher tests short; quietFor is how long a test
// waits to be sure that no Change comes.
const (
	testDebounce = 100 * time.Millisecond
	quietFor     = 6 * testDebounce
)

// watchTree makes a module in a temporary directory with the given files
// (path → content) and watches it.
func watchTree(t *testing.T, files map[string]string) (*Watcher, string) {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	files["go.mod"] = "module example.com/w\n\ngo 1.26\n"
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Start(root, Options{Debounce: testDebounce, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, root
}

// nextChange waits for the next Change (at most 5s).
func nextChange(t *testing.T, w *Watcher) Change {
	t.Helper()
	select {
	case c, ok := <-w.Changes():
		if !ok {
			t.Fatal("the watcher's channel closed")
		}
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported within 5s")
	}
	return Change{}
}

// noChange fails the test if a Change comes within quietFor.
func noChange(t *testing.T, w *Watcher, after string) {
	t.Helper()
	select {
	case c := <-w.Changes():
		t.Errorf("after %s: unexpected change %+v", after, c)
	case <-time.After(quietFor):
	}
}

// wantFiles checks the files of a Change, relative to root.
func wantFiles(t *testing.T, c Change, root string, want ...string) {
	t.Helper()
	var got []string
	for _, f := range c.Files {
		r, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.ToSlash(r))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed files %q, want %q", got, want)
	}
}

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const mainGo = "package main\n\nfunc main() {}\n"

// TestWatchSave: saving a .go file is reported once, with its absolute
// path; a save in a subdirectory and in testdata too.
func TestWatchSave(t *testing.T) {
	w, root := watchTree(t, map[string]string{"main.go": mainGo, "sub/x.go": "package sub\n", "testdata/fx/f.go": "package fx\n"})
	if w.Root() != root || w.Dirs() != 4 {
		t.Errorf("root %s with %d directories, want %s with 4", w.Root(), w.Dirs(), root)
	}
	write(t, root, "main.go", mainGo+"// saved\n")
	c := nextChange(t, w)
	wantFiles(t, c, root, "main.go")
	if c.Lost {
		t.Errorf("change %+v says events were lost", c)
	}
	noChange(t, w, "one save")

	write(t, root, "sub/x.go", "package sub\n// saved\n")
	wantFiles(t, nextChange(t, w), root, "sub/x.go")
	write(t, root, "testdata/fx/f.go", "package fx\n// saved\n")
	wantFiles(t, nextChange(t, w), root, "testdata/fx/f.go")
	write(t, root, "go.mod", "module example.com/w\n\ngo 1.26.0\n")
	wantFiles(t, nextChange(t, w), root, "go.mod")
}

// TestWatchDebounce: a burst of saves of several files is one Change.
func TestWatchDebounce(t *testing.T) {
	w, root := watchTree(t, map[string]string{"a.go": "package main\n", "b.go": "package main\n"})
	for i := range 10 {
		write(t, root, "a.go", strings.Repeat("// x\n", i)+"package main\n")
		if i == 5 {
			write(t, root, "b.go", "package main\n// b\n")
		}
		time.Sleep(testDebounce / 5)
	}
	wantFiles(t, nextChange(t, w), root, "a.go", "b.go")
	noChange(t, w, "the burst")
}

// TestWatchDeadline: a tree that never goes quiet is still reported.
func TestWatchDeadline(t *testing.T) {
	w, root := watchTree(t, map[string]string{"a.go": "package main\n"})
	stop := time.After(15 * testDebounce)
	tick := time.NewTicker(testDebounce / 4)
	defer tick.Stop()
	var got []Change
	for done := false; !done; {
		select {
		case <-tick.C:
			write(t, root, "a.go", "package main\n// "+time.Now().String()+"\n")
		case c := <-w.Changes():
			got = append(got, c)
		case <-stop:
			done = true
		}
	}
	if len(got) == 0 {
		t.Errorf("saves every %s for %s: no change reported", testDebounce/4, 15*testDebounce)
	}
}

// TestWatchIgnoresTemporaryFiles: editors' scratch files, and .go files
// created and removed within the debounce, are not saves.
func TestWatchIgnoresTemporaryFiles(t *testing.T) {
	w, root := watchTree(t, map[string]string{"main.go": mainGo})
	for _, name := range []string{".#main.go", "main.go~", ".main.go.swp", ".main.go.swx", "4913", "main.go.tmp",
		"x.tmp", "main.go___jb_tmp___", "#main.go#", "_scratch.go", "notes.txt"} {
		write(t, root, name, "scratch")
	}
	write(t, root, "scratch.go", "package main\n")
	os.Remove(filepath.Join(root, "scratch.go"))
	noChange(t, w, "writing temporary files")

	// Removing them (as editors do once they are done) is no save either.
	for _, name := range []string{".#main.go", "main.go~", ".main.go.swp", "4913", "x.tmp", "_scratch.go"} {
		os.Remove(filepath.Join(root, name))
	}
	noChange(t, w, "removing temporary files")
}

// TestWatchAtomicSave: an editor that writes a new file and renames it
// over the old one (vim's backupcopy=no, JetBrains, gofmt -w through a
// temporary) is reported as a save of the file, once.
func TestWatchAtomicSave(t *testing.T) {
	w, root := watchTree(t, map[string]string{"main.go": mainGo})
	p := filepath.Join(root, "main.go")
	// vim: probe with 4913, move the file to the backup, write anew,
	// remove the backup.
	write(t, root, "4913", "")
	os.Remove(filepath.Join(root, "4913"))
	if err := os.Rename(p, p+"~"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "main.go", mainGo+"// vim\n")
	os.Remove(p + "~")
	wantFiles(t, nextChange(t, w), root, "main.go")
	noChange(t, w, "vim's save")

	// Write a temporary, rename it over the file.
	tmp := filepath.Join(root, "main.go___jb_tmp___")
	os.WriteFile(tmp, []byte(mainGo+"// renamed\n"), 0o644)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	wantFiles(t, nextChange(t, w), root, "main.go")
}

// TestWatchRemoveAndRename: removing or renaming a .go file changes the
// build: both names are reported.
func TestWatchRemoveAndRename(t *testing.T) {
	w, root := watchTree(t, map[string]string{"main.go": mainGo, "a.go": "package main\n", "b.go": "package main\n"})
	os.Remove(filepath.Join(root, "a.go"))
	wantFiles(t, nextChange(t, w), root, "a.go")
	os.Rename(filepath.Join(root, "b.go"), filepath.Join(root, "c.go"))
	wantFiles(t, nextChange(t, w), root, "b.go", "c.go")
}

// TestWatchNewDirectories: directories created while watching are
// watched, including files written into them before the watch was added.
func TestWatchNewDirectories(t *testing.T) {
	w, root := watchTree(t, map[string]string{"main.go": mainGo})
	// A file written together with its new directories.
	write(t, root, "pkg/deep/er/x.go", "package er\n")
	wantFiles(t, nextChange(t, w), root, "pkg/deep/er/x.go")
	// Later saves in the new directories.
	write(t, root, "pkg/deep/er/x.go", "package er\n// saved\n")
	wantFiles(t, nextChange(t, w), root, "pkg/deep/er/x.go")
	write(t, root, "pkg/y.go", "package pkg\n")
	wantFiles(t, nextChange(t, w), root, "pkg/y.go")
	// A directory moved in with its files.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "z.go"), []byte("package moved\n"), 0o644)
	if err := os.Rename(other, filepath.Join(root, "moved")); err != nil {
		t.Skipf("cannot move a directory into the tree: %v", err)
	}
	wantFiles(t, nextChange(t, w), root, "moved/z.go")
	write(t, root, "moved/z.go", "package moved\n// saved\n")
	wantFiles(t, nextChange(t, w), root, "moved/z.go")
}

// TestWatchSkipsDirectories: .git, vendor, node_modules, hidden
// directories and nested modules are not watched, existing or new.
func TestWatchSkipsDirectories(t *testing.T) {
	w, root := watchTree(t, map[string]string{
		"main.go":                   mainGo,
		".git/hooks/x.go":           "package hooks\n",
		"vendor/example.com/v/v.go": "package v\n",
		"node_modules/m/m.go":       "package m\n",
		".idea/i.go":                "package i\n",
		"nested/go.mod":             "module example.com/nested\n",
		"nested/n.go":               "package nested\n",
	})
	if w.Dirs() != 1 {
		t.Errorf("%d directories watched, want 1 (the root)", w.Dirs())
	}
	for _, name := range []string{".git/hooks/x.go", "vendor/example.com/v/v.go", "node_modules/m/m.go", ".idea/i.go", "nested/n.go",
		"vendor/new/v.go", ".cache/c.go", "node_modules/n/n.go"} {
		write(t, root, name, "package x\n// saved\n")
	}
	noChange(t, w, "saving in skipped directories")
	write(t, root, "main.go", mainGo+"// saved\n")
	wantFiles(t, nextChange(t, w), root, "main.go")
}

// TestWatchSlowReader: Changes not taken are merged, never lost, and the
// watcher does not block.
func TestWatchSlowReader(t *testing.T) {
	w, root := watchTree(t, map[string]string{"a.go": "package main\n", "b.go": "package main\n"})
	write(t, root, "a.go", "package main\n// 1\n")
	time.Sleep(3 * testDebounce)
	write(t, root, "b.go", "package main\n// 2\n")
	time.Sleep(3 * testDebounce)
	wantFiles(t, nextChange(t, w), root, "a.go", "b.go")
	noChange(t, w, "the merged change")
}

// TestWatchClose: Close closes Changes and ends the watcher's goroutine;
// a second Close is harmless.
func TestWatchClose(t *testing.T) {
	before := watcherGoroutines()
	w, root := watchTree(t, map[string]string{"main.go": mainGo})
	write(t, root, "main.go", mainGo+"// pending\n")
	if err := w.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	w.Close()
	select {
	case _, ok := <-w.Changes():
		if ok {
			// A change made before Close may still be delivered once.
			if _, ok := <-w.Changes(); ok {
				t.Error("Changes is not closed after Close")
			}
		}
	case <-time.After(time.Second):
		t.Error("Changes is not closed after Close")
	}
	if n := watcherGoroutines(); n > before {
		t.Errorf("%d watcher goroutines after Close, %d before Watch", n, before)
	}
}

// watcherGoroutines counts the goroutines running a Watcher's loop.
func watcherGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "watch.(*Watcher).loop")
}

// TestWatchErrors: a missing directory or a file is no tree to watch.
func TestWatchErrors(t *testing.T) {
	if _, err := Start(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("Watch of a missing directory: no error")
	}
	f := filepath.Join(t.TempDir(), "f.go")
	os.WriteFile(f, nil, 0o644)
	if _, err := Start(f, Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Watch of a file: %v, want 'not a directory'", err)
	}
}
