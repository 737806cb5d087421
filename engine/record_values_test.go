package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/adi-go/adi/engine/instrument"
	"github.com/adi-go/adi/engine/target"
	"github.com/adi-go/adi/engine/trace"
)

// valuesProgram passes and returns values of every kind the instrumenting
// recorder tells apart.
const valuesProgram = `package main

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

type T struct{ X int }

type I interface{ M() int }

func (t T) M() int { return t.X }

func (t *T) Add(n int8) (sum int64) { return int64(t.X) + int64(n) }

func ints(a int, b int8, c int64) (int, int64) { return a + int(b), c * 2 }

func uints(a uint, b uint8, c uintptr) uint64 { return uint64(a) + uint64(b) + uint64(c) }

func floats(x float64, y float32, z complex128, w complex64) (float64, complex128) {
	return x * float64(y), z * complex128(w)
}

func bools(a, b bool) bool { return a && !b }

func strs(s, empty, long string) (string, int) { return s + "!", len(long) + len(empty) }

func ptrs(p, q *T, u unsafe.Pointer) *T {
	if p == nil {
		return q
	}
	return p
}

func comps(s, ns []int, m, nm map[string]int, c, nc chan int, a [3]int, t T, f, nf func() int) int {
	return len(s) + len(m) + len(c) + a[0] + t.X
}

func ifaces(i, ni I, e, ne error, x any) (I, error) { return i, e }

func Map[K comparable, V any](m map[K]V, k K) (V, bool) {
	v, ok := m[k]
	return v, ok
}

func variadic(xs ...int) []int { return xs }

func named(t, nt *testing.T) *testing.T { return t }

func main() {
	t := &T{X: 4}
	fmt.Println(t.Add(3), t.M())
	fmt.Println(ints(-7, 3, 1<<40))
	fmt.Println(uints(7, 255, 12))
	fmt.Println(floats(1.5, 2.25, complex(1, -2), complex(0.5, 3)))
	fmt.Println(bools(true, false), bools(false, true))
	fmt.Println(strs("héllo \"q\"\n", "", "a string longer than the bound the recorder keeps"))
	fmt.Println(ptrs(nil, t, nil), ptrs(t, nil, unsafe.Pointer(t)))
	c := make(chan int, 3)
	c <- 1
	s := make([]int, 2, 5)
	fmt.Println(comps(s, nil, map[string]int{"a": 1, "b": 2}, nil, c, nil, [3]int{1, 2, 3}, *t, func() int { return 1 }, nil))
	fmt.Println(ifaces(*t, nil, errors.New("boom"), nil, 3.5))
	fmt.Println(Map(map[string]int{"x": 1}, "x"))
	fmt.Println(Map(map[int]string{1: "one"}, 2))
	fmt.Println(variadic(1, 2, 3), variadic())
	fmt.Println(named(&testing.T{}, nil) != nil)
	// Goroutines, one after the other: each writes to a chunk of its own.
	for g := 0; g < 3; g++ {
		done := make(chan bool)
		go func() {
			for i := 0; i < 20; i++ {
				strs(fmt.Sprint(g, i), "", "")
			}
			done <- true
		}()
		<-done
		// Until the goroutine is gone, its frame's exit included: the
		// recordings compared are of two runs.
		for runtime.NumGoroutine() > 1 {
			runtime.Gosched()
		}
	}
	for i := 0; i < 40; i++ {
		ints(i, int8(i), int64(-i))
	}
}
`

// buildValuesProgram writes valuesProgram to a module and builds it with
// the hooks.
func buildValuesProgram(t *testing.T) (*instrumented, *Program, string) {
	t.Helper()
	in, dir, work := buildModule(t, map[string]string{"go.mod": "module example.com/values\n\ngo 1.21\n", "main.go": valuesProgram}, []string{"go", "run", "."})
	return in, &Program{Dir: dir}, work
}

