//go:build linux && amd64

package adirt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/adi-go/adi/engine/instrument"
)

func fibPlain(n int) int {
	if n < 2 {
		return n
	}
	return fibPlain(n-1) + fibPlain(n-2)
}

// fibHooked is fibPlain as the instrumenter rewrites it.
func fibHooked(n int) (r int) {
	h := E1(1, &n)
	defer X1(h, &r)
	if n < 2 {
		return n
	}
	return fibHooked(n-1) + fibHooked(n-2)
}

// fibWant appends to want the records fibHooked(n) writes, each as its
// kind and its values with their types.
func fibWant(want []string, n int) []string {
	want = append(want, fmt.Sprintf("%d int=%d", instrument.RecEnter, n))
	r := n
	if n >= 2 {
		want = fibWant(want, n-1)
		want = fibWant(want, n-2)
		r = fibPlain(n)
	}
	return append(want, fmt.Sprintf("%d int=%d", instrument.RecExit, r))
}

// startRecording records into a new file from a fresh state.
func startRecording(t testing.TB) string {
	seg, fileSize = nil, 0
	for i := range gtab {
		gtab[i].Store(nil)
	}
	byGoid = map[int64]*G{}
	// As ADI_TRACE_SITES and ADI_TRACE_PKGS would say for the functions
	// of these tests.
	siteSeen = make([]atomic.Bool, 64)
	userPkgs = []string{"main"}
	for i := range ttab {
		ttab[i].Store(nil)
	}
	typeIDs = map[uintptr]uint64{}
	types = G{}
	sharedChunk = G{}
	stopped.Store(false)
	waitAt, readSeen, readSince, readStalled = 0, 0, time.Time{}, false
	dir := t.TempDir()
	if d := os.Getenv("ADI_RECORD_DIR"); d != "" {
		dir = d
	}
	f, err := os.CreateTemp(dir, "records")
	if err != nil {
		t.Fatal(err)
	}
	file = f
	if err := startFile(); err != nil {
		t.Fatal(err)
	}
	enabled = true
	t.Cleanup(func() { enabled = false; f.Close(); os.Remove(f.Name()) })
	return f.Name()
}

// BenchmarkHooks measures the cost of the hooks per call of a recursive
// function: ns/op is per fib(20) (21,891 calls).
//
//	go test ./engine/instrument/rt -bench Hooks
func BenchmarkHooks(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fibPlain(20)
		}
	})
	b.Run("hooked", func(b *testing.B) {
		startRecording(b)
		for i := 0; i < b.N; i++ {
			fibHooked(20)
		}
	})
	// Goroutines on every thread at once: what they share costs here.
	b.Run("parallel", func(b *testing.B) {
		startRecording(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				fibHooked(20)
			}
		})
	})
}

// numbering checks the numbers of records handed over in order: the
// records other than exits are numbered one after the other from 1, and
// an exit carries the number of the last record numbered before it (see
// begin): in a reading of the whole file, that of the record before it;
// in a live one, which can hand an exit over late, no later one, and none
// before its goroutine's last.
type numbering struct {
	live     bool
	numbered uint64           // records numbered so far
	byG      map[int64]uint64 // each goroutine's last number
	wrong    []string
}

func (n *numbering) add(r *instrument.Record) {
	if n.byG == nil {
		n.byG = map[int64]uint64{}
	}
	switch {
	case r.Kind != instrument.RecExit:
		n.numbered++
		if r.Seq != n.numbered {
			n.wrong = append(n.wrong, fmt.Sprintf("record %d of kind %d numbered %d", n.numbered, r.Kind, r.Seq))
			n.numbered = r.Seq
		}
	case !n.live && r.Seq != n.numbered, r.Seq > n.numbered, r.Seq < n.byG[r.Goid]:
		n.wrong = append(n.wrong, fmt.Sprintf("an exit of goroutine %d numbered %d after record %d (its goroutine's last %d)", r.Goid, r.Seq, n.numbered, n.byG[r.Goid]))
	}
	n.byG[r.Goid] = r.Seq
}

// check fails t if a number was wrong.
func (n *numbering) check(t *testing.T) {
	t.Helper()
	if len(n.wrong) > 0 {
		t.Fatalf("%d records numbered out of order; the first: %s", len(n.wrong), n.wrong[0])
	}
}

