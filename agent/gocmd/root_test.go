package gocmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModuleRoot: the nearest go.mod at or above a directory.
func TestModuleRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/m\n")
	write(t, root, "a/b/c.go", "package b\n")
	got, err := ModuleRoot(filepath.Join(root, "a", "b"))
	if err != nil || got != root {
		t.Errorf("ModuleRoot(a/b) = %q, %v; want %q", got, err, root)
	}
	if got, err := ModuleRoot(root); err != nil || got != root {
		t.Errorf("ModuleRoot(root) = %q, %v; want %q", got, err, root)
	}
	repo, err := ModuleRoot(".")
	if err != nil || filepath.Base(filepath.Join(repo, "agent")) != "agent" {
		t.Errorf("ModuleRoot(.) = %q, %v", repo, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Errorf("ModuleRoot(.) = %q has no go.mod", repo)
	}
}

// write makes the file root/name holding text.
func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
