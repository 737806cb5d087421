// Package target turns the command line a user wrote after adi's "--" into a
// debuggable program: it parses the command (Parse) and builds the binary with
// optimizations and inlining turned off (Spec.Build).
//
// Three forms are understood:
//
//	go test [build flags] [package] [test flags] [-args …]
//	go run [build flags] package|files.go [arguments…]
//	./path/to/binary [arguments…]     (or an absolute path)
//
// Parse is purely syntactic: it never touches the file system or runs the go
// command. Everything that needs either (does the package exist, does it have
// tests, is the binary an ELF file with debug info) is checked by Build.
//
// Decisions worth knowing:
//
//   - go test: test flags are translated to the form the test binary takes
//     (-run X and -run=X become -test.run=X). Flags go test does not know are
//     passed to the test binary unchanged, exactly as go test does (so
//     "go test ./x -update" works), with a note. Everything after -args is
//     passed verbatim. The arguments start with -test.paniconexit0, which go
//     test always passes. Unlike go test, no -test.timeout is added by
//     default: a program paused in a debugger must not time out.
//   - -json, -vet, -cover, -x and -work (and -v for go run) are dropped with a
//     note; they change only what the go command prints.
//   - Flags that cannot work under adi are rejected with an error naming the
//     flag: -gcflags (adi sets -gcflags=all=-N -l itself), -trimpath, -race,
//     -msan, -asan, -covermode, -coverpkg, -coverprofile, -c, -o, -exec, -n,
//     the profiling flags, the fuzzing flags, -buildmode, -compiler,
//     -gccgoflags, -linkshared, -toolexec, and an -ldflags that strips the
//     debug info (-s or -w).
//   - Exactly one package: a pattern with "..." or a second package is an
//     error. The package defaults to ".".
//   - -C dir is accepted as the first flag, as the go command accepts it; it
//     changes Spec.Dir.
package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Kind says which of the three supported forms a target command line has.
type Kind int

const (
	// Test is "go test …": adi builds the test binary with go test -c.
	Test Kind = iota + 1
	// Run is "go run …": adi builds the main package with go build.
	Run
	// Exec is a prebuilt binary named by its path.
	Exec
)

// String returns "test", "run" or "exec".
func (k Kind) String() string {
	switch k {
	case Test:
		return "test"
	case Run:
		return "run"
	case Exec:
		return "exec"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Spec is a parsed target command line.
type Spec struct {
	// Kind is the form of the command line.
	Kind Kind
	// Dir is the directory the command was given in (absolute). A leading
	// "-C dir" flag is already applied.
	Dir string
	// Package is the package pattern as given (Test, Run), e.g. "./parser".
	// When the target is a list of .go files, Package is the files joined by
	// spaces and Files holds them one by one.
	Package string
	// Files are the .go files named instead of a package, relative to Dir as
	// given; nil when a package is named.
	Files []string
	// BuildFlags are passed to go build / go test -c (and go list), each in
	// the single-argument form -name=value.
	BuildFlags []string
	// Vet is the value of go test's -vet flag, "" when it is not given:
	// go test -c runs go vet on the package as go test does, so a test
	// binary is built with it (see VetFlags). go list and go build do not
	// take it.
	Vet string
	// Args are the program's arguments as the binary receives them; for a
	// test, the test flags are already translated (-run X → -test.run=X).
	Args []string
	// Binary is, for Exec, the absolute path of the prebuilt binary.
	Binary string
	// Notes are things adi changed or dropped, to be said to the user. Build
	// may add to them (e.g. a prebuilt binary that was built optimized).
	Notes []string
}

// ErrNotFound is wrapped by the error Build returns when the target package,
// files or binary do not exist; the error's message names what was missing.
var ErrNotFound = errors.New("not found")

// notFoundError is an error that matches ErrNotFound with errors.Is and
// carries its own message.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

func notFound(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}

// usage lists the forms adi understands; it ends error messages about a
// command line adi cannot use.
const usage = `adi debugs one of these, written after "--" as you would run it:
  go test [build flags] [package] [test flags] [-args ...]
  go run [build flags] package|files.go [arguments...]
  ./path/to/binary [arguments...]   (or an absolute path)`

// Parse parses argv, the command line that came after adi's "--", given in
// directory dir (made absolute; "" means the current directory). Errors say
// what was wrong and what to write instead. Parse does not look at the file
// system; Build checks that the target exists.
func Parse(argv []string, dir string) (*Spec, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the current directory: %w", err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("nothing to debug: no command after \"--\"\n%s", usage)
	}

	cmd := argv[0]
	switch {
	case cmd == "go":
		if len(argv) < 2 {
			return nil, fmt.Errorf("\"go\" alone is not something adi can debug\n%s", usage)
		}
		switch sub := argv[1]; sub {
		case "test":
			return parseTest(argv[2:], dir)
		case "run":
			return parseRun(argv[2:], dir)
		case "build", "install":
			return nil, fmt.Errorf("adi cannot debug \"go %s\": it builds a program but runs nothing; write the go run command that runs it, or build it with go build -gcflags=all=-N -l and give adi the binary's path\n%s", sub, usage)
		default:
			return nil, fmt.Errorf("adi cannot debug \"go %s\": only go test and go run are supported\n%s", sub, usage)
		}
	case strings.ContainsRune(cmd, '/') || strings.ContainsRune(cmd, filepath.Separator) || filepath.IsAbs(cmd):
		bin := cmd
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(dir, bin)
		}
		return &Spec{
			Kind:   Exec,
			Dir:    dir,
			Binary: filepath.Clean(bin),
			Args:   append([]string{}, argv[1:]...),
		}, nil
	default:
		return nil, fmt.Errorf("adi cannot debug %q: it is not go test, go run, or the path of a binary (a binary is named by its path: ./%s)\n%s", strings.Join(argv, " "), cmd, usage)
	}
}

