package target

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const p0 = "-test.paniconexit0"

func TestParse(t *testing.T) {
	const dir = "/home/u/proj"
	tests := []struct {
		name      string
		argv      []string
		want      *Spec
		wantNote  string // a substring of one of the notes
		wantErr   string // substrings of the error, separated by "|"
		wantUsage bool   // the error lists the supported forms
	}{
		// go test
		{
			name: "test with separate flag values",
			argv: []string{"go", "test", "./parser", "-run", "TestParse", "-count", "1", "-v"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./parser",
				Args: []string{p0, "-test.run=TestParse", "-test.count=1", "-test.v=true"}},
		},
		{
			name: "test with = flag values and build flag first",
			argv: []string{"go", "test", "-tags", "foo", "./x", "-run=TestA/sub", "-count=3"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", BuildFlags: []string{"-tags=foo"},
				Args: []string{p0, "-test.run=TestA/sub", "-test.count=3"}},
		},
		{
			name: "test package defaults to dot",
			argv: []string{"go", "test", "-run", "X", "-v=false"},
			want: &Spec{Kind: Test, Dir: dir, Package: ".", Args: []string{p0, "-test.run=X", "-test.v=false"}},
		},
		{
			name: "test with nothing",
			argv: []string{"go", "test"},
			want: &Spec{Kind: Test, Dir: dir, Package: ".", Args: []string{p0}},
		},
		{
			name: "test flags before the package",
			argv: []string{"go", "test", "-v", "-run", "TestA", "./x"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-test.v=true", "-test.run=TestA"}},
		},
		{
			name: "all translated test flags",
			argv: []string{"go", "test", ".", "-timeout", "30s", "-short", "-failfast", "-skip", "TestB", "-parallel", "2",
				"-cpu", "1,2", "-list", ".", "-bench=.", "-benchtime", "1x", "-benchmem", "-shuffle", "on", "-fullpath"},
			want: &Spec{Kind: Test, Dir: dir, Package: ".", Args: []string{p0, "-test.timeout=30s", "-test.short=true",
				"-test.failfast=true", "-test.skip=TestB", "-test.parallel=2", "-test.cpu=1,2", "-test.list=.",
				"-test.bench=.", "-test.benchtime=1x", "-test.benchmem=true", "-test.shuffle=on", "-test.fullpath=true"}},
		},
		{
			name: "double dash and test. prefixed flags",
			argv: []string{"go", "test", "--run", "A", "-test.count=2", "--test.v", "./x"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-test.run=A", "-test.count=2", "-test.v=true"}},
		},
		{
			name: "-args passed verbatim",
			argv: []string{"go", "test", "./x", "-v", "-args", "-run", "foo", "bar"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-test.v=true", "-run", "foo", "bar"}},
		},
		{
			name: "terminator passed verbatim",
			argv: []string{"go", "test", "./x", "--", "-v"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "--", "-v"}},
		},
		{
			name:     "unknown flag goes to the test binary",
			argv:     []string{"go", "test", "./x", "-update", "-run", "TestGolden"},
			want:     &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-update", "-test.run=TestGolden"}},
			wantNote: "-update is not a go test flag",
		},
		{
			name: "unknown flag with a value",
			argv: []string{"go", "test", "./x", "-golden", "testdata", "-v"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-golden", "testdata", "-test.v=true"}},
		},
		{
			name: "positional argument ends go test's flags",
			argv: []string{"go", "test", "./x", "-v", "extra", "-run", "Y"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-test.v=true", "extra", "-run", "Y"}},
		},
		{
			name: "-C changes the directory",
			argv: []string{"go", "test", "-C", "sub", "./x"},
			want: &Spec{Kind: Test, Dir: dir + "/sub", Package: "./x", Args: []string{p0}},
		},
		{
			name: "test files",
			argv: []string{"go", "test", "a_test.go", "b_test.go", "-run", "X"},
			want: &Spec{Kind: Test, Dir: dir, Package: "a_test.go b_test.go", Files: []string{"a_test.go", "b_test.go"},
				Args: []string{p0, "-test.run=X"}},
		},
		{
			name: "build flags passed through",
			argv: []string{"go", "test", "-ldflags", "-X main.v=1", "-mod=mod", "-modfile", "alt.mod", "-buildvcs=false", "-asmflags=-I x", "-p", "4", "-a", "."},
			want: &Spec{Kind: Test, Dir: dir, Package: ".", Args: []string{p0},
				BuildFlags: []string{"-ldflags=-X main.v=1", "-mod=mod", "-modfile=alt.mod", "-buildvcs=false", "-asmflags=-I x", "-p=4", "-a"}},
		},
		{
			name:     "-json dropped with a note",
			argv:     []string{"go", "test", "-json", "./x"},
			want:     &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0}},
			wantNote: "-json dropped",
		},
		{
			name: "-vet kept with its value",
			argv: []string{"go", "test", "-vet", "off", "./x", "-run", "A"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0, "-test.run=A"}, Vet: "off"},
		},
		{
			name: "-vet=list kept",
			argv: []string{"go", "test", "-vet=printf,atomic", "./x"},
			want: &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0}, Vet: "printf,atomic"},
		},
		{
			name:     "-cover dropped",
			argv:     []string{"go", "test", "-cover", "./x"},
			want:     &Spec{Kind: Test, Dir: dir, Package: "./x", Args: []string{p0}},
			wantNote: "-cover dropped",
		},
		{name: "-race rejected", argv: []string{"go", "test", "-race", "./x"}, wantErr: "-race is not supported"},
		{name: "-gcflags rejected", argv: []string{"go", "test", "-gcflags=-N", "./x"}, wantErr: "-gcflags is not supported|-gcflags=all=-N -l"},
		{name: "-trimpath rejected", argv: []string{"go", "test", "-trimpath", "./x"}, wantErr: "-trimpath is not supported|source"},
		{name: "-coverprofile rejected", argv: []string{"go", "test", "./x", "-coverprofile", "c.out"}, wantErr: "-coverprofile is not supported"},
		{name: "-covermode rejected", argv: []string{"go", "test", "-covermode=atomic", "./x"}, wantErr: "-covermode is not supported"},
		{name: "-c rejected", argv: []string{"go", "test", "-c", "./x"}, wantErr: "-c is not supported"},
		{name: "-o rejected", argv: []string{"go", "test", "-o", "x.test", "./x"}, wantErr: "-o is not supported"},
		{name: "-exec rejected", argv: []string{"go", "test", "-exec", "sudo", "./x"}, wantErr: "-exec is not supported"},
		{name: "-cpuprofile rejected", argv: []string{"go", "test", "./x", "-cpuprofile=cpu.out"}, wantErr: "-cpuprofile is not supported|profile"},
		{name: "-fuzz rejected", argv: []string{"go", "test", "./x", "-fuzz", "FuzzX"}, wantErr: "-fuzz is not supported|-run=FuzzName/"},
		{name: "stripping -ldflags rejected", argv: []string{"go", "test", "-ldflags=-s -w", "./x"}, wantErr: "-ldflags=-s -w|strip"},
		{name: "bad -count", argv: []string{"go", "test", "./x", "-count", "many"}, wantErr: "-count=many|integer"},
		{name: "bad -timeout", argv: []string{"go", "test", "./x", "-timeout=soon"}, wantErr: "-timeout=soon|duration"},
		{name: "flag without value", argv: []string{"go", "test", "./x", "-run"}, wantErr: "-run needs a value"},
		{name: "two packages", argv: []string{"go", "test", "./a", "./b"}, wantErr: "one package at a time|./a ./b"},
		{name: "dot dot dot", argv: []string{"go", "test", "./..."}, wantErr: "./...|one at a time"},
		{name: "mixed files and package", argv: []string{"go", "test", "a_test.go", "./b"}, wantErr: "cannot mix"},
		{name: "-C not first", argv: []string{"go", "test", "-v", "-C", "x"}, wantErr: "-C must be the first flag"},

		// go run
		{
			name: "run package with args",
			argv: []string{"go", "run", "./cmd/x", "a", "-b", "--c", "-args"},
			want: &Spec{Kind: Run, Dir: dir, Package: "./cmd/x", Args: []string{"a", "-b", "--c", "-args"}},
		},
		{
			name: "run files with build flags",
			argv: []string{"go", "run", "-tags", "t", "main.go", "util.go", "arg.go", "x"},
			want: &Spec{Kind: Run, Dir: dir, Package: "main.go util.go arg.go", Files: []string{"main.go", "util.go", "arg.go"},
				BuildFlags: []string{"-tags=t"}, Args: []string{"x"}},
		},
		{
			name: "run defaults to dot",
			argv: []string{"go", "run"},
			want: &Spec{Kind: Run, Dir: dir, Package: ".", Args: []string{}},
		},
		{
			name: "run after terminator",
			argv: []string{"go", "run", "-mod=mod", "--", ".", "-x"},
			want: &Spec{Kind: Run, Dir: dir, Package: ".", BuildFlags: []string{"-mod=mod"}, Args: []string{"-x"}},
		},
		{
			name:     "run -v dropped",
			argv:     []string{"go", "run", "-v", "."},
			want:     &Spec{Kind: Run, Dir: dir, Package: ".", Args: []string{}},
			wantNote: "-v dropped",
		},
		{name: "run -race rejected", argv: []string{"go", "run", "-race", "."}, wantErr: "go run flag -race is not supported"},
		{name: "run -exec rejected", argv: []string{"go", "run", "-exec", "x", "."}, wantErr: "-exec is not supported"},
		{name: "run unknown flag", argv: []string{"go", "run", "-foo", "."}, wantErr: "-foo is not a go run flag|go run . -foo"},
		{name: "run at version", argv: []string{"go", "run", "example.com/tool@latest"}, wantErr: "at a version"},

		// binaries
		{
			name: "relative binary",
			argv: []string{"./bin/server", "-port", "80"},
			want: &Spec{Kind: Exec, Dir: dir, Binary: dir + "/bin/server", Args: []string{"-port", "80"}},
		},
		{
			name: "binary in parent directory",
			argv: []string{"../server"},
			want: &Spec{Kind: Exec, Dir: dir, Binary: "/home/u/server", Args: []string{}},
		},
		{
			name: "absolute binary",
			argv: []string{"/opt/bin/server"},
			want: &Spec{Kind: Exec, Dir: dir, Binary: "/opt/bin/server", Args: []string{}},
		},

		// not supported
		{name: "empty", argv: nil, wantErr: "nothing to debug", wantUsage: true},
		{name: "go vet", argv: []string{"go", "vet", "./..."}, wantErr: `"go vet"`, wantUsage: true},
		{name: "go build", argv: []string{"go", "build", "."}, wantErr: `"go build"|go build -gcflags=all=-N -l`, wantUsage: true},
		{name: "go alone", argv: []string{"go"}, wantErr: `"go" alone`, wantUsage: true},
		{name: "make test", argv: []string{"make", "test"}, wantErr: `"make test"`, wantUsage: true},
		{name: "bare binary name", argv: []string{"server"}, wantErr: "./server", wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.argv, dir)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want an error", tt.argv, got)
				}
				for sub := range strings.SplitSeq(tt.wantErr, "|") {
					if !strings.Contains(err.Error(), sub) {
						t.Errorf("Parse(%q) error = %q, want it to contain %q", tt.argv, err, sub)
					}
				}
				if usage := "go test [build flags] [package] [test flags]"; tt.wantUsage != strings.Contains(err.Error(), usage) {
					t.Errorf("Parse(%q) error = %q; lists the supported forms: %v, want %v", tt.argv, err, !tt.wantUsage, tt.wantUsage)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.argv, err)
			}
			notes := got.Notes
			got.Notes = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) =\n %#v\nwant\n %#v", tt.argv, got, tt.want)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(notes, "\n"), tt.wantNote) {
				t.Errorf("Parse(%q) notes = %q, want one containing %q", tt.argv, notes, tt.wantNote)
			}
		})
	}
}

