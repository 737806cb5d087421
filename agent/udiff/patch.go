package udiff

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// FilePatch is the part of a unified diff for one file.
type FilePatch struct {
	// OldPath and NewPath are as written, without a/ and b/ prefixes;
	// "/dev/null" for a created or deleted file.
	OldPath, NewPath string
	hunks            []hunk
}

// hunk is one @@ section.
type hunk struct {
	oldStart, oldLen, newStart, newLen int
	lines                              []hunkLine
}

// hunkLine is a line of a hunk: ' ' context, '-' removed, '+' added;
// noEOL marks a line followed by "\ No newline at end of file".
type hunkLine struct {
	kind  byte
	text  string
	noEOL bool
}

// DevNull names a missing side of a created or deleted file.
const DevNull = "/dev/null"

// Path returns the file the patch changes.
func (fp *FilePatch) Path() string {
	if fp.NewPath != DevNull {
		return fp.NewPath
	}
	return fp.OldPath
}

// Parse reads a unified diff (as written by diff -u, git diff or
// adi). Text before the first "---" and git's extended headers are
// skipped.
func Parse(diff string) ([]FilePatch, error) {
	lines := strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n")
	var out []FilePatch
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			i++
			continue
		}
		fp := FilePatch{OldPath: patchPath(lines[i][4:]), NewPath: patchPath(lines[i+1][4:])}
		i += 2
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, &PatchError{File: fp.Path(), Hunk: len(fp.hunks) + 1, Reason: err.Error()}
			}
			fp.hunks = append(fp.hunks, h)
			i = next
		}
		if len(fp.hunks) == 0 {
			return nil, &PatchError{File: fp.Path(), Reason: "no @@ hunk follows the file header"}
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, &PatchError{Reason: "no file header (--- a/FILE, +++ b/FILE) found"}
	}
	return out, nil
}

// patchPath strips a/ or b/ and a trailing timestamp from a header path.
func patchPath(p string) string {
	if i := strings.IndexByte(p, '\t'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(p)
	if p == DevNull {
		return p
	}
	if u, err := strconv.Unquote(p); err == nil {
		p = u
	}
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		p = p[2:]
	}
	return p
}

// parseHunk reads the hunk starting at lines[i] and returns the index of
// the line after it.
func parseHunk(lines []string, i int) (hunk, int, error) {
	var h hunk
	header := lines[i]
	end := strings.Index(header[3:], " @@")
	if end < 0 {
		return h, 0, fmt.Errorf("malformed hunk header %q", header)
	}
	ranges := strings.Fields(header[3 : 3+end])
	if len(ranges) != 2 || ranges[0][0] != '-' || ranges[1][0] != '+' {
		return h, 0, fmt.Errorf("malformed hunk header %q", header)
	}
	var err1, err2 error
	h.oldStart, h.oldLen, err1 = parseRange(ranges[0][1:])
	h.newStart, h.newLen, err2 = parseRange(ranges[1][1:])
	if err1 != nil || err2 != nil {
		return h, 0, fmt.Errorf("malformed hunk header %q", header)
	}
	i++
	oldN, newN := 0, 0
	for i < len(lines) && (oldN < h.oldLen || newN < h.newLen) {
		l := lines[i]
		if l == "" && i == len(lines)-1 {
			break // the newline ending the diff
		}
		switch {
		case l == "":
			// Some tools strip the space of an empty context line.
			h.lines = append(h.lines, hunkLine{kind: ' '})
			oldN++
			newN++
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			h.lines = append(h.lines, hunkLine{kind: l[0], text: l[1:]})
			if l[0] != '+' {
				oldN++
			}
			if l[0] != '-' {
				newN++
			}
		case l[0] == '\\':
			if n := len(h.lines); n > 0 {
				h.lines[n-1].noEOL = true
			}
		default:
			return h, 0, fmt.Errorf("unexpected line %q inside a hunk (the @@ counts say %d old and %d new lines)", l, h.oldLen, h.newLen)
		}
		i++
	}
	if oldN != h.oldLen || newN != h.newLen {
		return h, 0, fmt.Errorf("the hunk ends after %d old and %d new lines; its header says %d and %d", oldN, newN, h.oldLen, h.newLen)
	}
	if i < len(lines) && strings.HasPrefix(lines[i], "\\") {
		if n := len(h.lines); n > 0 {
			h.lines[n-1].noEOL = true
		}
		i++
	}
	return h, i, nil
}

