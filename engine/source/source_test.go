package source

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const stmtSrc = `package main

import (
	"fmt"
	"sort"
)

type Point struct {
	X, Y int
}

func run(xs []int, n int) (total int) {
	for i := 0; i < n; i++ {
		total += i
	}
	if x := len(xs); x > 0 {
		total++
	} else if x < 0 {
		total--
	} else {
		total = 0
	}
	switch n {
	case 3:
		total *= 2
	case 4, 5: total++
	default:
	}
	p := Point{
		X: 1, // the x
		Y: 2,
	}
	sort.Slice(xs, func(i, j int) bool {
		return xs[i] < xs[j]
	})
	defer func() {
		fmt.Println("done   twice")
	}()
	if total < 0 { return 0 }
	msg := fmt.Sprintf("%d %d %d",
		p.X,
		p.Y, total)
outer:
	for _, x := range xs {
		for {
			if x > 2 {
				continue outer
			}
			break
		}
	}
	{
		total += 0
	}
	select {
	default:
	}
	_ = msg
	return total + 1111111111 + 2222222222 + 3333333333 + 4444444444 + 5555555555 + 6666666666 + 7777777777 + 8888888888 + 9999999999 + 1111111111 + 2222222222 + 3333333333
}
`

func TestStmt(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", stmtSrc)
	c := NewCache()
	want := map[int]string{
		1:  "package main",
		2:  "",
		12: "func run(xs []int, n int) (total int) {",
		13: "for i := 0; i < n; i++ {",
		14: "total += i",
		15: "}",
		16: "if x := len(xs); x > 0 {",
		18: "} else if x < 0 {",
		20: "} else {",
		23: "switch n {",
		24: "case 3:",
		25: "total *= 2",
		26: "case 4, 5: total++",
		27: "default:",
		29: "p := Point{X: 1, Y: 2}",
		30: "X: 1, // the x",
		33: "sort.Slice(xs, func(i, j int) bool {",
		34: "return xs[i] < xs[j]",
		35: "})",
		36: "defer func() {",
		37: `fmt.Println("done   twice")`,
		39: "if total < 0 { return 0 }",
		40: `msg := fmt.Sprintf("%d %d %d", p.X, p.Y, total)`,
		43: "outer:",
		44: "for _, x := range xs {",
		45: "for {",
		47: "continue outer",
		52: "{",
		55: "select {",
		56: "default:",
	}
	for line, w := range want {
		got, err := c.Stmt(path, line)
		if err != nil {
			t.Fatalf("Stmt(%d): %v", line, err)
		}
		if got != w {
			t.Errorf("Stmt(%d) = %q, want %q", line, got, w)
		}
	}
	long, err := c.Stmt(path, 59)
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(long)); n != 160 || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "return total + 1111111111 + ") {
		t.Errorf("Stmt(59) = %q (%d characters), want 160 characters ending in …", long, n)
	}
}

