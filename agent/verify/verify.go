// Package verify checks a proposed fix by re-running: the diff is applied
// to overlay copies of the files it changes (go build -overlay), the
// target's command and the rest of its package's tests are re-run, and the
// outcome is a report.Verification. The user's files change only through
// Apply, and only for a fix whose verification passed.
package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/udiff"
	"github.com/adi-go/adi/engine/target"
)

// Options configure Fix and FixIn.
type Options struct {
	// Timeout bounds each go command (default 3m).
	Timeout time.Duration
	// Stdin is the file a go run target reads as standard input.
	Stdin string
	// Log receives progress lines for a person (nil: none).
	Log func(format string, args ...any)
}

// Fix checks a fix the way AgentDebugX reruns a repaired run: it applies
// diff (unified, paths relative to the module root) to copies of the files
// it changes, builds through go's -overlay flag so that the user's files are
// never touched, re-runs the target's command and then the rest of its
// package's tests. The error is for a target that cannot be resolved; a
// diff that does not apply or does not build is a Verification status.
func Fix(ctx context.Context, t gocmd.Target, diff string, o Options) (*report.Verification, error) {
	pkg, err := gocmd.Resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	return FixIn(ctx, pkg, diff, o), nil
}

// patched applies diff to the files under root, as the target's own
// overlay replaces them (base, see target.SplitOverlay), and returns their
// new contents by absolute path ("" content with deleted set for a
// removal).
func patched(root, diff string, base map[string]string) (map[string]string, map[string]bool, error) {
	fps, err := udiff.Parse(diff)
	if err != nil {
		return nil, nil, err
	}
	out, deleted := map[string]string{}, map[string]bool{}
	for i := range fps {
		fp := &fps[i]
		rel, err := udiff.CleanRel(fp.Path())
		if err != nil {
			return nil, nil, &udiff.PatchError{File: fp.Path(), Reason: err.Error()}
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		old, seen := out[abs]
		if !seen && fp.OldPath != udiff.DevNull {
			from := abs
			if r, ok := base[abs]; ok {
				if r == "" {
					return nil, nil, &udiff.PatchError{File: rel, Reason: "the target's -overlay deletes it"}
				}
				from = r
			}
			b, err := os.ReadFile(from)
			if err != nil {
				return nil, nil, &udiff.PatchError{File: rel, Reason: err.Error()}
			}
			old = string(b)
		}
		text, err := fp.Apply(old)
		if err != nil {
			return nil, nil, err
		}
		out[abs] = text
		deleted[abs] = fp.NewPath == udiff.DevNull
	}
	return out, deleted, nil
}

// FixIn is Fix for a resolved package.
func FixIn(ctx context.Context, pkg *gocmd.Package, diff string, o Options) *report.Verification {
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Minute
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	v := &report.Verification{Status: report.NotRun}
	spec := pkg.Spec
	// The target's own -overlay is merged into the fix's: the go command
	// keeps the last -overlay flag only.
	flags, base, err := target.SplitOverlay(spec.BuildFlags, spec.Dir)
	if err != nil {
		v.Output = err.Error()
		return v
	}
	files, deleted, err := patched(pkg.Root(), diff, base)
	if err != nil {
		v.Status, v.Output = report.DoesNotApply, err.Error()
		return v
	}
	tmp, err := os.MkdirTemp("", "adi-verify-")
	if err != nil {
		v.Output = err.Error()
		return v
	}
	defer os.RemoveAll(tmp)
	replace := maps.Clone(base)
	if replace == nil {
		replace = map[string]string{}
	}
	n := 0
	for abs, text := range files {
		if deleted[abs] {
			replace[abs] = ""
			continue
		}
		n++
		p := filepath.Join(tmp, fmt.Sprintf("%d-%s", n, filepath.Base(abs)))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			v.Output = err.Error()
			return v
		}
		replace[abs] = p
	}
	overlay := filepath.Join(tmp, "overlay.json")
	b, _ := json.Marshal(map[string]any{"Replace": replace})
	if err := os.WriteFile(overlay, b, 0o644); err != nil {
		v.Output = err.Error()
		return v
	}
	ov := "-overlay=" + overlay
	var steps []*gocmd.Result
	run := func(argv ...string) *gocmd.Result {
		logf("adi: verifying: %s", gocmd.JoinArgs(argv))
		r := gocmd.RunStdin(ctx, spec.Dir, pkg.Target.Env, o.Stdin, o.Timeout, argv...)
		r.Line = strings.ReplaceAll(r.Line, overlay, "<overlay>")
		r.Output = strings.ReplaceAll(r.Output, tmp+string(filepath.Separator), "")
		steps = append(steps, r)
		return r
	}
	finish := func(s report.Status) *report.Verification {
		var cmds, out []string
		for _, r := range steps {
			cmds = append(cmds, r.Line)
			text := r.Output
			if r.TimedOut {
				text += fmt.Sprintf("\n(stopped after %s)", o.Timeout)
			} else if r.Err != nil {
				text += "\n" + r.Err.Error()
			}
			out = append(out, "$ "+r.Line+"\n"+strings.TrimRight(text, "\n"))
		}
		v.Status, v.Command, v.Output = s, strings.Join(cmds, "\n"), gocmd.Tail(strings.Join(out, "\n"), 40, 6000)
		return v
	}

	// Build first, so that a fix that does not compile is told apart from
	// one that compiles and fails.
	build := []string{"go", "build", ov, "-o", os.DevNull}
	if pkg.IsTest() {
		build = []string{"go", "test", ov, "-count=1", "-run=^$"}
	}
	build = append(append(append(build, flags...), spec.VetFlags()...), spec.Targets()...)
	if r := run(build...); !r.OK() {
		if ctx.Err() != nil || r.TimedOut {
			return finish(report.NotRun)
		}
		return finish(report.DoesNotBuild)
	}
	extra := []string{ov}
	if pkg.IsTest() {
		extra = append(extra, "-count=1")
	}
	argv, _ := target.CutOverlay(pkg.GoArgv(extra...), ov)
	if r := run(argv...); !r.OK() {
		if ctx.Err() != nil {
			return finish(report.NotRun)
		}
		return finish(report.Failed)
	}
	// The rest of the package's tests: a fix must not break them.
	if (pkg.IsTest() && pkg.SelectsTests()) || (!pkg.IsTest() && len(pkg.TestFiles) > 0) {
		all := append(append([]string{"go", "test", ov, "-count=1"}, flags...), spec.VetFlags()...)
		if r := run(append(all, spec.Targets()...)...); !r.OK() {
			if ctx.Err() != nil {
				return finish(report.NotRun)
			}
			return finish(report.Failed)
		}
	}
	return finish(report.Passed)
}