// writeModule writes files (name → text) to a new directory and returns
// it.
func writeModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildModule writes files to a new module directory and builds argv (a
// target there) with the hooks, in a new work directory.
func buildModule(t *testing.T, files map[string]string, argv []string) (in *instrumented, dir, work string) {
	t.Helper()
	dir = writeModule(t, files)
	spec, err := target.Parse(argv, dir)
	if err != nil {
		t.Fatal(err)
	}
	work = t.TempDir()
	in, err = buildInstrumented(context.Background(), spec, work, 0)
	if err != nil {
		t.Fatal(err)
	}
	return in, dir, work
}

// TestFileValues records a program passing values of every kind with the
// values left in the record file (trimmed to the pages that hold them)
// and with them decoded into the index: every frame reads back the same
// (name, type, kind, text, length, capacity, nil-ness, cut), also with a
// frame limit dropping frames.
func TestFileValues(t *testing.T) {
	in, prog, work := buildValuesProgram(t)
	record := func(decode bool, lim Limits) *trace.Recording {
		t.Helper()
		lim.MaxString = 16
		rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{Limits: lim, decodeValues: decode})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Outcome.ExitCode != 0 {
			t.Fatalf("exit status %d: %s", rec.Outcome.ExitCode, rec.Outcome.Output())
		}
		return rec
	}
	for _, lim := range []Limits{{}, {MaxFrames: 9}} {
		decoded, inFile := record(true, lim), record(false, lim)
		if decoded.Values() == 0 || inFile.Values() != 0 {
			t.Fatalf("MaxFrames %d: %d values in the index decoding them, %d leaving them in the file (want some, none)",
				lim.MaxFrames, decoded.Values(), inFile.Values())
		}
		if decoded.Len() < 9 {
			t.Fatalf("MaxFrames %d: %d frames", lim.MaxFrames, decoded.Len())
		}
		sameFrames(t, fmt.Sprintf("MaxFrames %d", lim.MaxFrames), inFile, decoded)
		if lim.MaxFrames > 0 {
			continue
		}
		seen := map[string]bool{}
		for i := range decoded.Len() {
			f := decoded.At(i)
			for _, v := range append(f.Args, f.Results...) {
				seen[valueClass(&v)] = true
			}
		}
		for _, c := range []string{"int", "uint", "float", "complex", "bool", "string", "string cut", "pointer nil",
			"pointer", "slice len cap", "slice nil", "map len", "map nil", "chan len cap", "chan nil", "array len",
			"struct", "func", "func nil", "interface", "interface nil", "pointer test"} {
			if !seen[c] {
				t.Errorf("no value of class %q recorded (seen %v)", c, seen)
			}
		}
	}
}