func TestParseRelativeDir(t *testing.T) {
	s, err := Parse([]string{"go", "test"}, "some/dir")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Join(wd, "some/dir"); s.Dir != want {
		t.Errorf("Dir = %q, want %q", s.Dir, want)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Test: "test", Run: "run", Exec: "exec", 0: "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestBuildErrorSummary(t *testing.T) {
	tests := []struct {
		output, want string
	}{
		{"# example.com/m/bad\nbad/b.go:3:9: undefined: x\nbad/b.go:4:9: undefined: y\n", "build failed: bad/b.go:3:9: undefined: x (2 errors)"},
		{"# example.com/m/bad\nbad/b.go:3:9: undefined: x\n", "build failed: bad/b.go:3:9: undefined: x (1 error)"},
		{"# p\na.go:1:1: e1\na.go:2:1: e2\na.go:3:1: too many errors\n", "build failed: a.go:1:1: e1 (2+ errors)"},
		{"go: go.mod requires go >= 1.99 (running go 1.26)\n", "build failed: go: go.mod requires go >= 1.99 (running go 1.26)"},
		{"", "build failed: go build ."},
	}
	for _, tt := range tests {
		e := &BuildError{Command: "go build .", Output: tt.output}
		first, rest, _ := strings.Cut(e.Error(), "\n")
		if first != tt.want {
			t.Errorf("summary of %q = %q, want %q", tt.output, first, tt.want)
		}
		if rest != "\n"+tt.output {
			t.Errorf("after the summary: %q, want a blank line and the output verbatim", rest)
		}
	}
}

// fixture is a small module used by the Build tests.
var fixture = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.26\n",
	"p/p.go": "package p\n\nfunc Add(a, b int) int { return a + b }\n",
	"p/p_test.go": `package p

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

func TestAdd(t *testing.T) {
	fmt.Println("RAN TestAdd")
	if Add(1, 2) != 3 {
		t.Fatal("bad sum")
	}
}

func TestOther(t *testing.T) { fmt.Println("RAN TestOther") }

func TestArgs(t *testing.T) {
	data, err := os.ReadFile("testdata/x.txt") // relative: needs the package directory
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("DATA %s ARGS %q\n", data, flag.Args())
}
`,
	"p/tagged_test.go": "//go:build foo\n\npackage p\n\nimport (\"fmt\"; \"testing\")\n\nfunc TestTagged(t *testing.T) { fmt.Println(\"RAN TestTagged\") }\n",
	"p/testdata/x.txt": "hello",
	"cmd/hello/main.go": `package main

import (
	"fmt"
	"os"
)

var version = "dev"

func main() { fmt.Printf("ARGS %q VERSION %s\n", os.Args[1:], version) }
`,
	"bad/bad.go": "package main\n\nfunc main() {\n\tprintln(undefinedX)\n\tprintln(undefinedY)\n}\n",
	// go vet's printf check fails on this test: go test builds and runs it
	// only with -vet=off.
	"vetfail/v_test.go": "package vetfail\n\nimport (\"fmt\"; \"testing\")\n\nfunc TestVet(t *testing.T) {\n\tformat := \"RAN TestVet\\n\"\n\tfmt.Printf(format)\n}\n",
	"lib/lib.go":        "package lib\n\nfunc F() {}\n",
	"script.sh":         "#!/bin/sh\necho hi\n",
	"notexec.bin":       "x",
}

