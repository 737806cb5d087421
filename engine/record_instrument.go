package engine

import (
	"bytes"
	"context"
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// errInstrumentBuild is wrapped by the error of a build that failed only
// with the instrumented sources.
var errInstrumentBuild = errors.New("the instrumented build failed")

// instrumented is a target built with entry and exit hooks.
type instrumented struct {
	path  string // the binary
	sites []instrument.Site
	notes []string
	env   []string // for the binary's runtime (instrument.Result.Env)

	// The binary's function and line tables, and its inline trees,
	// read once for every recording of it (see symbols and
	// inlineTrees).
	symsOnce sync.Once
	symtab   *gosym.Table
	symErr   error
	inlOnce  sync.Once
	inl      *inlineTrees
	// pcs is what the tables say of the PCs the recordings met.
	pcs pcSyms
}

// symbols returns the function and line tables of the binary, read on the
// first call. The builder needs them from the target's first record on;
// buildHooked starts reading them as soon as the binary is there, so that
// a recording does not wait for them while the target runs ahead of it.
func (in *instrumented) symbols() (*gosym.Table, error) {
	in.symsOnce.Do(func() { in.symtab, in.symErr = loadSymbols(in.path) })
	return in.symtab, in.symErr
}

// inlineTrees returns the binary's inline trees, read on the first call
// (nil if they cannot be: a call site in inlined code then has the inlined
// function's line). The builder needs them at the first call site in code
// inlined from another file, which a test binary's first tests have:
// reading them takes tens of milliseconds for one, which a builder that
// read them itself spent while its target ran ahead, in every recording.
// buildHooked starts reading them after the symbols.
func (in *instrumented) inlineTrees() *inlineTrees {
	in.inlOnce.Do(func() { in.inl, _ = loadInlineTrees(in.path) })
	return in.inl
}

// rewrite rewrites the target's sources into work for both builds that
// need it: the instrumented build and the counting debug build.
func rewrite(ctx context.Context, spec *target.Spec, work string) (*instrument.Result, error) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		return nil, fmt.Errorf("the instrumenting recorder runs on linux/amd64 only, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return instrument.Instrument(ctx, instrument.Options{
		Dir: spec.Dir, BuildFlags: spec.BuildFlags, Targets: spec.Targets(), Test: spec.Kind == target.Test,
	}, filepath.Join(work, "instrument"))
}

// buildInstrumented rewrites the target's sources into work and builds the
// instrumented binary (optimized: the hooks find frames by their frame
// pointers, and nothing needs the debug build here).
func buildInstrumented(ctx context.Context, spec *target.Spec, work string, maxFrames int) (*instrumented, error) {
	res, err := rewrite(ctx, spec, work)
	if err != nil {
		return nil, err
	}
	return buildHooked(ctx, spec, work, res, maxFrames)
}

// buildHooked builds the instrumented binary from the rewritten sources,
// for recordings that keep up to maxFrames frames (0: the default limit).
func buildHooked(ctx context.Context, spec *target.Spec, work string, res *instrument.Result, maxFrames int) (*instrumented, error) {
	// The memory of the first recording's index is made ready while the
	// go command leaves a core idle (its link is one thread).
	prepareIndex(firstFrames(maxFrames), prepareBlocks)
	// Named like the debug build: it is the target's process.
	out := filepath.Join(work, "adi-target-instrumented")
	args := []string{"build", "-o", out}
	if spec.Kind == target.Test {
		args = []string{"test", "-c", "-o", out}
	}
	args = append(args, "-overlay="+res.Overlay)
	args = append(args, res.BuildFlags...)
	args = append(args, spec.VetFlags()...)
	if !setsLdflags(spec.BuildFlags) && !strings.Contains(os.Getenv("GOFLAGS"), "ldflags") {
		// No DWARF: the binary runs natively, and adi reads its line
		// table only. The link is a fifth faster (the target's own
		// -ldflags, which this would replace, are kept).
		args = append(args, "-ldflags=-w")
	}
	args = append(args, spec.Targets()...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = spec.Dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for cp, orig := range res.Originals {
			b = bytes.ReplaceAll(b, []byte(cp), []byte(orig))
		}
		// The first line says what went wrong (the fallback's log shows
		// it alone), the others how the build was run and all it said.
		return nil, fmt.Errorf("%w: %s\ngo %s: %v\n%s", errInstrumentBuild, buildProblem(b, err), strings.Join(args, " "), err, b)
	}
	in := &instrumented{path: out, sites: res.Sites, notes: res.Skipped, env: res.Env()}
	go func() {
		in.symbols()
		in.inlineTrees()
	}()
	return in, nil
}

// buildProblem returns the first line of a failed build's output that is
// not a package's heading ("# pkg"): the compiler's first error, or the go
// command's complaint; err's text if there is none.
func buildProblem(out []byte, err error) string {
	for line := range strings.Lines(string(out)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return err.Error()
}

// setsLdflags reports whether build flags (as target.Spec keeps them, one
// -flag=value each) set -ldflags.
func setsLdflags(flags []string) bool {
	for _, f := range flags {
		if strings.HasPrefix(strings.TrimLeft(f, "-"), "ldflags") {
			return true
		}
	}
	return false
}

// recordInstrumented runs the instrumented binary natively (not under
// Delve) with the arguments, directory and environment of prog, and builds
// the index from the records it wrote.
func recordInstrumented(ctx context.Context, in *instrumented, prog *Program, work string, opts RecordOptions) (*trace.Recording, error) {
	lim := opts.Limits.withDefaults()
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	records, err := recordFile(work)
	if err != nil {
		return nil, err
	}
	// Closed at the end, or sooner (see below).
	defer records.Close()
	cmd := exec.Command(in.path, prog.Args...)
	// os.Args[0] is the plain build's, as in every re-execution under
	// Delve: a program that passes it on (flag.NewFlagSet(os.Args[0], …),
	// a usage line) calls its functions with the same argument.
	cmd.Args[0] = prog.Path
	cmd.Dir = prog.Dir
	cmd.Env = append(os.Environ(), prog.Env...)
	// The records file is the target's descriptor 3.
	cmd.ExtraFiles = []*os.File{records}
	cmd.Env = append(cmd.Env, in.env...)
	cmd.Env = append(cmd.Env, "ADI_TRACE_FD=3", "ADI_TRACE_MAXSTR="+strconv.Itoa(lim.MaxString),
		"ADI_TRACE_MAXFILE="+strconv.FormatInt(maxRecordFile, 10), "ADI_TRACE_WAITAT="+strconv.FormatInt(waitRecordFile, 10))
	if prog.Stdin != "" {
		f, err := os.Open(prog.Stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input for the target: %w", err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	stdout, stderr, outW, errW, err := capturePipes(lim.MaxOutput, opts.Output)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		_ = stdout.String()
		_ = stderr.String()
		return nil, fmt.Errorf("starting %s: %w", in.path, err)
	}
	// The binary's symbols load while the target starts, if they are
	// not loaded yet.
	go in.symbols()
	syms := in.symbols
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// The whole process group: a test binary's children too.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	var waitErr error
	var ended time.Time
	exited := make(chan struct{})
	go func() {
		waitErr = cmd.Wait()
		ended = time.Now()
		close(done)
		close(exited)
	}()
	// The index is built as the records are written (the target runs on
	// another core), unless it grows past the size it would be spilled
	// at: it is then built again after the run, in a mapped file.
	above := opts.SpillAbove
	if above == 0 {
		above = DefaultSpillAbove
	}
	lazy := !opts.decodeValues
	b, t, err := indexLive(records, in, lim, syms, exited, above, lazy, opts.Progress)
	if err != nil {
		// No recording: the run is not waited for.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		return nil, err
	}
	if b == nil {
		<-exited
		if b, t, err = indexAfter(records, in, lim, syms, filepath.Join(work, "adi-index"), lazy); err != nil {
			return nil, err
		}
	}
	// The mapping is kept when the recording's values stay in the file.
	kept := false
	defer func() {
		if !kept {
			t.Close()
		}
	}()
	status := 0
	if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			return nil, fmt.Errorf("running %s: %w", in.path, waitErr)
		}
		status = ee.ExitCode()
	}
	// The records are all read. When values stay in the file, its mapping
	// goes with the recording (the descriptor is not needed); else
	// unmapping and closing it frees its pages, which takes milliseconds
	// for a large run, done while the index is finished (the deferred
	// calls find nothing left to do).
	var src *fileValues
	if b.sourced > 0 {
		src = newFileValues(t)
		src.copied = b.copied
		if b.inFile > 0 {
			kept = true
		} else {
			src.file, src.bytes = nil, 0
		}
		b.rec.SetValueSource(src)
		runtime.AddCleanup(b.rec, (*fileValues).close, src)
	} else {
		b.copied.free()
	}
	// finish rewrites b.valuesEnd when the frame limit drops frames (see
	// keptValues): the first trim keeps every value attached, the second
	// frees those of the frames dropped.
	ends := slices.Clone(b.valuesEnd)
	released := make(chan struct{})
	go func() {
		if kept {
			src.trim(records, ends)
		} else {
			t.Close()
		}
		close(released)
	}()
	b.finish(status, ctx.Err(), opts.Timeout, stdout.String(), stderr.String(), t)
	<-released
	// The next recording, of this build or another, likely takes as much.
	prepareIndex(b.rec.Len()+b.rec.Len()/4, b.copied.blocksMapped())
	if kept && !slices.Equal(ends, b.valuesEnd) {
		src.trim(records, b.valuesEnd)
	}
	records.Close()
	if opts.Times != nil {
		*opts.Times = RecordTimes{Run: ended.Sub(start), Index: time.Since(ended), Records: b.records, AfterRun: b.records - b.atExit,
			Reused: t.Recycled, Waited: t.Waited, FileBytes: t.Bytes}
	}
	return b.rec, nil
}