// sameFrames checks that the recordings got and want, of two runs, have
// the same frames with the same values. Goroutine ids differ from run to
// run (numbered here in order of their first frames), and so may the
// order of the events of two goroutines (their sequence numbers are left
// out).
func sameFrames(t *testing.T, what string, got, want *trace.Recording) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: %d frames, want %d", what, got.Len(), want.Len())
	}
	gids := []map[int64]int64{{}, {}}
	gid := func(k int, f *trace.Frame) {
		if _, ok := gids[k][f.Goroutine]; !ok {
			gids[k][f.Goroutine] = int64(len(gids[k]) + 1)
		}
		f.Goroutine = gids[k][f.Goroutine]
		f.EntrySeq, f.ExitSeq, f.SpawnSeq = 0, 0, 0
	}
	for i := range want.Len() {
		w, g := want.At(i), got.At(i)
		gid(0, w)
		gid(1, g)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s, frame %d:\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

// TestRecycledValues records a program that pauses, so that the index
// reads the records as they are written and hands their chunks back to
// the runtime: the values are copied out of the file (which is then not
// kept) and read back as when they are decoded into the index.
func TestRecycledValues(t *testing.T) {
	in, dir, work := buildModule(t, map[string]string{"go.mod": "module example.com/pauses\n\ngo 1.21\n", "main.go": `package main

import (
	"fmt"
	"strings"
	"time"
)

func word(i int, s string) (string, int) { return strings.ToUpper(s), i * 3 }

func main() {
	// The index starts reading before the first chunk is full, and
	// catches up at every pause: a chunk holds a few thousand records.
	time.Sleep(100 * time.Millisecond)
	n := 0
	for r := 0; r < 60; r++ {
		for i := 0; i < 1000; i++ {
			s, k := word(i, fmt.Sprint("w", i%97))
			n += k + len(s)
		}
		time.Sleep(2 * time.Millisecond)
	}
	fmt.Println(n)
}
`}, []string{"go", "run", "."})
	prog := &Program{Dir: dir}
	record := func(decode bool) (*trace.Recording, RecordTimes) {
		t.Helper()
		var times RecordTimes
		rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{decodeValues: decode, Times: &times})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Outcome.ExitCode != 0 || rec.Len() != 60_001 {
			t.Fatalf("exit status %d, %d frames: %s", rec.Outcome.ExitCode, rec.Len(), rec.Outcome.Output())
		}
		return rec, times
	}
	copied, times := record(false)
	// Read as they are written, most chunks go back; one at least, on a
	// loaded machine.
	if times.Reused == 0 {
		t.Fatalf("no chunk of the record file was handed back (%d records, %d read after the run)", times.Records, times.AfterRun)
	}
	decoded, _ := record(true)
	sameFrames(t, "copied", copied, decoded)
	t.Logf("%d chunks handed back, %d bytes of values", times.Reused, copied.ValueBytes())
}

// TestRecycledPastLimit records a program that pauses, with a frame limit
// it goes far past: the chunks still go back to the runtime past the
// limit, and the values copied for the frames dropped go back too, but for
// those of a frame kept that returns after a later frame was entered (a
// goroutine's, whose results must read back after the copies given back
// were written over).
func TestRecycledPastLimit(t *testing.T) {
	in, dir, work := buildModule(t, map[string]string{"go.mod": "module example.com/pastlimit\n\ngo 1.21\n", "main.go": `package main

import (
	"fmt"
	"strings"
	"time"
)

func word(i int, s string) (string, int) { return strings.ToUpper(s), i * 3 }

func serve(in <-chan int) (string, int) {
	n := 0
	for v := range in {
		n += v
	}
	return fmt.Sprint("served ", n), n
}

// finish ends serve: serve returns while finish, past the frame limit,
// waits.
func finish(in chan int, out chan string) string {
	close(in)
	return <-out
}

func words(from, to int) int {
	n := 0
	for i := from; i < to; i++ {
		s, k := word(i, fmt.Sprint("w", i%97))
		n += k + len(s)
	}
	return n
}

func main() {
	in, out := make(chan int), make(chan string)
	go func() {
		s, n := serve(in)
		out <- fmt.Sprint(s, "/", n)
	}()
	// The index reads the records as they come, and catches up at every
	// pause: a chunk holds a few thousand records.
	time.Sleep(100 * time.Millisecond)
	n := 0
	for r := 0; r < 40; r++ {
		n += words(r*1000, r*1000+1000)
		in <- r
		time.Sleep(2 * time.Millisecond)
	}
	s := finish(in, out)
	// Copies made past the limit go where those given back were (read
	// as they come, their chunks too go back).
	for r := 0; r < 3; r++ {
		time.Sleep(2 * time.Millisecond)
		n += words(0, 500)
	}
	fmt.Println(s, n)
}
`}, []string{"go", "run", "."})
	prog := &Program{Dir: dir}
	lim := Limits{MaxFrames: 1000}
	record := func(decode bool) (*trace.Recording, RecordTimes) {
		t.Helper()
		var times RecordTimes
		rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{Limits: lim, decodeValues: decode, Times: &times})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Outcome.ExitCode != 0 || !strings.Contains(rec.Partial, "frame limit reached") {
			t.Fatalf("exit status %d, %d frames, partial %q: %s", rec.Outcome.ExitCode, rec.Len(), rec.Partial, rec.Outcome.Output())
		}
		return rec, times
	}
	copied, times := record(false)
	// About 170,000 records: some 30 chunks, most read before the run
	// writes the next.
	if times.Reused < 10 {
		t.Errorf("%d chunks of the record file handed back, want most of them (%d records, %d read after the run)", times.Reused, times.Records, times.AfterRun)
	}
	decoded, _ := record(true)
	sameFrames(t, "copied", copied, decoded)
	seqs := copied.InvocationSeqs("main.serve")
	if len(seqs) != 1 {
		t.Fatalf("%d frames of main.serve, want 1", len(seqs))
	}
	if f := copied.At(int(seqs[0])); len(f.Results) != 2 || f.Results[0].Text != `"served 780"` || f.Results[1].Text != "780" {
		t.Errorf("main.serve's results %+v, want \"served 780\" and 780", f.Results)
	}
	// The values kept: those of the first 1000 frames (two numbers and
	// two short strings a word), not the 41,500 more words'.
	if b := copied.ValueBytes(); b > 64<<10 {
		t.Errorf("the recording keeps %d bytes of values, want those of about 1000 frames", b)
	}
	t.Logf("%d chunks handed back, %d bytes of values", times.Reused, copied.ValueBytes())
}

