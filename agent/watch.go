package agent

import "github.com/adi-go/adi/agent/watch"

// DefaultDebounce is how long a watched tree must be quiet before a burst
// of saves is reported as one Change.
const DefaultDebounce = watch.DefaultDebounce

// WatchOptions configure Watch.
type WatchOptions = watch.Options

// Watcher reports the source files saved under a module's directories.
type Watcher = watch.Watcher

// Change is a batch of saved source files.
type Change = watch.Change

// Watch starts watching the directory tree at root (see watch.Start).
func Watch(root string, o WatchOptions) (*Watcher, error) { return watch.Start(root, o) }
