// Package source is adi's knowledge of the Go source of the debugged program:
// the text of lines and statements, and the functions (with their runtime
// names), loops and statement lines of a file. Everything is read with
// go/parser and go/ast and kept in a Cache keyed by absolute file path; an
// entry is read again when the file's modification time or size changes.
package source

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrLineRange is wrapped by errors for a line that is not in the file.
var ErrLineRange = errors.New("line out of range")

// ErrNoFunc is wrapped by errors for a line or name no function matches.
var ErrNoFunc = errors.New("no such function")

// kindError is an error whose message is complete by itself and that
// matches a sentinel error with errors.Is.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func kindErrorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Cache holds parsed source files. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	files map[string]*fileEntry
	pkgs  map[pkgKey]*pkgEntry
	// replace maps absolute paths to the files that replace them (""
	// deletes them): see Overlay.
	replace map[string]string
}

// Overlay makes the cache read each file that replace names (by absolute
// path) from its replacement, as the go command built the program with
// -overlay (see target.SplitOverlay), and a file replaced by "" deleted:
// the lines and functions are those that ran. Positions keep the paths of
// the files replaced, as in the binary. Call it before the first look-up.
func (c *Cache) Overlay(replace map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replace = replace
}

// actual returns the file read for path: its replacement, path itself if
// it has none, "" if the overlay deletes it.
func (c *Cache) actual(path string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.replace[path]; ok {
		return r
	}
	return path
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{files: map[string]*fileEntry{}, pkgs: map[pkgKey]*pkgEntry{}}
}

// fileEntry is one read of one file; it is immutable once built except for
// the lazily computed statement texts.
type fileEntry struct {
	path string // absolute
	mod  time.Time
	size int64

	src   []byte
	lines []int // byte offset of the start of each line

	fset     *token.FileSet
	tf       *token.File
	ast      *ast.File // nil when the file could not be parsed at all
	parseErr error

	stmtOnce sync.Once
	stmts    map[int]string
	contOnce sync.Once
	cont     map[int]int // continuation line → first line of its statement
}

func (e *fileEntry) name() string { return filepath.Base(e.path) }

// lineCount is the number of lines of the file; a final newline does not
// start a line.
func (e *fileEntry) lineCount() int { return len(e.lines) }

// checkLine reports an error for a line that is not in the file.
func (e *fileEntry) checkLine(line int) error {
	if line < 1 || line > len(e.lines) {
		return kindErrorf(ErrLineRange, "line %d is outside %s (%d lines)", line, e.name(), len(e.lines))
	}
	return nil
}

// lineText returns line (1-based, valid) without its line terminator.
func (e *fileEntry) lineText(line int) string {
	start := e.lines[line-1]
	end := len(e.src)
	if line < len(e.lines) {
		end = e.lines[line] - 1 // the '\n'
	} else if end > start && e.src[end-1] == '\n' {
		end--
	}
	s := string(e.src[start:end])
	return strings.TrimSuffix(s, "\r")
}

// line is the line of p in the file itself (//line directives are ignored:
// lines are those of the text on disk).
func (e *fileEntry) line(p token.Pos) int {
	if !p.IsValid() || e.tf == nil {
		return 0
	}
	return e.tf.PositionFor(p, false).Line
}

// offset is the byte offset of p in the file.
func (e *fileEntry) offset(p token.Pos) int {
	return e.tf.Offset(p)
}

// absPath cleans and absolutises a file name, the cache key.
func absPath(file string) (string, error) {
	if file == "" {
		return "", errors.New("no file name given")
	}
	return filepath.Abs(file)
}

// file returns the current entry for file, reading it when it is not cached
// or changed on disk.
func (c *Cache) file(file string) (*fileEntry, error) {
	path, err := absPath(file)
	if err != nil {
		return nil, err
	}
	read := c.actual(path)
	if read == "" {
		return nil, &os.PathError{Op: "open", Path: path, Err: errDeleted}
	}
	fi, err := os.Stat(read)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a Go source file", path)
	}
	c.mu.Lock()
	e := c.files[path]
	c.mu.Unlock()
	if e != nil && e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
		return e, nil
	}
	e, err = readFile(path, read)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.files[path] = e
	c.mu.Unlock()
	return e, nil
}

// errDeleted is the error of a file that the build's overlay deletes.
var errDeleted = fmt.Errorf("%w (deleted by the build's -overlay)", os.ErrNotExist)

// readFile reads and parses path, from the file read (path itself or its
// replacement). The stamp is taken from the open file so that a change
// after reading is seen by the next look-up.
func readFile(path, read string) (*fileEntry, error) {
	f, err := os.Open(read)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	src, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	e := &fileEntry{path: path, mod: fi.ModTime(), size: fi.Size(), src: src}
	e.lines = lineStarts(src)
	e.fset = token.NewFileSet()
	e.ast, e.parseErr = parser.ParseFile(e.fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if e.ast != nil {
		e.tf = e.fset.File(e.ast.Pos())
	}
	if e.tf == nil {
		e.ast = nil
		if e.parseErr == nil {
			e.parseErr = fmt.Errorf("%s: no Go source", path)
		}
	}
	return e, nil
}

func lineStarts(src []byte) []int {
	if len(src) == 0 {
		return nil
	}
	starts := []int{0}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// Line returns the text of line (1-based) of file, without the line
// terminator.
func (c *Cache) Line(file string, line int) (string, error) {
	e, err := c.file(file)
	if err != nil {
		return "", err
	}
	if err := e.checkLine(line); err != nil {
		return "", err
	}
	return e.lineText(line), nil
}

// LineCount returns the number of lines of file.
func (c *Cache) LineCount(file string) (int, error) {
	e, err := c.file(file)
	if err != nil {
		return 0, err
	}
	return e.lineCount(), nil
}
