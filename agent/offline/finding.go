package offline

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/agent/udiff"
	"github.com/adi-go/adi/engine/trace"
)

// finding is one rule's answer: a suspected root cause with its evidence
// and the fixes that would repair it. The best finding becomes the
// Diagnosis; the others become candidates.
type finding struct {
	method string
	root   trace.Pos
	fn     string
	fid    trace.FID

	summary, explanation string
	evidence             []report.Evidence
	// fixes are alternatives, the most likely first; guessed when they
	// are off-by-one edits that only verification can tell from the
	// wrong ones: they are offered only if one passes.
	fixes   []fix
	guessed bool
	// refutable: the finding stands on its fixes only, and is dropped
	// when the tests refute every one (see dropRefuted).
	refutable bool

	// strength says how directly the rule's evidence shows the bug (see
	// the strength constants); score is the SBFL suspiciousness of root.
	strength   int
	confidence report.Confidence
	score      float64

	// detail is the rule's account of its evidence, kept for the
	// explanation once a fix is verified.
	detail string

	// Set by verification: the fix tried, its diff and its result;
	// refuted when every fix was tried and none passed.
	tried        *fix
	refuted      bool
	diff         string
	verification *report.Verification
}

// fix is one proposed change: edits to one or more files.
type fix struct {
	desc  string
	edits []edit
	// at (in frame atFID) is where the bug is if the fix passes, when
	// that is not the finding's root (an index one past the end mended
	// where it is used, the count traced elsewhere).
	at    *trace.Pos
	atFID trace.FID
	// summary and explanation replace the finding's once the fix passes
	// ("" leaves them).
	summary, explanation string
}

// edit replaces the bytes [start, end) of file (absolute) by text.
type edit struct {
	file       string
	start, end int
	text       string
}

// Strengths of the rules' evidence, compared across rules.
const (
	strengthSBFL     = 10 // only the spectrum points here
	strengthBoundary = 40 // a comparison met its bound exactly on the failing path
	strengthOutput   = 60 // a built string's first wrong byte traced to the statement that decided it
	strengthEnds     = 70 // one end of a slice was read, the other cut off
	strengthReceiver = 75 // a write to a value receiver's copy was lost
	strengthDropped  = 80 // an error that was not nil was discarded
	strengthTraced   = 90 // a panic's bad value was traced to where it was made
	strengthVerified = 100
)

// rank orders findings: verified fixes first, then by strength, then by
// SBFL score, then by position.
func rank(fs []*finding) {
	slices.SortStableFunc(fs, func(a, b *finding) int {
		return cmp.Or(
			cmp.Compare(b.effective(), a.effective()),
			cmp.Compare(b.score, a.score),
		)
	})
}

// effective is the strength with a verified fix's bonus, and a malus for
// a fix that was tried and failed. A bound met exactly is common on any
// path: until its fix is verified, the boundary rule's finding is only as
// strong as the spectrum's, and its statement's score ranks it among them.
func (f *finding) effective() int {
	s := f.strength
	if s == strengthBoundary && (f.verification == nil || f.verification.Status == report.NotRun) {
		return strengthSBFL
	}
	if f.verification != nil {
		switch f.verification.Status {
		case report.Passed:
			s += strengthVerified
		case report.Failed, report.DoesNotBuild, report.DoesNotApply:
			if len(f.fixes) > 0 && f.strength <= strengthBoundary {
				s -= 5
			}
		}
	}
	return s
}

// makeDiff applies the edits of f to the files they name, as src has
// them (the edits' offsets are in those), and returns the unified diff of
// the result, with paths relative to root.
func makeDiff(root string, f fix, src *syntax.Cache) (string, error) {
	byFile := map[string][]edit{}
	var files []string
	for _, e := range f.edits {
		if _, ok := byFile[e.file]; !ok {
			files = append(files, e.file)
		}
		byFile[e.file] = append(byFile[e.file], e)
	}
	slices.Sort(files)
	var out strings.Builder
	for _, file := range files {
		sf, err := src.File(file)
		if err != nil {
			return "", err
		}
		old := sf.Src
		edits := byFile[file]
		slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
		text := string(old)
		for i, e := range edits {
			if e.start < 0 || e.end > len(text) || e.start > e.end || (i > 0 && e.end > edits[i-1].start) {
				return "", fmt.Errorf("internal error: bad edit [%d,%d) of %s", e.start, e.end, file)
			}
			text = text[:e.start] + e.text + text[e.end:]
		}
		rel := file
		if r, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		out.WriteString(udiff.Unified(rel, string(old), text))
	}
	return out.String(), nil
}
