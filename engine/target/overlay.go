package target

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SplitOverlay splits a target's own -overlay flag off its build flags,
// and reads its replacements, by absolute path ("" for a file the overlay
// deletes); nil without one. Relative paths are relative to dir, where the
// go command runs. adi's builds that add an overlay of their own (the
// instrumenter's, a fix being checked) merge it with the target's: the go
// command keeps only the last -overlay flag.
func SplitOverlay(flags []string, dir string) (rest []string, replace map[string]string, err error) {
	rest, path := CutOverlay(flags, "")
	if path == "" {
		return rest, nil, nil
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	b, err := os.ReadFile(abs(path))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the target's -overlay: %w", err)
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, nil, fmt.Errorf("reading the target's -overlay %s: %w", path, err)
	}
	replace = map[string]string{}
	for k, v := range o.Replace {
		replace[abs(k)] = abs(v)
	}
	return rest, replace, nil
}

// CutOverlay returns args without their -overlay flags, in either form,
// but for one equal to keep (adi's own), and the path the last of them
// named.
func CutOverlay(args []string, keep string) (rest []string, path string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == keep:
		case a == "-overlay" || a == "--overlay":
			if i+1 < len(args) {
				path = args[i+1]
				i++
			}
			continue
		case strings.HasPrefix(a, "-overlay=") || strings.HasPrefix(a, "--overlay="):
			_, path, _ = strings.Cut(a, "=")
			continue
		}
		rest = append(rest, a)
	}
	return rest, path
}