func TestLine(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "main.go", "package main\r\n\nfunc main() {\n\tprintln(1)\n}\n")
	c := NewCache()
	for line, want := range map[int]string{1: "package main", 2: "", 4: "\tprintln(1)", 5: "}"} {
		got, err := c.Line(path, line)
		if err != nil || got != want {
			t.Errorf("Line(%d) = %q, %v; want %q", line, got, err, want)
		}
	}
	for _, line := range []int{0, 6, 120} {
		_, err := c.Line(path, line)
		if !errors.Is(err, ErrLineRange) {
			t.Fatalf("Line(%d): %v, want ErrLineRange", line, err)
		}
		if want := "is outside main.go (5 lines)"; !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Line(%d): %q, want ... %q", line, err, want)
		}
		if _, err := c.Stmt(path, line); !errors.Is(err, ErrLineRange) {
			t.Errorf("Stmt(%d): %v, want ErrLineRange", line, err)
		}
		if _, err := c.FuncAt(path, line, "main"); !errors.Is(err, ErrLineRange) {
			t.Errorf("FuncAt(%d): %v, want ErrLineRange", line, err)
		}
	}
	_, err := c.Line(path, 120)
	if err.Error() != "line 120 is outside main.go (5 lines)" {
		t.Errorf("error %q", err)
	}
	if _, err := c.Line(filepath.Join(dir, "missing.go"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := c.Stmt(filepath.Join(dir, "missing.go"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := c.Funcs(filepath.Join(dir, "missing.go"), "main"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\tprintln(1)\n}\n")
	c := NewCache()
	if s, _ := c.Stmt(path, 4); s != "println(1)" {
		t.Fatalf("Stmt = %q", s)
	}
	if fns, _ := c.Funcs(path, "main"); len(fns) != 1 || fns[0].Name != "main.main" {
		t.Fatalf("Funcs = %+v", fns)
	}
	// Same size, other modification time.
	writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\tprintln(2)\n}\n")
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Stmt(path, 4); s != "println(2)" {
		t.Fatalf("after rewrite Stmt = %q", s)
	}
	// Other size, and a function more.
	writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\tprintln(33)\n}\n\nfunc g() {}\n")
	if s, _ := c.Line(path, 4); s != "\tprintln(33)" {
		t.Fatalf("after rewrite Line = %q", s)
	}
	if fns, _ := c.Funcs(path, "main"); len(fns) != 2 {
		t.Fatalf("after rewrite Funcs = %+v", fns)
	}
	// A new file in the package renumbers init functions.
	writeFile(t, dir, "a.go", "package main\n\nfunc init() {}\n")
	writeFile(t, dir, "main.go", "package main\n\nfunc init() {}\n")
	if fns, _ := c.Funcs(path, "main"); len(fns) != 1 || fns[0].Name != "main.init.1" {
		t.Fatalf("with a.go: Funcs = %+v", fns)
	}
}

const namesSrc = `package main

import "runtime"

const debug = false

type T struct{ n int }

func (T) Value() int { return 1 }

func (t *T) Ptr() func() int {
	return func() int {
		return t.n
	}
}

type Stack[E any] struct{ xs []E }

func (s *Stack[E]) Push(e E) {
	func() { s.xs = append(s.xs, e) }()
}

func (s Stack[E]) Len() int { return len(s.xs) }

type Pair[K comparable, V any] struct{}

func (*Pair[K, V]) Get() {}

func Map[A, B any](xs []A, f func(A) B) []B {
	var out []B
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

var late = func() int { return early }()

var early = func() int { return 1 }()

func init() {}

func F() {
	a := func() {}
	b := func() {
		c := func() {
			d := func() {}
			_ = d
		}
		e := func() {}
		_, _ = c, e
	}
	if debug {
		_ = func() {}
	}
	if runtime.GOOS == "plan9" {
		_ = func() {}
	}
	g := func() {}
	_, _, _ = a, b, g
	return
	_ = func() {}
}

func _() { _ = func() {} }

func init() { _ = func() {} }

func external()
`

func TestFuncsNames(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", namesSrc)
	c := NewCache()
	fns, err := c.Funcs(path, "main")
	if err != nil {
		t.Fatal(err)
	}
	type fl struct {
		name       string
		start, end int
	}
	var got []fl
	for _, f := range fns {
		got = append(got, fl{f.Name, f.Start, f.End})
		if f.File != path {
			t.Errorf("%s: File %q, want %q", f.Name, f.File, path)
		}
	}
	want := []fl{
		{"main.T.Value", 9, 9},
		{"main.(*T).Ptr", 11, 15},
		{"main.(*T).Ptr.func1", 12, 14},
		{"main.(*Stack[...]).Push", 19, 21},
		{"main.(*Stack[...]).Push.func1", 20, 20},
		{"main.Stack[...].Len", 23, 23},
		{"main.(*Pair[...]).Get", 27, 27},
		{"main.Map[...]", 29, 35},
		{"main.init.func2", 37, 37}, // after early, which it depends on
		{"main.init.func1", 39, 39},
		{"main.init.0", 41, 41},
		{"main.F", 43, 63},
		{"main.F.func1", 44, 44},
		{"main.F.func2", 45, 52},
		{"main.F.func2.1", 46, 49},
		{"main.F.func2.1.1", 47, 47},
		{"main.F.func2.2", 50, 50},
		{"main.F.func3", 59, 59}, // the literals under debug and plan9 are dropped, as is the one after return
		{"main.init.1", 67, 67},
		{"main.init.1.func1", 67, 67},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Funcs:\n got %v\nwant %v", got, want)
	}
	if f := fns[7]; f.BodyStart != 29 || f.BodyEnd != 35 || !reflect.DeepEqual(f.Loops, []Loop{{31, 31, 33}}) {
		t.Errorf("Map: %+v", f)
	}
	// Unqualified names with an empty package path; escaped import paths.
	fns, _ = c.Funcs(path, "")
	if fns[0].Name != "T.Value" {
		t.Errorf("unqualified: %q", fns[0].Name)
	}
	fns, _ = c.Funcs(path, RuntimePkgPath("gopkg.in/yaml.v3"))
	if fns[0].Name != "gopkg.in/yaml%2ev3.T.Value" {
		t.Errorf("escaped: %q", fns[0].Name)
	}
}

func TestFuncsTestFiles(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "p.go", "package p\n\nvar X = func() int { return 1 }()\n\nfunc init() {}\n")
	pt := writeFile(t, dir, "p_test.go", "package p\n\nvar Y = func() int { return 2 }()\n\nfunc init() {}\n")
	xt := writeFile(t, dir, "x_test.go", "package p_test\n\nfunc init() {}\n")
	writeFile(t, dir, "other_windows.go", "package p\n\nfunc init() {}\n")
	writeFile(t, dir, "gen.go", "//go:build ignore\n\npackage main\n\nfunc init() {}\n")
	c := NewCache()
	names := func(file, pkg string) []string {
		fns, err := c.Funcs(file, pkg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fns {
			out = append(out, f.Name)
		}
		return out
	}
	if got, want := names(p, "ex.com/p"), []string{"ex.com/p.init.func1", "ex.com/p.init.0"}; !reflect.DeepEqual(got, want) && !strings.Contains(os.Getenv("GOOS"), "windows") {
		t.Errorf("p.go: %v, want %v", got, want)
	}
	if got, want := names(pt, "ex.com/p"), []string{"ex.com/p.init.func2", "ex.com/p.init.1"}; !reflect.DeepEqual(got, want) && !strings.Contains(os.Getenv("GOOS"), "windows") {
		t.Errorf("p_test.go: %v, want %v", got, want)
	}
	if got, want := names(xt, "ex.com/p_test"), []string{"ex.com/p_test.init.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("x_test.go: %v, want %v", got, want)
	}
}

func TestFuncAt(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", namesSrc)
	c := NewCache()
	for line, want := range map[int]string{
		9:  "main.T.Value",
		11: "main.(*T).Ptr",
		13: "main.(*T).Ptr.func1",
		15: "main.(*T).Ptr",
		47: "main.F.func2.1.1",
		48: "main.F.func2.1",
		53: "main.F",
		57: "main.F", // the literal under runtime.GOOS == "plan9" is not compiled
		37: "main.init.func2",
	} {
		f, err := c.FuncAt(path, line, "main")
		if err != nil {
			t.Errorf("FuncAt(%d): %v", line, err)
			continue
		}
		if f.Name != want {
			t.Errorf("FuncAt(%d) = %s, want %s", line, f.Name, want)
		}
	}
	for _, line := range []int{1, 5, 16, 64, 65, 69} {
		_, err := c.FuncAt(path, line, "main")
		if !errors.Is(err, ErrNoFunc) {
			t.Errorf("FuncAt(%d): %v, want ErrNoFunc", line, err)
		}
	}
	_, err := c.FuncAt(path, 5, "main")
	if err == nil || err.Error() != "main.go:5 is not inside any function" {
		t.Errorf("FuncAt(5): %v", err)
	}
}

func TestFuncByName(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "main.go", namesSrc)
	other := writeFile(t, dir, "b.go", "package main\n\nfunc B() {\n\tfor range 3 {\n\t}\n}\n")
	c := NewCache()
	files := []string{path, other, path}
	for query, want := range map[string]string{
		"main.F.func2.1":                         "main.F.func2.1",
		"F.func2":                                "main.F.func2",
		"main.Map[...]":                          "main.Map[...]",
		"main.Map":                               "main.Map[...]",
		"main.Map[go.shape.int,go.shape.string]": "main.Map[...]",
		"main.(*Stack[go.shape.int]).Push":       "main.(*Stack[...]).Push",
		"main.(*Stack[...]).Push.func1":          "main.(*Stack[...]).Push.func1",
		"main.F-range1":                          "main.F",
		"main.F.func2-range2":                    "main.F.func2",
		"main.F.deferwrap1":                      "main.F",
		"main.B":                                 "main.B",
		"main.init.1":                            "main.init.1",
	} {
		f, err := c.FuncByName(files, query, "main")
		if err != nil {
			t.Errorf("FuncByName(%q): %v", query, err)
			continue
		}
		if f.Name != want {
			t.Errorf("FuncByName(%q) = %s, want %s", query, f.Name, want)
		}
	}
	f, _ := c.FuncByName(files, "main.B", "main")
	if f == nil || f.File != other || f.Start != 3 || f.End != 6 || !reflect.DeepEqual(f.Loops, []Loop{{4, 4, 5}}) {
		t.Errorf("main.B: %+v", f)
	}
	for _, query := range []string{"main.nope", "main.F.func9", ""} {
		if _, err := c.FuncByName(files, query, "main"); !errors.Is(err, ErrNoFunc) {
			t.Errorf("FuncByName(%q): %v, want ErrNoFunc", query, err)
		}
	}
}

