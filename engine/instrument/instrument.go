// Package instrument rewrites copies of a Go program's own source files so
// that every function, method, closure and init of the main module calls
// entry and exit hooks, for adi's instrumenting recorder. The user's files
// are never touched: the copies and the hooks' runtime (package adirt,
// embedded here) are given to the go command with -overlay. A second set
// of copies calls only a counting hook at each function's entry, for the
// debug build that adi re-executes under Delve (Result.CountOverlay).
//
// Line numbers stay exact: every insertion is on an existing line (after
// the opening brace of a body, before a go statement, around a call of
// recover, after the package clause). Files that cannot be rewritten safely
// (cgo, //line directives, //go:linkname) and functions with directives
// such as //go:nosplit are left as they are, with a note.
package instrument

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/adi-go/adi/engine/target"
)

//go:embed rt/*.go rt/*.s
var rtFS embed.FS

// RuntimeModule is the module path of the runtime package: a module on
// disk that the overlay's copy of go.mod requires and replaces. (A package
// directory that exists only in an overlay cannot hold assembly.)
const RuntimeModule = "adi.invalid/adirt"

// runtimeGo is the go line of the runtime's module, the language version
// its files are compiled at. It is below 1.21 on purpose: from go 1.21 on,
// a module's go line is a minimum that the main module's must meet, and the
// go command refuses to build a target whose go.mod says less ("updates to
// go.mod needed"). Raising the target's go line instead would change its
// language version and its GODEBUG defaults (panic(nil), for one): not the
// program the user runs.
const runtimeGo = "1.20"

// runtimeModule writes the runtime's module and returns its directory: in
// the user's cache directory, named by the hash of its files, so that the
// go command's build cache compiles it once, not once per recording (the
// cache keys a package outside GOROOT by its directory too); in work if
// there is no cache directory to write to, or if its copy was changed.
// What differs from one target to another (its packages, its number of
// sites) the runtime reads from the environment (see Result.Env).
func runtimeModule(work string) (string, error) {
	files := map[string][]byte{"go.mod": []byte("module " + RuntimeModule + "\n\ngo " + runtimeGo + "\n")}
	entries, err := rtFS.ReadDir("rt")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := rtFS.ReadFile("rt/" + name)
		if err != nil {
			return "", err
		}
		files[name] = b
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	write := func(dir string) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	// holds reports whether dir holds the module's files as they are
	// (not a directory some cleaner or editor changed).
	holds := func(dir string) bool {
		for _, name := range names {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(b, files[name]) {
				return false
			}
		}
		return true
	}
	if cache, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(cache, "adi", fmt.Sprintf("rt-%x", h.Sum(nil)[:8]))
		if _, err := os.Stat(dir); err != nil {
			// Written aside and renamed into place: another adi may be
			// writing the same files, and a directory is there whole or
			// not at all.
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err == nil {
				if tmp, err := os.MkdirTemp(filepath.Dir(dir), "rt-new-"); err == nil {
					err := write(tmp)
					if err == nil {
						err = os.Rename(tmp, dir)
					}
					if err != nil {
						os.RemoveAll(tmp)
					}
				}
			}
		}
		if holds(dir) {
			return dir, nil
		}
	}
	dir := filepath.Join(work, "rt")
	return dir, write(dir)
}

// Options say what to instrument.
type Options struct {
	// Dir is where the go command runs.
	Dir string
	// BuildFlags are the target's build flags (as for go list).
	BuildFlags []string
	// Targets are the package or the .go files, as for go list.
	Targets []string
	// Test includes the test files of the target package.
	Test bool
}

// Result is an instrumented build's overlay.
type Result struct {
	// Overlay is the path of the JSON file for -overlay.
	Overlay string
	// CountOverlay is the overlay of the counting build: the same files
	// with only the counting hook (adirt.C) at each function's entry, for
	// the debug build that re-executions run under Delve. Nothing else of
	// the program changes.
	CountOverlay string
	// Sites are the instrumented functions, by the id their hooks pass.
	Sites []Site
	// Packages are the instrumented packages' import paths.
	Packages []string
	// Skipped lists what was left uninstrumented, and why, one per line.
	Skipped []string
	// ModulePath is the main module's path.
	ModulePath string
	// Originals are the files the instrumented copies were made from, by
	// the copies' paths: the compiler's errors name the copies.
	Originals map[string]string
	// BuildFlags are the target's build flags without its own -overlay,
	// whose replacements both overlays include (the go command takes
	// one): the builds pass them with Overlay or CountOverlay.
	BuildFlags []string
}

// Env is what the instrumented binary's environment needs besides the
// record file (ADI_TRACE_FD or ADI_TRACE_FILE): its packages, which tell
// the runtime whether a goroutine was created by the program's own code,
// and its number of sites.
func (r *Result) Env() []string {
	return []string{"ADI_TRACE_PKGS=" + strings.Join(r.Packages, " "), "ADI_TRACE_SITES=" + strconv.Itoa(len(r.Sites))}
}

// listed is what Instrument reads from go list.
type listed struct {
	Dir        string
	ImportPath string
	Name       string
	ForTest    string
	Module     *struct {
		Path, Dir string
		Main      bool
	}
	GoFiles        []string
	CgoFiles       []string
	TestGoFiles    []string
	XTestGoFiles   []string
	IgnoredGoFiles []string
	SFiles         []string
	DepOnly        bool
}