// valueClass says what kind of value v is, for TestFileValues's count.
func valueClass(v *trace.Value) string {
	c := string(v.Kind)
	switch {
	case v.Nil:
		c += " nil"
	case v.Text == `&testing.T{name: "", …}`:
		c += " test"
	case v.Kind == trace.KindString && v.Cut:
		c += " cut"
	case v.Cap > 0:
		c += " len cap"
	case v.Len > 0 && v.Kind != trace.KindString:
		c += " len"
	}
	return c
}

// TestFileValuesSetArg fills in an argument of a frame whose values are in
// the record file, as an FLT does: that frame changes, its results and the
// other frames read as before.
func TestFileValuesSetArg(t *testing.T) {
	in, prog, work := buildValuesProgram(t)
	rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seqs := rec.InvocationSeqs("main.comps")
	if len(seqs) != 1 {
		t.Fatalf("%d frames of main.comps, want 1", len(seqs))
	}
	seq := int(seqs[0])
	before := []*trace.Frame{rec.At(seq - 1), rec.At(seq), rec.At(seq + 1)}
	full := trace.Value{Name: "t", Type: "main.T", Kind: trace.KindStruct, Text: "main.T{X: 4}",
		Children: []trace.Value{{Name: "X", Type: "int", Kind: trace.KindInt, Text: "4"}}}
	rec.SetArg(seq, 7, full)
	want := before[1]
	want.Args = append([]trace.Value(nil), want.Args...)
	want.Args[7] = full
	if got := rec.At(seq); !reflect.DeepEqual(got, want) {
		t.Errorf("after SetArg:\n got %+v\nwant %+v", got, want)
	}
	for _, f := range []*trace.Frame{before[0], before[2]} {
		if got := rec.At(f.Seq); !reflect.DeepEqual(got, f) {
			t.Errorf("frame %d changed:\n got %+v\nwant %+v", f.Seq, got, f)
		}
	}
}

