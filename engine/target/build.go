package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// debugGcflags is the -gcflags adi builds with: no optimizations and no
// inlining, in every package.
const debugGcflags = "-gcflags=all=-N -l"

// debugLdflag is the linker flag adi adds to its builds: DWARF left
// uncompressed, which Delve would otherwise inflate again at every launch
// of the program (a fifth to a third of a launch of a small one).
const debugLdflag = "-compressdwarf=false"

// withDebugLdflag returns the build flags with debugLdflag given to the
// linker whichever -ldflags applies to the main package (the go command
// takes the last that matches it): added to each -ldflags given, and on
// its own before all, for a main package that the patterns of
// -ldflags=pattern=flags do not match.
func withDebugLdflag(flags []string) []string {
	out := append([]string{"-ldflags=" + debugLdflag}, flags...)
	for i := 1; i < len(out); i++ {
		if strings.HasPrefix(out[i], "-ldflags=") {
			out[i] += " " + debugLdflag
		}
	}
	return out
}

// Program is a binary ready to be run under the debugger.
type Program struct {
	// Path is the binary to run.
	Path string
	// Args are its arguments (for a test binary, already translated).
	Args []string
	// Dir is the working directory for the run: the package's source
	// directory for a test (as go test does), Spec.Dir otherwise.
	Dir string
	// ModulePath is the main module's path, "" if unknown (e.g. a binary
	// without build info, or a standard library test).
	ModulePath string
	// ModuleDir is the main module's root directory; "" if unknown. For Exec
	// it is found by looking for a go.mod declaring ModulePath in Spec.Dir,
	// the binary's directory, and their parents.
	ModuleDir string
	// PkgPath is the import path of the built package: the main package for
	// Run ("command-line-arguments" when built from .go files), the tested
	// package for Test, and for Exec the path in the binary's build info
	// (with a test binary's ".test" suffix removed).
	PkgPath string
}

// BuildError is a failed go build or go test -c.
type BuildError struct {
	// Command is the command that failed, quoted as for a shell.
	Command string
	// Output is everything the command printed, verbatim.
	Output string
}

// errorPos matches a compiler error line: "file.go:12:3: message".
var errorPos = regexp.MustCompile(`^[^\s#][^:]*:\d+(:\d+)?: `)

// Error returns a one-line summary ("build failed: <first error line> (N
// errors)"), then a blank line, then the compiler's output verbatim.
func (e *BuildError) Error() string {
	first, n, more := "", 0, false
	for line := range strings.SplitSeq(e.Output, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		if strings.HasSuffix(line, ": too many errors") {
			more = true
			continue
		}
		if errorPos.MatchString(line) {
			n++
			if first == "" || !errorPos.MatchString(first) {
				first = line
			}
			continue
		}
		if first == "" && line[0] != ' ' && line[0] != '\t' {
			first = line
		}
	}
	var b strings.Builder
	b.WriteString("build failed: ")
	if first == "" {
		first = e.Command
	}
	b.WriteString(first)
	switch {
	case n == 1 && !more:
		b.WriteString(" (1 error)")
	case n > 0:
		plus := ""
		if more {
			plus = "+"
		}
		fmt.Fprintf(&b, " (%d%s errors)", n, plus)
	}
	b.WriteString("\n\n")
	b.WriteString(e.Output)
	return b.String()
}

// Build makes the program described by s: for Test it runs
// "go test -c -o OUTDIR/adi-target.test -gcflags=all=-N -l [build flags] PKG"
// and for Run "go build -o OUTDIR/adi-target -gcflags=all=-N -l [build flags]
// PKG", the linker's flags with -compressdwarf=false (see withDebugLdflag),
// both in s.Dir, with the current process's environment; for Exec it checks
// that the binary is an executable ELF file with debug information.
//
// A target that does not exist gives an error matching ErrNotFound; a failed
// build gives a *BuildError. Cancelling ctx kills the go command. Build may
// append to s.Notes.
func (s *Spec) Build(ctx context.Context, outDir string) (*Program, error) {
	switch s.Kind {
	case Exec:
		return s.checkBinary()
	case Test, Run:
		return s.buildGo(ctx, outDir)
	}
	return nil, fmt.Errorf("target: Build of a Spec of kind %v", s.Kind)
}

// listedPackage is what Build reads from go list -json.
type listedPackage struct {
	Dir          string
	ImportPath   string
	Name         string
	Module       *listedModule
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }
}

type listedModule struct {
	Path string
	Dir  string
}

// Targets returns the package or files as arguments of the go command.
func (s *Spec) Targets() []string {
	if len(s.Files) > 0 {
		return s.Files
	}
	return []string{s.Package}
}