func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range fixture {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goBuild runs the go command in dir, failing the test if it fails.
func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runProgram runs prog as the debugger would and returns its output.
func runProgram(t *testing.T, prog *Program) string {
	t.Helper()
	cmd := exec.Command(prog.Path, prog.Args...)
	cmd.Dir = prog.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %s %q in %s: %v\n%s", prog.Path, prog.Args, prog.Dir, err, out)
	}
	return string(out)
}

func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := writeFixture(t)
	// Prebuilt binaries for the Exec cases.
	bin := filepath.Join(mod, "bin")
	goBuild(t, mod, "build", "-gcflags=all=-N -l", "-o", filepath.Join(bin, "debug"), "./cmd/hello")
	goBuild(t, mod, "build", "-o", filepath.Join(bin, "optimized"), "./cmd/hello")
	goBuild(t, mod, "build", "-ldflags=-s -w", "-o", filepath.Join(bin, "stripped"), "./cmd/hello")

	tests := []struct {
		name string
		argv []string
		dir  string // relative to the module; "" is the module root
		// For a successful build:
		want     Program // Path is only checked for its base name; Args are not checked
		wantOut  string  // substring of the program's output when run
		wantNot  string  // must not be in the output
		wantNote string
		// For a failed build:
		wantErr      string // substring of the error
		wantNotFound bool
	}{
		{
			name:    "test binary selects the test",
			argv:    []string{"go", "test", "./p", "-run", "TestAdd$", "-v"},
			want:    Program{Path: "adi-target.test", Dir: "p", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/p"},
			wantOut: "--- PASS: TestAdd",
			wantNot: "RAN TestOther",
		},
		{
			name:    "test runs in the package directory with -args",
			argv:    []string{"go", "test", "./p", "-run=TestArgs", "-args", "one", "two words"},
			want:    Program{Path: "adi-target.test", Dir: "p", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/p"},
			wantOut: `DATA hello ARGS ["one" "two words"]`,
			wantNot: "RAN TestAdd",
		},
		{
			name:    "test with -tags from a subdirectory",
			argv:    []string{"go", "test", "-tags", "foo", ".", "-run", "TestTagged"},
			dir:     "p",
			want:    Program{Path: "adi-target.test", Dir: "p", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/p"},
			wantOut: "RAN TestTagged",
		},
		{
			name:    "run package with arguments",
			argv:    []string{"go", "run", "./cmd/hello", "a", "b c", "-v"},
			want:    Program{Path: "adi-target", Dir: ".", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut: `ARGS ["a" "b c" "-v"]`,
		},
		{
			name:    "run with the program's -ldflags",
			argv:    []string{"go", "run", "-ldflags=-X main.version=v1", "./cmd/hello"},
			want:    Program{Path: "adi-target", Dir: ".", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut: `VERSION v1`,
		},
		{
			name:    "run with -ldflags for other packages",
			argv:    []string{"go", "run", "-ldflags=-X main.version=v3", "-ldflags=example.com/m/p=-X main.version=v2", "./cmd/hello"},
			want:    Program{Path: "adi-target", Dir: ".", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut: `VERSION v3`,
		},
		{
			name:    "run with -ldflags for other packages only",
			argv:    []string{"go", "run", "-ldflags=example.com/m/p=-X main.version=v2", "./cmd/hello"},
			want:    Program{Path: "adi-target", Dir: ".", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut: `VERSION dev`,
		},
		{
			name:    "run files",
			argv:    []string{"go", "run", "main.go", "x"},
			dir:     "cmd/hello",
			want:    Program{Path: "adi-target", Dir: "cmd/hello", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "command-line-arguments"},
			wantOut: `ARGS ["x"]`,
		},
		{
			name:    "exec binary built for debugging",
			argv:    []string{"./bin/debug", "arg"},
			want:    Program{Path: "debug", Dir: ".", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut: `ARGS ["arg"]`,
		},
		{
			name:     "exec optimized binary accepted with a note",
			argv:     []string{"../bin/optimized"},
			dir:      "p",
			want:     Program{Path: "optimized", Dir: "p", ModulePath: "example.com/m", ModuleDir: ".", PkgPath: "example.com/m/cmd/hello"},
			wantOut:  `ARGS []`,
			wantNote: "built with optimizations",
		},
		{name: "exec stripped binary", argv: []string{"./bin/stripped"}, wantErr: "no debug information|go build -gcflags=all=-N -l"},
		{name: "exec missing binary", argv: []string{"./bin/nope"}, wantErr: "./bin/nope", wantNotFound: true},
		{name: "exec script", argv: []string{"./script.sh"}, wantErr: "is a script"},
		{name: "exec not executable", argv: []string{"./notexec.bin"}, wantErr: "not executable"},
		{name: "exec directory", argv: []string{"./cmd/hello"}, wantErr: "is a directory|go run ./cmd/hello"},
		{name: "test missing package", argv: []string{"go", "test", "./nope"}, wantErr: "./nope", wantNotFound: true},
		{name: "run missing files", argv: []string{"go", "run", "nope.go"}, wantErr: "nope.go", wantNotFound: true},
		{name: "test without test files", argv: []string{"go", "test", "./lib"}, wantErr: "no test files"},
		{name: "run of a library", argv: []string{"go", "run", "./lib"}, wantErr: "not a main package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := Parse(tt.argv, filepath.Join(mod, tt.dir))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			prog, err := spec.Build(context.Background(), t.TempDir())
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Build succeeded: %+v, want an error", prog)
				}
				for sub := range strings.SplitSeq(tt.wantErr, "|") {
					if !strings.Contains(err.Error(), sub) {
						t.Errorf("error = %q, want it to contain %q", err, sub)
					}
				}
				if errors.Is(err, ErrNotFound) != tt.wantNotFound {
					t.Errorf("errors.Is(%q, ErrNotFound) = %v, want %v", err, !tt.wantNotFound, tt.wantNotFound)
				}
				return
			}
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			want := tt.want
			want.Dir = filepath.Join(mod, want.Dir)
			want.ModuleDir = filepath.Join(mod, want.ModuleDir)
			if filepath.Base(prog.Path) != want.Path || !filepath.IsAbs(prog.Path) {
				t.Errorf("Path = %q, want an absolute path to %q", prog.Path, want.Path)
			}
			if !reflect.DeepEqual(prog.Args, spec.Args) {
				t.Errorf("Args = %q, want the Spec's %q", prog.Args, spec.Args)
			}
			got := *prog
			got.Path, got.Args, want.Path = "", nil, ""
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Program =\n %+v\nwant\n %+v", got, want)
			}
			if spec.Kind != Exec {
				checkDWARFUncompressed(t, prog.Path)
			}
			out := runProgram(t, prog)
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("output %q does not contain %q", out, tt.wantOut)
			}
			if tt.wantNot != "" && strings.Contains(out, tt.wantNot) {
				t.Errorf("output %q contains %q", out, tt.wantNot)
			}
			notes := strings.Join(spec.Notes, "\n")
			if tt.wantNote == "" && notes != "" {
				t.Errorf("unexpected notes: %s", notes)
			}
			if !strings.Contains(notes, tt.wantNote) {
				t.Errorf("notes %q do not contain %q", notes, tt.wantNote)
			}
			if spec.Kind == Test {
				// The test binary, given as a prebuilt binary, names its package.
				exe, err := Parse([]string{prog.Path}, mod)
				if err != nil {
					t.Fatal(err)
				}
				p, err := exe.Build(context.Background(), "")
				if err != nil {
					t.Fatalf("Build of the test binary as Exec: %v", err)
				}
				if p.PkgPath != "example.com/m/p" || p.ModulePath != "example.com/m" || p.ModuleDir != mod {
					t.Errorf("test binary as Exec: PkgPath %q ModulePath %q ModuleDir %q, want example.com/m/p example.com/m %s", p.PkgPath, p.ModulePath, p.ModuleDir, mod)
				}
			}
		})
	}
}

func TestBuildFailure(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := writeFixture(t)
	spec, err := Parse([]string{"go", "run", "./bad"}, mod)
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.Build(context.Background(), t.TempDir())
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("Build error = %v (%T), want a *BuildError", err, err)
	}
	// The output is the compiler's, verbatim: the same as building by hand.
	cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "x"), "-gcflags=all=-N -l", "./bad")
	cmd.Dir = mod
	want, _ := cmd.CombinedOutput()
	if be.Output != string(want) {
		t.Errorf("Output =\n%s\nwant the compiler's output verbatim:\n%s", be.Output, want)
	}
	if !strings.Contains(be.Output, "undefined: undefinedX") || !strings.Contains(be.Output, "undefined: undefinedY") {
		t.Errorf("Output lacks the compiler's messages:\n%s", be.Output)
	}
	lines := strings.Split(be.Error(), "\n")
	if !strings.HasPrefix(lines[0], "build failed: ") || !strings.Contains(lines[0], "undefined: undefinedX") || !strings.HasSuffix(lines[0], "(2 errors)") {
		t.Errorf("first line = %q, want build failed: <first error> (2 errors)", lines[0])
	}
	if len(lines) < 3 || lines[1] != "" || strings.Join(lines[2:], "\n") != be.Output {
		t.Errorf("Error() = %q, want summary, blank line, output", be.Error())
	}
	if !strings.HasPrefix(be.Command, "go build -o ") || !strings.Contains(be.Command, "'-gcflags=all=-N -l' -ldflags=-compressdwarf=false ./bad") {
		t.Errorf("Command = %q", be.Command)
	}
}

