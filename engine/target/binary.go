package target

import (
	"bufio"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// rebuildHint says how to build a binary adi can debug.
const rebuildHint = "rebuild it with go build -gcflags=all=-N -l (and without -ldflags=-s or -w)"

// checkBinary checks that s.Binary is an executable ELF file with DWARF and
// reads its build info.
func (s *Spec) checkBinary() (*Program, error) {
	bin := s.Binary
	fi, err := os.Stat(bin)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound("binary %s not found: there is no file %s", s.displayBinary(), bin)
	}
	if err != nil {
		return nil, fmt.Errorf("binary %s: %w", s.displayBinary(), err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a binary; to debug the Go package in it write: go run %s", bin, s.displayBinary())
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("%s is not executable (mode %v); to debug Go code write go test or go run instead", bin, fi.Mode().Perm())
	}
	f, err := elf.Open(bin)
	if err != nil {
		if isScript(bin) {
			return nil, fmt.Errorf("%s is a script, not a binary; adi debugs Go programs: write the go test or go run command the script runs\n%s", bin, usage)
		}
		return nil, fmt.Errorf("%s is not an ELF executable (%v); adi debugs Go binaries\n%s", bin, err, usage)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("%s is an ELF file of type %v, not an executable; %s", bin, f.Type, rebuildHint)
	}
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return nil, fmt.Errorf("%s has no debug information (it was stripped, e.g. with -ldflags=-s or -w); %s", bin, rebuildHint)
	}

	prog := &Program{Path: bin, Args: append([]string{}, s.Args...), Dir: s.Dir}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("%s has no Go build information (%v): it may not be a Go program", bin, err))
		return prog, nil
	}
	prog.ModulePath = bi.Main.Path
	prog.PkgPath = strings.TrimSuffix(bi.Path, ".test")
	settings := map[string]string{}
	for _, kv := range bi.Settings {
		settings[kv.Key] = kv.Value
	}
	if gc := settings["-gcflags"]; !strings.Contains(gc, "-N") || !strings.Contains(gc, "-l") {
		s.Notes = append(s.Notes, fmt.Sprintf("%s was built with optimizations: some variables may be unavailable and some calls inlined; for the best view %s", filepath.Base(bin), rebuildHint))
	}
	if b, _ := strconv.ParseBool(settings["-trimpath"]); b {
		s.Notes = append(s.Notes, fmt.Sprintf("%s was built with -trimpath: its source paths are not file paths, so adi may not find your source; rebuild it without -trimpath", filepath.Base(bin)))
	}
	if prog.ModulePath != "" {
		prog.ModuleDir = findModuleDir(prog.ModulePath, s.Dir, filepath.Dir(bin))
	}
	return prog, nil
}

// displayBinary is the binary as the user wrote it, relative to Spec.Dir
// when it is inside it.
func (s *Spec) displayBinary() string {
	if rel, err := filepath.Rel(s.Dir, s.Binary); err == nil && !strings.HasPrefix(rel, "..") {
		return "." + string(filepath.Separator) + rel
	}
	return s.Binary
}

// isScript reports whether the file starts with "#!".
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 2)
	n, _ := f.Read(b)
	return n == 2 && string(b) == "#!"
}

// findModuleDir looks in each of dirs and their parents for a go.mod that
// declares module modPath, and returns its directory, or "".
func findModuleDir(modPath string, dirs ...string) string {
	for _, d := range dirs {
		for {
			if modulePathOf(filepath.Join(d, "go.mod")) == modPath {
				return d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return ""
}

// modulePathOf returns the module path declared by the go.mod file at path,
// or "" if there is none.
func modulePathOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if u, err := strconv.Unquote(rest); err == nil {
			return u
		}
		return rest
	}
	return ""
}
