package source

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fixture prints, for every function that calls rec, the name the
// runtime gives it and the line of its entry.
var runtimeFixture = map[string]string{
	"go.mod": "module example.com/fx\n\ngo 1.26\n",
	"main.go": `package main

import (
	"os"
	"runtime"
	"strconv"
)

func rec() {
	pc, _, _, _ := runtime.Caller(1)
	f := runtime.FuncForPC(pc)
	_, line := f.FileLine(f.Entry())
	file, _ := f.FileLine(pc)
	os.Stdout.WriteString(f.Name() + "\t" + file + "\t" + strconv.Itoa(line) + "\n")
}

const debug = false

var late = func() int { rec(); return early }()

var early = func() int { rec(); return 1 }()

type T struct{ n int }

func (T) M() { func() { rec() }() }

func (t *T) P() {
	func() {
		rec()
		func() { rec() }()
		func() {
			rec()
			func() { rec() }()
		}()
	}()
	func() { rec() }()
}

type Stack[E any] struct{ xs []E }

func (s *Stack[E]) Push(e E) {
	rec()
	func() { rec(); s.xs = append(s.xs, e) }()
}

func (s Stack[E]) Len() int { rec(); return len(s.xs) }

func Map[A, B any](xs []A, f func(A) B) []B {
	rec()
	var out []B
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Dead() {
	if debug {
		func() { rec() }()
	}
	if runtime.GOOS == "plan9" {
		func() { rec() }()
	}
	switch runtime.GOOS {
	case "plan9":
		func() { rec() }()
	default:
		func() { rec() }()
	}
	for false {
		func() { rec() }()
	}
	if len(os.Args) > 5 && false {
		func() { rec() }()
	}
	func() { rec() }()
	if true {
		func() { rec() }()
		return
	}
	func() { rec() }()
}

func Panics() {
	defer func() { recover(); rec() }()
	func() { rec() }()
	panic(func() { rec() })
}

func Seq(yield func(int) bool) {
	rec()
	yield(1)
}

func RangeFunc() {
	for range Seq {
		rec()
		func() { rec() }()
	}
	func() { rec() }()
}

func main() {
	T{}.M()
	(&T{}).P()
	s := &Stack[int]{}
	s.Push(1)
	Stack[string]{}.Len()
	Map([]int{1}, func(i int) string { rec(); return "" })
	Dead()
	Panics()
	RangeFunc()
	Other()
	fromB()
}
`,
	"b.go": `package main

var fromB = func() { rec() }

func init() { func() { rec() }() }

func Other() {
	go func() {}()
	defer rec()
	func() { rec() }()
}
`,
	"a.go": "package main\n\nfunc init() { rec(); func() { rec() }() }\n",
}

// TestFuncsMatchRuntime builds and runs the fixture without optimisations,
// as a debugger does, and checks that Funcs names every function the way the
// runtime does.
func TestFuncsMatchRuntime(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	dir := t.TempDir()
	for name, src := range runtimeFixture {
		writeFile(t, dir, name, src)
	}
	cmd := exec.Command(goCmd, "run", "-gcflags=-N -l", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	c := NewCache()
	byFile := map[string]map[string]Func{}
	seen := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(l, "\t")
		if len(parts) != 3 {
			t.Fatalf("bad output line %q", l)
		}
		name, file := parts[0], parts[1]
		line, _ := strconv.Atoi(parts[2])
		if strings.Contains(name, "-range") {
			continue // range-over-func bodies are not reported
		}
		fns := byFile[file]
		if fns == nil {
			list, err := c.Funcs(filepath.FromSlash(file), "main")
			if err != nil {
				t.Fatal(err)
			}
			fns = map[string]Func{}
			for _, f := range list {
				fns[f.Name] = f
			}
			byFile[file] = fns
		}
		f, ok := fns[name]
		switch {
		case !ok:
			t.Errorf("runtime function %s (%s:%d) is not in Funcs", name, filepath.Base(file), line)
		case f.Start != line:
			t.Errorf("%s starts at line %d, the runtime says %d", name, f.Start, line)
		}
		seen++
	}
	if seen < 27 {
		t.Errorf("only %d functions reported:\n%s", seen, out)
	}
	t.Logf("runtime names:\n%s", out)
}
