package offline

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/adi-go/adi/agent/gocmd"
)

// unit is one scored test run: a top-level test without subtests, or one
// leaf subtest run on its own.
type unit struct {
	name   string
	failed bool
	// nocover is set when the run wrote no coverage (a test that panicked
	// ends the binary before the profile is written).
	nocover bool
	// lines are the statements (file:line) the run executed.
	lines map[lineKey]bool
}

// lineKey is a source line: an absolute file and a 1-based line.
type lineKey struct {
	file string
	line int
}

// spectra runs the package's tests one by one with Go's own coverage
// (-covermode=count) and returns, for each, whether it failed and which
// statements it executed.
//
// The test binary is built once (go test -c -cover) and run once per test,
// which costs milliseconds per test instead of a go test per test. Two
// pitfalls measured on Go (DESIGN.md §6) shape this:
//   - one failing subtest marks its whole top-level test failing, and the
//     parent's profile mixes every subtest's statements, so a test with
//     subtests is scored per leaf subtest, each run alone with
//     -run '^TestX$/^sub$' (the parent's own statements then count for
//     every subtest, which is what they are);
//   - a test that panics ends the binary before the profile is written, so
//     it contributes no statements: such a unit is marked nocover and left
//     out of the scores (counting it as a failure that executed nothing
//     would only lower every statement's score).
func (d *diagnoser) spectra(ctx context.Context) ([]unit, error) {
	pkg := d.pkg
	tmp, err := os.MkdirTemp("", "adi-cover-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "pkg.test")
	build := append([]string{"go", "test", "-c", "-cover", "-covermode=count", "-o", bin}, pkg.Spec.BuildFlags...)
	build = append(build, pkg.Spec.VetFlags()...)
	build = append(build, pkg.Spec.Targets()...)
	d.opts.Log("adi: building the tests with coverage")
	if r := gocmd.Run(ctx, pkg.Spec.Dir, pkg.Target.Env, d.opts.CommandTimeout, build...); !r.OK() {
		return nil, fmt.Errorf("%s: %s", r.Line, gocmd.Tail(r.Output, 10, 2000))
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, nil // no test files
	}
	list := gocmd.Run(ctx, pkg.Dir, pkg.Target.Env, d.opts.CommandTimeout, bin, "-test.list", ".*")
	if !list.OK() {
		return nil, fmt.Errorf("%s: %s", list.Line, gocmd.Tail(list.Output, 10, 2000))
	}
	stmts := d.statementStarts(pkg.GoFiles)
	var units []unit
	n := 0
	runOne := func(name, pattern string) (string, unit) {
		n++
		prof := filepath.Join(tmp, fmt.Sprintf("%d.out", n))
		r := gocmd.Run(ctx, pkg.Dir, pkg.Target.Env, d.opts.CommandTimeout, bin,
			"-test.run="+pattern, "-test.v", "-test.count=1", "-test.paniconexit0", "-test.coverprofile="+prof)
		u := unit{name: name, failed: !r.OK() || strings.Contains(r.Output, "--- FAIL: "+name+" ")}
		u.lines, err = readProfile(prof, pkg.ImportPath, pkg.Dir, stmts)
		if err != nil {
			u.nocover = true
		}
		return r.Output, u
	}
	for _, name := range strings.Fields(list.Stdout) {
		if !testNameRE.MatchString(name) {
			continue
		}
		if n >= maxUnits {
			d.note(fmt.Sprintf("the spectrum covers the first %d test runs only", maxUnits))
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out, u := runOne(name, "^"+regexp.QuoteMeta(name)+"$")
		subs := leafSubtests(out, name)
		if len(subs) == 0 {
			units = append(units, u)
			continue
		}
		for _, sub := range subs {
			_, su := runOne(sub, subtestPattern(sub))
			units = append(units, su)
		}
	}
	return units, nil
}

// maxUnits bounds the test runs of one spectrum.
const maxUnits = 2000

// testNameRE matches the names -test.list prints that -test.run runs.
var testNameRE = regexp.MustCompile(`^(Test|Example|Fuzz)\w*$`)

// runLineRE matches go test -v's "=== RUN   TestX/sub" lines.
var runLineRE = regexp.MustCompile(`(?m)^=== RUN\s+(\S+)\s*$`)

// leafSubtests returns the subtests of top that have no subtests of their
// own, from the -v output of running top.
func leafSubtests(out, top string) []string {
	var names []string
	for _, m := range runLineRE.FindAllStringSubmatch(out, -1) {
		if strings.HasPrefix(m[1], top+"/") {
			names = append(names, m[1])
		}
	}
	var leaves []string
	for _, n := range names {
		leaf := true
		for _, o := range names {
			if strings.HasPrefix(o, n+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			leaves = append(leaves, n)
		}
	}
	return leaves
}

// subtestPattern anchors every level of a subtest name for -test.run.
func subtestPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// stmtPos is where a statement starts.
type stmtPos struct{ line, col int }

// statementStarts returns, per file, where its statements start: the unit
// coverage counts (a block's count applies to the statements inside it).
func (d *diagnoser) statementStarts(files []string) map[string][]stmtPos {
	out := map[string][]stmtPos{}
	for _, f := range files {
		sf, err := d.src.File(f)
		if err != nil {
			continue
		}
		ast.Inspect(sf.AST, func(n ast.Node) bool {
			switch n.(type) {
			case nil, *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				return true
			case ast.Stmt:
				p := sf.Position(n.Pos())
				out[f] = append(out[f], stmtPos{p.Line, p.Column})
			}
			return true
		})
	}
	return out
}

// profileLineRE matches a block of a coverage profile:
// "import/path/file.go:22.33,24.14 2 3".
var profileLineRE = regexp.MustCompile(`^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$`)

// readProfile reads a -coverprofile file and returns the statements of the
// package's files that executed at least once.
func readProfile(file, importPath, dir string, stmts map[string][]stmtPos) (map[lineKey]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[lineKey]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := profileLineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if count, _ := strconv.Atoi(m[7]); count == 0 {
			continue
		}
		if path.Dir(m[1]) != importPath {
			continue
		}
		abs := filepath.Join(dir, path.Base(m[1]))
		sl, _ := strconv.Atoi(m[2])
		sc0, _ := strconv.Atoi(m[3])
		el, _ := strconv.Atoi(m[4])
		ec, _ := strconv.Atoi(m[5])
		for _, s := range stmts[abs] {
			after := s.line > sl || s.line == sl && s.col >= sc0
			before := s.line < el || s.line == el && s.col < ec
			if after && before {
				out[lineKey{abs, s.line}] = true
			}
		}
	}
	return out, sc.Err()
}