// TestFileValuesReleased checks that the record file a recording keeps its
// values in is released with the recording: mapped while the recording
// lives, unmapped once it is collected, and never held by a descriptor.
func TestFileValuesReleased(t *testing.T) {
	in, prog, work := buildValuesProgram(t)
	held := func() (maps, fds int) {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		maps = strings.Count(string(b), "adi-records")
		ents, _ := os.ReadDir("/proc/self/fd")
		for _, e := range ents {
			if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.Contains(l, "adi-records") {
				fds++
			}
		}
		return maps, fds
	}
	// Recordings of earlier tests may still be collected.
	settle := func(want func(maps int) bool) int {
		var maps int
		for range 100 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
			if maps, _ = held(); want(maps) {
				break
			}
		}
		return maps
	}
	base := settle(func(int) bool { return false })
	// An index bound that the frame limit does not keep it far below:
	// the values stay in the file (see recycleFrameBytes).
	rec, err := recordInstrumented(context.Background(), in, prog, work, RecordOptions{SpillAbove: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	maps, fds := held()
	if maps != base+1 || fds != 0 {
		t.Fatalf("while the recording lives: %d mappings of the record file, %d descriptors; want %d, 0", maps, fds, base+1)
	}
	if f := rec.At(rec.Len() - 1); len(f.Args) != 3 || f.Args[0].Text != "39" {
		t.Fatalf("last frame's arguments %+v", f.Args)
	}
	// What the file holds past the values is given back: of its 256 KiB
	// (four chunks), the few pages that hold values.
	if n := rec.ValueBytes(); n <= 0 || n >= 64<<10 {
		t.Errorf("ValueBytes %d, want the few pages of the record file that hold values", n)
	}
	rec = nil
	if maps := settle(func(maps int) bool { return maps <= base }); maps > base {
		t.Fatalf("the record file is still mapped after the recording was collected (%d mappings, %d before it)", maps, base)
	}
}

// BenchmarkFileValuesAt measures making a frame (At) of the instrumenting
// recorder's index of testdata/bench/fib with its values decoded into the
// index and left in the record file: what reading a frame's values from
// the file costs a navigation command, per frame.
func BenchmarkFileValuesAt(b *testing.B) {
	inst, prog := buildFib(b)
	for _, decode := range []bool{true, false} {
		name := "in-file"
		if decode {
			name = "decoded"
		}
		b.Run(name, func(b *testing.B) {
			rec, err := recordInstrumented(context.Background(), inst.in, prog, inst.work,
				RecordOptions{Limits: Limits{MaxFrames: 2_000_000}, decodeValues: decode})
			if err != nil {
				b.Fatal(err)
			}
			seq := 1 // main.main#1 is frame 0, the others are main.fib's
			for b.Loop() {
				if f := rec.At(seq); len(f.Args) != 1 {
					b.Fatalf("frame %d: arguments %+v", seq, f.Args)
				}
				seq = 1 + (seq+7919)%(rec.Len()-1)
			}
		})
	}
}

// TestCopiedValues copies values into blocks, across a block's end: each
// reads back from its reference, with room past it for the decoder, and
// freeing the blocks unmaps them.
func TestCopiedValues(t *testing.T) {
	var c copiedValues
	refs := map[uint32][]byte{}
	total := 0
	for i := 0; total < copiedBlock+copiedBlock/2; i++ {
		b := []byte(strings.Repeat(string(rune('a'+i%26)), 1+i%4000))
		ref, ok := c.add(b)
		if !ok {
			t.Fatalf("no room for value %d (%d bytes copied)", i, total)
		}
		if ref&copiedRef == 0 {
			t.Fatalf("reference %#x is not marked copied", ref)
		}
		refs[ref] = b
		total += len(b)
	}
	if len(c.blocks) != 2 || c.size() != total {
		t.Fatalf("%d blocks, size %d: want 2 blocks, %d bytes", len(c.blocks), c.size(), total)
	}
	for ref, want := range refs {
		blk, at := c.at(ref)
		if at+len(want)+instrument.ValuesSlack > len(blk) || !bytes.Equal(blk[at:at+len(want)], want) {
			t.Fatalf("reference %#x: %q… at %d of a block of %d, want %q…", ref, blk[at:min(at+8, len(blk))], at, len(blk), want[:min(8, len(want))])
		}
	}
	// A value longer than a block is not copied (it is decoded instead).
	if _, ok := c.add(make([]byte, copiedBlock)); ok {
		t.Error("a value of a block's size was copied")
	}
	first := uintptr(unsafe.Pointer(unsafe.SliceData(c.blocks[0])))
	if !mapped(t, first) {
		t.Fatalf("the first block (%#x) is not in /proc/self/maps", first)
	}
	c.free()
	if mapped(t, first) || c.size() != 0 || len(c.blocks) != 0 {
		t.Errorf("after free: the first block mapped %v, size %d, %d blocks", mapped(t, first), c.size(), len(c.blocks))
	}
}

// TestCopiedValuesWord copies values of up to 8 bytes a word at a time
// (the bytes after them, in their capacity, are 0xff): each reads back
// from its reference, and the next values go right after them.
func TestCopiedValuesWord(t *testing.T) {
	var c copiedValues
	defer c.free()
	next := uint32(0)
	for n := range 9 {
		b := bytes.Repeat([]byte{0xff}, 8)
		for i := range n {
			b[i] = byte('a' + n)
		}
		ref, ok := c.add(b[:n])
		if !ok {
			t.Fatalf("no room for %d bytes", n)
		}
		if n > 0 && ref != next {
			t.Errorf("%d bytes went to %#x, want %#x (after the values before)", n, ref, next)
		}
		blk, at := c.at(ref)
		if got := blk[at : at+n]; !bytes.Equal(got, b[:n]) {
			t.Errorf("%d bytes read back %q, want %q", n, got, b[:n])
		}
		next = ref + uint32(n)
	}
	if c.size() != 36 {
		t.Errorf("size %d, want 36 (0 to 8 bytes)", c.size())
	}
	// Every value reads back after the last copy.
	for n, ref := 1, uint32(copiedRef); n <= 8; ref, n = ref+uint32(n), n+1 {
		if blk, at := c.at(ref); !bytes.Equal(blk[at:at+n], bytes.Repeat([]byte{byte('a' + n)}, n)) {
			t.Errorf("%d bytes at %#x: %q after the copies that followed", n, ref, blk[at:at+n])
		}
	}
}

// TestCopiedRollback gives back the values copied since a mark, across a
// block's end: the values before the mark read back, the next ones go
// where the mark was, and a block given back is used again rather than a
// new one mapped.
func TestCopiedRollback(t *testing.T) {
	var c copiedValues
	defer c.free()
	kept := map[uint32][]byte{}
	for i := range 100 {
		b := []byte(strings.Repeat("k", 1+i))
		ref, _ := c.add(b)
		kept[ref] = b
	}
	m, size := c.mark(), c.size()
	fill := func(letter string) {
		t.Helper()
		for c.used < 2 || len(c.blocks[1]) < copiedBlock/4 {
			if _, ok := c.add([]byte(strings.Repeat(letter, 3000))); !ok {
				t.Fatal("no room to copy")
			}
		}
	}
	fill("x")
	second := unsafe.SliceData(c.blocks[1])
	c.rollback(m)
	if c.mark() != m || c.size() != size {
		t.Fatalf("after rollback: mark %+v, size %d; want %+v, %d", c.mark(), c.size(), m, size)
	}
	ref, _ := c.add([]byte("next"))
	if want := copiedRef | uint32(m.n); ref != want {
		t.Errorf("the next values went to %#x, want %#x (where the mark was)", ref, want)
	}
	c.rollback(m)
	fill("y")
	if len(c.blocks) != 2 || unsafe.SliceData(c.blocks[1]) != second {
		t.Errorf("%d blocks mapped after copying past the first block twice, the second at %p then %p; want 2, the same", len(c.blocks), second, unsafe.SliceData(c.blocks[1]))
	}
	for ref, want := range kept {
		if blk, at := c.at(ref); !bytes.Equal(blk[at:at+len(want)], want) {
			t.Fatalf("reference %#x, copied before the mark: %q, want %q", ref, blk[at:at+len(want)], want)
		}
	}
	c.rollback(copiedMark{})
	if c.size() != 0 || c.used != 0 {
		t.Errorf("after rolling back to the start: size %d, %d blocks used", c.size(), c.used)
	}
}

// mapped says whether addr is in one of the process's mappings.
func mapped(t *testing.T, addr uintptr) bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(l, "%x-%x", &lo, &hi); err == nil && lo <= addr && addr < hi {
			return true
		}
	}
	return false
}