// TestBuildVet: a test binary is built as go test builds it, go vet's
// checks included, unless the command line turns them off.
func TestBuildVet(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := writeFixture(t)
	spec, err := Parse([]string{"go", "test", "./vetfail"}, mod)
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.Build(context.Background(), t.TempDir())
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Error(), "non-constant format string") {
		t.Fatalf("go test ./vetfail: Build error = %v, want go vet's printf check, as go test reports it", err)
	}
	spec, err = Parse([]string{"go", "test", "-vet=off", "./vetfail", "-v"}, mod)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Notes) > 0 {
		t.Errorf("notes %q, want none: -vet is kept", spec.Notes)
	}
	prog, err := spec.Build(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("go test -vet=off ./vetfail: %v", err)
	}
	if out := runProgram(t, prog); !strings.Contains(out, "RAN TestVet") {
		t.Errorf("the test binary printed %q, want the test run", out)
	}
}

// TestBuildStderr builds with the go command writing to stderr as it
// lists the package (the runtime's GC trace, which a user's GODEBUG can
// ask for): go list's JSON is read from stdout alone.
func TestBuildStderr(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := writeFixture(t)
	t.Setenv("GODEBUG", "gctrace=1")
	t.Setenv("GOGC", "1") // a collection, and its trace line, at once
	for _, argv := range [][]string{
		{"go", "test", "./p"},
		{"go", "run", "cmd/hello/main.go"}, // the module from go list -m
	} {
		spec, err := Parse(argv, mod)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := spec.Build(context.Background(), t.TempDir())
		if err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		if prog.ModulePath != "example.com/m" {
			t.Errorf("%q: module %q, want example.com/m", argv, prog.ModulePath)
		}
	}
}