func (s *Spec) buildGo(ctx context.Context, outDir string) (*Program, error) {
	if outDir == "" {
		return nil, errors.New("target: Build needs a directory for the binary")
	}
	if err := s.checkGOFLAGS(); err != nil {
		return nil, err
	}
	pkg, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case Test:
		if len(pkg.TestGoFiles)+len(pkg.XTestGoFiles) == 0 {
			return nil, fmt.Errorf("go test %s: package %s has no test files (no *_test.go in %s); write a test for the code to debug, or use go run for a main package", s.Package, pkg.ImportPath, pkg.Dir)
		}
	case Run:
		if pkg.Name != "main" {
			return nil, fmt.Errorf("go run %s: package %s is package %s, not a main package; go run needs package main (to debug a library, debug one of its tests: go test %s -run TestName)", s.Package, pkg.ImportPath, pkg.Name, s.Package)
		}
	}

	outDir, err = filepath.Abs(outDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("target: making the output directory: %w", err)
	}
	var args []string
	prog := &Program{Args: append([]string{}, s.Args...), PkgPath: pkg.ImportPath}
	if s.Kind == Test {
		prog.Path = filepath.Join(outDir, "adi-target.test"+exeSuffix())
		prog.Dir = pkg.Dir
		args = []string{"test", "-c", "-o", prog.Path, debugGcflags}
	} else {
		prog.Path = filepath.Join(outDir, "adi-target"+exeSuffix())
		prog.Dir = s.Dir
		args = []string{"build", "-o", prog.Path, debugGcflags}
	}
	args = append(args, withDebugLdflag(s.BuildFlags)...)
	args = append(args, s.VetFlags()...)
	args = append(args, s.Targets()...)
	out, err := s.goCmd(ctx, args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("build %s cancelled: %w", s.Package, ctx.Err())
		}
		return nil, &BuildError{Command: shellJoin(append([]string{"go"}, args...)), Output: string(out)}
	}

	if pkg.Module != nil {
		prog.ModulePath, prog.ModuleDir = pkg.Module.Path, pkg.Module.Dir
	} else if len(s.Files) > 0 {
		prog.ModulePath, prog.ModuleDir = s.mainModule(ctx, pkg.Dir)
	}
	return prog, nil
}

// checkGOFLAGS refuses a GOFLAGS environment variable that sets a flag adi
// would refuse on the command line (other than -gcflags, which adi's own
// -gcflags overrides).
func (s *Spec) checkGOFLAGS() error {
	table := runFlags
	if s.Kind == Test {
		table = testFlags
	}
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		name, value, _, ok := splitFlag(f)
		if !ok || name == "gcflags" {
			continue
		}
		spec, known := table[name]
		if !known {
			continue
		}
		if spec.action == reject {
			return fmt.Errorf("the environment variable GOFLAGS sets %s, which adi cannot use: %s; unset it for adi (GOFLAGS= adi ...)", f, spec.why)
		}
		if spec.check != nil && spec.action == passBuild {
			if err := spec.check(value); err != nil {
				return fmt.Errorf("the environment variable GOFLAGS sets %s: %v; unset it for adi (GOFLAGS= adi ...)", f, err)
			}
		}
	}
	return nil
}

// list runs go list on the target and returns the one package it names.
func (s *Spec) list(ctx context.Context) (*listedPackage, error) {
	for _, f := range s.Files {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(s.Dir, f)
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, notFound("go %v %s: file %s not found in %s", s.Kind, s.Package, f, s.Dir)
		}
	}
	args := []string{"list", "-e", "-json=Dir,ImportPath,Name,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Error"}
	args = append(args, s.BuildFlags...)
	args = append(args, s.Targets()...)
	out, stderr, err := s.goList(ctx, args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("go list %s cancelled: %w", s.Package, ctx.Err())
		}
		msg := strings.TrimSpace(stderr + string(out))
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %v %s (in %s): %s", s.Kind, s.Package, s.Dir, msg)
	}
	var pkgs []*listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list output for %s: %w", s.Package, err)
		}
		pkgs = append(pkgs, &p)
	}
	switch {
	case len(pkgs) == 0:
		return nil, notFound("go %v %s: no package matches %s in %s", s.Kind, s.Package, s.Package, s.Dir)
	case len(pkgs) > 1:
		var names []string
		for _, p := range pkgs {
			if len(names) == 5 {
				names = append(names, "...")
				break
			}
			names = append(names, p.ImportPath)
		}
		return nil, fmt.Errorf("go %v %s: matches %d packages (%s) and adi debugs one at a time; name just one", s.Kind, s.Package, len(pkgs), strings.Join(names, " "))
	}
	p := pkgs[0]
	if p.Error != nil && p.Name == "" {
		// Nothing was loaded: the package does not exist, or has no Go
		// files. (Errors in a package that exists, such as a bad import,
		// are left for the build to report.)
		what := "package " + s.Package
		if len(s.Files) > 0 {
			what = "files " + s.Package
		}
		return nil, notFound("go %v %s: %s not found in %s: %s", s.Kind, s.Package, what, s.Dir, strings.TrimSpace(p.Error.Err))
	}
	return p, nil
}

// mainModule finds the main module for a build of .go files (go list does
// not report a module for command-line-arguments). In a workspace it picks
// the module containing pkgDir. It returns "", "" if there is none.
func (s *Spec) mainModule(ctx context.Context, pkgDir string) (path, dir string) {
	args := []string{"list", "-m", "-json=Path,Dir"}
	for _, f := range s.BuildFlags {
		if strings.HasPrefix(f, "-modfile=") {
			args = append(args, f)
		}
	}
	out, _, err := s.goList(ctx, args...)
	if err != nil {
		return "", ""
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m listedModule
		if dec.Decode(&m) != nil {
			break
		}
		if m.Dir != "" && within(pkgDir, m.Dir) && len(m.Dir) > len(dir) {
			path, dir = m.Path, m.Dir
		}
	}
	return path, dir
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// goCmd runs the go command in s.Dir and returns its combined output.
// Cancelling ctx kills it and the processes it started.
func (s *Spec) goCmd(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := s.runGo(ctx, &out, &out, args)
	return out.Bytes(), err
}

// goList runs the go command in s.Dir for its output (JSON), kept apart
// from what it says on stderr, which it returns for an error: the go
// command's warnings, or the runtime's (GODEBUG=gctrace=1 in the user's
// environment), are not JSON.
func (s *Spec) goList(ctx context.Context, args ...string) (out []byte, stderr string, err error) {
	var o, e bytes.Buffer
	err = s.runGo(ctx, &o, &e, args)
	return o.Bytes(), e.String(), err
}

func (s *Spec) runGo(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	KillGroupOnCancel(cmd)
	// If a child of the go command keeps the output open after the go
	// command is killed, stop waiting for it.
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// shellJoin quotes args for display as a shell command.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