func TestStmtLines(t *testing.T) {
	path := writeFile(t, t.TempDir(), "main.go", stmtSrc)
	c := NewCache()
	fns, err := c.Funcs(path, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 3 {
		t.Fatalf("Funcs: %+v", fns)
	}
	run := fns[0]
	want := []int{13, 14, 16, 17, 18, 19, 21, 23, 24, 25, 26, 27, 29, 33, 36, 39, 40, 44, 45, 46, 47, 49, 53, 55, 56, 58, 59}
	if got := c.StmtLines(path, &run); !reflect.DeepEqual(got, want) {
		t.Errorf("StmtLines(run) = %v\nwant %v", got, want)
	}
	if got := c.StmtLines(path, &fns[1]); !reflect.DeepEqual(got, []int{34}) {
		t.Errorf("StmtLines(run.func1) = %v", got)
	}
	if want := []Loop{{13, 13, 15}, {44, 44, 51}, {45, 45, 50}}; !reflect.DeepEqual(run.Loops, want) {
		t.Errorf("Loops = %v, want %v", run.Loops, want)
	}
	if got := c.StmtLines(path, &Func{Start: 3, BodyStart: 3, BodyEnd: 3}); got != nil {
		t.Errorf("StmtLines(no such func) = %v", got)
	}
}

func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "main.go", namesSrc)
	c := NewCache()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := 1; l <= 69; l++ {
				if _, err := c.Stmt(path, l); err != nil {
					t.Error(err)
					return
				}
			}
			if _, err := c.FuncAt(path, 47, "main"); err != nil {
				t.Error(err)
			}
			if i%2 == 0 {
				writeFile(t, dir, "x.go", "package main\n")
			}
		}()
	}
	wg.Wait()
}