// splitFlag splits a command-line argument the way the go command does. ok
// is false for arguments that are not flags ("x", "-", "-=x", "---x"); a
// leading "--" is treated as "-". The lone "--" must be handled by the
// caller.
func splitFlag(arg string) (name, value string, hasValue, ok bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", "", false, false
	}
	a := arg[1:]
	if a[0] == '-' {
		a = a[1:]
	}
	if a == "" || a[0] == '-' || a[0] == '=' {
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(a, "=")
	return name, value, hasValue, true
}

// chdirFlag handles a leading "-C dir" / "-C=dir": it returns the new
// directory and the remaining arguments.
func chdirFlag(args []string, dir, cmd string) (string, []string, error) {
	if len(args) == 0 {
		return dir, args, nil
	}
	name, value, hasValue, ok := splitFlag(args[0])
	if !ok || name != "C" {
		return dir, args, nil
	}
	rest := args[1:]
	if !hasValue {
		if len(rest) == 0 {
			return "", nil, fmt.Errorf("go %s -C needs a directory: write go %s -C dir ...", cmd, cmd)
		}
		value, rest = rest[0], rest[1:]
	}
	if value == "" {
		return "", nil, fmt.Errorf("go %s -C needs a directory: write go %s -C dir ...", cmd, cmd)
	}
	if !filepath.IsAbs(value) {
		value = filepath.Join(dir, value)
	}
	return filepath.Clean(value), rest, nil
}

// checkPackages checks the package arguments of go test or go run: one
// package, or a list of .go files. It fills in s.Package and s.Files.
func (s *Spec) checkPackages(pkgs []string, cmd string) error {
	if len(pkgs) == 0 {
		s.Package = "."
		return nil
	}
	var files []string
	for _, p := range pkgs {
		if strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
	}
	if len(files) > 0 {
		if len(files) != len(pkgs) {
			return fmt.Errorf("go %s: cannot mix .go files and packages (%s); name either one package or the .go files of one package", cmd, strings.Join(pkgs, " "))
		}
		s.Files = files
		s.Package = strings.Join(files, " ")
		return nil
	}
	if len(pkgs) > 1 {
		return fmt.Errorf("go %s: adi debugs one package at a time, got %d (%s); write just one, e.g. go %s %s", cmd, len(pkgs), strings.Join(pkgs, " "), cmd, pkgs[0])
	}
	p := pkgs[0]
	if strings.Contains(p, "...") {
		return fmt.Errorf("go %s %s: a pattern with \"...\" can match many packages and adi debugs one at a time; name the package, e.g. go %s ./parser", cmd, p, cmd)
	}
	if strings.Contains(p, "@") {
		return fmt.Errorf("go %s %s: adi cannot build a package at a version; go install it and give adi the binary's path, or name a package of your module", cmd, p)
	}
	s.Package = p
	return nil
}

