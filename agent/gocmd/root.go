package gocmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ModuleRoot returns the directory of the go.mod that governs dir: dir or
// the nearest directory above it holding one.
func ModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod in %s or any directory above it", abs)
		}
		d = up
	}
}

// TargetRoot returns the module root of a target's package: the directory
// adi watch and the DAP server watch. A prebuilt binary gives a
// TargetError (it is not rebuilt from source).
func TargetRoot(ctx context.Context, t Target) (string, error) {
	pkg, err := Resolve(ctx, t)
	if err != nil {
		var te *TargetError
		if errors.As(err, &te) {
			return "", err
		}
		// go list could not say (a package that does not parse yet):
		// the go.mod above the directory of the command.
		dir := t.Dir
		if dir == "" {
			dir = "."
		}
		if root, rerr := ModuleRoot(dir); rerr == nil {
			return root, nil
		}
		return "", err
	}
	return pkg.Root(), nil
}
