package offline

import (
	"context"
	"fmt"
	"go/ast"
	"strings"
	"time"

	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/agent/syntax"
	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// Options configure Diagnose, and the LLM agent, which runs it for its
// hints and verifies the model's fix with the same target and timeout.
type Options struct {
	// Target is the recorded command line; coverage and verification runs
	// are derived from it. Without it (zero Argv) the diagnosis uses the
	// recording only: no spectrum, no verification.
	Target gocmd.Target
	// NoVerify skips verifying fixes (the diagnosis still proposes them).
	NoVerify bool
	// MaxVerify bounds how many candidate fixes are verified (default 4).
	MaxVerify int
	// MaxFLTs bounds how many frame traces the rules build (default 40).
	MaxFLTs int
	// CommandTimeout bounds each go command and test run (default 3m).
	CommandTimeout time.Duration
	// Log receives progress lines for a person (nil: none).
	Log func(format string, args ...any)
}

// withDefaults fills the zero options.
func (o Options) withDefaults() Options {
	if o.MaxVerify <= 0 {
		o.MaxVerify = 4
	}
	if o.MaxFLTs <= 0 {
		o.MaxFLTs = 40
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 3 * time.Minute
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	return o
}

// diagnoser is the state of one offline diagnosis.
type diagnoser struct {
	dbg  Debugger
	rec  *trace.Recording
	opts Options
	src  *syntax.Cache
	// pkg is the target's package; nil when it could not be resolved
	// (pkgErr says why).
	pkg    *gocmd.Package
	pkgErr error
	// states caches the replayed ΔS of each traced frame; whole those of
	// the traces with every loop iteration kept (see fltAll).
	states, whole map[trace.FID]*frameState
	built         int
	// verified counts the fixes verified (MaxVerify bounds it).
	verified int
	// notes say what made the diagnosis partial.
	notes []string
	// decls holds the functions of the library packages read, by import
	// path (see declIn).
	decls map[string]map[string]*ast.FuncDecl
}

// errBudget is returned by flt when MaxFLTs traces were built.
type errBudget struct{ max int }

// Error says which budget ran out.
func (e *errBudget) Error() string {
	return fmt.Sprintf("the budget of %d frame traces was used up", e.max)
}

// flt returns the trace of f and its replayed state, within the budget.
func (d *diagnoser) flt(ctx context.Context, f *trace.Frame) (*trace.FLT, *frameState, error) {
	return d.fltUntil(ctx, f, nil)
}

// fltUntil is flt, the trace ending with the first statement until
// accepts when until is not nil (Debugger.FLTUntil): that beginning is
// what the diagnoser keeps of the frame.
func (d *diagnoser) fltUntil(ctx context.Context, f *trace.Frame, until engine.Until) (*trace.FLT, *frameState, error) {
	return d.cachedFLT(d.states, f, func() (*trace.FLT, error) {
		if until != nil {
			return d.dbg.FLTUntil(ctx, f, until)
		}
		return d.dbg.FLT(ctx, f)
	})
}

// fltAll returns the trace of f with every loop iteration kept and its
// replayed state, within the budget (a trace counts once whichever way it
// is built).
func (d *diagnoser) fltAll(ctx context.Context, f *trace.Frame) (*trace.FLT, *frameState, error) {
	if d.whole == nil {
		d.whole = map[trace.FID]*frameState{}
	}
	return d.cachedFLT(d.whole, f, func() (*trace.FLT, error) { return d.dbg.FLTAll(ctx, f) })
}

// cachedFLT returns the state of f in cache, else builds its trace within
// the budget, replays it and keeps it there; what went wrong becomes a
// note.
func (d *diagnoser) cachedFLT(cache map[trace.FID]*frameState, f *trace.Frame, build func() (*trace.FLT, error)) (*trace.FLT, *frameState, error) {
	if st, ok := cache[f.FID]; ok {
		return st.flt, st, nil
	}
	if d.built >= d.opts.MaxFLTs {
		d.note((&errBudget{d.opts.MaxFLTs}).Error() + " (raise MaxFLTs)")
		return nil, nil, &errBudget{d.opts.MaxFLTs}
	}
	d.built++
	flt, err := build()
	if err != nil {
		d.note(fmt.Sprintf("no trace of %s: %v", f.FID, err))
		return nil, nil, err
	}
	if flt.Truncated {
		d.note(fmt.Sprintf("the trace of %s was cut: %s", f.FID, flt.Note))
	}
	st := newFrameState(flt)
	cache[f.FID] = st
	return flt, st, nil
}

// note records a reason the diagnosis is partial (once).
func (d *diagnoser) note(s string) {
	for _, n := range d.notes {
		if n == s {
			return
		}
	}
	d.notes = append(d.notes, s)
}

// rel returns a file path as the diagnosis shows it: relative to the
// module root when possible.
func (d *diagnoser) rel(path string) string {
	if d.pkg != nil {
		return d.pkg.Rel(path)
	}
	return path
}

// frame returns the recorded frame with the given FID.
func (d *diagnoser) frame(fid trace.FID) *trace.Frame {
	f, _ := d.rec.Lookup(fid)
	return f
}

// evidence builds an Evidence entry at a step of frame f.
func (d *diagnoser) evidence(f *trace.Frame, pos trace.Pos, claim, value string) report.Evidence {
	e := report.Evidence{File: d.rel(pos.File), Line: pos.Line, Claim: claim, Value: short(value)}
	if f != nil {
		e.FID = f.FID.String()
	}
	return e
}

// isTestFile reports whether path is a _test.go file.
func isTestFile(path string) bool { return strings.HasSuffix(path, "_test.go") }

// eachFunc calls visit once for each function of scope outside the test
// files, with its first frame in scope, its source file and declaration:
// the walk every source rule starts with.
func (d *diagnoser) eachFunc(ctx context.Context, scope []int32, visit func(f *trace.Frame, file *syntax.File, fd *ast.FuncDecl)) {
	done := make([]bool, d.rec.NumFuncs())
	for _, seq := range scope {
		n := d.rec.FuncNumOf(int(seq))
		if done[n] {
			continue
		}
		done[n] = true
		fn := d.rec.FuncOf(int(seq))
		if ctx.Err() != nil {
			return
		}
		decl := d.rec.DeclOf(fn)
		if isTestFile(decl.File) {
			continue
		}
		file, err := d.src.File(decl.File)
		if err != nil {
			continue
		}
		if fd := file.FuncDecl(decl.Line); fd != nil {
			visit(d.rec.At(int(seq)), file, fd)
		}
	}
}