func TestHooksRecord(t *testing.T) {
	path := startRecording(t)
	before := seq.Load()
	if fibHooked(5) != 5 {
		t.Fatal("fib(5)")
	}
	// 15 calls: an entry each, plus the goroutine's record (exits take
	// no number).
	if n := seq.Load() - before; n != 16 {
		t.Fatalf("%d records numbered, want 16", n)
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	exits := 0
	var order numbering
	for _, r := range tr.Records {
		order.add(&r)
		switch r.Kind {
		case instrument.RecEnter:
			args = append(args, r.Values[0].String())
		case instrument.RecExit:
			exits++
		}
	}
	order.check(t)
	if got := fmt.Sprint(args); got != "[5 4 3 2 1 0 1 2 1 0 3 2 1 0 1]" || exits != 15 {
		t.Fatalf("arguments %s, %d exits", got, exits)
	}
}

//go:noinline
func echo(u uint64, i int64, s string) {
	h := E3(2, &u, &i, &s)
	defer X0(h)
}

// TestRoundTrip reads back with the reader what the hooks wrote, with
// numbers of every encoded size.
func TestRoundTrip(t *testing.T) {
	path := startRecording(t)
	var us []uint64
	for b := 0; b < 64; b++ {
		us = append(us, 1<<b-1, 1<<b, 1<<b+1)
	}
	us = append(us, math.MaxUint64)
	is := []int64{0, -1, 1, 63, -64, 64, -65, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for _, u := range us {
		echo(u, int64(u), "")
	}
	for _, i := range is {
		echo(0, i, "x")
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var gotU []uint64
	var gotI []int64
	var order numbering
	for _, r := range tr.Records {
		order.add(&r)
		if r.Kind != instrument.RecEnter {
			continue
		}
		if len(r.Values) != 3 || r.Site != 2 {
			t.Fatalf("record %+v", r)
		}
		gotU = append(gotU, r.Values[0].Uint)
		gotI = append(gotI, r.Values[1].Int)
	}
	order.check(t)
	if len(gotU) != len(us)+len(is) {
		t.Fatalf("%d entries, want %d", len(gotU), len(us)+len(is))
	}
	for k, u := range us {
		if gotU[k] != u || gotI[k] != int64(u) {
			t.Errorf("entry %d: %d %d, want %d %d", k, gotU[k], gotI[k], u, int64(u))
		}
	}
	for k, i := range is {
		if got := gotI[len(us)+k]; got != i {
			t.Errorf("entry %d: %d, want %d", len(us)+k, got, i)
		}
	}
}

// TestGoroutines records goroutines whose records span several chunks and
// checks that each record is read with its goroutine and in order.
func TestGoroutines(t *testing.T) {
	path := startRecording(t)
	const n = 4
	done := make(chan int64, n)
	for i := 0; i < n; i++ {
		go func() { fibHooked(17); done <- goid() }()
	}
	ids := map[int64]bool{}
	for i := 0; i < n; i++ {
		ids[<-done] = true
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	type count struct{ enters, exits, depth, ginfo int }
	counts := map[int64]*count{}
	var order numbering
	for _, r := range tr.Records {
		order.add(&r)
		c := counts[r.Goid]
		if c == nil {
			c = &count{}
			counts[r.Goid] = c
		}
		switch r.Kind {
		case instrument.RecGInfo:
			c.ginfo++
		case instrument.RecEnter:
			c.enters++
			c.depth++
		case instrument.RecExit:
			c.exits++
			c.depth--
			if c.depth < 0 {
				t.Fatalf("goroutine %d: an exit without its entry", r.Goid)
			}
		}
	}
	order.check(t)
	for id := range ids {
		c := counts[id]
		// fib(17): 5,167 calls.
		if c == nil || c.enters != 5167 || c.exits != 5167 || c.ginfo != 1 {
			t.Errorf("goroutine %d: %+v", id, c)
		}
	}
	if len(tr.Records) != n*(2*5167+1) {
		t.Errorf("%d records, want %d", len(tr.Records), n*(2*5167+1))
	}
	checkFirstPass(t, path, tr)
}

// deepPlain calls fibHooked under n frames of its own, not instrumented,
// and returns the goroutine's id.
func deepPlain(n int) int64 {
	if n > 0 {
		return deepPlain(n - 1)
	}
	fibHooked(2)
	return goid()
}

// TestRootDeep starts goroutines whose first instrumented call is deep
// in code not instrumented, one after another: their tracebacks, which
// say their ids and creators, are longer than the buffer they are first
// read into, and then shorter again.
func TestRootDeep(t *testing.T) {
	path := startRecording(t)
	want := map[int64]bool{}
	for _, depth := range []int{0, 300, 0, 1000, 5} {
		done := make(chan int64)
		go func() { done <- deepPlain(depth) }()
		want[<-done] = true
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tr.Records {
		if r.Kind != instrument.RecGInfo {
			continue
		}
		if !want[r.Goid] || !strings.Contains(r.Creator, "TestRootDeep") || r.Parent != goid() {
			t.Errorf("goroutine %d, created by %s in goroutine %d: want one of %v, by TestRootDeep in %d", r.Goid, r.Creator, r.Parent, want, goid())
		}
		delete(want, r.Goid)
	}
	if len(want) > 0 {
		t.Errorf("goroutines %v not recorded", want)
	}
}

// TestOriginFromG starts goroutines, from the test, from one another and
// from the runtime's timers: once the first have shown where the runtime's
// g keeps a goroutine's origin, it is read there, as the goroutine's
// traceback says it; and a place found wrong is given up.
func TestOriginFromG(t *testing.T) {
	path := startRecording(t)
	// The origins of the current goroutine, from its g and its traceback.
	origins := func() [2]origin {
		fibHooked(1)
		mu.Lock()
		s := byGoid[goid()]
		mu.Unlock()
		return [2]origin{gOrigin(s.gp), tracebackOrigin()}
	}
	got := make(chan [2]origin)
	for range 4 {
		go func() { got <- origins() }()
		<-got
	}
	if !gKnown.Load() {
		t.Fatalf("where the g keeps a goroutine's origin is not known after 4 goroutines (%d looked at)", learning.n)
	}
	starts := []func(){
		func() { go func() { got <- origins() }() },
		func() { go func() { go func() { got <- origins() }() }() },
		func() { time.AfterFunc(time.Microsecond, func() { got <- origins() }) },
	}
	for _, start := range starts {
		start()
		o := <-got
		if o[0] != o[1] || o[1].creator == "" {
			t.Errorf("origin from the g %+v, from the traceback %+v", o[0], o[1])
		}
	}

	// A place found wrong, while origins are checked, is given up: the
	// goroutine's record has its id all the same.
	defer func(at uintptr) { goidAt = at; gKnown.Store(true) }(goidAt)
	goidAt = parentAt
	originChecks.Store(1)
	id := make(chan int64)
	go func() { fibHooked(1); id <- goid() }()
	want := <-id
	if gKnown.Load() {
		t.Error("a wrong place for the goroutine's id was kept")
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range tr.Records {
		if r.Kind == instrument.RecGInfo {
			ids = append(ids, r.Goid)
		}
	}
	if len(ids) == 0 || ids[len(ids)-1] != want {
		t.Errorf("the last goroutine recorded is %v, want %d", ids, want)
	}
}

// spawnHooked is a function of a package not instrumented that starts a
// goroutine running fibHooked and waits for it, as t.Run does, run by
// hooked (an instrumented function) when hooked is set.
func spawnHooked(hooked bool) {
	if hooked {
		h := E0(2)
		defer X0(h)
	}
	done := make(chan bool)
	go func() { fibHooked(2); done <- true }()
	<-done
}

// runHooked is an instrumented function that runs a subtest, which the
// testing package starts; it returns the line of the call of t.Run.
func runHooked(t *testing.T) (line int) {
	h := E0(3)
	defer X0(h)
	_, _, line, _ = runtime.Caller(0)
	t.Run("sub", func(t *testing.T) { fibHooked(2) })
	return line + 1
}

// TestParentStack starts goroutines from code the instrumenter did not
// rewrite. The record of the new goroutine says where its parent called
// that code when the parent runs a frame of the instrumented packages,
// and only then: read from the parent's stack, or else from its
// traceback (which stops the world).
func TestParentStack(t *testing.T) {
	parentStack := func(path, creator string) string {
		t.Helper()
		tr, err := instrument.ReadTrace(path)
		if err != nil {
			t.Fatal(err)
		}
		var infos []*instrument.Record
		for i, r := range tr.Records {
			// This test's goroutine, which testing started, has its
			// record too once it runs an instrumented function.
			if r.Kind == instrument.RecGInfo && strings.Contains(r.Creator, creator) && r.Goid != goid() {
				infos = append(infos, &tr.Records[i])
			}
		}
		if len(infos) != 1 || infos[0].Parent <= 0 {
			t.Fatalf("%d goroutines started by %s recorded: %+v", len(infos), creator, infos)
		}
		return infos[0].ParentStack
	}
	for _, hooked := range []bool{false, true} {
		path := startRecording(t)
		spawnHooked(hooked)
		// userPkgs is main's: spawnHooked's frame is not known for one
		// of them, and its traceback is taken.
		if got := parentStack(path, "spawnHooked"); strings.Contains(got, ".spawnHooked(") != hooked || hooked != (got != "") {
			t.Errorf("hooked %v: the parent's traceback is %q", hooked, got)
		}
	}

	path := startRecording(t)
	name := runtime.FuncForPC(reflect.ValueOf(runHooked).Pointer()).Name()
	userPkgs = []string{name[:strings.LastIndexByte(name, '.')]}
	line := runHooked(t)
	got := parentStack(path, "testing.(*T).Run")
	_, file, _, _ := runtime.Caller(0)
	want := fmt.Sprintf("%s(...)\n\t%s:%d\n", name, file, line)
	if !strings.HasSuffix(got, want) || !strings.Contains(got, " [adi]:") {
		t.Errorf("the subtest's parent, read from its stack:\n%s\nwant it to end with\n%s", got, want)
	}
}

// TestSharedChunk runs goroutines at once: those that write few records
// write them to the chunk that goroutines share, and one that writes many
// takes chunks of its own; every goroutine's records read back in order.
func TestSharedChunk(t *testing.T) {
	path := startRecording(t)
	const n, big = 300, 16 // fib(16): 2,583 calls, past sharedLimit
	release := make(chan struct{})
	var started, done sync.WaitGroup
	ids := make([]int64, n)
	for i := range n {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ids[i] = goid()
			k := 2
			if i == n/2 {
				k = big
			}
			fibHooked(k)
			started.Done()
			<-release
			fibHooked(k)
		}()
	}
	started.Wait()
	close(release)
	done.Wait()
	// 300 goroutines, a chunk each, would take 300 chunks.
	if len(chunkAt) > 8 {
		t.Errorf("%d chunks taken for %d goroutines running at once", len(chunkAt), n)
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	for _, r := range tr.Records {
		line := fmt.Sprint(r.Kind)
		for _, v := range r.Values {
			line += " " + v.Type.Name + "=" + v.String()
		}
		got[r.Goid] = append(got[r.Goid], line)
	}
	for i, id := range ids {
		k := 2
		if i == n/2 {
			k = big
		}
		want := fibWant(fibWant([]string{fmt.Sprint(instrument.RecGInfo)}, k), k)
		if !slices.Equal(got[id], want) {
			t.Fatalf("goroutine %d (fib(%d) twice): %d records %.200q, want %d %.200q", id, k, len(got[id]), got[id], len(want), want)
		}
	}
	checkFirstPass(t, path, tr)
}

// TestLiveRead reads the records while goroutines write them, with the
// types of their values: Poll hands over every record once, in order of
// number (see numbering), and each goroutine's records as a reading of
// the whole file after.
func TestLiveRead(t *testing.T) {
	path := startRecording(t)
	fd, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	f, err := instrument.OpenLive(fd, maxFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[int64][]string{}
	var read atomic.Uint64
	order := numbering{live: true}
	collect := func(r *instrument.Record) error {
		order.add(r)
		storeMax(&read, r.Seq)
		line := fmt.Sprint(r.Seq, r.Kind, r.Goid, r.Site, r.PC, r.Off)
		for _, v := range r.Values {
			line += " " + f.Type(v.TypeID).Name + "=" + v.String()
		}
		got[r.Goid] = append(got[r.Goid], line)
		return nil
	}
	const n = 4
	done := make(chan struct{})
	go func() {
		ran := make(chan bool)
		for i := 0; i < n; i++ {
			go func() {
				for k := 0; k < 30; k++ {
					fibHooked(12)
					echo(uint64(k), int64(-i), strings.Repeat("x", k))
					// The reader reads the round before the next
					// one is written (without that, a reader the
					// scheduler left out could find every record
					// in its first poll).
					for w := seq.Load(); read.Load() < w; {
						time.Sleep(50 * time.Microsecond)
					}
				}
				ran <- true
			}()
		}
		for i := 0; i < n; i++ {
			<-ran
		}
		close(done)
	}()
	polls := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		k, err := f.Poll(false, collect)
		if err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			polls++
		}
	}
	if _, err := f.Poll(true, collect); err != nil {
		t.Fatal(err)
	}
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	order.check(t)
	// Each goroutine's records in the same order (the goroutines' exits
	// can come in another order among the others' records: see Poll).
	want := map[int64][]string{}
	records := 0
	for _, r := range tr.Records {
		line := fmt.Sprint(r.Seq, r.Kind, r.Goid, r.Site, r.PC, r.Off)
		for _, v := range r.Values {
			line += " " + v.Type.Name + "=" + v.String()
		}
		want[r.Goid] = append(want[r.Goid], line)
		records++
	}
	// fib(12): 465 calls; echo: 1; a goroutine's record.
	if records != n*(30*2*466+1) {
		t.Errorf("%d records in the file, want %d", records, n*(30*2*466+1))
	}
	if len(got) != len(want) {
		t.Fatalf("records of %d goroutines read live, of %d after", len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("goroutine %d: record %d read live: %s\nafter: %s", id, i, g[i], w[i])
			}
		}
		if len(g) != len(w) {
			t.Fatalf("goroutine %d: %d records read live, %d after", id, len(g), len(w))
		}
	}
	if polls < 2 {
		t.Errorf("the records came in %d polls, want several while they were written", polls)
	}
	t.Logf("%d records in %d polls", records, polls)
}

// storeMax stores v in a if it is larger than a's value (a reader's
// progress: an exit handed over late carries an older number).
func storeMax(a *atomic.Uint64, v uint64) {
	if v > a.Load() {
		a.Store(v)
	}
}

// openRecycling opens the record file at path, being written, for a
// reader that hands the chunks it reads back to the runtime.
func openRecycling(t *testing.T, path string) *instrument.File {
	t.Helper()
	fd, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fd.Close() })
	f, err := instrument.OpenLive(fd, maxFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.Recycle = true
	return f
}

// pollWhile polls f, handing its records to fn, while run runs (on a
// goroutine of its own), then once more as at the target's end.
func pollWhile(t *testing.T, f *instrument.File, run func(), fn func(*instrument.Record) error) {
	t.Helper()
	done := make(chan struct{})
	go func() { run(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if _, err := f.Poll(false, fn); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Poll(true, fn); err != nil {
		t.Fatal(err)
	}
}

// TestLiveReadRecycled reads the records while goroutines write them, as
// TestLiveRead does, handing the chunks read back to the runtime: every
// record comes once, numbered without a gap, each goroutine's in the order
// its calls made them with the values they had, and the file holds fewer
// chunks than the records took.
func TestLiveReadRecycled(t *testing.T) {
	path := startRecording(t)
	f := openRecycling(t, path)
	const n, rounds = 4, 60
	got := map[int64][]string{}
	records := 0
	var read atomic.Uint64
	order := numbering{live: true}
	collect := func(r *instrument.Record) error {
		records++
		order.add(r)
		storeMax(&read, r.Seq)
		line := fmt.Sprint(r.Kind)
		for _, v := range r.Values {
			line += " " + f.Type(v.TypeID).Name + "=" + v.String()
		}
		got[r.Goid] = append(got[r.Goid], line)
		return nil
	}
	goids := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			goids[i] = goid()
			for k := range rounds {
				fibHooked(12)
				echo(uint64(k), int64(-i), strings.Repeat("x", k))
				// The reader keeps up, and so reads the chunks as
				// they are written.
				for w := seq.Load(); read.Load() < w; {
					time.Sleep(50 * time.Microsecond)
				}
			}
		})
	}
	pollWhile(t, f, wg.Wait, collect)
	order.check(t)
	for i, id := range goids {
		want := []string{fmt.Sprint(instrument.RecGInfo)}
		for k := range rounds {
			want = fibWant(want, 12)
			want = append(want, fmt.Sprintf("%d uint64=%d int64=%d string=%q", instrument.RecEnter, k, -i, strings.Repeat("x", k)),
				fmt.Sprint(instrument.RecExit))
		}
		if g := got[id]; !slices.Equal(g, want) {
			for j := range min(len(g), len(want)) {
				if g[j] != want[j] {
					t.Fatalf("goroutine %d: record %d is %q, want %q", id, j, g[j], want[j])
				}
			}
			t.Fatalf("goroutine %d: %d records, want %d", id, len(g), len(want))
		}
	}
	if f.Recycled == 0 {
		t.Fatal("no chunk was handed back")
	}
	// Without chunks written again, the records would take this many
	// chunks at least: every record is 6 bytes or more, and a chunk ends
	// 4 KB early at most.
	least := records * 6 / (chunkSize - hdrSize - maxRecord)
	if len(chunkAt) >= least {
		t.Errorf("%d chunks taken for %d records: the chunks handed back were not written again (%d without)", len(chunkAt), records, least)
	}
	t.Logf("%d records in %d chunks, %d of them written again", records, len(chunkAt), f.Recycled)
}

// TestWaitForReader: goroutines that write records faster than a live
// reader reads them wait for it once the file has grown to waitAt, rather
// than growing it further: every record is read, in order, the file stays
// within a segment of waitAt, and the time waited is counted.
func TestWaitForReader(t *testing.T) {
	path := startRecording(t)
	// Segments of 256 KB, 256 KB, 512 KB, 1 MB: the next one takes the
	// file from 2 MB to 4 MB.
	waitAt = 2 << 20
	f := openRecycling(t, path)
	const n, rounds = 2, 20
	records := 0
	order := numbering{live: true}
	collect := func(r *instrument.Record) error {
		records++
		order.add(r)
		// A reader slower than the writers: ~2M records a second.
		if records%1024 == 0 {
			time.Sleep(500 * time.Microsecond)
		}
		return nil
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for range rounds {
				fibHooked(20)
			}
		})
	}
	pollWhile(t, f, wg.Wait, collect)
	const calls = 21891 // fib(20)
	order.check(t)
	if want := n * (rounds*2*calls + 1); records != want {
		t.Fatalf("%d records read; want %d", records, want)
	}
	if f.Bytes > 4<<20 || f.Waited == 0 || readStalled {
		t.Fatalf("the file grew to %d bytes, waiting %v for the reader (taken for stalled: %v); want it within 4 MB, waiting",
			f.Bytes, f.Waited, readStalled)
	}
	// A reader of the whole file (an index built after the run) learns it
	// too.
	whole, err := instrument.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if whole.Waited != f.Waited {
		t.Errorf("the file says the goroutines waited %v, the live reader %v", whole.Waited, f.Waited)
	}
	t.Logf("%d records (~%d MB) in a file of %d MB; waited %v, %d chunks handed back",
		records, records*10>>20, f.Bytes>>20, f.Waited, f.Recycled)
}