// symbols returns the instrumented binary's function and line tables,
// once they are read.
type symbols func() (*gosym.Table, error)

// newBuilder returns a builder of the index of the records of f, which
// leaves their values in the file if lazy.
func newBuilder(in *instrumented, lim Limits, syms symbols, f *instrument.File, lazy bool) (*builder, error) {
	f.LazyValues = lazy
	bi, err := syms()
	if err != nil {
		return nil, fmt.Errorf("reading the instrumented binary's symbols: %w", err)
	}
	fns, calls := in.pcs.sizes()
	b := &builder{
		bi: bi, inl: in.inlineTrees, pcs: &in.pcs, file: f, sites: in.sites, lim: lim,
		rec:      &trace.Recording{},
		counts:   map[string]*int{},
		stacks:   map[int64]*gstack{},
		siteFn:   make([]siteFn, len(in.sites)),
		ginfo:    map[int64]*instrument.Record{},
		spawnAt:  map[uint64]ispawn{},
		pinned:   map[int]bool{},
		gos:      map[spawnKey][]uint64{},
		kids:     map[spawnKey][]int64{},
		started:  map[spawnKey]int{},
		first:    map[int64]int{},
		fns:      make(map[uint64]*ifn, fns),
		pos:      make(map[uint64]posID, calls),
		argNames: make([][]trace.Str, len(in.sites)),
		resNames: make([][]trace.Str, len(in.sites)),
		lazy:     f.LazyValues,
	}
	// The callees dropped under the frames kept take at most 4 bytes a
	// frame kept (16 a run of them), or 16 KB under a small limit; as
	// many under the frames open.
	b.maxRuns = max(lim.MaxFrames/4, 1<<10)
	b.rec.LimitDroppedCallees(b.maxRuns)
	return b, nil
}

