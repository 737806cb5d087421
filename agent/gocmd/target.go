// Package gocmd turns the recorded command line (a go test or go run
// command) into its Go package, through go list, and runs the go commands
// derived from it — coverage runs, verification builds, test reruns — each
// in its own process group with its output collected.
package gocmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adi-go/adi/engine/target"
)

// Target is the command line that was recorded, as the user wrote it after
// "--", and the directory it was given in. Coverage and verification runs
// are derived from it.
type Target struct {
	Argv []string
	Dir  string
	// Env adds "K=V" variables to every command run for the target.
	Env []string
}

// Overlay returns the replacements of the target's own -overlay, by
// absolute path ("" for a file it deletes); nil without one, or when the
// command line or the overlay cannot be read (the recording says why).
func (t Target) Overlay() map[string]string {
	spec, err := target.Parse(t.Argv, t.Dir)
	if err != nil || spec.Kind == target.Exec {
		return nil
	}
	_, replace, err := target.SplitOverlay(spec.BuildFlags, spec.Dir)
	if err != nil {
		return nil
	}
	return replace
}

// Package is what the agent knows about the target's package.
type Package struct {
	// Target is the command line it was resolved from, Spec that command
	// line parsed.
	Target Target
	Spec   *target.Spec
	// Dir, ImportPath, ModuleDir, ModulePath as go list reports them.
	Dir, ImportPath, ModuleDir, ModulePath string
	// GoFiles are the package's non-test files (absolute); TestFiles its
	// _test.go files.
	GoFiles, TestFiles []string
}

// Resolve parses the target command line and asks go list about its
// package. A prebuilt binary gives a TargetError: it has no package to
// re-test.
func Resolve(ctx context.Context, t Target) (*Package, error) {
	spec, err := target.Parse(t.Argv, t.Dir)
	if err != nil {
		return nil, err
	}
	if spec.Kind == target.Exec {
		return nil, &TargetError{Argv: t.Argv, Reason: "a prebuilt binary has no source package adi can re-test; write the go test or go run command instead"}
	}
	args := []string{"go", "list", "-json"}
	args = append(args, spec.BuildFlags...)
	args = append(args, spec.Targets()...)
	res := Run(ctx, spec.Dir, t.Env, 2*time.Minute, args...)
	if !res.OK() {
		return nil, fmt.Errorf("%s: %v\n%s", res.Line, res.Err, Tail(res.Output, 20, 4000))
	}
	var lp struct {
		Dir, ImportPath                    string
		GoFiles, TestGoFiles, XTestGoFiles []string
		Module                             *struct{ Path, Dir string }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &lp); err != nil {
		return nil, fmt.Errorf("reading the output of %s: %w", res.Line, err)
	}
	info := &Package{Target: t, Spec: spec, Dir: lp.Dir, ImportPath: lp.ImportPath}
	if lp.Module != nil {
		info.ModuleDir, info.ModulePath = lp.Module.Dir, lp.Module.Path
	}
	for _, f := range lp.GoFiles {
		info.GoFiles = append(info.GoFiles, filepath.Join(lp.Dir, f))
	}
	for _, f := range append(lp.TestGoFiles, lp.XTestGoFiles...) {
		info.TestFiles = append(info.TestFiles, filepath.Join(lp.Dir, f))
	}
	return info, nil
}

// IsTest reports whether the target is a go test command.
func (p *Package) IsTest() bool { return p.Spec.Kind == target.Test }

// Root is the directory diffs are relative to: the module root, else the
// package directory.
func (p *Package) Root() string {
	if p.ModuleDir != "" {
		return p.ModuleDir
	}
	return p.Dir
}

// Rel returns path relative to the module root when it is inside it.
func (p *Package) Rel(path string) string {
	if p == nil || path == "" {
		return path
	}
	if r, err := filepath.Rel(p.Root(), path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

// GoArgv is the user's go command with extra flags inserted right after
// "go test" or "go run" (after a leading -C dir, which must stay first).
func (p *Package) GoArgv(extra ...string) []string {
	argv := p.Target.Argv
	at := 2
	if len(argv) > 2 && (argv[2] == "-C" || strings.HasPrefix(argv[2], "-C=") || strings.HasPrefix(argv[2], "--C=")) {
		at = 3
		if argv[2] == "-C" {
			at = 4
		}
	}
	at = min(at, len(argv))
	out := slices.Clone(argv[:at])
	out = append(out, extra...)
	return append(out, argv[at:]...)
}

// SelectsTests reports whether the user's go test command runs only some
// of the package's tests (-run, -skip, -short, or test arguments).
func (p *Package) SelectsTests() bool {
	for _, a := range p.Spec.Args {
		if a == "-test.paniconexit0" {
			continue
		}
		if strings.HasPrefix(a, "-test.run=") || strings.HasPrefix(a, "-test.skip=") ||
			strings.HasPrefix(a, "-test.short") || !strings.HasPrefix(a, "-test.") {
			return true
		}
	}
	return false
}

// TargetError is a target command line the agent cannot work with (for
// example a prebuilt binary: there is no source package to re-test).
type TargetError struct {
	Argv   []string
	Reason string
}

// Error names the target and the reason.
func (e *TargetError) Error() string {
	return fmt.Sprintf("target %q: %s", JoinArgs(e.Argv), e.Reason)
}