// TestWaitHeldChunks: goroutines running at once, each holding a chunk of
// its own, fill the file past waitAt with chunks the reader cannot have
// back; the goroutines that need one more do not wait for it for long.
func TestWaitHeldChunks(t *testing.T) {
	path := startRecording(t)
	waitAt = 1 << 20 // 16 chunks
	f := openRecycling(t, path)
	const n = 64
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for range n {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			fibHooked(12) // ~9 KB: past the chunk goroutines share
			started.Done()
			<-release
		}()
	}
	start := time.Now()
	pollWhile(t, f, func() {
		started.Wait()
		close(release)
		done.Wait()
	}, func(*instrument.Record) error { return nil })
	took := time.Since(start)
	if readStalled || took > readerStall/2 {
		t.Errorf("%d goroutines holding a chunk each took %v (waited %v, reader taken for stalled: %v); want them on without waiting for the reader", n, took, f.Waited, readStalled)
	}
	t.Logf("%d goroutines: %v, waited %v, the file %d KB", n, took, f.Waited, fileSize>>10)
}

// TestWaitForNoReader: the goroutines do not wait for a reader that stops
// handing chunks back, and stop waiting for one that reads nothing for
// readerStall (gone, or never there): the file grows instead.
func TestWaitForNoReader(t *testing.T) {
	defer func(d time.Duration) { readerStall = d }(readerStall)
	readerStall = 100 * time.Millisecond
	for _, reader := range []string{"stops recycling", "is gone", "never looks"} {
		path := startRecording(t)
		waitAt = 1 << 20
		f := openRecycling(t, path)
		fibHooked(20) // 43,782 records, a few hundred KB
		if reader != "never looks" {
			if _, err := f.Poll(false, func(*instrument.Record) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if reader == "stops recycling" {
			f.StopRecycle()
		}
		start := time.Now()
		for range 40 {
			fibHooked(20) // ~16 MB in all
		}
		took := time.Since(start)
		grown := fileSize
		if _, err := f.Poll(true, func(*instrument.Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
		switch {
		case grown < 4<<20:
			t.Errorf("the reader %s: the file grew to %d bytes only", reader, grown)
		case reader == "stops recycling" && (f.Waited != 0 || readStalled):
			t.Errorf("the reader %s, yet the goroutine waited %v (taken for stalled: %v)", reader, f.Waited, readStalled)
		// The time waited sums the sleeps, not the looks at the free list
		// between them: a little under the stall (99.96 ms of 100 once).
		case reader != "stops recycling" && (f.Waited < readerStall*9/10 || f.Waited > 2*readerStall || !readStalled || took < readerStall):
			t.Errorf("the reader %s: the goroutine waited %v of a run of %v, taken for stalled: %v; want the stall waited, then no more",
				reader, f.Waited, took, readStalled)
		}
	}
}

// TestWaitForReaderHeldUp: a reader that reads nothing for readerStall
// (held up, as by a goroutine descheduled in the middle of a record) is
// waited for again once it reads on.
func TestWaitForReaderHeldUp(t *testing.T) {
	defer func(d time.Duration) { readerStall = d }(readerStall)
	readerStall = 100 * time.Millisecond
	startRecording(t)
	waitAt = 1 << 20
	f := openRecycling(t, file.Name())
	poll := func() {
		t.Helper()
		if _, err := f.Poll(false, func(*instrument.Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	waited := func() time.Duration {
		return time.Duration((*atomic.Int64)(unsafe.Add(ctl, ctlWaited)).Load())
	}
	fibHooked(20)
	poll()
	for range 40 {
		fibHooked(20) // ~16 MB: the file grows once the stall is waited
	}
	first, stalled := waited(), readStalled
	// The reader reads on, handing back the chunks it reads: the
	// goroutine writes to them, then needs new ones, and waits again.
	poll()
	for range 80 {
		fibHooked(20)
	}
	second := waited() - first
	if !stalled || first < readerStall*9/10 || second < readerStall*9/10 || second > 2*readerStall {
		t.Errorf("waited %v for the reader before it read on (taken for stalled: %v), %v after; want the stall waited each time, once",
			first, stalled, second)
	}
	if _, err := f.Poll(true, func(*instrument.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestRecycleBehind reads live, handing chunks back, the records of a run
// that has already written them all: every chunk read through goes back,
// and the run's next records are written in them, not in new chunks.
func TestRecycleBehind(t *testing.T) {
	path := startRecording(t)
	const calls = 21891 // fib(20)
	fibHooked(20)
	f := openRecycling(t, path)
	records, recycled := 0, 0
	collect := func(r *instrument.Record) error {
		records++
		if r.Recycled {
			recycled++
		}
		return nil
	}
	for range 3 {
		if _, err := f.Poll(false, collect); err != nil {
			t.Fatal(err)
		}
	}
	if records != 2*calls+1 || recycled != records {
		t.Fatalf("%d records read, %d of them from chunks handed back, want %d of %d", records, recycled, 2*calls+1, 2*calls+1)
	}
	// All but the chunk the goroutine still writes (and the control and
	// type chunks, never handed back) go back.
	taken := len(chunkAt)
	if f.Recycled < taken-4 || f.Recycled == 0 {
		t.Fatalf("%d of %d chunks handed back", f.Recycled, taken)
	}
	fibHooked(20)
	// Two new chunks at most, as in TestRecycleWhileMerging.
	if len(chunkAt) > taken+2 {
		t.Errorf("%d chunks taken for the second run of as many records as the first, which took %d and handed %d back", len(chunkAt)-taken, taken, f.Recycled)
	}
	if _, err := f.Poll(true, collect); err != nil {
		t.Fatal(err)
	}
	if records != 4*calls+1 {
		t.Errorf("%d records read in all, want %d", records, 4*calls+1)
	}
}

// TestRecycleWhileMerging reads a run's records in one Poll while the run
// goes on: the chunks the Poll reads through go back during it, and the
// run writes its next records in them rather than in new chunks (an
// index behind the target reads long batches).
func TestRecycleWhileMerging(t *testing.T) {
	path := startRecording(t)
	const calls = 21891 // fib(20)
	fibHooked(20)
	f := openRecycling(t, path)
	records, taken, more := 0, 0, -1
	collect := func(r *instrument.Record) error {
		records++
		if records == 2*calls {
			// The first run's last records: every chunk but the one
			// the goroutine still writes is read through.
			taken = len(chunkAt)
			fibHooked(20)
			more = len(chunkAt) - taken
		}
		return nil
	}
	if _, err := f.Poll(false, collect); err != nil {
		t.Fatal(err)
	}
	// Two new chunks at most: the second run's records need not take the
	// very bytes of the first's (the race detector's build moves the
	// frames, whose offsets they write), and the first run wrote its first
	// records to the chunk goroutines share (see borrow), which does not
	// go back, the second all of them to chunks of its own.
	if more < 0 || more > 2 {
		t.Errorf("the second run, during the Poll that read the first, took %d new chunks (the first took %d; %d handed back)", more, taken, f.Recycled)
	}
	if _, err := f.Poll(true, collect); err != nil {
		t.Fatal(err)
	}
	if records != 4*calls+1 {
		t.Errorf("%d records read in all, want %d", records, 4*calls+1)
	}
}

// TestStopRecycle stops handing chunks back during a Poll, and at the
// target's end: the records read from then on, those of chunks already
// read in part too, say that their chunk stays (their values need not be
// copied), and no chunk goes back.
func TestStopRecycle(t *testing.T) {
	path := startRecording(t)
	const calls = 21891 // fib(20)
	fibHooked(20)
	f := openRecycling(t, path)
	records, handed, stopAt := 0, -1, calls
	var after []int // records read after the stop from chunks going back
	collect := func(r *instrument.Record) error {
		records++
		if handed >= 0 && r.Recycled {
			after = append(after, records)
		}
		if records == stopAt {
			handed = f.Recycled
			f.StopRecycle()
		}
		return nil
	}
	if _, err := f.Poll(false, collect); err != nil {
		t.Fatal(err)
	}
	if handed <= 0 {
		t.Fatalf("%d chunks handed back before the stop, want some", handed)
	}
	if len(after) > 0 || f.Recycled != handed {
		t.Fatalf("after the stop: %d records from chunks going back (the first: %v), %d chunks handed back (%d before)",
			len(after), after[:min(len(after), 1)], f.Recycled, handed)
	}

	// At the end: the chunk the goroutine was writing, read in part while
	// chunks went back, stays too.
	path = startRecording(t)
	fibHooked(20)
	f = openRecycling(t, path)
	records, handed, stopAt = 0, -1, -1
	if _, err := f.Poll(false, collect); err != nil {
		t.Fatal(err)
	}
	if f.Recycled == 0 {
		t.Fatal("no chunk handed back before the end")
	}
	fibHooked(20)
	handed, after = f.Recycled, nil
	if _, err := f.Poll(true, collect); err != nil {
		t.Fatal(err)
	}
	if records != 4*calls+1 || len(after) > 0 || f.Recycled != handed {
		t.Fatalf("read at the end: %d records (want %d), %d from chunks going back, %d chunks handed back (%d before)",
			records, 4*calls+1, len(after), f.Recycled, handed)
	}
}

// checkFirstPass checks the counts of OpenFile's first pass (from the
// chunks' headers mostly) against the records read.
func checkFirstPass(t *testing.T, path string, tr *instrument.Trace) {
	t.Helper()
	f, err := instrument.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enters, values := 0, 0
	for _, r := range tr.Records {
		values += len(r.Values)
		if r.Kind == instrument.RecEnter {
			enters++
		}
	}
	if f.Enters != enters || f.Values != values || f.Stopped != tr.Stopped {
		t.Errorf("first pass: %d entries, %d values, stopped %v; read: %d, %d, %v",
			f.Enters, f.Values, f.Stopped, enters, values, tr.Stopped)
	}
}

// goid is the current goroutine's id, from its traceback.
func goid() int64 {
	var buf [64]byte
	var id int64
	fmt.Sscanf(string(buf[:runtime.Stack(buf[:], false)]), "goroutine %d", &id)
	return id
}

// TestStop fills the file to its limit: the records up to it are read, and
// the file says it stopped.
func TestStop(t *testing.T) {
	path := startRecording(t)
	old := maxFile
	maxFile = maxSeg
	defer func() { maxFile = old; stopped.Store(false) }()
	fibHooked(25) // 242,785 calls: more than 4 MB of records
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	enters, numbered := 0, 0
	for _, r := range tr.Records {
		if r.Kind == instrument.RecEnter {
			enters++
		}
		if r.Kind != instrument.RecExit {
			numbered++
		}
	}
	if !tr.Stopped || enters < 100_000 || enters >= 242_785 {
		t.Fatalf("stopped %v after %d entries", tr.Stopped, enters)
	}
	// Every record numbered before the stop is in the file, and none
	// after (one goroutine: its chunk had no room left).
	first, last := tr.Records[0].Seq, tr.Records[len(tr.Records)-1].Seq
	if last != tr.StopSeq || uint64(numbered) != last-first+1 {
		t.Errorf("%d records numbered %d to %d; the stop record says %d", numbered, first, last, tr.StopSeq)
	}
	checkFirstPass(t, path, tr)
}

func TestNextSegment(t *testing.T) {
	const limit = 8<<20 + 100
	var sizes []int64
	for size := int64(0); ; {
		n := nextSegment(size, limit)
		if n == 0 {
			break
		}
		if n%chunkSize != 0 {
			t.Fatalf("a segment of %d bytes at %d: not whole chunks", n, size)
		}
		sizes = append(sizes, int64(n)>>10)
		size += int64(n)
	}
	// KB: doubling from 256 KB to 4 MB, then up to the limit's last chunk.
	if got, want := fmt.Sprint(sizes), "[256 256 512 1024 2048 4096]"; got != want {
		t.Errorf("segments %s KB, want %s", got, want)
	}
	if n := nextSegment(limit-chunkSize+1, limit); n != 0 {
		t.Errorf("less than a chunk below the limit: a segment of %d", n)
	}
}

// TestDamagedFile reads files cut short or with bytes changed: errors or
// fewer records, never a crash.
func TestDamagedFile(t *testing.T) {
	path := startRecording(t)
	for i := 0; i < 3; i++ {
		echo(uint64(i)<<40, -int64(i), "some text")
		fibHooked(8)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The records of the first goroutine's chunk (after the control
	// chunk) end at its header's end.
	first := data[chunkSize : 2*chunkSize]
	end := chunkSize + int((*chunkHdr)(unsafe.Pointer(&first[0])).state>>stateEnd&(1<<17-1))
	bad := path + ".bad"
	for cut := 0; cut < end+2; cut += 3 {
		b := append([]byte(nil), data[:cut]...)
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		instrument.ReadTrace(bad)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 500; k++ {
		b := append([]byte(nil), data[:2*chunkSize]...)
		for j := 0; j < 3; j++ {
			b[chunkSize+rng.IntN(end-chunkSize)] = byte(rng.Uint32())
		}
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		instrument.ReadTrace(bad)
	}
}

// BenchmarkRead measures the reader on the records of fib(22) (57,313
// calls): opening the file (its first pass) and reading it in order.
//
//	go test ./engine/instrument/rt -bench Read
func BenchmarkRead(b *testing.B) {
	path := startRecording(b)
	fibHooked(22)
	for b.Loop() {
		f, err := instrument.OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := f.Each(func(r *instrument.Record) error { n += len(r.Values); return nil }); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if n != 2*57313 {
			b.Fatalf("%d values", n)
		}
	}
}

//go:noinline
func kinds(f float32, b bool, s []int, m map[int]int, c chan int, p *int, str string, z complex128, a [3]int, i8 int8, u16 uint16, e error) {
	h := EN(3, &f, &b, &s, &m, &c, &p, &str, &z, &a, &i8, &u16, &e)
	defer X0(h)
}

// TestKinds reads back a value of each kind.
func TestKinds(t *testing.T) {
	path := startRecording(t)
	long := strings.Repeat("ab", maxStr)
	x := 1
	kinds(1.5, true, make([]int, 2, 5), map[int]int{1: 1, 2: 2, 3: 3}, make(chan int, 4), &x, long, complex(1, -2), [3]int{}, -8, 65535, nil)
	kinds(-0.25, false, nil, nil, nil, nil, "", 0, [3]int{}, 127, 0, os.ErrNotExist)
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tr.Records {
		if r.Kind != instrument.RecEnter {
			continue
		}
		var vs []string
		for _, v := range r.Values {
			s := fmt.Sprintf("%s/%s:%d", v.Type.Name, v.Type.Kind, v.Tag)
			switch v.Tag {
			case instrument.TagLen:
				s += fmt.Sprintf(" %d,%d", v.Len, v.Cap)
			case instrument.TagString:
				s += fmt.Sprintf(" %d %q", v.Len, v.Text)
			default:
				s += " " + v.String()
			}
			vs = append(vs, s)
		}
		got = append(got, strings.Join(vs, "; "))
	}
	want := []string{
		`float32/float32:3 1.5; bool/bool:5 ; []int/slice:9 2,5; map[int]int/map:9 3,0; chan int/chan:9 0,4; *int/ptr:8 ; string/string:6 128 "` + long[:maxStr] + `"; complex128/complex128:11 (1 + -2i); [3]int/array:9 3,0; int8/int8:1 -8; uint16/uint16:2 65535; error/interface:7 `,
		`float32/float32:3 -0.25; bool/bool:4 ; []int/slice:7 ; map[int]int/map:7 ; chan int/chan:7 ; *int/ptr:7 ; string/string:6 0 ""; complex128/complex128:11 (0 + 0i); [3]int/array:9 3,0; int8/int8:1 127; uint16/uint16:2 0; error/interface:8 `,
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries: %q", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

//go:noinline
func many(xs ...int) (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15 int) {
	as := make([]any, len(xs))
	for i := range xs {
		as[i] = &xs[i]
	}
	h := EN(4, as...)
	defer XN(h, &r0, &r1, &r2, &r3, &r4, &r5, &r6, &r7, &r8, &r9, &r10, &r11, &r12, &r13, &r14, &r15)
	for i, p := range []*int{&r0, &r1, &r2, &r3, &r4, &r5, &r6, &r7, &r8, &r9, &r10, &r11, &r12, &r13, &r14, &r15} {
		*p = -i
	}
	return
}

// TestValueCounts reads back records with many values: an entry's count
// shares a number with its chain's flag, an exit's is in its descriptor
// up to 14.
func TestValueCounts(t *testing.T) {
	path := startRecording(t)
	var xs []int
	for i := range 40 {
		xs = append(xs, i*i)
	}
	many(xs[:0]...)
	many(xs[:14]...)
	many(xs...)
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tr.Records {
		if r.Kind != instrument.RecEnter && r.Kind != instrument.RecExit {
			continue
		}
		var vs []string
		for _, v := range r.Values {
			vs = append(vs, v.String())
		}
		got = append(got, fmt.Sprintf("%d %d %s", r.Kind, len(r.Values), strings.Join(vs, ",")))
	}
	var args, results []string
	for i := range 32 {
		args = append(args, fmt.Sprint(i*i))
	}
	for i := range 16 {
		results = append(results, fmt.Sprint(-i))
	}
	res := fmt.Sprintf("%d 16 %s", instrument.RecExit, strings.Join(results, ","))
	want := []string{
		fmt.Sprintf("%d 0 ", instrument.RecEnter), res,
		fmt.Sprintf("%d 14 %s", instrument.RecEnter, strings.Join(args[:14], ",")), res,
		fmt.Sprintf("%d 32 %s", instrument.RecEnter, strings.Join(args, ",")), res,
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
}

// TestPadding checks the layout that keeps threads from sharing the cache
// lines they write at every hook.
func TestPadding(t *testing.T) {
	if n := unsafe.Sizeof(G{}); n%cacheLine != 0 {
		t.Errorf("G takes %d bytes, not a multiple of %d", n, cacheLine)
	}
	// The record counter's line in the control chunk holds nothing else:
	// the header ends before it, and nothing is written after it.
	if ctlSeq%cacheLine != 0 || ctlSeq < hdrSize {
		t.Errorf("the record counter at %d of the control chunk, want a line of its own after the header", ctlSeq)
	}
	if n := unsafe.Sizeof(chunkHdr{}); n != hdrSize {
		t.Errorf("a chunk header takes %d bytes, want %d", n, hdrSize)
	}
	// The line own asks for is in the chunk: a record starts at least
	// maxRecord+slack bytes before its end.
	if cacheLine+ownAhead > maxRecord+slack {
		t.Errorf("own fetches up to %d bytes past a record, which has %d of room", cacheLine+ownAhead, maxRecord+slack)
	}
}

// TestHasPrefetchW checks the reading of CPUID against the flags Linux
// lists (3dnowprefetch is its name for PREFETCHW).
func TestHasPrefetchW(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, flags, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != "flags" {
			continue
		}
		want := slices.Contains(strings.Fields(flags), "3dnowprefetch")
		if got := hasPrefetchW(); got != want {
			t.Errorf("hasPrefetchW() = %v, /proc/cpuinfo lists 3dnowprefetch: %v", got, want)
		}
		return
	}
	t.Fatal("no flags line in /proc/cpuinfo")
}

//go:noinline
func subtestHooked(t *testing.T) {
	h := E1(3, &t)
	defer X0(h)
}

// TestTestName: a *testing.T is recorded with the name of its test, so
// that a subtest's frame says which subtest it runs.
func TestTestName(t *testing.T) {
	path := startRecording(t)
	t.Run("a subtest", func(t *testing.T) { subtestHooked(t) })
	// A name past the bound of strings is cut as a string is.
	long := strings.Repeat("x", maxStr)
	t.Run(long, func(t *testing.T) { subtestHooked(t) })
	subtestHooked(nil)
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tr.Records {
		if r.Kind == instrument.RecEnter {
			v := r.Values[0]
			got = append(got, fmt.Sprintf("%d %d %s", v.Tag, v.Len, v))
		}
	}
	name, longName := t.Name()+"/a_subtest", t.Name()+"/"+long
	want := fmt.Sprintf("[%d %d %q %d %d %q %d 0 ]", instrument.TagNamed, len(name), name,
		instrument.TagNamed, len(longName), longName[:maxStr], instrument.TagNil)
	if fmt.Sprint(got) != want {
		t.Fatalf("values %v, want %s", got, want)
	}
}

// boom is a function that panics, as the instrumenter rewrites it.
//
//go:noinline
func boom(n int) (r int) {
	h := E1(3, &n)
	defer X1(h, &r)
	panic(fmt.Sprintf("boom %d", n))
}

// TestUnwinding: calibrate finds where the runtime keeps the panic in
// flight, and the exit hook of a frame that a panic unwinds records the
// panic's value after the frame's exit, also when code without the hooks
// (a library) recovers it.
func TestUnwinding(t *testing.T) {
	path := startRecording(t)
	calibrate()
	if panicRet == 0 {
		t.Fatal("calibrate did not find the panic in flight")
	}
	func() {
		defer func() { recover() }()
		boom(7)
	}()
	tr, err := instrument.ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range tr.Records {
		switch r.Kind {
		case instrument.RecEnter, instrument.RecExit:
			kinds = append(kinds, fmt.Sprint(r.Kind))
		case instrument.RecRecover:
			kinds = append(kinds, fmt.Sprintf("%q unwinding=%v", r.Text, r.Unwinding))
		}
	}
	want := fmt.Sprint([]string{fmt.Sprint(instrument.RecEnter), fmt.Sprint(instrument.RecExit), `"boom 7" unwinding=true`})
	if got := fmt.Sprint(kinds); got != want {
		t.Errorf("records %s, want %s", got, want)
	}
}