// TestOverlay: with the build's -overlay, files are read as the overlay
// has them: replaced, added (not on disk) and deleted, in the file itself
// and in its package (init functions are numbered over the package's files).
func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.go", "package p\n\nfunc init() {}\n\nfunc A() int { return 1 }\n")
	b := writeFile(t, dir, "b.go", "package p\n\nfunc init() {}\n")
	ax := writeFile(t, dir, "a.txt", "package p\n\nfunc init() {}\n\nfunc A() int { return 2 }\n")
	cx := writeFile(t, dir, "c.txt", "package p\n\nfunc C() {}\n\nfunc init() {}\n")
	c := filepath.Join(dir, "c.go")

	plain := NewCache()
	if fs, err := plain.Funcs(b, "p"); err != nil || len(fs) != 1 || fs[0].Name != "p.init.1" {
		t.Fatalf("without the overlay, b.go's functions: %+v, %v", fs, err)
	}

	cache := NewCache()
	cache.Overlay(map[string]string{a: ax, b: "", c: cx})
	if got, err := cache.Line(a, 5); err != nil || got != "func A() int { return 2 }" {
		t.Errorf("a.go line 5: %q, %v; want the replacement's", got, err)
	}
	fs, err := cache.Funcs(c, "p")
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if err != nil || !slices.Equal(names, []string{"p.C", "p.init.1"}) {
		t.Errorf("c.go (added by the overlay): functions %q, %v; want p.C and p.init.1 (b.go's init is deleted)", names, err)
	}
	if f, err := cache.FuncAt(a, 5, "p"); err != nil || f.Name != "p.A" {
		t.Errorf("a.go line 5: function %+v, %v", f, err)
	}
	_, err = cache.Line(b, 3)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "-overlay") {
		t.Errorf("b.go (deleted by the overlay): %v; want a not-exist error that names the overlay", err)
	}
}