// parseTest parses the arguments of "go test", following go test's own rules
// for where the package list ends and the test binary's arguments begin.
func parseTest(args []string, dir string) (*Spec, error) {
	dir, args, err := chdirFlag(args, dir, "test")
	if err != nil {
		return nil, err
	}
	s := &Spec{Kind: Test, Dir: dir, Args: []string{"-test.paniconexit0"}}
	var pkgs []string
	pkgListDone := false // a package list was seen, or an unknown flag
	inPkgList := false
	afterFlagWithoutValue := false
	for i := 0; i < len(args); {
		arg := args[i]
		wasAfterFlagWithoutValue := afterFlagWithoutValue
		afterFlagWithoutValue = false
		if arg == "--" {
			// go test passes the terminator and all after it to the test.
			s.Args = append(s.Args, args[i:]...)
			break
		}
		name, value, hasValue, ok := splitFlag(arg)
		if !ok {
			if !inPkgList && pkgListDone {
				if wasAfterFlagWithoutValue {
					// Probably the value of an unknown flag.
					s.Args = append(s.Args, arg)
					i++
					continue
				}
				s.Args = append(s.Args, args[i:]...)
				break
			}
			inPkgList, pkgListDone = true, true
			pkgs = append(pkgs, arg)
			i++
			continue
		}
		inPkgList = false
		if name == "args" {
			s.Args = append(s.Args, args[i+1:]...)
			break
		}
		fs, known := lookupFlag(testFlags, name, true)
		if !known {
			pkgListDone = true
			s.Args = append(s.Args, arg)
			s.Notes = append(s.Notes, fmt.Sprintf("%s is not a go test flag: passed to the test binary as written", arg))
			if !hasValue {
				afterFlagWithoutValue = true
			}
			i++
			continue
		}
		i++
		if !fs.isBool && !hasValue {
			if i >= len(args) {
				return nil, fmt.Errorf("go test flag -%s needs a value: write -%s=VALUE", name, name)
			}
			value, hasValue = args[i], true
			i++
		}
		if err := s.applyFlag("test", name, value, hasValue, fs); err != nil {
			return nil, err
		}
	}
	if err := s.checkPackages(pkgs, "test"); err != nil {
		return nil, err
	}
	return s, nil
}

// parseRun parses the arguments of "go run": build flags, then the package or
// .go files, then the program's arguments.
func parseRun(args []string, dir string) (*Spec, error) {
	dir, args, err := chdirFlag(args, dir, "run")
	if err != nil {
		return nil, err
	}
	s := &Spec{Kind: Run, Dir: dir}
	i := 0
	for i < len(args) {
		arg := args[i]
		if arg == "--" {
			i++
			break
		}
		name, value, hasValue, ok := splitFlag(arg)
		if !ok {
			break
		}
		fs, known := lookupFlag(runFlags, name, false)
		if !known {
			return nil, fmt.Errorf("%s is not a go run flag; your program's own arguments go after the package: go run . %s", arg, arg)
		}
		i++
		if !fs.isBool && !hasValue {
			if i >= len(args) {
				return nil, fmt.Errorf("go run flag -%s needs a value: write -%s=VALUE", name, name)
			}
			value, hasValue = args[i], true
			i++
		}
		if err := s.applyFlag("run", name, value, hasValue, fs); err != nil {
			return nil, err
		}
	}
	rest := args[i:]
	var pkgs []string
	switch {
	case len(rest) == 0:
	case strings.HasSuffix(rest[0], ".go"):
		n := 0
		for n < len(rest) && strings.HasSuffix(rest[n], ".go") {
			n++
		}
		pkgs, rest = rest[:n], rest[n:]
	default:
		pkgs, rest = rest[:1], rest[1:]
	}
	if err := s.checkPackages(pkgs, "run"); err != nil {
		return nil, err
	}
	s.Args = append([]string{}, rest...)
	return s, nil
}

// applyFlag records one recognized flag of go test or go run.
func (s *Spec) applyFlag(cmd, name, value string, hasValue bool, fs flagSpec) error {
	short := strings.TrimPrefix(name, "test.")
	if fs.action == reject {
		return fmt.Errorf("go %s flag -%s is not supported: %s", cmd, name, fs.why)
	}
	check := fs.check
	if check == nil && fs.isBool {
		check = checkBool
	}
	if check != nil {
		v := value
		if !hasValue {
			v = "true"
		}
		if err := check(v); err != nil {
			return fmt.Errorf("go %s flag -%s=%s: %v", cmd, name, value, err)
		}
	}
	switch fs.action {
	case drop:
		s.Notes = append(s.Notes, fmt.Sprintf("-%s dropped: %s", name, fs.why))
	case passBuild:
		if hasValue {
			s.BuildFlags = append(s.BuildFlags, "-"+short+"="+value)
		} else {
			s.BuildFlags = append(s.BuildFlags, "-"+short)
		}
	case passTest:
		if !hasValue {
			value = "true"
		}
		s.Args = append(s.Args, "-test."+short+"="+value)
	case passVet:
		s.Vet = value
	}
	return nil
}

// VetFlags returns the -vet flag to give the go test commands that build
// or run the target's tests (go test -c, go test), none when the command
// line did not set it. It is nil for go run and a binary.
func (s *Spec) VetFlags() []string {
	if s.Kind != Test || s.Vet == "" {
		return nil
	}
	return []string{"-vet=" + s.Vet}
}