// indexLive builds the index from the records as the target writes them,
// until the target has exited (exited is closed) and every record is read.
// It returns a nil builder if the index grew past above bytes (which it
// keeps out of memory: see indexAfter).
func indexLive(records *os.File, in *instrumented, lim Limits, syms symbols, exited <-chan struct{}, above int64, lazy bool, progress func(frames int)) (b *builder, t *instrument.File, err error) {
	if t, err = instrument.OpenLive(records, maxRecordFile); err != nil {
		return nil, nil, err
	}
	defer closeUnless(&b, t)
	// The values copied out of the chunks handed back go with the index,
	// or with an index given up.
	copied := &copiedValues{}
	defer func() {
		if b == nil {
			copied.free()
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer faultErr(t, &b, &err)
	if b, err = newBuilder(in, lim, syms, t, lazy); err != nil {
		return nil, nil, err
	}
	defer lessGC()()
	if err := b.rec.OffHeap(liveFrames, 2*liveFrames, 0); err != nil {
		return nil, nil, err
	}
	// The chunks read go back to the runtime, their values copied, while
	// the index with the copies stays far below the size it would be
	// spilled at: on only when the frame limit keeps it so (the copies
	// for the frames dropped past the limit go with them: see dropDone),
	// and off past a quarter of that size. Once a chunk has gone back,
	// the index cannot be built again from the file (see indexAfter): it
	// stays in memory, kept small by these bounds.
	if lazy && (above < 0 || int64(lim.MaxFrames)*recycleFrameBytes <= above) {
		t.Recycle = true
		b.copied = copied
	}
	// The bounds above, checked every 4096 records and after each poll: a
	// poll of a builder far behind the target, or the one after its end,
	// can be long.
	sized := func() error {
		size := indexSize(b.rec.Len(), int(b.rec.Values())) + int64(b.copied.size())
		if t.Recycle && above >= 0 && size > above/4 {
			t.StopRecycle()
		}
		if above >= 0 && size > above && t.Recycled == 0 {
			return errSpill
		}
		return nil
	}
	// atExit is set (within 4096 records) when the target ends, which a
	// long poll of a builder behind the target does not wait for: no
	// chunk goes back from then on, and the values of the records left
	// stay in the file rather than being copied.
	b.atExit = -1
	// progress hears of the frames entered so far after progressPeriod,
	// then after twice as long as the time before, up to 30 times.
	reported, period := time.Now(), progressPeriod
	event := func(r *instrument.Record) error {
		b.event(r)
		if b.records&4095 == 0 {
			if b.atExit < 0 {
				if testHookLive != nil {
					testHookLive(b.records)
				}
				select {
				case <-exited:
					b.atExit = b.records
					t.StopRecycle()
				default:
				}
			}
			if progress != nil && time.Since(reported) >= period {
				reported, period = time.Now(), min(2*period, 30*progressPeriod)
				progress(b.rec.Len() + b.dropped)
			}
			return sized()
		}
		return nil
	}
	idle, polled := pollIdle, time.Now()
	wait := time.NewTimer(idle)
	defer wait.Stop()
	for {
		final := false
		select {
		case <-exited:
			final = true
			if b.atExit < 0 {
				b.atExit = b.records
			}
		default:
		}
		n, err := t.Poll(final, event)
		if err == nil {
			err = sized()
		}
		switch {
		case err == errSpill:
			return nil, nil, nil
		case err != nil:
			return nil, nil, err
		case final:
			return b, t, nil
		}
		if n > 0 {
			idle = pollIdle
			continue
		}
		wait.Reset(idle)
		select {
		case <-wait.C:
		case <-exited:
		}
		idle = nextPoll(idle, b.records > 0, time.Since(polled))
	}
}

// testHookLive, set by a test, is called every 4096 records the index
// reads while the target runs, with their number.
var testHookLive func(records int)

// progressPeriod is when a long recording first reports the frames
// entered so far (RecordOptions.Progress), and how often it does at
// first. A variable for tests.
var progressPeriod = time.Second

// nextPoll is how long the index waits for the target's next records
// after waiting idle and finding none, started saying whether the target
// has written any, since how long the index has been polling. A target
// that waits (for input, a timer, the network) is polled less and less
// often (its end is seen at once). One that has not written its first
// record is starting (the Go runtime takes milliseconds): its first
// records are read as they come, up to startPolls, for the index, slower
// than the target, would only start later.
func nextPoll(idle time.Duration, started bool, since time.Duration) time.Duration {
	if !started && since <= startPolls {
		return pollIdle
	}
	return min(2*idle, maxPollIdle)
}

const (
	// recycleFrameBytes is what a frame is reckoned to take in the index
	// with its values (copied), to tell whether the frame limit keeps
	// the index below the size it is spilled at.
	recycleFrameBytes = 200
	// liveFrames is the number of frames the index of a run is first
	// given room for (it grows from there).
	liveFrames = 16 << 10
	// pollIdle is how long the index waits for the target's next records
	// when it has read all those written, up to maxPollIdle when there
	// are still none.
	pollIdle    = 100 * time.Microsecond
	maxPollIdle = 5 * time.Millisecond
	// startPolls is how long the index polls every pollIdle for the
	// target's first record.
	startPolls = 100 * time.Millisecond
)

// errSpill stops the index built as the target runs when it grows past
// the size it is spilled at (see indexLive).
var errSpill = errors.New("the index is to be spilled")

// faultErr turns a fault reading the mapped record file into the error
// *err, with no builder (deferred, with debug.SetPanicOnFault set). The
// target shrank the file under the mapping: it truncated its descriptor 3,
// which a memfd's seal forbids but a file does not. Other panics go on.
func faultErr(t *instrument.File, b **builder, err *error) {
	e := recover()
	if e == nil {
		return
	}
	if f, ok := e.(interface{ Addr() uintptr }); ok && t.Maps(f.Addr()) {
		*b = nil
		*err = fmt.Errorf("the record file lost pages while the target ran (fault at %#x): did the program truncate its file descriptor 3? adi passes its record file there; leave that descriptor alone, or record with --recorder=delve", f.Addr())
		return
	}
	panic(e)
}

// closeUnless closes t unless *b, the builder of its records, is returned
// (deferred).
func closeUnless(b **builder, t *instrument.File) {
	if *b == nil {
		t.Close()
	}
}

// indexAfter builds the index of the records in a mapped file at path,
// once the target has exited: its size is known then.
func indexAfter(records *os.File, in *instrumented, lim Limits, syms symbols, path string, lazy bool) (b *builder, t *instrument.File, err error) {
	if t, err = instrument.Open(records); err != nil {
		return nil, nil, err
	}
	defer closeUnless(&b, t)
	if b, err = newBuilder(in, lim, syms, t, lazy); err != nil {
		return nil, nil, err
	}
	defer lessGC()()
	// Values left in the file take no room in the index.
	values := t.Values
	if lazy {
		values = 0
	}
	if err := b.rec.Spill(path, t.Enters, values, values*textBytes); err != nil {
		return nil, nil, err
	}
	b.rec.Grow(t.Enters, values)
	if err := t.Each(func(r *instrument.Record) error { b.event(r); return nil }); err != nil {
		return nil, nil, err
	}
	return b, t, nil
}

// maxRecordFile bounds the target's record file: the runtime stops
// recording there, and the recording says so.
const maxRecordFile = 2 << 30

// waitRecordFile is the size of record file from which the target's
// goroutines wait for the index to hand chunks back rather than grow the
// file, while the index reads the records as they are written and hands
// them back (see package adirt's waitReader): a target whose goroutines
// write records faster than the index reads them (several at once, on
// the cores the index shares) then runs at the index's pace, and its
// records take this much memory at most, not maxRecordFile, where the
// end of the run would be lost. A variable for tests.
var waitRecordFile int64 = 256 << 20

// recordFile returns an empty file for the target's records: a memfd (file
// pages without file system work) when the machine has memory to spare for
// a whole one (its pages stay in memory), else a file in work, unlinked at
// once. Either way nothing is left when it is closed.
//
// The memfd is sealed against shrinking: adi maps it while the target
// runs, and a page cut off under a mapping faults on its next read. The
// target can still grow it. A file cannot be sealed; indexLive catches
// that fault instead (see faultErr).
func recordFile(work string) (*os.File, error) {
	if memAvailable() >= 4*maxRecordFile {
		if fd, err := memfdCreate("adi-records", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING); err == nil {
			unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK)
			return os.NewFile(uintptr(fd), "adi-records (memfd)"), nil
		}
	}
	f, err := os.CreateTemp(work, "adi-records")
	if err != nil {
		return nil, fmt.Errorf("the file for the target's records: %w", err)
	}
	os.Remove(f.Name())
	return f, nil
}

// memfdCreate is unix.MemfdCreate (a variable for the tests).
var memfdCreate = unix.MemfdCreate

// memAvailable is the memory the kernel could give without swapping
// (MemAvailable of /proc/meminfo), 0 if unknown.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// prepareIndex asks for the memory of the next instrumented recording's
// index to be made ready while a core is idle (see trace.Prepare): rows
// and lists for frames frames, and blocks blocks of value copies, within
// an eighth of the memory available and maxPrepared bytes.
func prepareIndex(frames, blocks int) {
	frames, blocks = preparedSize(frames, blocks, memAvailable())
	if testHookPrepare != nil {
		testHookPrepare(frames, blocks)
	}
	trace.Prepare(frames, blocks)
}

// testHookPrepare, set by a test, is called with what prepareIndex asks
// for.
var testHookPrepare func(frames, blocks int)

// firstFrames is the number of frames whose rows and lists are made ready
// for the first recording of a build whose recordings keep up to limit
// frames (0: the default limit): what a recording at the default limit
// takes, or up to firstFramesMax for a higher limit. Made ready ahead,
// they cost the recording nothing; faulted in as the index grows, they
// cost it the most on some virtual machines (see trace.Prepare).
func firstFrames(limit int) int {
	if limit <= 0 {
		limit = DefaultLimits.MaxFrames
	}
	return max(prepareFrames, min(limit, firstFramesMax))
}

// preparedSize bounds what prepareIndex asks for, with avail bytes of
// memory available (0: not known): the blocks first.
func preparedSize(frames, blocks int, avail int64) (int, int) {
	budget := int64(maxPrepared)
	if avail > 0 {
		budget = min(budget, avail/8)
	}
	blocks = int(min(int64(blocks), budget/copiedBlock))
	budget -= int64(blocks) * copiedBlock
	return int(min(int64(frames), budget/indexSize(1, 0))), blocks
}

const (
	// prepareFrames and prepareBlocks are what is made ready for the
	// first recording of a build at the default frame limit (14 MB of
	// rows and lists, 4 MB of copies): what one takes (see
	// DefaultLimits; a higher limit asks for more, see firstFrames).
	// Each recording asks for as much as it took for the next.
	prepareFrames = 256 << 10
	prepareBlocks = 2
	maxPrepared   = 256 << 20
	// firstFramesMax bounds what the build asks for when the frame
	// limit is higher than the default (56 MB of rows and lists): a
	// limit is a bound, not what the run will keep, and memory made
	// ready is held for a minute.
	firstFramesMax = 1 << 20
)

// indexSize is about the size of the index of frames frames and values
// values: a row, a callee and a per-function entry a frame; a row and some
// text a value (see trace/store.go).
func indexSize(frames, values int) int64 {
	const frameBytes, valueBytes = 56, 24
	return int64(frames)*frameBytes + int64(values)*(valueBytes+textBytes)
}

// textBytes is the value text a value is given room for.
const textBytes = 8

// gcRaised counts the index builds running with the garbage collector's
// target raised (see lessGC).
var gcRaised struct {
	sync.Mutex
	n    int
	prev int
}

// lessGC raises the garbage collector's target while an index is built,
// and returns the function that restores it: nearly all the build
// allocates stays live, so a collection while the index grows marks it all
// again and frees little. A target the user set higher (or off) is kept.
func lessGC() func() {
	const percent = 400
	gcRaised.Lock()
	defer gcRaised.Unlock()
	if gcRaised.n == 0 {
		gcRaised.prev = debug.SetGCPercent(percent)
		if gcRaised.prev < 0 || gcRaised.prev >= percent {
			debug.SetGCPercent(gcRaised.prev)
		}
	}
	gcRaised.n++
	return func() {
		gcRaised.Lock()
		defer gcRaised.Unlock()
		gcRaised.n--
		if gcRaised.n == 0 && gcRaised.prev >= 0 && gcRaised.prev < percent {
			debug.SetGCPercent(gcRaised.prev)
		}
	}
}

// builder turns the records into the index, the way the Delve recorder
// does from its breakpoints (see recorder.go).
type builder struct {
	bi *gosym.Table
	// inl returns the binary's inline trees (see
	// instrumented.inlineTrees); pcs is what the recordings of the
	// binary found of their PCs.
	inl   func() *inlineTrees
	pcs   *pcSyms
	file  *instrument.File // names the values' types
	sites []instrument.Site
	lim   Limits
	// rec gets every frame, kept or not (see limit), as it enters.
	rec    *trace.Recording
	counts map[string]*int // by fid name
	stacks map[int64]*gstack
	// last is the goroutine of the last stack looked up, and its stack.
	lastG  int64
	lastS  *gstack
	ginfo  map[int64]*instrument.Record
	fns    map[uint64]*ifn
	siteFn []siteFn // by site: its function
	pos    map[uint64]posID
	types  []itype // by type number
	// argNames and resNames are by site the names of its parameters and
	// results, interned in rec.
	argNames, resNames [][]trace.Str
	// lazy is set when the values stay in the record file (see
	// fileValues): frames refer to them there, named by their function,
	// whose names are those of its first frame's site (fnSite, by FuncID:
	// the site plus one). sourced counts the frames so attached, and
	// valuesEnd is by chunk of the file the end of the last of their
	// values in it (see fileValues.trim).
	lazy      bool
	fnSite    []int32
	sourced   int
	valuesEnd []int
	// copied holds the values copied out of the file while its chunks
	// are handed back to the runtime (nil if they never are); inFile
	// counts the frames whose values are left in the file.
	copied *copiedValues
	inFile int
	// marks are, for the frames past the frame limit (by Seq from the
	// limit), where the values copied stood when each was entered: the
	// copies made since go back when the frame is dropped (see
	// dropDone), but for those below floor, made for an earlier frame
	// (its results, when it returns after a later one was entered).
	marks []copiedMark
	floor copiedMark
	// decoded holds the values of a record decoded for the index.
	decoded []instrument.Value
	text    []byte // a value's text as it is made
	seq     uint64
	// numbered holds, for the last records read that the runtime
	// numbered (all but exits), a ring, the record's number and the run
	// order the builder's next event had then (see stopOrder).
	numbered  [1 << 12]numberedAt
	numberedN int
	// records counts the records read, atExit those read before the
	// target ended (see RecordTimes).
	records, atExit int
	// dropped counts the frames past the frame limit dropped as they
	// ended (see dropDone); pinned are the frames past the limit that ran
	// a go statement.
	dropped int
	pinned  map[int]bool
	// openRuns counts the runs of dropped callees that the open frames
	// hold (see listDropped), at most maxRuns.
	openRuns, maxRuns int
	// panicking lists, by goroutine, the frames a panic unwound whose
	// panic value is not known yet (a recover or the end says it).
	panicking map[int64][]int
	// panicked lists the frames that panicked, in order of exit.
	panicked []int
	// spawnAt is the spawn a go statement's record (by Seq) made; gos
	// the records of the go statements by parent and line, kids the
	// goroutines they created by their first record, started how many
	// of them have a first frame, and first that frame by goroutine.
	spawnAt map[uint64]ispawn
	gos     map[spawnKey][]uint64
	kids    map[spawnKey][]int64
	started map[spawnKey]int
	first   map[int64]int
	// siteIDs caches callPosID's ids by PC, direct-mapped: a map lookup
	// per frame costs more than the rest of its entry. fnAt does the same
	// for fn: a function returns at as many PCs as it has return
	// statements, and a frame's exit looks its PC up.
	siteIDs [256]struct {
		pc uint64
		id uint32
	}
	fnAt [256]siteFn
}

// spawnKey is a go statement: the goroutine that ran it and its line.
type spawnKey struct {
	parent int64
	site   string
}

// fixSpawns pairs the goroutines with the go statements that created
// them, and corrects the links of their first frames. A goroutine knows its
// parent and the line of the go statement, not which execution of it: the
// executions of one go statement by one parent are paired in order with
// its goroutines in order of their ids, which the runtime hands out in
// order of creation. The first frames were linked in order of their entry
// (see spawned), which differs where goroutines started out of order.
func (b *builder) fixSpawns() {
	for k, ids := range b.kids {
		slices.Sort(ids)
		for j, id := range ids {
			seq, ok := b.first[id]
			if !ok || j >= len(b.gos[k]) {
				continue
			}
			p := b.spawnAt[b.gos[k][j]]
			if b.rec.ParentOf(seq) != p.by || b.rec.RunOrderOf(seq) != p.seq {
				b.rec.SetSpawn(seq, p.by, p.site, p.seq)
			}
		}
	}
}

// gstack is a goroutine's open frames, innermost last.
type gstack struct {
	open []iopen
	// dropped counts, by function (FuncID), the goroutine's frames that
	// dropDone dropped.
	dropped []int32
	// kids are the direct callees dropped past the frame limit of the
	// open frames, innermost last (see iopen.kids).
	kids []dropRun
	// entered counts, by function, the goroutine's frames entered past
	// the frame limit.
	entered []int32
}

// enteredOf is how many frames of function fn the goroutine entered past
// the frame limit.
func (g *gstack) enteredOf(fn uint32) int32 {
	if int(fn) < len(g.entered) {
		return g.entered[fn]
	}
	return 0
}

// droppedOf is how many of the goroutine's frames of function fn were
// dropped.
func (g *gstack) droppedOf(fn uint32) int32 {
	if int(fn) < len(g.dropped) {
		return g.dropped[fn]
	}
	return 0
}

// siteFn is a function found from a PC: of a site's hooks (siteFn, by
// site), or any (fnAt, by PC).
type siteFn struct {
	pc uint64
	fn *ifn
}

type iopen struct {
	frame int // Seq in rec
	off   uint64
	site  int
	// dropped and all are the frames of the goroutine and function, and
	// the frames in all, that dropDone had dropped when the frame was
	// entered; entered, the frames of the goroutine and function entered
	// past the frame limit before it (see gstack.entered).
	dropped, entered int32
	all              int
	// at is the frame's place among its caller's direct callees (-1: not
	// one; see trace.DroppedCallee), calls the number of its own so far.
	at, calls int32
	// kids is where its direct callees dropped past the frame limit start
	// in its goroutine's gstack.kids, which lists them up to the place
	// cut (-1: all; see listDropped).
	kids, cut int32
}

// dropRun is a run of direct callees dropped past the frame limit (see
// trace.DroppedCallee).
type dropRun struct {
	at, n  int32
	fn     uint32
	within int32
}

type ispawn struct {
	by   int
	seq  uint64
	site uint32 // PosID
}

// posID is a position and its id in the recording.
type posID struct {
	pos trace.Pos
	id  uint32
}

// loadSymbols reads the function and line tables of a Go binary (the
// runtime's own, which are enough here and much faster to load than the
// DWARF information).
func loadSymbols(path string) (*gosym.Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, text, err := pclntab(f)
	if err != nil {
		return nil, err
	}
	return gosym.NewTable(nil, gosym.NewLineTable(data, text))
}

// pclntab returns the runtime's function and line tables of a Go binary,
// and the address of its code.
func pclntab(f *elf.File) (data []byte, text uint64, err error) {
	pcln, code := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || code == nil {
		return nil, 0, errors.New("no .gopclntab or .text section")
	}
	data, err = pcln.Data()
	return data, code.Addr, err
}

// ifn is a function, found from a PC in it.
type ifn struct {
	name string // fid name
	raw  string // the runtime's name
	decl trace.Pos
	// id is the function's id in the recording (once it has a frame).
	id    uint32
	hasID bool
	// count is the number of frames of the function so far (shared by
	// the PCs of one function).
	count *int
}

// fn returns the function of a PC, cached in b.fnAt (whose zero entries
// are never a hit: no PC is 0 and has a function).
func (b *builder) fn(pc uint64) *ifn {
	c := &b.fnAt[pcSlot(pc)]
	if c.pc != pc || c.fn == nil {
		c.pc, c.fn = pc, b.lookupFn(pc)
	}
	return c.fn
}

// fnHit is fn's hit in the cache, nil on a miss: it is inlined where fn
// is not (a call saved a record, as with siteHit, siteIDHit,
// gstack.deeper and namedHit: 5–6 ns a record in all, README).
func (b *builder) fnHit(pc uint64) *ifn {
	if c := &b.fnAt[pcSlot(pc)]; c.pc == pc {
		return c.fn
	}
	return nil
}

// pcSlot is the entry of b.fnAt and b.siteIDs for pc.
func pcSlot(pc uint64) uint64 { return (pc * 0x9e3779b97f4a7c15) >> 56 }

// lookupFn is fn without the cache.
func (b *builder) lookupFn(pc uint64) *ifn {
	if f, ok := b.fns[pc]; ok {
		return f
	}
	s := b.pcs.funcAt(b.bi, pc)
	f := &ifn{raw: s.raw, name: s.name, decl: s.decl}
	if f.name != "" {
		f.count = b.counts[f.name]
		if f.count == nil {
			f.count = new(int)
			b.counts[f.name] = f.count
		}
	}
	b.fns[pc] = f
	return f
}

// siteHit is siteFunc's hit in the cache, nil on a miss (see fnHit).
func (b *builder) siteHit(site int, pc uint64) *ifn {
	if site >= 0 && site < len(b.siteFn) {
		if c := &b.siteFn[site]; c.pc == pc {
			return c.fn
		}
	}
	return nil
}

// siteFunc is b.fn(pc) for the entry hook of site, cached by site.
func (b *builder) siteFunc(site int, pc uint64) *ifn {
	if site < 0 || site >= len(b.siteFn) {
		return b.fn(pc)
	}
	c := &b.siteFn[site]
	if c.fn == nil || c.pc != pc {
		c.pc, c.fn = pc, b.fn(pc)
	}
	return c.fn
}

// stack returns the open frames of goroutine goid.
func (b *builder) stack(goid int64) *gstack {
	if b.lastS != nil && b.lastG == goid {
		return b.lastS
	}
	s := b.stacks[goid]
	if s == nil {
		s = &gstack{}
		b.stacks[goid] = s
	}
	b.lastG, b.lastS = goid, s
	return s
}

// callPos is the position of the call that returns to pc.
func (b *builder) callPos(pc uint64) trace.Pos { return b.callPosID(pc).pos }

// callPosID is callPos with the position's id in the recording.
func (b *builder) callPosID(pc uint64) posID {
	if pc == 0 {
		return posID{}
	}
	if p, ok := b.pos[pc]; ok {
		return p
	}
	p := posID{pos: b.pcs.callAt(b.bi, b.inl, pc)}
	p.id = b.rec.PosID(p.pos)
	b.pos[pc] = p
	return p
}

// siteIDHit is callSiteID's hit in the cache (see fnHit).
func (b *builder) siteIDHit(pc uint64) (uint32, bool) {
	c := &b.siteIDs[pcSlot(pc)]
	return c.id, c.pc == pc
}

// callSiteID is callPosID(pc).id, cached in b.siteIDs (whose zero
// entries are right for pc 0).
func (b *builder) callSiteID(pc uint64) uint32 {
	c := &b.siteIDs[pcSlot(pc)]
	if c.pc != pc {
		c.pc, c.id = pc, b.callPosID(pc).id
	}
	return c.id
}

func (b *builder) next() uint64 {
	b.seq++
	return b.seq
}

// numberedAt is a record's number and the run order of the builder's
// next event when it was read.
type numberedAt struct{ num, order uint64 }

// stopOrder returns the run order before which every record numbered up
// to stop was read (the runtime's number of its last record before it
// stopped recording: see instrument.File.StopSeq): the order of the first
// record numbered after it, or of the next event. Numbered records are
// read in order of number, but the run order counts exits, which take no
// number. 0 when the ring of the last numbered records no longer holds the
// first after stop.
func (b *builder) stopOrder(stop uint64) uint64 {
	at := b.seq + 1
	for i := b.numberedN - 1; i >= 0 && i >= b.numberedN-len(b.numbered); i-- {
		n := b.numbered[i%len(b.numbered)]
		if n.num <= stop {
			return at
		}
		at = n.order
	}
	if b.numberedN > len(b.numbered) {
		return 0
	}
	return at
}

func (b *builder) event(r *instrument.Record) {
	b.records++
	if r.Kind != instrument.RecExit {
		b.numbered[b.numberedN%len(b.numbered)] = numberedAt{r.Seq, b.seq + 1}
		b.numberedN++
	}
	switch r.Kind {
	case instrument.RecGInfo:
		c := *r // r is only valid during the call
		b.ginfo[r.Goid] = &c
		if r.Parent > 0 {
			k := spawnKey{r.Parent, r.CreatorSite}
			b.kids[k] = append(b.kids[k], r.Goid)
		}
	case instrument.RecGo:
		st := b.stack(r.Goid).open
		if len(st) == 0 {
			return
		}
		if by := st[len(st)-1].frame; by >= b.lim.MaxFrames {
			b.pinned[by] = true
		}
		b.spawnAt[r.Seq] = ispawn{by: st[len(st)-1].frame, seq: b.next(), site: b.callSiteID(r.PC)}
		k := spawnKey{r.Goid, b.callPos(r.PC).String()}
		b.gos[k] = append(b.gos[k], r.Seq)
	case instrument.RecEnter:
		b.enter(r)
	case instrument.RecExit:
		b.leave(r)
	case instrument.RecRecover:
		if r.Text == "" {
			return
		}
		if r.Unwinding {
			// The value of the panic that unwound the frame that just
			// exited (which a recover in the program, if any, gives
			// again below).
			if fs := b.panicking[r.Goid]; len(fs) > 0 && b.panickedAt(fs[len(fs)-1]) {
				b.rec.SetPanic(fs[len(fs)-1], r.Text)
			}
			return
		}
		for _, i := range b.panicking[r.Goid] {
			b.rec.SetPanic(i, r.Text)
			b.rec.SetRecovered(i)
		}
		delete(b.panicking, r.Goid)
	}
}

func (b *builder) enter(r *instrument.Record) {
	fn := b.siteHit(r.Site, r.PC)
	if fn == nil {
		fn = b.siteFunc(r.Site, r.PC)
	}
	if fn.name == "" {
		return
	}
	gs := b.stack(r.Goid)
	stack := gs.open
	if gs.deeper(r.Off, false) {
		stack = b.unwindTo(gs, r.Off, false)
	}
	*fn.count++
	if !fn.hasID {
		fn.id, fn.hasID = b.rec.FuncID(fn.name, fn.decl), true
	}
	// Stores to e and to the open frame below go straight to them: a
	// struct made apart and copied is read back in 16-byte loads before
	// its narrower stores are done (a stall on each, a tenth of the
	// builder's time in a profile of fib's records).
	var e trace.Entry
	e.Func, e.Index, e.Parent, e.Goroutine, e.EntrySeq = fn.id, *fn.count, -1, r.Goid, b.next()
	if len(stack) > 0 {
		top := &stack[len(stack)-1]
		e.Parent = top.frame
		if r.CallerOff == top.off {
			var ok bool
			if e.CallSite, ok = b.siteIDHit(r.CallerPC); !ok {
				e.CallSite = b.callSiteID(r.CallerPC)
			}
		} else {
			// Library code or the runtime called this frame for the
			// innermost open one: a deferred call run by a panic belongs
			// to it directly (as in the Delve recorder).
			e.Indirect = true
			for _, l := range r.Chain {
				if b.fn(l.PC).raw == "runtime.gopanic" {
					e.Indirect = false
				}
				if l.Off == top.off {
					e.CallSite = b.callSiteID(l.PC)
					break
				}
			}
		}
	} else if gi := b.ginfo[r.Goid]; gi != nil {
		delete(b.ginfo, r.Goid)
		b.spawned(&e, gi)
	}
	seq := b.rec.Enter(&e)
	if b.copied != nil && seq-b.lim.MaxFrames == len(b.marks) {
		b.marks = append(b.marks, b.copied.mark())
	}
	if e.Spawn {
		b.first[r.Goid] = seq
	}
	if site := r.Site; site >= 0 && site < len(b.sites) && r.NValues > 0 {
		b.attach(seq, r, fn.id, site, false)
	}
	at := int32(-1)
	if k := len(stack) - 1; k >= 0 && e.Parent == stack[k].frame && !e.Indirect && !e.Spawn {
		at = stack[k].calls
		stack[k].calls++
	}
	gs.open = append(stack, iopen{})
	o := &gs.open[len(gs.open)-1]
	o.frame, o.off, o.site, o.dropped, o.all, o.at = seq, r.Off, r.Site, gs.droppedOf(fn.id), b.dropped, at
	o.kids, o.cut = int32(len(gs.kids)), -1
	if seq >= b.lim.MaxFrames {
		// A frame past the limit counts the recursive calls it makes
		// (listDropped) by its goroutine's entries.
		if int(fn.id) >= len(gs.entered) {
			gs.entered = append(gs.entered, make([]int32, int(fn.id)+1-len(gs.entered))...)
		}
		o.entered = gs.entered[fn.id]
		gs.entered[fn.id]++
	}
}

// attach gives frame seq, of function fn (a FuncID) and site, the values
// of record r: its arguments, or with results its results. They stay in
// the record file when they can, or are copied out of it when their
// chunk goes back to the target (see fileValues), else they are decoded
// into the index.
func (b *builder) attach(seq int, r *instrument.Record, fn uint32, site int, results bool) {
	if b.lazy && r.Recycled {
		// The chunk goes back to the runtime once read: the values are
		// copied, or else decoded into the index.
		if vb := b.file.ValuesBytes(r.ValuesAt, r.ValuesEnd); len(vb) > 0 && (b.namedHit(fn, site) || b.namedBy(fn, site)) {
			if ref, ok := b.copied.add(vb); ok {
				b.rec.AttachSource(seq, ref, r.NValues, results)
				b.sourced++
				if seq < b.rec.Len()-1 {
					b.floor = b.copied.mark()
				}
				return
			}
		}
	} else if b.lazy && r.ValuesAt < copiedRef && (b.namedHit(fn, site) || b.namedBy(fn, site)) {
		c := r.ValuesAt / instrument.ChunkSize
		if c >= len(b.valuesEnd) {
			b.valuesEnd = append(b.valuesEnd, make([]int, c+1-len(b.valuesEnd))...)
		}
		b.rec.AttachSource(seq, uint32(r.ValuesAt), r.NValues, results)
		b.sourced++
		b.inFile++
		b.valuesEnd[c] = max(b.valuesEnd[c], r.ValuesEnd)
		return
	}
	vs := r.Values
	if b.lazy {
		var err error
		b.decoded, err = b.file.ValuesAt(b.decoded[:0], r.ValuesAt, r.NValues)
		if err != nil {
			// The record was read through: its values decode, but for a
			// bug, said in their place.
			v := []trace.Value{{Error: err.Error()}}
			if results {
				b.rec.SetResults(seq, v)
			} else {
				b.rec.SetArgs(seq, v)
			}
			return
		}
		vs = b.decoded
	}
	var names []trace.Str
	switch {
	case site < 0 || site >= len(b.sites):
	case results:
		names = b.names(b.resNames, site, b.sites[site].Results)
	default:
		names = b.names(b.argNames, site, b.sites[site].Params)
	}
	first := b.rec.Values()
	b.values(vs, names)
	b.rec.AttachValues(seq, first, results)
}

// namedHit is namedBy's answer for a function whose site is known, inlined
// (see fnHit); false otherwise.
func (b *builder) namedHit(fn uint32, site int) bool {
	return int(fn) < len(b.fnSite) && b.fnSite[fn] == int32(site)+1
}

// namedBy reports whether the values of function fn are named by those of
// site: the site of its first frame with values, whose names the recording
// keeps for the function (a function has one site, but for a bug).
func (b *builder) namedBy(fn uint32, site int) bool {
	if site < 0 || site >= len(b.sites) {
		return false
	}
	if int(fn) >= len(b.fnSite) {
		b.fnSite = append(b.fnSite, make([]int32, int(fn)+1-len(b.fnSite))...)
	}
	switch b.fnSite[fn] {
	case int32(site) + 1:
		return true
	case 0:
		b.fnSite[fn] = int32(site) + 1
		b.rec.SetValueNames(fn, b.sites[site].Params, b.sites[site].Results)
		return true
	}
	return false
}

// names returns by site names interned in the recording (cached in c).
func (b *builder) names(c [][]trace.Str, site int, names []string) []trace.Str {
	if c[site] == nil && len(names) > 0 {
		b.intern(c, site, names)
	}
	return c[site]
}

// intern fills c[site] with names, interned: apart from names, which is
// called per record and inlined.
func (b *builder) intern(c [][]trace.Str, site int, names []string) {
	c[site] = make([]trace.Str, len(names))
	for i, n := range names {
		c[site][i] = b.rec.Intern(n)
	}
}

// spawned links the first frame of a goroutine to the frame that created
// the goroutine: a go statement recorded in the parent at the creator's
// line (the first of them not paired yet: fixSpawns pairs them exactly at
// the end), or the innermost open frame of the parent when library code
// (t.Run) ran the go statement.
func (b *builder) spawned(e *trace.Entry, gi *instrument.Record) {
	if gi.Parent <= 0 {
		return
	}
	k := spawnKey{gi.Parent, gi.CreatorSite}
	j := b.started[k]
	b.started[k]++
	if gos := b.gos[k]; j < len(gos) {
		p := b.spawnAt[gos[j]]
		e.Parent = p.by
		e.CallSite = p.site
		e.Spawn = true
		e.SpawnSeq = p.seq
		return
	}
	st := b.stack(gi.Parent).open
	if len(st) == 0 {
		return
	}
	top := st[len(st)-1].frame
	topName := b.rec.FuncOf(top)
	e.Parent = top
	e.Spawn = true
	e.Indirect = true
	e.SpawnSeq = b.next()
	// The parent's traceback says where the spawning frame is.
	lines := strings.Split(gi.ParentStack, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		name := lines[i]
		if j := strings.LastIndexByte(name, '('); j > 0 {
			name = name[:j]
		}
		if name != topName {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(loc, " +0x"); j >= 0 {
			loc = loc[:j]
		}
		if j := strings.LastIndexByte(loc, ':'); j > 0 {
			n, _ := strconv.Atoi(loc[j+1:])
			e.CallSite = b.rec.PosID(trace.Pos{File: loc[:j], Line: n})
		}
		break
	}
}

func (b *builder) leave(r *instrument.Record) {
	gs := b.stack(r.Goid)
	stack := gs.open
	if gs.deeper(r.Off, true) {
		stack = b.unwindTo(gs, r.Off, true)
	}
	if len(stack) == 0 || stack[len(stack)-1].off != r.Off {
		return
	}
	// The open frame stays in its slot until the next entry at its depth
	// (read in place: see enter).
	o := &stack[len(stack)-1]
	top := o.frame
	gs.open = stack[:len(stack)-1]
	exitSeq := b.next()
	// The exit hook's PC is in the function that ended the frame: the
	// frame's own, runtime.gopanic or runtime.Goexit.
	f := b.fnHit(r.PC)
	if f == nil {
		f = b.fn(r.PC)
	}
	switch f.raw {
	case "runtime.gopanic":
		b.rec.SetExit(top, trace.Panicked, exitSeq)
		b.panicked = append(b.panicked, top)
		if b.panicking == nil {
			b.panicking = map[int64][]int{}
		}
		b.panicking[r.Goid] = append(b.panicking[r.Goid], top)
	case "runtime.Goexit":
		b.rec.SetExit(top, trace.Goexited, exitSeq)
	default:
		b.rec.SetExit(top, trace.Returned, exitSeq)
		fn := uint32(b.rec.FuncNumOf(top))
		if r.NValues > 0 {
			b.attach(top, r, fn, o.site, true)
		}
		// A frame past the limit that returned and ran no go statement
		// is dropped, now or at the end (see limit): its caller, the
		// innermost open frame, lists it, with its recursive calls, once
		// its own dropped callees are settled (the open frames' lists
		// are a stack).
		k := len(gs.open) - 1
		list := top >= b.lim.MaxFrames && o.at >= 0 && !b.pinned[top] && k >= 0 && gs.open[k].frame == b.rec.ParentOf(top)
		if list {
			b.rec.SetInList(top)
		}
		if top >= b.lim.MaxFrames {
			b.dropDone()
		}
		// Frames were dropped while this one ran, and it is kept (for
		// now): how many of its function, on its goroutine, tells its
		// recursive calls (see trace.Recording.EntriesWithin).
		if b.dropped > o.all && top < b.rec.Len() {
			b.rec.SetDroppedWithin(top, int(gs.droppedOf(fn)-o.dropped))
		}
		if list {
			b.settle(gs, o)
			b.listDropped(gs, &gs.open[k], o.at, fn, gs.enteredOf(fn)-o.entered-1)
			return
		}
	}
	b.settle(gs, o)
}

// panickedAt reports whether frame seq, of b.panicked, is there: a frame
// that a recovered panic unwound may be gone (see dropDone), its Seq
// another frame's or none.
func (b *builder) panickedAt(seq int) bool {
	return seq < b.rec.Len() && b.rec.ExitOf(seq) == trace.Panicked
}

// dropDone drops the frames added last past the frame limit that are done
// with: frames that returned, or that a recovered panic unwound, which
// limit would not keep. They go as they end, when nothing refers to them
// (no callee, for they are the last frames in; no spawn; no value in the
// index), so that a run far longer than the limit takes the memory of the
// frames it keeps; the values copied for them since they were entered go
// too, but for those of earlier frames. (Their function's count of
// frames stays: the FIDs of later frames are the Delve recorder's.)
//
// A frame dropped that its caller did not list as it returned (see
// leave: one that a recovered panic unwound) makes its caller's dropped
// callees not known (trace.Recording.SetCalleesUnlisted).
func (b *builder) dropDone() {
	for seq := b.rec.Len() - 1; seq >= b.lim.MaxFrames; seq-- {
		if b.rec.ExitOf(seq) != trace.Returned && !b.rec.RecoveredOf(seq) ||
			b.rec.SpawnOf(seq) || b.pinned[seq] || b.rec.StoresValues(seq) {
			return
		}
		if k := seq - b.lim.MaxFrames; b.copied != nil && k == len(b.marks)-1 {
			m := b.marks[k]
			if m.before(b.floor) {
				m = b.floor
			}
			b.copied.rollback(m)
			b.marks = b.marks[:k]
		}
		g, fn := b.stack(b.rec.GoroutineOf(seq)), b.rec.FuncNumOf(seq)
		if fn >= len(g.dropped) {
			g.dropped = append(g.dropped, make([]int32, fn+1-len(g.dropped))...)
		}
		g.dropped[fn]++
		if p := b.rec.ParentOf(seq); p >= 0 && !b.rec.IndirectOf(seq) && !b.rec.InList(seq) {
			b.rec.SetCalleesUnlisted(p)
		}
		b.rec.DropLast()
		b.dropped++
	}
}

// listDropped adds to the open frame o, the innermost of g, its direct
// callee at place at, of function fn, dropped past the frame limit with
// within recursive calls: to the last run when it follows it with the
// same function and count, else as a run of its own, unless the open
// frames hold maxRuns runs (the callees from at on are then not listed).
func (b *builder) listDropped(g *gstack, o *iopen, at int32, fn uint32, within int32) {
	if o.cut >= 0 {
		return
	}
	if k := len(g.kids); k > int(o.kids) {
		if last := &g.kids[k-1]; last.fn == fn && last.within == within && last.at+last.n == at {
			last.n++
			return
		}
	}
	if b.openRuns >= b.maxRuns {
		o.cut = at
		return
	}
	g.kids = append(g.kids, dropRun{at: at, n: 1, fn: fn, within: within})
	b.openRuns++
}

// settle gives the dropped callees of open frame o, the innermost of g,
// which has ended (or the run has), to the recording if o is kept (for
// now), and takes them off g's list.
func (b *builder) settle(g *gstack, o *iopen) {
	if int(o.kids) < len(g.kids) || o.cut >= 0 {
		b.settleKids(g, o)
	}
}

// settleKids is settle for a frame with dropped callees (apart, so that
// settle, called at every exit, is inlined).
func (b *builder) settleKids(g *gstack, o *iopen) {
	kids := g.kids[o.kids:]
	b.openRuns -= len(kids)
	if o.frame < b.rec.Len() {
		for _, d := range kids {
			b.rec.AddDroppedCallee(o.frame, int(d.at), int(d.n), d.fn, int(d.within))
		}
		if o.cut >= 0 {
			b.rec.CutDroppedCallees(o.frame, int(o.cut))
		}
	}
	g.kids = g.kids[:o.kids]
}

// deeper reports whether the goroutine's innermost open frame is at offset
// off or deeper (keepAt: strictly deeper), for unwindTo to pop: most
// records find none, and the check is inlined where a call of unwindTo is
// not (see fnHit).
func (g *gstack) deeper(off uint64, keepAt bool) bool {
	n := len(g.open)
	return n > 0 && (g.open[n-1].off > off || !keepAt && g.open[n-1].off == off)
}

// unwindTo pops the open frames of goroutine goid at offset off or deeper
// (keepAt: strictly deeper); their exit hook did not run.
//
// Offsets grow with depth (they are the distance from the stack top).
func (b *builder) unwindTo(gs *gstack, off uint64, keepAt bool) []iopen {
	for gs.deeper(off, keepAt) {
		top := &gs.open[len(gs.open)-1]
		b.rec.SetExit(top.frame, b.rec.ExitOf(top.frame), b.next())
		b.settle(gs, top)
		gs.open = gs.open[:len(gs.open)-1]
	}
	return gs.open
}

// itype is a recorded type, as values of it are rendered.
type itype struct {
	ok   bool
	v    vtype     // its rendering
	name trace.Str // the runtime's name, interned
	// texts of a nil value, a non-nil one (pointer, func, interface) and
	// a composite one without length, interned.
	nilText, nonNil, other trace.Str
}

// typ returns the rendering of type id, made once per type.
func (b *builder) typ(id uint32) *itype {
	if int(id) < len(b.types) && b.types[id].ok {
		return &b.types[id]
	}
	return b.addType(id)
}

// addType makes the rendering of type id.
func (b *builder) addType(id uint32) *itype {
	if id >= 1<<20 {
		t := b.newType(b.file.Type(id))
		return &t
	}
	if id >= uint32(len(b.types)) {
		b.types = append(b.types, make([]itype, int(id)+1-len(b.types))...)
	}
	b.types[id] = b.newType(b.file.Type(id))
	return &b.types[id]
}

func (b *builder) newType(it instrument.Type) itype {
	v := newVType(it)
	return itype{ok: true, v: v, name: b.rec.Intern(v.name), nilText: b.rec.Intern("nil"),
		nonNil: b.rec.Intern(v.nonNil), other: b.rec.Intern(v.other)}
}

// values adds recorded values to the recording, named by names.
func (b *builder) values(vs []instrument.Value, names []trace.Str) {
	for i := range vs {
		v := &vs[i]
		t := b.typ(v.TypeID)
		var name trace.Str
		if i < len(names) {
			name = names[i]
		}
		// Numbers and booleans: their text is made when it is read.
		switch v.Tag {
		case instrument.TagInt:
			b.rec.AppendInt(name, t.name, v.Int)
			continue
		case instrument.TagUint:
			b.rec.AppendUint(name, t.name, v.Uint)
			continue
		case instrument.TagTrue, instrument.TagFalse:
			b.rec.AppendBool(name, t.name, v.Tag == instrument.TagTrue)
			continue
		// Values shown by their type only: its texts, interned.
		case instrument.TagNil:
			b.rec.AppendInterned(name, t.name, t.v.kind, t.nilText, v.Len, v.Cap, true, false)
			continue
		case instrument.TagNonNil:
			b.rec.AppendInterned(name, t.name, t.v.kind, t.nonNil, v.Len, v.Cap, false, true)
			continue
		case instrument.TagOther:
			b.rec.AppendInterned(name, t.name, t.v.kind, t.other, v.Len, v.Cap, false, true)
			continue
		}
		text := b.text[:0]
		var kind trace.Kind
		var n, c int64
		cut := false
		switch v.Tag {
		case instrument.TagFloat:
			kind = trace.KindFloat
			text = append(text, v.Text...)
		case instrument.TagComplex:
			kind = trace.KindComplex
			text = append(text, v.Text...)
		case instrument.TagString:
			kind, n = trace.KindString, v.Len
			text, cut = trace.AppendStringText(text, v.Text, v.Len)
		case instrument.TagNamed:
			kind = trace.KindPointer
			text, _ = trace.AppendTestText(text, t.v.name, v.Text, v.Len)
			cut = true
		case instrument.TagLen:
			kind = t.v.kind
			n, c = v.Len, v.Cap
			cut = true
			text = appendLenText(text, &t.v, v.Len, v.Cap)
		}
		b.rec.AppendValue(name, t.name, kind, text, n, c, false, cut)
		b.text = text
	}
}

// kindOf maps a reflect.Kind's name to the index's kinds.
func kindOf(k string) trace.Kind {
	switch k {
	case "ptr", "unsafe.Pointer":
		return trace.KindPointer
	case "struct":
		return trace.KindStruct
	case "array":
		return trace.KindArray
	case "slice":
		return trace.KindSlice
	case "map":
		return trace.KindMap
	case "chan":
		return trace.KindChan
	case "func":
		return trace.KindFunc
	case "interface":
		return trace.KindInterface
	}
	return trace.KindOther
}

// finish sets the outcome and the exits of the frames still open.
func (b *builder) finish(status int, ctxErr error, timeout time.Duration, stdout, stderr string, t *instrument.File) {
	out := &b.rec.Outcome
	out.ExitCode = status
	out.Stdout, out.Stderr = stdout, stderr
	if ctxErr != nil {
		out.Killed = true
		out.ExitCode = -1
		msg := "the run was interrupted"
		if errors.Is(ctxErr, context.DeadlineExceeded) && timeout > 0 {
			msg = fmt.Sprintf("the run was killed after the timeout of %s (raise --timeout)", timeout)
		}
		b.rec.Partial = msg
	}
	if t.Stopped {
		b.rec.Partial = strings.TrimPrefix(b.rec.Partial+"; "+fullFile(t.Bytes, len(b.stacks)), "; ")
		b.rec.Dropped = true
	}
	if msg := panicMessage(stderr); msg != "" && !out.Killed {
		info := &trace.PanicInfo{Value: msg}
		if b.fatal(info, stderr) || !strings.HasPrefix(msg, "fatal error: ") {
			out.Panic = info
		}
	}
	for _, seq := range b.panicked {
		if out.Panic != nil && b.panickedAt(seq) && b.rec.PanicOf(seq) == "" {
			b.rec.SetPanic(seq, out.Panic.Value)
		}
	}
	out.FailedTests = failedTests(stdout)
	for _, gs := range b.stacks {
		for i := len(gs.open) - 1; i >= 0; i-- {
			b.settle(gs, &gs.open[i])
		}
	}
	b.fixSpawns()
	b.limit()
	if t.Stopped {
		// The entries lost when the file filled come after every record
		// numbered before (see instrument.File.StopSeq).
		if at := b.stopOrder(t.StopSeq); b.rec.CompleteBefore == 0 || at < b.rec.CompleteBefore {
			b.rec.CompleteBefore = at
		}
	}
	b.rec.Index()
}

// fullFile says that the record file filled up, at size bytes, in a run
// of goroutines goroutines, and why when they took most of it: a goroutine
// past its first records writes them to a chunk of the file of its own
// while it runs, and the runtime cannot tell when one waits for good.
func fullFile(size int64, goroutines int) string {
	msg := fmt.Sprintf("the record file reached its size limit (%d MB): frames entered after that are missing", size>>20)
	if int64(goroutines)*instrument.ChunkSize >= size/2 {
		msg += fmt.Sprintf(" (%d goroutines, each of which takes %d KB of the file while it runs once past its first records: a program that runs many at once fills it with few records; record a smaller run)",
			goroutines, instrument.ChunkSize>>10)
	}
	return msg
}

// fatal fills the goroutine, stack and frame of an unrecovered panic from
// the traceback the runtime printed.
//
// It reports whether a goroutine was running into the panic or fatal error:
// a deadlock is found by the scheduler, with every goroutine blocked (the
// Delve recorder sees no goroutine there either, and leaves the frames
// running).
func (b *builder) fatal(info *trace.PanicInfo, stderr string) bool {
	i := strings.Index(stderr, "\ngoroutine ")
	if i < 0 {
		return false
	}
	sec := stderr[i+1:]
	if j := strings.Index(sec, "\n\n"); j >= 0 {
		sec = sec[:j]
	}
	lines := strings.Split(sec, "\n")
	head := strings.TrimPrefix(lines[0], "goroutine ")
	if j := strings.IndexByte(head, ' '); j > 0 {
		info.Goroutine, _ = strconv.ParseInt(head[:j], 10, 64)
	}
	if !strings.Contains(head, "[running") {
		return false
	}
	// The frames the panic unwound on that goroutine, innermost first
	// (b.panicked is in order of exit): not those of panics the program
	// recovered.
	var unwound []int
	for _, seq := range b.panicked {
		if b.panickedAt(seq) && b.rec.GoroutineOf(seq) == info.Goroutine && !b.rec.RecoveredOf(seq) {
			unwound = append(unwound, seq)
		}
	}
	if len(unwound) == 0 {
		// A fatal error (a deadlock, a concurrent map write) runs no
		// deferred call: the goroutine's frames are still open.
		st := b.stack(info.Goroutine).open
		for k := len(st) - 1; k >= 0; k-- {
			seq := st[k].frame
			b.rec.SetExit(seq, trace.Panicked, 0)
			b.panicked = append(b.panicked, seq)
			unwound = append(unwound, seq)
		}
	}
	for k := 1; k+1 < len(lines); k += 2 {
		name := lines[k]
		if j := strings.LastIndexByte(name, '('); j > 0 {
			name = name[:j]
		}
		if name == "panic" {
			name = "runtime.gopanic"
		}
		if strings.HasPrefix(lines[k], "created by ") {
			break
		}
		loc := strings.TrimSpace(lines[k+1])
		if j := strings.LastIndex(loc, " +0x"); j >= 0 {
			loc = loc[:j]
		}
		e := trace.StackEntry{Func: name}
		if j := strings.LastIndexByte(loc, ':'); j > 0 {
			n, _ := strconv.Atoi(loc[j+1:])
			e.Pos = trace.Pos{File: loc[:j], Line: n}
		}
		if len(unwound) > 0 && b.rec.FuncOf(unwound[0]) == name {
			e.FID = b.rec.FIDOf(unwound[0])
			unwound = unwound[1:]
			if info.Frame.IsZero() {
				info.Frame = e.FID
			}
		}
		info.Stack = append(info.Stack, e)
	}
	return true
}

// limit applies MaxFrames: the first MaxFrames frames are kept, and every
// frame on the failing path (frames ended by a panic that was not
// recovered or by runtime.Goexit, frames still running at the end) with
// its callers. (Most frames past the limit that are not kept went as they
// ended: see dropDone.)
func (b *builder) limit() {
	max, n := b.lim.MaxFrames, b.rec.Len()
	all := n + b.dropped
	if all <= max {
		return
	}
	keep := make([]bool, n)
	for i := range max {
		keep[i] = true
	}
	extra := 0
	for i := max; i < n; i++ {
		if b.rec.ExitOf(i) == trace.Returned || b.rec.RecoveredOf(i) {
			continue
		}
		for j := i; j >= 0 && !keep[j]; j = b.rec.ParentOf(j) {
			keep[j] = true
			extra++
		}
	}
	// A frame entered before the last of the first max frames is one of
	// them: the recording is whole before that entry.
	b.rec.CompleteBefore = b.rec.EntrySeqOf(max - 1)
	b.rec.Keep(keep)
	b.rec.Dropped = true
	b.keptValues()
	msg := fmt.Sprintf("frame limit reached: only the first %d frames were kept, plus %d on the failing path (frames ended by a panic that was not recovered or by runtime.Goexit, or still running at the end, with their callers); %d of %d frames dropped (raise --max-frames)",
		max, extra, all-b.rec.Len(), all)
	b.rec.Partial = strings.TrimPrefix(b.rec.Partial+"; "+msg, "; ")
}

// keptValues makes b.valuesEnd again from the frames kept, once limit
// dropped some: the record file then keeps the values of those only (see
// fileValues.trim).
func (b *builder) keptValues() {
	if b.inFile == 0 {
		return
	}
	clear(b.valuesEnd)
	for seq := range b.rec.Len() {
		for _, results := range []bool{false, true} {
			ref, n, ok := b.rec.SourceOf(seq, results)
			if !ok || n == 0 || ref&copiedRef != 0 {
				continue
			}
			end, err := b.file.ValuesEnd(int(ref), n)
			if err != nil {
				// Not read back either: the frame says so in their place.
				continue
			}
			c := int(ref) / instrument.ChunkSize
			b.valuesEnd[c] = max(b.valuesEnd[c], end)
		}
	}
}

// instrumentedBuild is the instrumenter's work for Open: the rewritten
// sources, which the debug build waits for, then the instrumented build
// when that recorder was chosen, made while the debug build is.
type instrumentedBuild struct {
	// rewritten is closed once res (or rerr) is set.
	rewritten chan struct{}
	res       *instrument.Result
	rerr      error
	// hooks: the instrumenting recorder was chosen; done is closed once
	// in (or err) is set.
	hooks bool
	done  chan struct{}
	in    *instrumented
	err   error
}

// wait waits for the build to end (nil: nothing to wait for).
func (b *instrumentedBuild) wait() {
	if b != nil {
		<-b.done
	}
}

// rewrite waits for the rewrite and returns it, nil if there is none.
func (b *instrumentedBuild) rewrite() *instrument.Result {
	if b == nil {
		return nil
	}
	<-b.rewritten
	if b.rerr != nil {
		return nil
	}
	return b.res
}

// startInstrumentedBuild chooses the recorder as opts say: the
// instrumenting one for go test and go run targets (RecorderAuto), Delve
// for a prebuilt binary or --trace. For a target built from source it
// starts the rewrite of its sources (which the counting debug build
// needs, whichever the recorder) and, for the instrumenting recorder, the
// instrumented build; nil means a prebuilt binary.
func startInstrumentedBuild(ctx context.Context, spec *target.Spec, work string, opts Options, logf func(string, ...any)) (*instrumentedBuild, error) {
	kind := opts.Recorder
	switch kind {
	case RecorderAuto:
		kind = RecorderInstrument
		if spec.Kind == target.Exec || len(opts.Trace) > 0 {
			// --trace names library functions, which only Delve sees.
			kind = RecorderDelve
		}
	case RecorderDelve, RecorderInstrument:
	default:
		return nil, fmt.Errorf("unknown recorder %q: use auto, delve or instrument", kind)
	}
	if spec.Kind == target.Exec {
		if kind == RecorderInstrument {
			return nil, fmt.Errorf("the instrumenting recorder needs the source: %s is a prebuilt binary; use --recorder=delve (or auto)", spec.Binary)
		}
		return nil, nil
	}
	if kind == RecorderInstrument && len(opts.Trace) > 0 {
		return nil, errors.New("--trace needs the Delve recorder (the instrumenting recorder sees only the module's own functions); use --recorder=delve or auto")
	}
	b := &instrumentedBuild{rewritten: make(chan struct{}), done: make(chan struct{}), hooks: kind == RecorderInstrument}
	if b.hooks {
		logf("adi: building %s with entry and exit hooks (instrumenting recorder)", spec.Package)
	}
	go func() {
		defer close(b.done)
		b.res, b.rerr = rewrite(ctx, spec, work)
		close(b.rewritten)
		switch {
		case !b.hooks:
		case b.rerr != nil:
			b.err = b.rerr
		default:
			b.in, b.err = buildHooked(ctx, spec, work, b.res, opts.Limits.MaxFrames)
		}
	}()
	return b, nil
}

// buildDebug makes the debug build that the traces re-execute under
// Delve: with the counting hook when the sources were rewritten, so that
// reaching the n-th invocation of a function costs two stops of the
// process instead of n (see counting); plain when they were not, or when
// that build fails, which it says.
func buildDebug(ctx context.Context, spec *target.Spec, work string, b *instrumentedBuild, logf func(string, ...any)) (*target.Program, error) {
	res := b.rewrite()
	if res == nil || res.CountOverlay == "" {
		return spec.Build(ctx, work)
	}
	counted := *spec
	counted.BuildFlags = append(slices.Clone(res.BuildFlags), "-overlay="+res.CountOverlay)
	built, err := counted.Build(ctx, work)
	var berr *target.BuildError
	if err == nil || ctx.Err() != nil || !errors.As(err, &berr) {
		return built, err
	}
	built, err = spec.Build(ctx, work)
	if err == nil {
		out := []byte(berr.Output)
		for cp, orig := range res.Originals {
			out = bytes.ReplaceAll(out, []byte(cp), []byte(orig))
		}
		logf("adi: the debug build with the counting hook failed (%s); re-executions count invocations with breakpoints, one stop each", buildProblem(out, berr))
	}
	return built, err
}

// recordTarget records one run of the built target: with the instrumented
// build when there is one, else (or when it failed, which it says) with
// Delve.
func recordTarget(ctx context.Context, spec *target.Spec, prog *Program, work string, b *instrumentedBuild, ropts RecordOptions, logf func(string, ...any)) (*trace.Recording, error) {
	if b != nil && b.hooks {
		b.wait()
		if b.err == nil {
			for _, n := range b.in.notes {
				logf("adi: %s", n)
			}
			logf("adi: recording %s", describe(spec))
			return recordInstrumented(ctx, b.in, prog, work, ropts)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		logf("adi: the instrumenting recorder cannot be used (%v); recording with the Delve recorder instead", firstLine(b.err.Error()))
	}
	logf("adi: recording %s", describe(spec))
	return Record(ctx, prog, ropts)
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// ParseRecorder reads a recorder's name as the command line and the DAP
// launch request give it: auto, delve or instrument ("" is auto).
func ParseRecorder(s string) (RecorderKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return RecorderAuto, nil
	case "delve":
		return RecorderDelve, nil
	case "instrument":
		return RecorderInstrument, nil
	}
	return "", fmt.Errorf("unknown recorder %q: use auto (instrument for go test/go run, delve for a binary), delve or instrument", s)
}
