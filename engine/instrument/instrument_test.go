package instrument

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestRewriteKeepsLines(t *testing.T) {
	src := `package p

import "fmt"

type T struct{ n int }

func (t *T) M(a int, _ string, b ...int) (int, error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Println(r)
		}
	}()
	go func() {}()
	return a + len(b), nil
}

func F[X any](x X) X { return x }

func G(int, string) {}

func H() { defer recover() }
`
	out, sites, notes, skip := rewriteFile("/x/p.go", []byte(src), 5, "rt", false)
	if skip != "" {
		t.Fatalf("skipped: %s", skip)
	}
	if len(notes) != 0 {
		t.Fatalf("notes: %v", notes)
	}
	if strings.Count(string(out), "\n") != strings.Count(src, "\n") {
		t.Fatalf("lines moved:\n%s", out)
	}
	want := []struct {
		line            int
		params, results string
	}{
		{7, "t a _ b", "~r0 ~r1"},
		{8, "", ""},
		{13, "", ""},
		{17, "x", "~r0"},
		{19, "~p0 ~p1", ""},
		{21, "", ""},
	}
	if len(sites) != len(want) {
		t.Fatalf("%d sites, want %d: %+v", len(sites), len(want), sites)
	}
	for i, w := range want {
		s := sites[i]
		if s.Line != w.line || strings.Join(s.Params, " ") != w.params || strings.Join(s.Results, " ") != w.results {
			t.Errorf("site %d = %+v, want line %d params %q results %q", i, s, w.line, w.params, w.results)
		}
	}
	lines := strings.Split(string(out), "\n")
	for _, c := range []struct {
		line int
		has  string
	}{
		{1, `package p; import __adirt "rt"`},
		{7, `func (t *T) M(a int, __adi_p2 string, b ...int) (__adi_r0 int, __adi_r1 error) { __adi := __adirt.E4(5, &t, &a, &__adi_p2, &b); defer __adirt.X2(__adi, &__adi_r0, &__adi_r1);`},
		{9, `if r := __adirt.Rec(recover()); r != nil {`},
		{13, `__adirt.Go(); go func() { __adi := __adirt.E0(7); defer __adirt.X0(__adi);}()`},
		{17, `func F[X any](x X) (__adi_r0 X) { __adi := __adirt.E1(8, &x); defer __adirt.X1(__adi, &__adi_r0); return x }`},
		{19, `func G(__adi_p0 int, __adi_p1 string) { __adi := __adirt.E2(9, &__adi_p0, &__adi_p1); defer __adirt.X0(__adi);}`},
		// A function with defer statements gets eight returns that never
		// run, which keep its defers from being open-coded.
		{7, `defer __adirt.X2(__adi, &__adi_r0, &__adi_r1);` + strings.Repeat(` if __adirt.Never { return };`, 8)},
		{8, "\tdefer func() { __adi := __adirt.E0(6); defer __adirt.X0(__adi);"},
		{12, `}()`},
		{21, `func H() { __adi := __adirt.E0(10); defer __adirt.X0(__adi);` + strings.Repeat(` if __adirt.Never { return };`, 8) + ` defer recover() }`},
	} {
		if !strings.Contains(lines[c.line-1], c.has) {
			t.Errorf("line %d = %q, want it to contain %q", c.line, lines[c.line-1], c.has)
		}
	}
}

// TestRewriteCounts: the counting build's copy calls only the counting
// hook, first thing in every function body; the program is otherwise as
// written (no renamed parameters, results, recovers or go statements).
func TestRewriteCounts(t *testing.T) {
	src := `package p

func (t *T) M(a int, _ string) (int, error) {
	defer func() { _ = recover() }()
	go func() {}()
	return a, nil
}

//go:nosplit
func N() {}
`
	out, sites, notes, skip := rewriteFile("/x/p.go", []byte(src), 0, "rt", true)
	if skip != "" {
		t.Fatalf("skipped: %s", skip)
	}
	if len(sites) != 3 || len(notes) != 1 {
		t.Fatalf("sites %+v, notes %v", sites, notes)
	}
	want := `package p; import __adirt "rt"

func (t *T) M(a int, _ string) (int, error) { __adirt.C();
	defer func() { __adirt.C(); _ = recover() }()
	go func() { __adirt.C();}()
	return a, nil
}

//go:nosplit
func N() {}
`
	if string(out) != want {
		t.Errorf("counting copy:\n%s\nwant:\n%s", out, want)
	}
}

