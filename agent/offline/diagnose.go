package offline

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"slices"
	"strings"

	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/agent/verify"
	"github.com/adi-go/adi/engine/trace"
)

// Diagnose runs the offline diagnoser on a recorded failing run: panic
// origin tracing when the failure started with a panic, otherwise the
// rules over the failing tests' frames ranked with spectrum-based fault
// localisation; then it verifies the best fixes by re-running. It returns
// ErrPassed when the run did not fail.
func Diagnose(ctx context.Context, dbg Debugger, opts Options) (*report.Diagnosis, error) {
	opts = opts.withDefaults()
	rec := dbg.Recording()
	if Passed(rec) {
		return nil, ErrPassed
	}
	d := &diagnoser{dbg: dbg, rec: rec, opts: opts, src: syntax.NewCache(), states: map[trace.FID]*frameState{}}
	if len(opts.Target.Argv) > 0 {
		d.src.Overlay(opts.Target.Overlay())
	}
	if rec.Partial != "" {
		d.note("partial recording: " + rec.Partial)
	}
	if len(opts.Target.Argv) > 0 {
		t := opts.Target
		if p := dbg.Program(); p != nil {
			t.Env = append(append([]string(nil), p.Env...), t.Env...)
		}
		d.pkg, d.pkgErr = gocmd.Resolve(ctx, t)
		if d.pkgErr != nil {
			d.note("no spectrum and no verification: " + d.pkgErr.Error())
		}
	} else {
		d.note("no target command line: no spectrum and no verification")
	}

	if diag := d.hung(); diag != nil {
		return diag, nil
	}

	roots := d.testRoots()
	var scope []int32
	if len(roots) > 0 {
		scope = d.subtree(roots...)
	} else {
		scope = d.allSeqs()
	}

	// The spectrum of the package's tests, for test targets.
	var ranked []suspect
	var totalFailed, totalPassed int
	if d.pkg != nil && d.pkg.IsTest() {
		units, err := d.spectra(ctx)
		if err != nil {
			d.note("no spectrum: " + err.Error())
		}
		ranked, totalFailed = ochiai(units)
		for _, u := range units {
			if !u.failed && !u.nocover {
				totalPassed++
			}
		}
		if passedAlone(rec.Outcome.FailedTests, units) {
			if diag := d.notReproduced(ctx); diag != nil {
				return diag, nil
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	var head []report.Evidence
	var focus []int32
	var fails []failure
	if len(roots) > 0 {
		opts.Log("adi: reading the failed assertions")
		var failed []*trace.Frame
		fails = d.failures(ctx, roots)
		for _, fl := range fails {
			head = append(head, d.failureEvidence(fl)...)
			focus = append(focus, d.subtree(seqsOf(fl.wrong)...)...)
			focus = append(focus, d.mutators(fl)...)
			failed = append(failed, fl.test)
		}
		if len(focus) == 0 {
			// No call's result was rejected: the failing path is what
			// the frames whose assertions failed ran (of a table-driven
			// test, the failed subtest's), not the whole test.
			focus = d.subtree(seqsOf(failed)...)
		}
	}
	if len(focus) == 0 {
		focus = scope
	}
	slices.Sort(focus)

	var findings []*finding
	pf, msg := d.panicked(scope)
	if pf != nil {
		opts.Log("adi: tracing the panic in %s back to its origin", pf.FID)
		fnd, err := d.diagnosePanic(ctx, pf, msg)
		switch {
		case err != nil:
			d.note("panic origin tracing: " + err.Error())
		case fnd.confidence == report.Low && isTestFile(pf.Decl.File):
			// A panic of the test's own, with no bad operand (a helper's
			// panic("assert failed")): the test's check failed, which the
			// evidence shows; the rules look for why.
		default:
			findings = append(findings, fnd)
		}
	}
	if len(findings) == 0 {
		opts.Log("adi: checking the failing path for dropped errors, lost writes, mismatched slice ends, off-by-one bounds and wrong strings")
		findings = append(findings, d.droppedFindings(ctx, focusOr(focus, scope))...)
		findings = append(findings, d.outputFindings(ctx, fails)...)
		findings = append(findings, d.receiverFindings(ctx, scope)...)
		findings = append(findings, d.endsFindings(ctx, scope)...)
		findings = append(findings, d.boundaryFindings(ctx, focus, scope)...)
		findings = append(findings, d.uncheckedErrs(ctx, focusOr(focus, scope))...)
		if f := d.sbflFinding(ranked, totalFailed, totalPassed, focus); f != nil {
			findings = append(findings, f)
		}
	} else {
		// A fix of the panic's own (a slice bound's ±1) is tried first.
		if len(findings[0].fixes) > 0 {
			d.verifyFindings(ctx, findings)
		}
		// The panic names the statement that failed and has no fix, or
		// none that passed: an index out of range, most often, whose
		// cause is a guard before it off by one (a bound that let the
		// index through, a slice not grown). The boundary rule looks for
		// one on the failing path; its fix, verified, outranks the
		// panic, and is dropped when the re-run refutes it. The rule
		// traces the first frame of each function it is given: the
		// panic's own frames come first, else a loop's earlier calls
		// that did not panic would be traced instead.
		if len(findings[0].fixes) == 0 || findings[0].refuted {
			opts.Log("adi: checking the failing path for off-by-one bounds")
			findings = append(findings, d.boundaryFindings(ctx, append(d.stackOf(pf), focus...), scope)...)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(findings) == 0 {
		return d.nothingFound(head), nil
	}
	scores := map[lineKey]float64{}
	for _, s := range ranked {
		scores[s.line] = s.score
	}
	for _, f := range findings {
		f.score = scores[lineKey{f.root.File, f.root.Line}]
	}
	rank(findings)
	d.verifyFindings(ctx, findings)
	findings = dropRefuted(findings)
	for _, f := range findings {
		if f.guessed {
			d.withoutFailedFixes(f)
		}
	}
	if len(findings) == 0 {
		d.note("the off-by-one fixes tried were refuted by re-running")
		return d.nothingFound(head), nil
	}
	rank(findings)
	return d.diagnosis(findings, head, ranked, totalFailed, totalPassed), nil
}

// passedAlone reports whether the spectrum ran every test the recording
// saw fail (as itself, its subtests or its parent), and none of those runs
// failed.
func passedAlone(failed []string, units []unit) bool {
	if len(failed) == 0 {
		return false
	}
	for _, name := range failed {
		ran := false
		for _, u := range units {
			if u.name == name || strings.HasPrefix(u.name, name+"/") || strings.HasPrefix(name, u.name+"/") {
				if u.failed {
					return false
				}
				ran = true
			}
		}
		if !ran {
			return false
		}
	}
	return true
}

// notReproduced runs the target's go test command as the user gave it
// (-count=1: not from go test's cache), when the tests that failed in the
// recording passed in the spectrum, each run alone. If it passes too, the
// failure comes from the builds adi runs, not from the code: the answer
// says so, and nil otherwise (the tests fail together, not alone: the
// rules look for why).
func (d *diagnoser) notReproduced(ctx context.Context) *report.Diagnosis {
	argv := d.pkg.GoArgv("-count=1")
	d.opts.Log("adi: the failing tests pass alone; running %s", gocmd.JoinArgs(argv))
	r := gocmd.RunStdin(ctx, d.pkg.Spec.Dir, d.pkg.Target.Env, d.stdin(), d.opts.CommandTimeout, argv...)
	if !r.OK() {
		return nil
	}
	failed := strings.Join(d.rec.Outcome.FailedTests, ", ")
	return &report.Diagnosis{
		Summary: "the tests " + failed + " fail only as adi builds them: `" + r.Line + "` passes",
		Explanation: "The failure does not come from the code as go test builds it. adi records a build " +
			"whose functions are not inlined (entry and exit hooks, or -gcflags=all=-N -l for the debugger), " +
			"so values that stay on the stack in go test's build escape to the heap, and the code runs slower: " +
			"a test that counts allocations (testing.AllocsPerRun) or depends on timing can fail only there. " +
			"Debug a failure that go test shows; skip such tests when recording (go test -skip).",
		Evidence: []report.Evidence{
			{Claim: "the recording's run failed: " + failed, Value: fmt.Sprintf("exit code %d", d.rec.Outcome.ExitCode)},
			{Claim: "each failing test passed run alone, built by go test -cover"},
			{Claim: "re-run: `" + r.Line + "` passed", Value: gocmd.Tail(r.Output, 3, 300)},
		},
		Candidates: []report.Candidate{},
		Confidence: report.High,
		Method:     "re-run",
		Source:     "offline",
		Partial:    strings.Join(d.notes, "; "),
	}
}

// focusOr returns focus, or scope when focus is empty.
func focusOr(focus, scope []int32) []int32 {
	if len(focus) > 0 {
		return focus
	}
	return scope
}

// Passed reports whether a recorded run did not fail: there is nothing to
// diagnose (ErrPassed).
func Passed(rec *trace.Recording) bool {
	o := rec.Outcome
	return o.ExitCode == 0 && o.Panic == nil && len(o.FailedTests) == 0 && !o.Killed
}

// verifyFindings verifies the fixes of the findings in rank order, within
// the budget, until one passes.
func (d *diagnoser) verifyFindings(ctx context.Context, findings []*finding) {
	for _, f := range findings {
		if f.verification != nil {
			// Verified already (a panic's own fix, before the rules).
			if f.verification.Status == report.Passed {
				return
			}
			continue
		}
		if len(f.fixes) == 0 {
			continue
		}
		for i := range f.fixes {
			if d.verified >= d.opts.MaxVerify || ctx.Err() != nil {
				if f.verification == nil {
					d.note(fmt.Sprintf("the budget of %d verifications was used up", d.opts.MaxVerify))
				}
				return
			}
			fx := &f.fixes[i]
			root := ""
			if d.pkg != nil {
				root = d.pkg.Root()
			} else if d.rec != nil {
				root = commonDir(fx)
			}
			diff, err := makeDiff(root, *fx, d.src)
			if err != nil {
				d.note("making a diff: " + err.Error())
				continue
			}
			f.tried, f.diff = fx, diff
			switch {
			case d.opts.NoVerify:
				f.verification = &report.Verification{Status: report.NotRun, Output: "verification was not asked for"}
			case d.pkg == nil:
				f.verification = &report.Verification{Status: report.NotRun, Output: "verification needs the go test or go run command of the target"}
			default:
				d.verified++
				d.opts.Log("adi: verifying the fix %s", fx.desc)
				f.verification = verify.FixIn(ctx, d.pkg, diff, verify.Options{Timeout: d.opts.CommandTimeout, Stdin: d.stdin(), Log: d.opts.Log})
			}
			if f.verification.Status == report.Passed || d.opts.NoVerify || d.pkg == nil {
				break
			}
		}
		if f.verification == nil {
			continue
		}
		if f.verification.Status == report.Passed {
			return
		}
		f.refuted = f.tried == &f.fixes[len(f.fixes)-1] && f.verification.Status != report.NotRun
	}
}

// dropRefuted removes the boundary findings, and the others that stand on
// their fixes only, whose every fix was tried and failed: the rerun
// refutes them (a loop that met its bound is otherwise normal), so they
// are no evidence.
func dropRefuted(fs []*finding) []*finding {
	var out []*finding
	for _, f := range fs {
		if (f.method == "boundary" || f.refutable) && f.refuted {
			continue
		}
		out = append(out, f)
	}
	return out
}

// stdin is the file the recorded program read as standard input.
func (d *diagnoser) stdin() string {
	if p := d.dbg.Program(); p != nil {
		return p.Stdin
	}
	return ""
}

// commonDir is the directory of a fix's first file (diff paths are then
// relative to it).
func commonDir(fx *fix) string {
	if len(fx.edits) == 0 {
		return ""
	}
	f := fx.edits[0].file
	return f[:strings.LastIndexByte(f, '/')+1]
}

// sbflFinding is the fallback suspect: the most suspicious line inside the
// functions on the failing path (else overall).
func (d *diagnoser) sbflFinding(ranked []suspect, totalFailed, totalPassed int, focus []int32) *finding {
	if len(ranked) == 0 || ranked[0].score == 0 {
		return nil
	}
	pick, fr := ranked[0], (*trace.Frame)(nil)
	for _, s := range ranked {
		if s.score == 0 {
			break
		}
		if f := d.frameHolding(s.line, focus); f != nil {
			pick, fr = s, f
			break
		}
	}
	f := &finding{method: "sbfl", root: trace.Pos{File: pick.line.file, Line: pick.line.line},
		strength: strengthSBFL, confidence: report.Low, score: pick.score}
	if fr != nil {
		f.fn, f.fid = fr.FID.Func, fr.FID
	} else {
		f.fn = d.funcAtLine(pick.line)
	}
	text := ""
	if file, err := d.src.File(pick.line.file); err == nil {
		text = strings.TrimSpace(file.LineText(pick.line.line))
		// A wrong result out of a slice one element short or long
		// (`Mean(c[l/2-1 : l/2])`): its bounds' off-by-one edits,
		// which only verification can tell from the right ones.
		if st := file.StmtAt(pick.line.line); st != nil {
			f.fixes, f.guessed = sliceEndFixes(file, st), true
		}
	}
	f.summary = fmt.Sprintf("the most suspicious statement on the failing path is `%s` at %s:%d (%s)",
		text, d.rel(pick.line.file), pick.line.line, pick.reason(totalFailed, totalPassed))
	f.explanation = "No rule matched the recording; this statement is ranked first by spectrum-based fault localisation over the package's tests. " +
		"Statements run by exactly the same tests tie, so look at its neighbours in the candidates too."
	f.evidence = append(f.evidence, report.Evidence{FID: f.fid.String(), File: d.rel(pick.line.file), Line: pick.line.line,
		Claim: "ranked first by spectrum-based fault localisation", Value: pick.reason(totalFailed, totalPassed)})
	return f
}

// frameHolding returns the first frame of seqs whose function holds line.
func (d *diagnoser) frameHolding(l lineKey, seqs []int32) *trace.Frame {
	file, err := d.src.File(l.file)
	if err != nil {
		return nil
	}
	fn, _ := file.FuncAt(l.line)
	if fn == nil {
		return nil
	}
	// The recorded functions declared there (usually one) first: then a
	// frame costs a string compare, not a map look-up.
	declLine := file.Line(fn.Pos())
	var fns []string
	for _, name := range d.rec.Funcs() {
		if decl := d.rec.DeclOf(name); decl.File == l.file && decl.Line == declLine {
			fns = append(fns, name)
		}
	}
	if len(fns) == 0 {
		return nil
	}
	for _, seq := range seqs {
		if slices.Contains(fns, d.rec.FuncOf(int(seq))) {
			return d.rec.At(int(seq))
		}
	}
	return nil
}

// funcAtLine names the function declared around a line ("" when none),
// as the runtime would: pkg.Func or pkg.(*T).M.
func (d *diagnoser) funcAtLine(l lineKey) string {
	file, err := d.src.File(l.file)
	if err != nil {
		return ""
	}
	_, fd := file.FuncAt(l.line)
	if fd == nil {
		return ""
	}
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		switch t := fd.Recv.List[0].Type.(type) {
		case *ast.StarExpr:
			name = "(*" + exprString(t.X) + ")." + name
		default:
			name = exprString(t) + "." + name
		}
	}
	if d.pkg != nil {
		return d.pkg.ImportPath + "." + name
	}
	return file.AST.Name.Name + "." + name
}

// diagnosis builds the answer from the ranked findings.
func (d *diagnoser) diagnosis(findings []*finding, head []report.Evidence, ranked []suspect, totalFailed, totalPassed int) *report.Diagnosis {
	best := findings[0]
	d.finalize(best)
	diag := &report.Diagnosis{
		RootCause:   report.Location{File: d.rel(best.root.File), Line: best.root.Line, Func: best.fn, FID: best.fid.String()},
		Summary:     best.summary,
		Explanation: best.explanation,
		Evidence:    append(append([]report.Evidence{}, head...), best.evidence...),
		Fix:         best.diff,
		Confidence:  best.confidence,
		Method:      best.method,
		Source:      "offline",
		Candidates:  []report.Candidate{},
	}
	if best.verification != nil {
		diag.Verification = best.verification
		if best.verification.Status == report.Passed {
			diag.Confidence = report.High
		}
	}
	if len(diag.Evidence) == 0 {
		diag.Evidence = []report.Evidence{}
	}
	seen := map[lineKey]bool{{best.root.File, best.root.Line}: true}
	for _, f := range findings[1:] {
		k := lineKey{f.root.File, f.root.Line}
		if seen[k] || len(diag.Candidates) >= 5 {
			continue
		}
		seen[k] = true
		diag.Candidates = append(diag.Candidates, report.Candidate{File: d.rel(f.root.File), Line: f.root.Line, Func: f.fn,
			Score: round2(f.score), Reason: f.method + ": " + f.summary})
	}
	for _, s := range ranked {
		if len(diag.Candidates) >= 5 || s.score == 0 {
			break
		}
		if seen[s.line] {
			continue
		}
		seen[s.line] = true
		diag.Candidates = append(diag.Candidates, report.Candidate{File: d.rel(s.line.file), Line: s.line.line,
			Func: d.funcAtLine(s.line), Score: round2(s.score), Reason: s.reason(totalFailed, totalPassed)})
	}
	diag.Partial = strings.Join(d.notes, "; ")
	return diag
}

// finalize rewrites a finding's summary once its fix is verified.
func (d *diagnoser) finalize(f *finding) {
	if f.verification == nil || f.verification.Status != report.Passed || f.tried == nil {
		return
	}
	if fx := f.tried; fx.summary != "" {
		if fx.at != nil {
			f.root, f.fn, f.fid = *fx.at, fx.atFID.Func, fx.atFID
		}
		f.summary, f.explanation = fx.summary, fx.explanation
		return
	}
	switch f.method {
	case "boundary":
		f.summary = fmt.Sprintf("%s is off by one at %s:%d: %s makes the failing tests pass",
			syntax.ShortFunc(f.fn), d.rel(f.root.File), f.root.Line, f.tried.desc)
		f.explanation = f.detail + fmt.Sprintf(" The bound is off by one: with %s the failing command and the rest of the package's tests pass (verified on an overlay copy).", f.tried.desc)
	case "sbfl":
		f.summary = fmt.Sprintf("%s slices one element off at %s:%d: %s makes the failing tests pass",
			syntax.ShortFunc(f.fn), d.rel(f.root.File), f.root.Line, f.tried.desc)
		f.explanation = fmt.Sprintf("This statement is ranked first by spectrum-based fault localisation over the package's tests, and a bound of its slice is off by one: "+
			"with %s the failing command and the rest of the package's tests pass (verified on an overlay copy).", f.tried.desc)
	case "output":
		f.summary = fmt.Sprintf("%s; %s makes the failing tests pass", f.summary, f.tried.desc)
		f.explanation = f.detail + fmt.Sprintf(" With %s the failing command and the rest of the package's tests pass (verified on an overlay copy).", f.tried.desc)
	}
}

// withoutFailedFixes takes back the guessed fixes of f unless one
// passed: the statement is a suspect still (the spectrum ranks it first,
// or it panicked), but an edit of it that the tests refute, or that was
// not run, is no fix to offer. The explanation names those the tests
// refuted.
func (d *diagnoser) withoutFailedFixes(f *finding) {
	v := f.verification
	if v != nil && v.Status == report.Passed {
		return
	}
	if v != nil && v.Status != report.NotRun {
		var tried []string
		for i := range f.fixes {
			tried = append(tried, f.fixes[i].desc)
			if &f.fixes[i] == f.tried {
				break
			}
		}
		edits := "Its off-by-one edits"
		if f.method == "output" {
			edits = "The edits of its constants"
		}
		f.explanation += fmt.Sprintf(" %s tried (%s) did not make the tests pass.", edits, strings.Join(tried, ", "))
	}
	f.fixes, f.tried, f.diff, f.verification, f.refuted = nil, nil, "", nil, false
}

// nothingFound is the answer when no rule matched and there is no
// spectrum: the failure itself, with low confidence.
func (d *diagnoser) nothingFound(head []report.Evidence) *report.Diagnosis {
	diag := &report.Diagnosis{Confidence: report.Low, Method: "none", Source: "offline", Evidence: head, Candidates: []report.Candidate{}}
	if diag.Evidence == nil {
		diag.Evidence = []report.Evidence{}
	}
	o := d.rec.Outcome
	switch {
	case len(o.FailedTests) > 0:
		diag.Summary = "the tests " + strings.Join(o.FailedTests, ", ") + " fail; no rule of the offline diagnoser matched"
	default:
		diag.Summary = fmt.Sprintf("the program exits with status %d; no rule of the offline diagnoser matched", o.ExitCode)
	}
	diag.Explanation = "The offline rules (panic origin tracing, dropped errors, value receivers, off-by-one bounds, spectrum ranking) found nothing to point at. Inspect the run with adi repl, or configure a model."
	d.note("no root cause found")
	diag.Partial = strings.Join(d.notes, "; ")
	return diag
}

// round2 rounds a score to two decimals for display.
func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// IsPassed reports whether err says the target passed.
func IsPassed(err error) bool { return errors.Is(err, ErrPassed) }
