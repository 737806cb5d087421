package gocmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveStderr resolves a test target with the go command writing
// to stderr as it lists the package (the runtime's GC trace, which the
// target's environment asks for): go list's JSON is read from stdout
// alone, and Output still has both.
func TestResolveStderr(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/m\n\ngo 1.26\n")
	write(t, root, "p/p.go", "package p\n\nfunc Add(a, b int) int { return a + b }\n")
	write(t, root, "p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\n")
	env := []string{"GODEBUG=gctrace=1", "GOGC=1"} // a collection, and its trace line, at once
	pkg, err := Resolve(context.Background(), Target{Argv: []string{"go", "test", "./p"}, Dir: root, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if pkg.ImportPath != "example.com/m/p" || pkg.ModulePath != "example.com/m" {
		t.Errorf("resolved %s in module %s, want example.com/m/p in example.com/m", pkg.ImportPath, pkg.ModulePath)
	}
	if len(pkg.TestFiles) != 1 || filepath.Base(pkg.TestFiles[0]) != "p_test.go" {
		t.Errorf("test files %q, want p_test.go", pkg.TestFiles)
	}
	res := Run(context.Background(), root, env, 0, "go", "list", "./p")
	if !res.OK() || res.Stdout != "example.com/m/p\n" || !strings.Contains(res.Output, "gc 1 @") || !strings.Contains(res.Output, "example.com/m/p\n") {
		t.Errorf("go list ./p: %v, stdout %q, output %q; want the package on stdout, and both in the output", res.Err, res.Stdout, res.Output)
	}
}