func TestRewriteSkips(t *testing.T) {
	for _, c := range []struct{ name, src, reason string }{
		{"cgo", "package p\n\n// #include <stdio.h>\nimport \"C\"\n\nfunc F() {}\n", "cgo"},
		{"line", "package p\n\n//line gen.y:10\nfunc F() {}\n", "//line"},
		{"linkname", "package p\n\nimport _ \"unsafe\"\n\n//go:linkname f runtime.f\nfunc f()\n\nfunc G() {}\n", "go:linkname"},
		{"syntax", "package p\n\nfunc F( {}\n", "does not parse"},
		{"nobody", "package p\n\nfunc F()\n", "no function bodies"},
	} {
		_, _, _, skip := rewriteFile("/x/"+c.name+".go", []byte(c.src), 0, "rt", false)
		if !strings.Contains(skip, c.reason) {
			t.Errorf("%s: skip reason %q, want one mentioning %q", c.name, skip, c.reason)
		}
	}
	_, sites, notes, skip := rewriteFile("/x/ns.go", []byte("package p\n\n//go:nosplit\nfunc F() {}\n\nfunc G() {}\n"), 0, "rt", false)
	if skip != "" || len(sites) != 1 || sites[0].Line != 6 || len(notes) != 1 || !strings.Contains(notes[0], "func F not instrumented (//go:nosplit)") {
		t.Fatalf("nosplit: skip %q sites %+v notes %v", skip, sites, notes)
	}
	// Directives that do not rule hooks out, one the compiler ignores too.
	_, sites, notes, skip = rewriteFile("/x/inl.go", []byte("package p\n\n//go:inline\nfunc F() {}\n\n//go:noinline\n//go:norace\nfunc G() {}\n"), 0, "rt", false)
	if skip != "" || len(sites) != 2 || len(notes) != 0 {
		t.Fatalf("inline, noinline, norace: skip %q sites %+v notes %v", skip, sites, notes)
	}
}