// Instrument writes the rewritten files and the overlay into work.
func Instrument(ctx context.Context, opts Options, work string) (*Result, error) {
	args := []string{"list", "-e", "-deps", "-json=Dir,ImportPath,Name,ForTest,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,IgnoredGoFiles,SFiles,DepOnly"}
	if opts.Test {
		args = append(args, "-test")
	}
	args = append(args, opts.BuildFlags...)
	args = append(args, opts.Targets...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list for instrumenting: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []*listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list output: %w", err)
		}
		pkgs = append(pkgs, &p)
	}
	flags, users, err := target.SplitOverlay(opts.BuildFlags, opts.Dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Originals: map[string]string{}, BuildFlags: flags}
	var modDir string
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			res.ModulePath, modDir = p.Module.Path, p.Module.Dir
			break
		}
	}
	if res.ModulePath == "" {
		// .go files given by name (command-line-arguments) have no module
		// in go list's answer; the main module is the one they are in.
		cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json=Path,Dir")
		cmd.Dir = opts.Dir
		if out, err := cmd.Output(); err == nil {
			var m struct{ Path, Dir string }
			if json.NewDecoder(bytes.NewReader(out)).Decode(&m) == nil {
				res.ModulePath, modDir = m.Path, m.Dir
			}
		}
	}
	if res.ModulePath == "" || modDir == "" {
		return nil, errors.New("the target is not in a module: the instrumenting recorder needs one (go.mod)")
	}
	rtImport := RuntimeModule
	// The target's own replacements, and then adi's copies of the files
	// as they replace them.
	overlay, counting := maps.Clone(users), maps.Clone(users)
	if overlay == nil {
		overlay, counting = map[string]string{}, map[string]string{}
	}
	files := map[string]bool{}
	pkgSet := map[string]bool{"main": true}
	for _, d := range []string{"src", "count"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			return nil, err
		}
	}
	// A package tested is listed twice (itself and its test variant): its
	// files are noted once.
	noted := map[string]bool{}
	skipped := func(file, why string) {
		if !noted[file] {
			noted[file] = true
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: not instrumented (%s)", file, why))
		}
	}
	n := 0
	for _, p := range pkgs {
		named := p.ImportPath == "command-line-arguments" && p.Module == nil
		if !named && (p.Module == nil || !p.Module.Main) || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		path := p.ImportPath
		if i := strings.Index(path, " ["); i >= 0 {
			path = path[:i]
		}
		pkgSet[path] = true
		list := append([]string{}, p.GoFiles...)
		if opts.Test && !p.DepOnly {
			list = append(list, p.TestGoFiles...)
			list = append(list, p.XTestGoFiles...)
		}
		for _, f := range p.CgoFiles {
			skipped(filepath.Join(p.Dir, f), "uses cgo")
		}
		for _, f := range p.IgnoredGoFiles {
			skipped(filepath.Join(p.Dir, f), "excluded by build constraints")
		}
		for _, f := range p.SFiles {
			skipped(filepath.Join(p.Dir, f), "assembly")
		}
		for _, f := range list {
			abs := filepath.Join(p.Dir, f)
			if files[abs] || !strings.HasSuffix(f, ".go") {
				continue
			}
			files[abs] = true
			from := abs
			if r, ok := users[abs]; ok {
				if r == "" {
					continue // deleted by the target's overlay
				}
				from = r
			}
			src, err := os.ReadFile(from)
			if err != nil {
				return nil, err
			}
			text, sites, notes, skip := rewriteFile(abs, src, len(res.Sites), rtImport, false)
			res.Skipped = append(res.Skipped, notes...)
			if skip != "" {
				if skip != "no function bodies to instrument" {
					skipped(abs, skip)
				}
				continue
			}
			res.Sites = append(res.Sites, sites...)
			n++
			dst := filepath.Join(work, "src", strconv.Itoa(n)+"_"+f)
			if err := os.WriteFile(dst, text, 0o644); err != nil {
				return nil, err
			}
			overlay[abs] = dst
			res.Originals[dst] = abs
			// The same functions (the same directives and files are
			// left out), so no error of its own.
			if text, _, _, skip := rewriteFile(abs, src, 0, rtImport, true); skip == "" {
				dst := filepath.Join(work, "count", strconv.Itoa(n)+"_"+f)
				if err := os.WriteFile(dst, text, 0o644); err != nil {
					return nil, err
				}
				counting[abs] = dst
				res.Originals[dst] = abs
			}
		}
	}
	for p := range pkgSet {
		res.Packages = append(res.Packages, p)
	}
	sort.Strings(res.Packages)
	if len(res.Sites) == 0 {
		return nil, errors.New("no function of the target could be instrumented")
	}
	rtDir, err := runtimeModule(work)
	if err != nil {
		return nil, err
	}
	gomod := filepath.Join(modDir, "go.mod")
	from := gomod
	if r := users[gomod]; r != "" {
		from = r
	}
	mod, err := os.ReadFile(from)
	if err != nil {
		return nil, fmt.Errorf("reading the main module's go.mod: %w", err)
	}
	mod = fmt.Appendf(mod, "\nrequire %s v0.0.0\n\nreplace %s => %s\n", RuntimeModule, RuntimeModule, rtDir)
	modCopy := filepath.Join(work, "go.mod")
	if err := os.WriteFile(modCopy, mod, 0o644); err != nil {
		return nil, err
	}
	overlay[gomod], counting[gomod] = modCopy, modCopy
	res.Overlay = filepath.Join(work, "overlay.json")
	res.CountOverlay = filepath.Join(work, "count.json")
	for path, o := range map[string]map[string]string{res.Overlay: overlay, res.CountOverlay: counting} {
		b, err := json.Marshal(map[string]any{"Replace": o})
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, err
		}
	}
	return res, nil
}