// parseRange reads "start,len" or "start" (len 1).
func parseRange(s string) (start, n int, err error) {
	a, b, ok := strings.Cut(s, ",")
	start, err = strconv.Atoi(a)
	if err != nil {
		return 0, 0, err
	}
	n = 1
	if ok {
		n, err = strconv.Atoi(b)
	}
	return start, n, err
}

// maxFuzz is how far (in lines) a hunk may have moved from where its
// header says and still apply.
const maxFuzz = 200

// Apply applies fp to the old content of its file. The context and
// removed lines must match exactly; a hunk may be found up to maxFuzz
// lines away from its stated position.
func (fp *FilePatch) Apply(old string) (string, error) {
	lines, noEOL := splitLines(old)
	var out []string
	outNoEOL := false
	pos := 0 // next unconsumed line of old
	for hi, h := range fp.hunks {
		var want, repl []string
		replNoEOL := false
		for _, l := range h.lines {
			if l.kind != '+' {
				want = append(want, l.text)
			}
			if l.kind != '-' {
				repl = append(repl, l.text)
				replNoEOL = l.noEOL
			}
		}
		at := h.oldStart - 1
		if h.oldLen == 0 {
			at = h.oldStart
		}
		found := -1
		for off := 0; off <= maxFuzz && found < 0; off++ {
			for _, c := range []int{at + off, at - off} {
				if c >= pos && c+len(want) <= len(lines) && equalLines(lines[c:c+len(want)], want) {
					found = c
					break
				}
			}
		}
		if found < 0 {
			return "", &PatchError{File: fp.Path(), Hunk: hi + 1, Reason: mismatch(lines, at, want)}
		}
		out = append(out, lines[pos:found]...)
		out = append(out, repl...)
		pos = found + len(want)
		if pos == len(lines) {
			outNoEOL = replNoEOL
		}
	}
	if pos < len(lines) {
		out = append(out, lines[pos:]...)
		outNoEOL = noEOL
	}
	if len(out) == 0 {
		return "", nil
	}
	text := strings.Join(out, "\n")
	if !outNoEOL {
		text += "\n"
	}
	return text, nil
}

// equalLines compares line slices.
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mismatch says how a hunk's expected lines differ from the file at line at.
func mismatch(lines []string, at int, want []string) string {
	for i, w := range want {
		j := at + i
		if j < 0 || j >= len(lines) {
			return fmt.Sprintf("expected %q at line %d, but the file has %d lines", w, j+1, len(lines))
		}
		if lines[j] != w {
			return fmt.Sprintf("expected %q at line %d, found %q", w, j+1, lines[j])
		}
	}
	return "its lines were not found"
}

// CleanRel checks that a patch path is relative and stays inside the
// module.
func CleanRel(p string) (string, error) {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", fmt.Errorf("path %q is not inside the module", p)
	}
	return c, nil
}

// PatchError is a diff that cannot be applied: it does not parse, names a
// file outside the module, or its context does not match the file.
type PatchError struct {
	// File is the file the failing hunk is for ("" when the diff as a whole
	// is malformed).
	File string
	// Hunk is the 1-based number of the failing hunk in its file (0: none).
	Hunk int
	// Reason says what did not match.
	Reason string
}

// Error says where the diff failed.
func (e *PatchError) Error() string {
	switch {
	case e.File == "":
		return "the diff does not apply: " + e.Reason
	case e.Hunk == 0:
		return fmt.Sprintf("the diff does not apply to %s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("the diff does not apply: hunk %d of %s: %s", e.Hunk, e.File, e.Reason)
}