func TestBuildCancelled(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := writeFixture(t)
	spec, err := Parse([]string{"go", "test", "./p"}, mod)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = spec.Build(ctx, t.TempDir())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Build with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestBuildRefusesGOFLAGS(t *testing.T) {
	for _, goflags := range []string{"-trimpath", "-mod=mod -race", "-ldflags=-w"} {
		t.Setenv("GOFLAGS", goflags)
		spec, err := Parse([]string{"go", "test", "."}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = spec.Build(context.Background(), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "GOFLAGS") {
			t.Errorf("Build with GOFLAGS=%s: %v, want an error about GOFLAGS", goflags, err)
		}
	}
}

func TestModulePathOf(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		"module example.com/a\n":                        "example.com/a",
		"// c\nmodule \"example.com/b\" // x\ngo 1.2\n": "example.com/b",
		"go 1.22\n":   "",
		"modulex y\n": "",
	} {
		path := filepath.Join(dir, "go.mod")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := modulePathOf(path); got != want {
			t.Errorf("modulePathOf(%q) = %q, want %q", body, got, want)
		}
	}
}

// checkDWARFUncompressed fails the test if the binary's DWARF is
// compressed: Delve would inflate it again at every launch.
func checkDWARFUncompressed(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info := f.Section(".debug_info")
	if info == nil || f.Section(".zdebug_info") != nil || info.Flags&elf.SHF_COMPRESSED != 0 {
		t.Errorf("%s: the DWARF is compressed or missing (.debug_info %v)", path, info)
	}
}

// TestWithDebugLdflag: -compressdwarf=false reaches the linker whatever
// -ldflags the program's build gives.
func TestWithDebugLdflag(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{nil, []string{"-ldflags=-compressdwarf=false"}},
		{[]string{"-tags=x"}, []string{"-ldflags=-compressdwarf=false", "-tags=x"}},
		{[]string{"-ldflags=-X main.v=1", "-tags=x"}, []string{"-ldflags=-compressdwarf=false", "-ldflags=-X main.v=1 -compressdwarf=false", "-tags=x"}},
		{[]string{"-ldflags=-X a=1", "-ldflags=example.com/m=-X 'b=2 3'"}, []string{"-ldflags=-compressdwarf=false", "-ldflags=-X a=1 -compressdwarf=false", "-ldflags=example.com/m=-X 'b=2 3' -compressdwarf=false"}},
		{[]string{"-ldflags="}, []string{"-ldflags=-compressdwarf=false", "-ldflags= -compressdwarf=false"}},
	} {
		if got := withDebugLdflag(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("withDebugLdflag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