// writeModule writes files (path → text) into a new module directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.21\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInstrumentModule instruments a module with a file of each kind the
// instrumenter leaves alone, builds it with the overlay, runs it and reads
// its records back; the user's files are unchanged.
func TestInstrumentModule(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the hooks' runtime is for amd64")
	}
	files := map[string]string{
		"main.go": `package main

import (
	"fmt"
	"os"

	"example.com/m/lib"
)

func add(a, b int) int { return a + b }

func main() {
	fmt.Println(add(lib.Twice(2), asm()), lib.Name("x"))
	os.Exit(3)
}
`,
		"asm_amd64.s": "#include \"textflag.h\"\n\nTEXT ·asm(SB), NOSPLIT, $0-8\n\tMOVQ $5, ret+0(FP)\n\tRET\n",
		"asm.go":      "package main\n\nfunc asm() int\n",
		"ignored.go":  "//go:build ignore\n\npackage main\n\nfunc neverBuilt() {}\n",
		"lib/lib.go": `package lib

// Twice doubles n.
func Twice(n int) int { return 2 * n }
`,
		"lib/gen.go": "// Code generated by yacc. DO NOT EDIT.\n\npackage lib\n\n//line name.y:3\nfunc Name(s string) string { return s + \"!\" }\n",
	}
	dir := writeModule(t, files)
	work := t.TempDir()
	res, err := Instrument(context.Background(), Options{Dir: dir, Targets: []string{"."}}, work)
	if err != nil {
		t.Fatal(err)
	}
	skipped := strings.Join(res.Skipped, "\n")
	for _, want := range []string{"ignored.go: not instrumented (excluded by build constraints)", "asm_amd64.s: not instrumented (assembly)", "gen.go: not instrumented (has //line directives"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped notes lack %q:\n%s", want, skipped)
		}
	}
	bin := filepath.Join(work, "m")
	cmd := exec.Command("go", "build", "-o", bin, "-overlay="+res.Overlay, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("instrumented build: %v\n%s", err, out)
	}
	// The counting build, as the debug build for re-executions is made:
	// it runs as the plain program does.
	counted := filepath.Join(work, "m-counted")
	cmd = exec.Command("go", "build", "-o", counted, "-gcflags=all=-N -l", "-overlay="+res.CountOverlay, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("counting build: %v\n%s", err, out)
	}
	if out, err := exec.Command(counted).Output(); string(out) != "9 x!\n" {
		t.Fatalf("counting build's output %q (%v)", out, err)
	}
	recs := filepath.Join(work, "records")
	run := exec.Command(bin)
	run.Env = append(append(os.Environ(), res.Env()...), "ADI_TRACE_FILE="+recs)
	out, err := run.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3", err)
	}
	if string(out) != "9 x!\n" {
		t.Fatalf("output %q", out)
	}
	tr, err := ReadTrace(recs)
	if err != nil {
		t.Fatal(err)
	}
	// main, lib.Twice, add: entered; main never returns (os.Exit), but
	// its entry is in the file.
	var entered []string
	for _, r := range tr.Records {
		if r.Kind == RecEnter {
			s := res.Sites[r.Site]
			entered = append(entered, filepath.Base(s.File)+":"+strings.Join(s.Params, ",")+"="+valuesText(r.Values))
		}
	}
	if got := strings.Join(entered, " "); got != "main.go:= lib.go:n=2 main.go:a,b=4,5" {
		t.Fatalf("entries: %s", got)
	}
	// The first pass over the file (which reads over values) counts what
	// the full reading finds.
	f, err := OpenFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	values := 0
	for _, r := range tr.Records {
		values += len(r.Values)
	}
	if f.Enters != len(entered) || f.Values != values || values == 0 {
		t.Fatalf("first pass: %d entries, %d values; reading: %d, %d", f.Enters, f.Values, len(entered), values)
	}
	// Values left in the file (LazyValues) read back the same from where
	// the records say they are.
	f.LazyValues = true
	k := 0
	err = f.Each(func(r *Record) error {
		want := tr.Records[k].Values
		k++
		if r.Values != nil || r.NValues != len(want) || r.NValues > 0 && r.ValuesEnd <= r.ValuesAt {
			return fmt.Errorf("record %d: %d values decoded, %d in the file; want none, %d", k, len(r.Values), r.NValues, len(want))
		}
		if r.NValues == 0 {
			return nil
		}
		got, err := f.ValuesAt([]Value{{Tag: TagTrue}}, r.ValuesAt, r.NValues)
		if err != nil {
			return err
		}
		for i := range got {
			got[i].Type = f.Type(got[i].TypeID)
		}
		if want := append([]Value{{Tag: TagTrue}}, want...); !reflect.DeepEqual(got, want) {
			return fmt.Errorf("record %d: values at %d: %+v, want %+v", k, r.ValuesAt, got, want)
		}
		return nil
	})
	if err != nil || k != len(tr.Records) {
		t.Fatalf("%d of %d records read with LazyValues: %v", k, len(tr.Records), err)
	}
	if _, err := f.ValuesAt(nil, 3, 1); err == nil {
		t.Error("values read from a chunk's header")
	}
	// The same records through a descriptor the recorder passes (adi's
	// way), and a bad descriptor: the run goes on, unrecorded, and says so.
	fd, err := os.CreateTemp(work, "records")
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	run = exec.Command(bin)
	run.Env = append(append(os.Environ(), res.Env()...), "ADI_TRACE_FD=3")
	run.ExtraFiles = []*os.File{fd}
	if out, _ := run.Output(); string(out) != "9 x!\n" {
		t.Fatalf("output %q", out)
	}
	g, err := Open(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Enters != f.Enters || g.Values != f.Values {
		t.Fatalf("records through a descriptor: %d entries, %d values; want %d, %d", g.Enters, g.Values, f.Enters, f.Values)
	}
	for _, bad := range []string{"7", "x"} {
		run = exec.Command(bin)
		run.Env = append(os.Environ(), "ADI_TRACE_FD="+bad)
		var stderr strings.Builder
		run.Stderr = &stderr
		out, err := run.Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || string(out) != "9 x!\n" {
			t.Fatalf("ADI_TRACE_FD=%s: %v, output %q", bad, err, out)
		}
		if want := "adi: cannot record: ADI_TRACE_FD=" + bad; !strings.Contains(stderr.String(), want) {
			t.Errorf("ADI_TRACE_FD=%s: stderr %q, want it to say %q", bad, stderr.String(), want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil || string(b) != files["main.go"] {
		t.Fatalf("the user's file changed: %v", err)
	}
}

func valuesText(vs []Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.String())
	}
	return strings.Join(s, ",")
}

// TestDeferKinds builds an instrumented module with the compiler's defer
// diagnostics: the exit hook's defer is open-coded in a function without a
// defer statement; a function with one runs every defer through the
// runtime (deferreturn calls the target's deferred calls, as in the debug
// build the Delve recorder runs).
func TestDeferKinds(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.go": `package main

func plain(n int) int { return n + 1 }

func deferring(n int) (r int) {
	defer func() { r++ }()
	return n
}

func main() { println(plain(1) + deferring(2)) }
`})
	work := t.TempDir()
	res, err := Instrument(context.Background(), Options{Dir: dir, Targets: []string{"."}}, work)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(work, "m"), "-overlay="+res.Overlay, "-gcflags=-d=defer", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("instrumented build: %v\n%s", err, out)
	}
	kinds := map[int][]string{} // by line
	for _, l := range strings.Split(string(out), "\n") {
		// ./main.go:3:25: open-coded defer
		parts := strings.SplitN(l, ":", 4)
		if len(parts) < 4 || !strings.HasSuffix(parts[0], "main.go") {
			continue
		}
		n, _ := strconv.Atoi(parts[1])
		kinds[n] = append(kinds[n], strings.TrimSpace(parts[3]))
	}
	want := map[int][]string{
		3: {"open-coded defer"},
		// The exit hook's defer, then the target's, neither open-coded
		// (nor the target's on the heap, as it would be in a loop), and
		// the exit hook of the deferred function literal.
		5: {"stack-allocated defer"},
		6: {"stack-allocated defer", "open-coded defer"},
		// main's.
		10: {"open-coded defer"},
	}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("defers by line %v, want %v\n%s", kinds, want, out)
	}
}

// TestRuntimeModule checks that the runtime's module is written once to
// the user's cache directory, named by its contents, where the go
// command's build cache finds it again; and to the work directory when the
// cache directory cannot be written.
func TestRuntimeModule(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir, err := runtimeModule(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != filepath.Join(cache, "adi") || !strings.HasPrefix(filepath.Base(dir), "rt-") {
		t.Fatalf("the runtime is in %s, want a directory rt-… of %s", dir, filepath.Join(cache, "adi"))
	}
	want, err := rtFS.ReadFile("rt/hooks.go")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "hooks.go")); err != nil || string(got) != string(want) {
		t.Fatalf("hooks.go in %s: %v, or not the embedded file", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rt_test.go")); err == nil {
		t.Error("the runtime's tests were written with it")
	}
	before, err := os.Stat(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// Another recording: the same directory, not written again.
	again, err := runtimeModule(t.TempDir())
	if err != nil || again != dir {
		t.Fatalf("second time: %s, %v; want %s", again, err, dir)
	}
	if after, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("go.mod written again: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "adi", "rt-new-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}

	// A file of it changed (by a cleaner, an editor): the work
	// directory, not a build that fails.
	if err := os.WriteFile(filepath.Join(dir, "hooks.go"), []byte("package adirt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if got, err := runtimeModule(work); err != nil || got != filepath.Join(work, "rt") {
		t.Fatalf("with a changed cache: %s, %v; want %s", got, err, filepath.Join(work, "rt"))
	}

	// A cache directory that cannot be written: the work directory.
	t.Setenv("XDG_CACHE_HOME", "/proc/adi-no-such-dir")
	work = t.TempDir()
	dir, err = runtimeModule(work)
	if err != nil || dir != filepath.Join(work, "rt") {
		t.Fatalf("without a cache: %s, %v; want %s", dir, err, filepath.Join(work, "rt"))
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Error(err)
	}
}

// TestSkippedOnce: a package that is tested is listed twice by the go
// command (itself and its test variant); each file it leaves out is noted
// once.
func TestSkippedOnce(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":       "module example.com/once\n\ngo 1.21\n",
		"once.go":      "package once\n\nfunc One() int { return 1 }\n",
		"other.go":     "//go:build ignore\n\npackage once\n\nfunc neverBuilt() {}\n",
		"asm_amd64.s":  "#include \"textflag.h\"\n\nTEXT ·asm(SB), NOSPLIT, $0-8\n\tMOVQ $5, ret+0(FP)\n\tRET\n",
		"asm.go":       "package once\n\nfunc asm() int\n",
		"once_test.go": "package once\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(One())\n\t}\n}\n",
	})
	res, err := Instrument(context.Background(), Options{Dir: dir, Targets: []string{"."}, Test: true}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"other.go", "asm_amd64.s"} {
		n := 0
		for _, s := range res.Skipped {
			if strings.HasPrefix(s, filepath.Join(dir, name)+":") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s noted %d times, want once:\n%s", name, n, strings.Join(res.Skipped, "\n"))
		}
	}
}