// Apply writes the verified fix of diag to the user's files and returns
// the files it changed (absolute). It refuses a fix whose verification did
// not pass, and a diff that no longer applies to the files as they are.
func Apply(ctx context.Context, t gocmd.Target, diag *report.Diagnosis) ([]string, error) {
	if diag.Fix == "" {
		return nil, &NotVerifiedError{Status: report.NotRun}
	}
	if diag.Verification == nil || diag.Verification.Status != report.Passed {
		s := report.NotRun
		if diag.Verification != nil {
			s = diag.Verification.Status
		}
		return nil, &NotVerifiedError{Status: s}
	}
	pkg, err := gocmd.Resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	return applyDiff(pkg.Root(), diag.Fix)
}

// applyDiff writes diff to the files under root, each replaced atomically
// (a new file renamed over the old one, keeping its permissions).
func applyDiff(root, diff string) ([]string, error) {
	files, deleted, err := patched(root, diff, nil)
	if err != nil {
		return nil, err
	}
	var changed []string
	for abs, text := range files {
		if deleted[abs] {
			if err := os.Remove(abs); err != nil {
				return changed, err
			}
			changed = append(changed, abs)
			continue
		}
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(abs); err == nil {
			mode = fi.Mode().Perm()
		}
		tmp, err := os.CreateTemp(filepath.Dir(abs), ".adi-fix-*")
		if err != nil {
			return changed, err
		}
		_, werr := tmp.WriteString(text)
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(tmp.Name(), mode)
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), abs)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return changed, werr
		}
		changed = append(changed, abs)
	}
	return changed, nil
}

// NotVerifiedError is returned by Apply for a fix whose verification did
// not pass: adi writes only fixes that passed.
type NotVerifiedError struct {
	Status report.Status
}

// Error says why the fix was not applied.
func (e *NotVerifiedError) Error() string {
	if e.Status == "" || e.Status == report.NotRun {
		return "the fix was not verified; adi applies only fixes that passed verification"
	}
	return fmt.Sprintf("the fix's verification %s; adi applies only fixes that passed", statusPhrase(e.Status))
}

// statusPhrase says a verification status in words.
func statusPhrase(s report.Status) string {
	switch s {
	case report.Passed:
		return "passed"
	case report.Failed:
		return "failed"
	case report.DoesNotApply:
		return "found that the diff does not apply"
	case report.DoesNotBuild:
		return "found that the fixed code does not build"
	}
	return "was not run"
}
