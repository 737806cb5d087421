package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestStoreRoundTrip adds frames with every field set and reads them back:
// what At makes is what Add was given, values with children and errors
// included.
func TestStoreRoundTrip(t *testing.T) {
	deep := Value{Name: "cfg", Type: "*main.Config", Kind: KindPointer, Text: "&main.Config{N: 3}",
		Children: []Value{{Name: "*cfg", Type: "main.Config", Kind: KindStruct, Text: "main.Config{N: 3}"}}}
	frames := []*Frame{
		{FID: FID{"main.main", 1}, Goroutine: 1, Decl: Pos{"/src/main.go", 10}, Exit: Panicked, Panic: "boom",
			EntrySeq: 1, ExitSeq: 9},
		{FID: FID{"main.load", 1}, Caller: FID{"main.main", 1}, Goroutine: 1, CallSite: Pos{"/src/main.go", 12},
			Decl: Pos{"/src/load.go", 3}, EntrySeq: 2, ExitSeq: 3, Exit: Returned,
			Args: []Value{deep, {Name: "ch", Type: "chan int", Kind: KindChan, Error: "optimized away"}},
			Results: []Value{{Name: "~r0", Type: "int", Kind: KindInt, Text: "42"},
				{Name: "err", Type: "error", Kind: KindInterface, Text: "nil", Nil: true}}},
		{FID: FID{"main.worker", 1}, Caller: FID{"main.main", 1}, Spawn: true, Indirect: true, Goroutine: 7,
			CallSite: Pos{"/src/main.go", 14}, Decl: Pos{"/src/main.go", 30}, EntrySeq: 6, SpawnSeq: 4, Exit: Running,
			Args: []Value{{Name: "s", Type: "string", Kind: KindString, Text: `"ab"…+8 more`, Len: 10, Cut: true}}},
		{FID: FID{"main.load", 2}, Caller: FID{"main.main", 1}, Goroutine: 1, CallSite: Pos{"/src/main.go", 15},
			Decl: Pos{"/src/load.go", 3}, EntrySeq: 7, ExitSeq: 8, Exit: Panicked, Panic: "boom"},
	}
	r := NewRecording(frames...)
	if r.Len() != len(frames) {
		t.Fatalf("%d frames, want %d", r.Len(), len(frames))
	}
	for i, want := range frames {
		want.Seq = i
		want.Parent = -1
		if i > 0 {
			want.Parent = 0
		}
		got := r.At(i)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("frame %d:\n got %+v\nwant %+v", i, got, want)
		}
		if fid := r.FIDOf(i); fid != want.FID {
			t.Errorf("FIDOf(%d) = %s, want %s", i, fid, want.FID)
		}
	}
	// The spawned worker ran its go statement (SpawnSeq 4) before
	// load#2 was entered (7): it comes before it among main's callees.
	if got := r.Children(0); !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Errorf("children of main = %v, want [1 2 3]", got)
	}
	frames[2].SpawnSeq = 8 // now after load#2's entry
	r = NewRecording(frames...)
	if got := r.Children(0); !reflect.DeepEqual(got, []int32{1, 3, 2}) {
		t.Errorf("children of main, spawn after load#2 = %v, want [1 3 2]", got)
	}
	if got := r.Funcs(); !reflect.DeepEqual(got, []string{"main.load", "main.main", "main.worker"}) {
		t.Errorf("Funcs = %v", got)
	}
	if seqs := r.InvocationSeqs("main.load"); !reflect.DeepEqual(seqs, []int32{1, 3}) {
		t.Errorf("InvocationSeqs(main.load) = %v, want [1 3]", seqs)
	}
	want := []GoroutineStart{{ID: 1, First: 0}, {ID: 7, First: 2}}
	for range 2 { // made, then cached
		if got := r.Goroutines(); !reflect.DeepEqual(got, want) {
			t.Errorf("Goroutines() = %v, want %v", got, want)
		}
	}
}

// TestStoreSetValues replaces values the way an FLT fills in what the
// instrumenting recorder kept shallow: later frames made by At see them,
// other frames' values are untouched.
func TestStoreSetValues(t *testing.T) {
	shallow := Value{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{…}", Cut: true}
	r := NewRecording(
		&Frame{FID: FID{"main.f", 1}, Args: []Value{shallow, {Name: "n", Type: "int", Kind: KindInt, Text: "1"}},
			Results: []Value{shallow}, Exit: Returned},
		&Frame{FID: FID{"main.f", 2}, Args: []Value{shallow}, Exit: Returned},
	)
	full := Value{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{X: 1}",
		Children: []Value{{Name: "X", Type: "int", Kind: KindInt, Text: "1"}}}
	r.SetArg(0, 0, full)
	r.SetResult(0, 0, full)
	f := r.At(0)
	if !reflect.DeepEqual(f.Args[0], full) || f.Args[1].Text != "1" || !reflect.DeepEqual(f.Results[0], full) {
		t.Errorf("after SetArg/SetResult: args %+v results %+v", f.Args, f.Results)
	}
	if g := r.At(1); !g.Args[0].Shallow() {
		t.Errorf("main.f#2's argument changed too: %+v", g.Args[0])
	}
	r.SetArg(0, 5, full) // no argument 5: nothing changes
	if n := len(r.At(0).Args); n != 2 {
		t.Errorf("SetArg past the arguments: %d arguments, want 2", n)
	}
}

// TestStoreSetValuesWhileRead fills in values (as a debugger does after a
// re-execution) while other goroutines read the frames: every value read
// is one that was set, whole, under its name. Run it with -race too: the
// values' lock is what keeps the readers off the value store while it
// grows.
func TestStoreSetValuesWhileRead(t *testing.T) {
	const frames = 64
	set := func(gen, n int) []Value {
		vs := make([]Value, n)
		for i := range vs {
			vs[i] = Value{Name: "a" + strconv.Itoa(i), Type: "string", Kind: KindString, Text: strings.Repeat("x", gen%40) + strconv.Itoa(gen)}
		}
		return vs
	}
	var fs []*Frame
	for i := range frames {
		fs = append(fs, &Frame{FID: FID{"main.f", i + 1}, Args: set(0, 2), Results: set(0, 1), Exit: Returned})
	}
	// Off the heap, with room for few values: the value rows' mapping is
	// moved as it grows, under the readers of a recording without the
	// lock.
	r := &Recording{}
	if err := r.OffHeap(frames, 16, 0); err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		r.Add(f)
	}
	r.Index()
	check := func(f *Frame) error {
		for _, vs := range [][]Value{f.Args, f.Results} {
			for i, v := range vs {
				digits := strings.TrimLeft(v.Text, "x")
				gen, err := strconv.Atoi(digits)
				if v.Name != "a"+strconv.Itoa(i) || err != nil || len(v.Text)-len(digits) != gen%40 {
					return fmt.Errorf("%s has a value that was never set: %+v", f.FID, v)
				}
			}
		}
		return nil
	}
	done := make(chan struct{})
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for seq := 0; ; seq = (seq + 1) % frames {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if err := check(r.At(seq)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for gen := 1; gen <= 3000; gen++ {
		seq := gen % frames
		switch gen % 4 {
		case 0:
			r.SetArgs(seq, set(gen, 1+gen%3))
		case 1:
			r.SetResults(seq, set(gen, 1+gen%2))
		case 2:
			r.SetArg(seq, 0, set(gen, 1)[0])
		default:
			r.SetResult(seq, 0, set(gen, 1)[0])
		}
	}
	close(done)
	wg.Wait()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestStoreFuncNum(t *testing.T) {
	r := NewRecording(
		&Frame{FID: FID{"main.f", 1}, Exit: Returned},
		&Frame{FID: FID{"main.g", 1}, Exit: Returned},
		&Frame{FID: FID{"main.f", 2}, Exit: Returned},
	)
	f1, g, f2 := r.FuncNumOf(0), r.FuncNumOf(1), r.FuncNumOf(2)
	if f1 != f2 || f1 == g || r.NumFuncs() != 2 || max(f1, g) >= r.NumFuncs() {
		t.Errorf("function numbers f %d, g %d, f %d of %d", f1, g, f2, r.NumFuncs())
	}
}

// TestStoreKeep drops frames the way a frame limit does: Seqs, callers,
// values, panics and spawn order of the kept frames follow, and a frame
// whose caller was dropped keeps the caller's name.
func TestStoreKeep(t *testing.T) {
	var frames []*Frame
	frames = append(frames, &Frame{FID: FID{"main.main", 1}, EntrySeq: 1, Exit: Panicked, Panic: "boom"})
	for i := 1; i <= 5; i++ {
		frames = append(frames, &Frame{FID: FID{"main.f", i}, Caller: FID{"main.main", 1}, EntrySeq: uint64(1 + i),
			Args: []Value{{Name: "i", Type: "int", Kind: KindInt, Text: string(rune('0' + i))}}, Exit: Returned})
	}
	frames = append(frames, &Frame{FID: FID{"main.g", 1}, Caller: FID{"main.f", 4}, EntrySeq: 9, Exit: Panicked, Panic: "boom",
		Spawn: true, SpawnSeq: 8})
	// Values with a length and children, before and after the first
	// dropped frame's.
	deep := Value{Name: "s", Type: "[]int", Kind: KindSlice, Text: "[]int len: 1, cap: 2", Len: 1, Cap: 2,
		Children: []Value{{Name: "[0]", Type: "int", Kind: KindInt, Text: "7"}}}
	frames[1].Results = []Value{deep}
	frames[5].Results = []Value{deep}
	r := NewRecording(frames...)
	r.Keep([]bool{true, true, false, false, false, true, true})
	r.Index()
	var got []string
	for f := range r.All {
		got = append(got, f.FID.String()+"<"+f.Caller.String())
	}
	want := []string{"main.main#1<", "main.f#1<main.main#1", "main.f#5<main.main#1", "main.g#1<main.f#4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	if f := r.At(2); f.Args[0].Text != "5" || f.Parent != 0 || !reflect.DeepEqual(f.Results, []Value{deep}) {
		t.Errorf("main.f#5 after Keep: args %+v results %+v parent %d", f.Args, f.Results, f.Parent)
	}
	if f := r.At(1); f.Args[0].Text != "1" || !reflect.DeepEqual(f.Results, []Value{deep}) {
		t.Errorf("main.f#1 after Keep: args %+v results %+v", f.Args, f.Results)
	}
	if g := r.At(3); g.Parent != -1 || g.Panic != "boom" || g.SpawnSeq != 8 || !g.Spawn {
		t.Errorf("main.g#1 after Keep: %+v", g)
	}
	if _, ok := r.Lookup(FID{"main.f", 3}); ok {
		t.Error("main.f#3 was dropped but Lookup finds it")
	}
	if got := r.Children(0); !reflect.DeepEqual(got, []int32{1, 2}) {
		t.Errorf("main's callees after Keep = %v, want [1 2]", got)
	}
}

// TestStoreKeepOffHeap keeps frames of a recording off the heap: it stays
// there, whether every frame is kept or some are dropped, with the frames
// kept as they were (values, callers, callee lists).
func TestStoreKeepOffHeap(t *testing.T) {
	build := func() (*Recording, []*Frame) {
		fs := []*Frame{{FID: FID{"main.main", 1}, EntrySeq: 1, Exit: Returned}}
		for i := 1; i < 100; i++ {
			fs = append(fs, &Frame{FID: FID{"main.f", i}, Caller: FID{"main.main", 1}, EntrySeq: uint64(i + 1), Exit: Returned,
				Args: []Value{{Name: "i", Type: "int", Kind: KindInt, Text: strconv.Itoa(i)}}})
		}
		r := &Recording{}
		if err := r.OffHeap(len(fs), 16, 0); err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			r.Add(f)
		}
		return r, fs
	}
	for _, drop := range []int{0, 3} {
		what := "keeping every frame"
		if drop > 0 {
			what = fmt.Sprintf("dropping one frame in %d", drop)
		}
		r, fs := build()
		keep := make([]bool, r.Len())
		var want []*Frame
		for i := range keep {
			keep[i] = drop == 0 || i == 0 || i%drop != 0
			if keep[i] {
				want = append(want, fs[i])
			}
		}
		r.Keep(keep)
		r.Index()
		if !r.IsOffHeap() || r.Len() != len(want) {
			t.Fatalf("%s: off the heap %v, %d frames; want true, %d", what, r.IsOffHeap(), r.Len(), len(want))
		}
		var kids []int32
		for seq, w := range want {
			f := r.At(seq)
			if f.FID != w.FID || f.EntrySeq != w.EntrySeq || f.Caller != w.Caller || len(f.Args) != len(w.Args) ||
				len(w.Args) > 0 && f.Args[0].Text != w.Args[0].Text {
				t.Errorf("%s, frame %d: %s called by %s, entered %d, args %+v; want %s, %s, %d, %+v",
					what, seq, f.FID, f.Caller, f.EntrySeq, f.Args, w.FID, w.Caller, w.EntrySeq, w.Args)
			}
			if seq > 0 {
				kids = append(kids, int32(seq))
			}
		}
		if got := r.Children(0); !reflect.DeepEqual(got, kids) {
			t.Errorf("%s: main's callees %v, want %v", what, got, kids)
		}
	}
}

// TestStoreRowSize keeps a frame's row at 48 bytes: with 4 bytes in the
// callee lists and 4 in the per-function lists a frame takes 56, under
// the index memory target of 64 (issue 6).
func TestStoreRowSize(t *testing.T) {
	if n := unsafe.Sizeof(row{}); n != 48 {
		t.Errorf("a frame's row is %d bytes, want 48", n)
	}
	if n := unsafe.Sizeof(vrow{}); n != 24 {
		t.Errorf("a value's row is %d bytes, want 24", n)
	}
}

// TestStoreSpill builds the same recording on the heap, in a mapped file
// and in anonymous memory: every frame reads back the same, values set
// later and frames past the size given included; and the spill file is
// gone from the directory.
func TestStoreSpill(t *testing.T) {
	var frames []*Frame
	frames = append(frames, &Frame{FID: FID{"main.main", 1}, Decl: Pos{"/src/main.go", 3}, Exit: Returned})
	for i := 1; i <= 300; i++ {
		frames = append(frames, &Frame{FID: FID{"main.f", i}, Caller: FID{"main.main", 1}, EntrySeq: uint64(2 * i),
			ExitSeq: uint64(2*i + 1), CallSite: Pos{"/src/main.go", 5}, Decl: Pos{"/src/main.go", 9}, Exit: Returned,
			Args:    []Value{{Name: "s", Type: "string", Kind: KindString, Text: `"` + strings.Repeat("x", i%40) + `"`, Len: int64(i % 40)}},
			Results: []Value{{Name: "~r0", Type: "int", Kind: KindInt, Text: strconv.Itoa(i)}}})
	}
	heap := NewRecording(frames...)
	if heap.Spilled() || heap.IsOffHeap() {
		t.Fatalf("a recording on the heap: Spilled() %v, IsOffHeap() %v", heap.Spilled(), heap.IsOffHeap())
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		place   func(r *Recording, frames, values, text int) error
		spilled bool
	}{
		{"spilled", func(r *Recording, frames, values, text int) error {
			return r.Spill(filepath.Join(dir, "index"), frames, values, text)
		}, true},
		{"off the heap", (*Recording).OffHeap, false},
	} {
		r := &Recording{}
		// Sized for 100 frames (and 64 more): the last 137 go to the heap
		// (spilled) or to a larger mapping (off the heap).
		if err := tc.place(r, 100, 400, 2000); err != nil {
			t.Fatal(err)
		}
		if r.Spilled() != tc.spilled || !r.IsOffHeap() {
			t.Fatalf("%s: Spilled() %v, IsOffHeap() %v", tc.name, r.Spilled(), r.IsOffHeap())
		}
		for _, f := range frames {
			r.Add(f)
		}
		r.Index()
		// Off the heap, rows and value rows grow in their mappings.
		inRows := unsafe.SliceData(r.rows) == (*row)(unsafe.Pointer(unsafe.SliceData(r.mem.rows)))
		inVals := unsafe.SliceData(r.vals) == (*vrow)(unsafe.Pointer(unsafe.SliceData(r.mem.vals)))
		if grown := inRows && inVals; grown == tc.spilled {
			t.Errorf("%s: rows in the mapping %v, value rows %v", tc.name, inRows, inVals)
		}
		// So do the callee lists and the frames by function.
		inKids := unsafe.SliceData(r.kids) == (*int32)(unsafe.Pointer(unsafe.SliceData(r.mem.kids)))
		inByFn := unsafe.SliceData(r.byFn) == (*int32)(unsafe.Pointer(unsafe.SliceData(r.mem.byFn)))
		if grown := inKids && inByFn; grown == tc.spilled {
			t.Errorf("%s: callee lists in the mapping %v, frames by function %v", tc.name, inKids, inByFn)
		}
		full := Value{Name: "s", Type: "string", Kind: KindString, Text: `"filled in"`, Len: 9}
		r.SetArg(7, 0, full)
		want := NewRecording(frames...)
		want.SetArg(7, 0, full)
		for i := range want.Len() {
			if a, b := want.At(i), r.At(i); !reflect.DeepEqual(a, b) {
				t.Fatalf("frame %d: heap %+v, %s %+v", i, a, tc.name, b)
			}
		}
		if a, b := want.Children(0), r.Children(0); !reflect.DeepEqual(a, b) || len(b) != 300 {
			t.Errorf("children of main: heap %d, %s %d", len(a), tc.name, len(b))
		}
		if err := tc.place(r, 10, 10, 10); err == nil {
			t.Errorf("%s: placing a recording with frames: no error", tc.name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the spill file is left in %s: %v", dir, entries)
	}
}

// TestStoreCodes keeps exitCode and kindCode the indexes of their tables
// (and the kind codes of valBits values their kindCodes).
func TestStoreCodes(t *testing.T) {
	for i, e := range exitKinds {
		if c := exitCode(e); int(c) != i {
			t.Errorf("exitCode(%q) = %d, want %d", e, c, i)
		}
	}
	for i, k := range valueKinds {
		if c := kindCode(k); int(c) != i {
			t.Errorf("kindCode(%q) = %d, want %d", k, c, i)
		}
	}
	if c := kindCode("unsafe"); valueKinds[c] != KindOther {
		t.Errorf("kindCode of an unknown kind = %d, want KindOther's", c)
	}
	if kindBool != kindCode(KindBool) || kindInt != kindCode(KindInt) || kindUint != kindCode(KindUint) {
		t.Error("kindBool, kindInt or kindUint is not the kind's kindCode")
	}
}

// TestStoreScalars adds integers and booleans by their bits and values
// with interned text, as the instrumenting recorder does: they read back
// as the values with their text would, after Keep and in a spilled
// recording too.
func TestStoreScalars(t *testing.T) {
	want := []Value{
		{Name: "n", Type: "int", Kind: KindInt, Text: "-9223372036854775808"},
		{Name: "u", Type: "uint64", Kind: KindUint, Text: "18446744073709551615"},
		{Name: "b", Type: "bool", Kind: KindBool, Text: "true"},
		{Name: "c", Type: "bool", Kind: KindBool, Text: "false"},
		{Name: "s", Type: "string", Kind: KindString, Text: `"x"`, Len: 1},
		{Name: "k", Type: "main.Kind", Kind: KindInt, Text: "7"},
		{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{…}", Cut: true},
		{Name: "err", Type: "error", Kind: KindInterface, Text: "nil", Nil: true},
	}
	bits := []uint64{1 << 63, 1<<64 - 1, 1, 0, 0, 7, 0, 0} // by want
	build := func(r *Recording) {
		for i := range 3 {
			seq := r.Enter(&Entry{Func: r.FuncID("main.f", Pos{}), Index: i + 1, Parent: -1, CallSite: r.PosID(Pos{}), EntrySeq: uint64(i + 1)})
			first := r.Values()
			for j, v := range want {
				name, typ := r.Intern(v.Name), r.Intern(v.Type)
				switch v.Kind {
				case KindInt:
					r.AppendInt(name, typ, int64(bits[j]))
				case KindUint:
					r.AppendUint(name, typ, bits[j])
				case KindBool:
					r.AppendBool(name, typ, bits[j] != 0)
				case KindPointer, KindInterface:
					r.AppendInterned(name, typ, v.Kind, r.Intern(v.Text), v.Len, v.Cap, v.Nil, v.Cut)
				default:
					r.AppendValue(name, typ, v.Kind, []byte(v.Text), v.Len, v.Cap, false, false)
				}
			}
			r.AttachValues(seq, first, i == 1)
		}
		r.Index()
	}
	heap, spilled := &Recording{}, &Recording{}
	if err := spilled.Spill(filepath.Join(t.TempDir(), "index"), 3, 24, 64); err != nil {
		t.Fatal(err)
	}
	build(heap)
	build(spilled)
	kept := &Recording{}
	build(kept)
	kept.Keep([]bool{false, true, true})
	kept.Index()
	check := func(what string, got []Value) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	for _, r := range []*Recording{heap, spilled} {
		check("arguments of main.f#1", r.At(0).Args)
		check("results of main.f#2", r.At(1).Results)
	}
	check("results of main.f#2 after Keep", kept.At(0).Results)
	check("arguments of main.f#3 after Keep", kept.At(1).Args)
}

// TestStoreCalleesOutOfOrder indexes frames added with a callee before
// its caller (Add finds callers by FID): the callee lists are the same as
// in order of entry, and the same when indexed again (the rows' counts
// start over).
func TestStoreCalleesOutOfOrder(t *testing.T) {
	main := &Frame{FID: FID{"main.main", 1}, Exit: Returned}
	f := &Frame{FID: FID{"main.f", 1}, Caller: main.FID, EntrySeq: 2, Exit: Returned}
	g := &Frame{FID: FID{"main.g", 1}, Caller: f.FID, EntrySeq: 3, Exit: Returned}
	for _, order := range [][]*Frame{{main, f, g}, {g, f, main}, {f, main, g}} {
		r := NewRecording(order...)
		seq := func(fid FID) int32 {
			s, ok := r.Find(fid)
			if !ok {
				t.Fatalf("%v not found", fid)
			}
			return int32(s)
		}
		for pass := range 2 {
			if pass == 1 {
				r.Index()
			}
			added := fmt.Sprintf("added as %s, %s, %s, indexed %d times", order[0].FID, order[1].FID, order[2].FID, pass+1)
			if got := r.Children(int(seq(main.FID))); !reflect.DeepEqual(got, []int32{seq(f.FID)}) {
				t.Errorf("%s: callees of main %v", added, got)
			}
			if got := r.Children(int(seq(f.FID))); !reflect.DeepEqual(got, []int32{seq(g.FID)}) {
				t.Errorf("%s: callees of f %v", added, got)
			}
			if got := r.Children(int(seq(g.FID))); len(got) != 0 {
				t.Errorf("%s: callees of g %v", added, got)
			}
		}
	}
}

// TestStoreCalleesCounted builds the same recordings twice, the callees
// counted as the frames come (Enter, DropLast, SetSpawn) and counted by
// Index: the callee lists are the same, frame by frame, also when a
// spawner is linked after its goroutine's first frame, and when frames
// come after an Index.
func TestStoreCalleesCounted(t *testing.T) {
	// build adds a tree of calls on two goroutines, drops two leaves as
	// a frame limit does, and links the second goroutine's first frame to
	// its spawner (spawner: its Seq, -1 for none).
	build := func(r *Recording, spawner int) {
		fn := r.FuncID("main.f", Pos{})
		var seq []int
		enter := func(parent, goroutine int) int {
			s := r.Enter(&Entry{Func: fn, Index: len(seq) + 1, Parent: parent, Goroutine: int64(goroutine), EntrySeq: uint64(len(seq) + 1)})
			seq = append(seq, s)
			return s
		}
		root := enter(-1, 1)
		a := enter(root, 1)
		enter(a, 1)
		enter(a, 1)
		r.DropLast()
		g := enter(-1, 2)
		enter(g, 2)
		b := enter(root, 1)
		enter(b, 1)
		r.DropLast()
		enter(b, 1)
		if spawner >= 0 {
			r.SetSpawn(g, spawner, 0, uint64(len(seq)+1))
		}
		enter(g, 2)
	}
	callees := func(r *Recording) [][]int32 {
		var out [][]int32
		for s := range r.Len() {
			out = append(out, slices.Clone(r.Children(s)))
		}
		return out
	}
	for _, spawner := range []int{-1, 1, 7} {
		counted, recounted := &Recording{}, &Recording{}
		build(counted, spawner)
		build(recounted, spawner)
		recounted.uncounted = true
		counted.Index()
		recounted.Index()
		got, want := callees(counted), callees(recounted)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("spawner %d: callees counted as the frames came %v, counted by Index %v", spawner, got, want)
		}
		// The spawner entered after the frame it is linked to: counted
		// by Index.
		if late := spawner > 3; counted.uncounted != true || late && len(want[spawner]) != 1 {
			t.Errorf("spawner %d: callees %v, uncounted %v after Index", spawner, want, counted.uncounted)
		}
		// More frames after an Index: counted by the next.
		for _, r := range []*Recording{counted, recounted} {
			r.Enter(&Entry{Func: r.FuncID("main.g", Pos{}), Index: 1, Parent: 0, Goroutine: 1, EntrySeq: 100})
			r.Index()
		}
		if got, want := callees(counted), callees(recounted); !reflect.DeepEqual(got, want) || len(got[0]) != 3 {
			t.Errorf("spawner %d, a frame more: callees %v, want %v (main.f#1's three)", spawner, got, want)
		}
	}
}

// TestStoreFuncsCounted: the frames of each function, counted as they are
// entered, dropped (DropLast) and kept (Keep), lay the per-function lists
// out in one array, each list where the one before it ends, with room for
// its frames and no more; also after frames come after an Index.
func TestStoreFuncsCounted(t *testing.T) {
	r := &Recording{}
	f, g, h := r.FuncID("main.f", Pos{}), r.FuncID("main.g", Pos{}), r.FuncID("main.h", Pos{})
	counts := map[uint32]int{}
	enter := func(fn uint32, parent int) int {
		counts[fn]++
		return r.Enter(&Entry{Func: fn, Index: counts[fn], Parent: parent, Goroutine: 1, EntrySeq: uint64(r.Len() + 1)})
	}
	check := func(when string) {
		t.Helper()
		r.Index()
		at := 0
		for id := range r.funcs {
			frames := r.funcs[id].frames
			var want []int32
			for s := range r.Len() {
				if r.rows[s].fn == uint32(id) {
					want = append(want, int32(s))
				}
			}
			if !slices.Equal(frames, want) {
				t.Errorf("%s: %s's frames %v, want %v", when, r.funcs[id].name, frames, want)
			}
			if len(frames) > 0 && (at >= len(r.byFn) || &frames[0] != &r.byFn[at] || cap(frames) != len(frames)) {
				t.Errorf("%s: %s's %d frames are not in the array at %d, its room %d", when, r.funcs[id].name, len(frames), at, cap(frames))
			}
			at += len(frames)
		}
		if at != r.Len() || len(r.byFn) != r.Len() {
			t.Errorf("%s: the lists hold %d frames, the array %d, of %d", when, at, len(r.byFn), r.Len())
		}
	}
	root := enter(f, -1)
	a := enter(g, root)
	enter(h, a)
	enter(h, a)
	r.DropLast()
	enter(g, a)
	enter(h, root)
	r.DropLast()
	enter(f, root)
	check("entered, two dropped")
	r.Keep([]bool{true, false, true, true, true})
	check("kept")
	enter(h, 0)
	enter(g, 0)
	check("two more after an Index")
}

// TestRunsAlone: a frame runs alone when it and its subtree returned, or
// ended with the run's panic, and no other frame of its function overlaps
// it.
func TestRunsAlone(t *testing.T) {
	fr := func(fn string, i int, caller FID, entry, exit uint64, e Exit) *Frame {
		return &Frame{FID: FID{fn, i}, Caller: caller, EntrySeq: entry, ExitSeq: exit, Exit: e}
	}
	main1 := FID{"main.main", 1}
	r := NewRecording(
		fr("main.main", 1, FID{}, 1, 100, Panicked),
		fr("main.walk", 1, main1, 2, 9, Returned), // calls walk#2: recursion
		fr("main.walk", 2, FID{"main.walk", 1}, 3, 4, Returned),
		fr("main.leaf", 1, FID{"main.walk", 1}, 5, 6, Returned),
		fr("main.step", 1, main1, 10, 20, Returned), // alone
		fr("main.leaf", 2, FID{"main.step", 1}, 11, 12, Returned),
		fr("main.step", 2, main1, 21, 30, Returned), // a callee panicked, recovered
		fr("main.boom", 1, FID{"main.step", 2}, 22, 23, Panicked),
		fr("main.spin", 1, main1, 31, 40, Returned), // spin#2 runs meanwhile, on another goroutine
		fr("main.spin", 2, FID{}, 35, 50, Returned),
		fr("main.last", 1, main1, 41, 99, Panicked),              // the run's panic, raised in fail#1
		fr("main.fail", 1, FID{"main.last", 1}, 42, 0, Panicked), // the Delve recorder's: no exit seen
	)
	r.Outcome.Panic = &PanicInfo{Value: "boom", Frame: FID{"main.fail", 1}}
	r.Index()
	type want struct{ alone, panics bool }
	wants := map[string]want{
		"main.main#1": {}, // boom#1's panic was recovered
		"main.walk#1": {}, "main.walk#2": {},
		"main.leaf#1": {true, false}, "main.step#1": {true, false}, "main.leaf#2": {true, false},
		"main.step#2": {}, "main.boom#1": {},
		"main.spin#1": {}, "main.spin#2": {},
		"main.last#1": {true, true}, "main.fail#1": {true, true},
	}
	for seq := range r.Len() {
		fid := r.FIDOf(seq).String()
		if alone, panics := r.RunsAlone(seq); alone != wants[fid].alone || panics != wants[fid].panics {
			t.Errorf("RunsAlone(%s) = %v, %v, want %v, %v", fid, alone, panics, wants[fid].alone, wants[fid].panics)
		}
	}
	// A frame still running at the end does not run alone.
	r2 := NewRecording(fr("main.main", 1, FID{}, 1, 0, Running), fr("main.f", 1, main1, 2, 3, Returned))
	r2.Index()
	if alone, _ := r2.RunsAlone(0); alone {
		t.Errorf("RunsAlone of a frame still running")
	}
	r.Dropped = true
	if alone, _ := r.RunsAlone(4); alone {
		t.Errorf("RunsAlone in a recording that dropped frames")
	}
	// Whole before the point 21 of the run: step#1 (10 to 20) still runs
	// alone; spin#1 (31 to 40) may have had company that was dropped.
	r.CompleteBefore = 21
	if alone, _ := r.RunsAlone(4); !alone {
		t.Errorf("RunsAlone(main.step#1) in a recording whole up to its end")
	}
	if alone, _ := r.RunsAlone(8); alone {
		t.Errorf("RunsAlone(main.spin#1) in a recording whole only before it")
	}
	r.CompleteBefore = 20
	if alone, _ := r.RunsAlone(4); alone {
		t.Errorf("RunsAlone(main.step#1) in a recording whole only before its end")
	}
}

// TestEntriesBetween counts the entries of a frame's function after
// another frame's, recursion and other callers included.
func TestEntriesBetween(t *testing.T) {
	fr := func(fn string, i int, caller FID, entry uint64) *Frame {
		return &Frame{FID: FID{fn, i}, Caller: caller, EntrySeq: entry, ExitSeq: entry + 1, Exit: Returned}
	}
	main1 := FID{"main.main", 1}
	r := NewRecording(
		fr("main.main", 1, FID{}, 1),
		fr("main.f", 1, main1, 2),
		fr("main.g", 1, main1, 4),
		fr("main.f", 2, FID{"main.g", 1}, 6),
		fr("main.f", 3, FID{"main.f", 2}, 8),
		fr("main.h", 1, main1, 10),
		fr("main.f", 4, FID{"main.h", 1}, 12),
	)
	r.Index()
	seq := func(fn string, i int) int {
		s, ok := r.Find(FID{fn, i})
		if !ok {
			t.Fatalf("no %s#%d", fn, i)
		}
		return s
	}
	for _, c := range []struct {
		from, to FID
		want     int
		ok       bool
	}{
		{main1, FID{"main.f", 4}, 4, true},
		{FID{"main.g", 1}, FID{"main.f", 3}, 2, true},
		{FID{"main.f", 2}, FID{"main.f", 3}, 1, true},
		{FID{"main.h", 1}, FID{"main.f", 4}, 1, true},
		{FID{"main.h", 1}, FID{"main.f", 1}, 0, false}, // h ran after f#1
	} {
		n, ok := r.EntriesBetween(seq(c.from.Func, c.from.Index), seq(c.to.Func, c.to.Index))
		if n != c.want || ok != c.ok {
			t.Errorf("EntriesBetween(%s, %s) = %d, %v, want %d, %v", c.from, c.to, n, ok, c.want, c.ok)
		}
	}
	r.Dropped = true
	if _, ok := r.EntriesBetween(seq("main.main", 1), seq("main.f", 4)); ok {
		t.Errorf("EntriesBetween in a recording that dropped frames")
	}
	// Between frames of one function, the invocation numbers count the
	// frames left out too.
	if n, ok := r.EntriesBetween(seq("main.f", 1), seq("main.f", 4)); n != 3 || !ok {
		t.Errorf("EntriesBetween(main.f#1, main.f#4) = %d, %v in a recording that dropped frames, want 3, true", n, ok)
	}
	if _, ok := r.EntriesBetweenOn(seq("main.f", 1), seq("main.f", 4)); ok {
		t.Errorf("EntriesBetweenOn in a recording that dropped frames")
	}
	// Whole before the point 10 of the run: f#3 (entered at 8) is
	// counted, f#4 (at 12) is not.
	r.CompleteBefore = 10
	if n, ok := r.EntriesBetween(seq("main.main", 1), seq("main.f", 3)); n != 3 || !ok {
		t.Errorf("EntriesBetween(main.main#1, main.f#3) = %d, %v in a recording whole up to f#3, want 3, true", n, ok)
	}
	if _, ok := r.EntriesBetween(seq("main.main", 1), seq("main.f", 4)); ok {
		t.Errorf("EntriesBetween(main.main#1, main.f#4) in a recording whole only before f#4")
	}
}

// TestEntriesBetweenOn counts the entries of a function on one goroutine
// while another goroutine calls it too.
func TestEntriesBetweenOn(t *testing.T) {
	fr := func(fn string, i int, caller FID, g int64, entry uint64) *Frame {
		return &Frame{FID: FID{fn, i}, Caller: caller, Goroutine: g, Spawn: g > 1 && caller.Func == "main.main",
			EntrySeq: entry, ExitSeq: 100 - entry, Exit: Returned}
	}
	main1, run1, run2 := FID{"main.main", 1}, FID{"main.run", 1}, FID{"main.run", 2}
	r := NewRecording(
		fr("main.main", 1, FID{}, 1, 1),
		fr("main.run", 1, main1, 2, 2),
		fr("main.run", 2, main1, 3, 3),
		fr("main.f", 1, run1, 2, 4),
		fr("main.f", 2, run2, 3, 5),
		fr("main.f", 3, run1, 2, 6),
		fr("main.f", 4, run2, 3, 7),
	)
	r.Index()
	seq := func(f FID) int {
		s, ok := r.Find(f)
		if !ok {
			t.Fatalf("no %s", f)
		}
		return s
	}
	f3 := FID{"main.f", 3}
	if n, ok := r.EntriesBetweenOn(seq(run1), seq(f3)); n != 2 || !ok {
		t.Errorf("EntriesBetweenOn(run#1, f#3) = %d, %v, want 2, true", n, ok)
	}
	if n, ok := r.EntriesBetween(seq(run1), seq(f3)); n != 3 || !ok {
		t.Errorf("EntriesBetween(run#1, f#3) = %d, %v, want 3, true", n, ok)
	}
	if _, ok := r.EntriesBetweenOn(seq(run2), seq(f3)); ok {
		t.Errorf("EntriesBetweenOn(run#2, f#3): f#3 runs on another goroutine")
	}
	// main#1 created run#1's goroutine, then run#2's.
	if n, ok := r.SpawnsBefore(seq(main1), seq(run2)); n != 2 || !ok {
		t.Errorf("SpawnsBefore(main#1, run#2) = %d, %v, want 2, true", n, ok)
	}
	if n, ok := r.SpawnsBefore(seq(main1), seq(run1)); n != 1 || !ok {
		t.Errorf("SpawnsBefore(main#1, run#1) = %d, %v, want 1, true", n, ok)
	}
	if _, ok := r.SpawnsBefore(seq(run1), seq(f3)); ok {
		t.Errorf("SpawnsBefore(run#1, f#3): f#3 is no goroutine's first frame")
	}
	if !r.OnGoroutines("main.f") || r.OnGoroutines("main.main") || r.OnGoroutines("main.nothing") {
		t.Errorf("OnGoroutines: main.f %v, main.main %v, main.nothing %v; want true, false, false",
			r.OnGoroutines("main.f"), r.OnGoroutines("main.main"), r.OnGoroutines("main.nothing"))
	}
}

// TestStoreNoCallSites reads a recording whose only frame was entered
// without a call site (a root frame, before any PosID): a test function
// that calls nothing the recorder records.
func TestStoreNoCallSites(t *testing.T) {
	r := &Recording{}
	seq := r.Enter(&Entry{Func: r.FuncID("pkg_test.TestX", Pos{File: "x_test.go", Line: 10}), Index: 1, Parent: -1, EntrySeq: 1})
	r.SetExit(seq, Returned, 2)
	r.Index()
	f := r.At(seq)
	if f.FID != (FID{"pkg_test.TestX", 1}) || f.CallSite != (Pos{}) || r.CallSiteOf(seq) != (Pos{}) {
		t.Errorf("frame %v called at %v (%v), want pkg_test.TestX#1 with no call site", f.FID, f.CallSite, r.CallSiteOf(seq))
	}
}

// TestEntriesWithinDropped: a recording that dropped frames says a
// frame's recursive entries only if the recorder counted those it dropped
// while the frame ran (SetDroppedWithin): they add to those kept, and the
// last entry is then not known. The count goes with its frame when the
// frame is dropped, and Keep adds its drops to it.
func TestEntriesWithinDropped(t *testing.T) {
	build := func() *Recording {
		r := NewRecording(
			&Frame{FID: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 1, ExitSeq: 40, Exit: Returned},
			&Frame{FID: FID{"main.walk", 2}, Caller: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 2, ExitSeq: 3, Exit: Returned},
			&Frame{FID: FID{"main.walk", 9}, Caller: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 30, ExitSeq: 31, Exit: Returned},
		)
		r.Dropped, r.CompleteBefore = true, 10
		return r
	}
	r := build()
	if n, _, ok := r.EntriesWithin(0); ok {
		t.Fatalf("EntriesWithin(main.walk#1) = %d, ok, with frames dropped before its exit and not counted", n)
	}
	r.SetDroppedWithin(0, 6)
	r.SetDroppedWithin(2, 0)
	r.Index()
	if n, last, ok := r.EntriesWithin(0); n != 8 || last != -1 || !ok {
		t.Errorf("EntriesWithin(main.walk#1) = %d, %d, %v; want 8 (2 kept, 6 dropped), -1, true", n, last, ok)
	}
	if n, last, ok := r.EntriesWithin(2); n != 0 || last != -1 || !ok {
		t.Errorf("EntriesWithin(main.walk#9) = %d, %d, %v; want 0, -1, true", n, last, ok)
	}
	// walk#9 dropped, its Seq taken by a frame that counts nothing.
	r.DropLast()
	r.Enter(&Entry{Func: r.FuncID("main.walk", Pos{}), Index: 10, Parent: 0, Goroutine: 1, EntrySeq: 32})
	r.SetExit(2, Returned, 33)
	r.Index()
	if n, _, ok := r.EntriesWithin(2); ok {
		t.Errorf("EntriesWithin(main.walk#10) = %d, ok: the count of the frame dropped before it stayed", n)
	}
	r.Keep([]bool{true, false, true})
	r.Index()
	if n, last, ok := r.EntriesWithin(0); n != 8 || last != -1 || !ok {
		t.Errorf("EntriesWithin(main.walk#1) = %d, %d, %v after Keep dropped walk#2; want 8 (1 kept, 7 dropped), -1, true", n, last, ok)
	}
}

// TestDroppedCallees: the direct callees dropped past the frame limit are
// listed by their caller, in runs of one function and count, go when their
// caller is dropped (its Seq then another frame's), and Keep places those
// it drops among them (TestKeepCounts).
func TestDroppedCallees(t *testing.T) {
	r := NewRecording(
		&Frame{FID: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 1, ExitSeq: 40, Exit: Returned},
		&Frame{FID: FID{"main.walk", 2}, Caller: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 2, ExitSeq: 3, Exit: Returned},
		&Frame{FID: FID{"main.walk", 9}, Caller: FID{"main.walk", 1}, Goroutine: 1, EntrySeq: 30, ExitSeq: 31, Exit: Returned},
	)
	walk := uint32(r.FuncNumOf(0))
	leaf := r.FuncID("main.leaf", Pos{})
	for _, d := range []struct{ at, within int }{{1, 5}, {3, 0}, {4, 0}, {5, 0}, {6, 2}, {8, 2}} {
		r.AddDroppedCallee(0, d.at, 1, walk, d.within)
	}
	r.AddDroppedCallee(0, 9, 2, leaf, 2)
	r.AddDroppedCallee(0, 11, 3, leaf, 2)
	r.AddDroppedCallee(2, 0, 1, walk, 2)
	want := []DroppedCallee{
		{At: 1, N: 1, Func: "main.walk", Within: 5},
		{At: 3, N: 3, Func: "main.walk", Within: 0},
		{At: 6, N: 1, Func: "main.walk", Within: 2},
		{At: 8, N: 1, Func: "main.walk", Within: 2},
		{At: 9, N: 5, Func: "main.leaf", Within: 2},
	}
	if got, cut := r.DroppedCallees(0); !reflect.DeepEqual(got, want) || cut != -1 {
		t.Errorf("DroppedCallees(main.walk#1) = %v, cut %d, want %v, none cut", got, cut, want)
	}
	if got, cut := r.DroppedCallees(1); got != nil || cut != -1 {
		t.Errorf("DroppedCallees(main.walk#2) = %v, cut %d, want none", got, cut)
	}
	// walk#9 dropped, its Seq taken by a frame that dropped nothing.
	r.DropLast()
	r.Enter(&Entry{Func: walk, Index: 10, Parent: 0, Goroutine: 1, EntrySeq: 32})
	if got, _ := r.DroppedCallees(2); got != nil {
		t.Errorf("DroppedCallees(main.walk#10) = %v: the callees of the frame dropped before it stayed", got)
	}
	r.Keep([]bool{true, false, true})
	want = append([]DroppedCallee{{At: 0, N: 1, Func: "main.walk"}}, want...)
	if got, cut := r.DroppedCallees(0); !reflect.DeepEqual(got, want) || cut != -1 {
		t.Errorf("DroppedCallees(main.walk#1) = %v, cut %d after Keep dropped walk#2; want %v, none cut", got, cut, want)
	}
	// A callee dropped and not listed: none known.
	r.SetCalleesUnlisted(0)
	if got, cut := r.DroppedCallees(0); got != nil || cut != 0 {
		t.Errorf("DroppedCallees(main.walk#1) = %v, cut %d with a callee unlisted; want none known", got, cut)
	}
}

// TestKeepCounts: the frames that Keep drops count among the recursive
// calls of the frames kept above them that returned, on their goroutine
// (not those of a goroutine they created), and those called directly by a
// frame kept are listed among its dropped callees, in their places with
// those dropped before, counting their own recursive calls, or -1 for one
// that a recovered panic unwound.
func TestKeepCounts(t *testing.T) {
	main, walk1, walk2, walk6 := FID{"main.main", 1}, FID{"main.walk", 1}, FID{"main.walk", 2}, FID{"main.walk", 6}
	frames := []*Frame{
		{FID: main, Goroutine: 1, EntrySeq: 1, ExitSeq: 100, Exit: Returned},
		{FID: walk1, Caller: main, Goroutine: 1, EntrySeq: 2, ExitSeq: 90, Exit: Returned},
		{FID: walk2, Caller: walk1, Goroutine: 1, EntrySeq: 3, ExitSeq: 20, Exit: Returned},
		{FID: FID{"main.walk", 3}, Caller: walk2, Goroutine: 1, EntrySeq: 4, ExitSeq: 10, Exit: Returned},
		{FID: FID{"main.leaf", 1}, Caller: FID{"main.walk", 3}, Goroutine: 1, EntrySeq: 5, ExitSeq: 6, Exit: Returned},
		{FID: FID{"main.walk", 4}, Caller: walk2, Goroutine: 1, EntrySeq: 11, ExitSeq: 12, Exit: Returned},
		{FID: FID{"main.work", 1}, Caller: walk2, Goroutine: 2, EntrySeq: 13, ExitSeq: 19, Exit: Returned, Spawn: true},
		{FID: FID{"main.walk", 5}, Caller: FID{"main.work", 1}, Goroutine: 2, EntrySeq: 14, ExitSeq: 15, Exit: Returned},
		{FID: walk6, Caller: walk1, Goroutine: 1, EntrySeq: 21, ExitSeq: 30, Exit: Returned},
		{FID: FID{"main.walk", 7}, Caller: walk6, Goroutine: 1, EntrySeq: 22, ExitSeq: 23, Exit: Returned},
		{FID: FID{"main.walk", 8}, Caller: walk1, Goroutine: 1, EntrySeq: 31, ExitSeq: 40, Exit: Panicked},
		{FID: FID{"main.leaf", 2}, Caller: main, Goroutine: 1, EntrySeq: 91, ExitSeq: 92, Exit: Returned},
		{FID: FID{"main.leaf", 3}, Caller: FID{"main.leaf", 2}, Goroutine: 1, EntrySeq: 93, ExitSeq: 94, Exit: Returned},
	}
	r := NewRecording(frames...)
	r.SetRecovered(10)
	r.SetCalleesUnlisted(11) // leaf#2: a callee of another function dropped before leaf#3, say
	r.Dropped, r.CompleteBefore = true, 3
	walk := uint32(r.FuncNumOf(1))
	r.SetDroppedWithin(1, 3)
	r.AddDroppedCallee(1, 1, 1, walk, 4) // between walk#2 and walk#6
	r.Keep([]bool{true, true, false, false, false, false, false, false, true, false, false, true, false})
	r.Index()
	for _, c := range []struct {
		fid  FID
		n    int
		ok   bool
		why  string
		runs []DroppedCallee
	}{
		{main, 0, false, "it ran past the frames kept whole and counted none dropped", nil},
		{walk1, 9, true, "walk#6 kept; 3 counted, walk#2, 3, 4, 7 and 8 dropped here, not walk#5 of goroutine 2", []DroppedCallee{
			{At: 0, N: 1, Func: "main.walk", Within: 2},
			{At: 1, N: 1, Func: "main.walk", Within: 4},
			{At: 3, N: 1, Func: "main.walk", Within: -1},
		}},
		{walk6, 1, true, "walk#7 dropped here", []DroppedCallee{{At: 0, N: 1, Func: "main.walk"}}},
		{FID{"main.leaf", 2}, 1, true, "leaf#3 dropped here", nil},
	} {
		f, err := r.Frame(c.fid)
		if err != nil {
			t.Fatal(err)
		}
		if n, last, ok := r.EntriesWithin(f.Seq); n != c.n || ok != c.ok || last != -1 {
			t.Errorf("EntriesWithin(%s) = %d, %d, %v; want %d, -1, %v (%s)", c.fid, n, last, ok, c.n, c.ok, c.why)
		}
		wantCut := -1
		if c.fid.Func == "main.leaf" {
			wantCut = 0 // unlisted: Keep does not place leaf#3
		}
		if runs, cut := r.DroppedCallees(f.Seq); !reflect.DeepEqual(runs, c.runs) || cut != wantCut {
			t.Errorf("DroppedCallees(%s) = %+v, cut %d; want %+v, cut %d", c.fid, runs, cut, c.runs, wantCut)
		}
	}
}

// TestKeepInList: a frame its caller listed as dropped before Keep drops
// it is not placed again; one that Keep keeps after all (a caller of the
// failing path) leaves its caller's dropped callees not known.
func TestKeepInList(t *testing.T) {
	main := FID{"main.main", 1}
	r := NewRecording(
		&Frame{FID: main, Goroutine: 1, EntrySeq: 1, ExitSeq: 100, Exit: Returned},
		&Frame{FID: FID{"main.f", 1}, Caller: main, Goroutine: 1, EntrySeq: 2, ExitSeq: 3, Exit: Returned},
		&Frame{FID: FID{"main.g", 1}, Caller: main, Goroutine: 1, EntrySeq: 4, ExitSeq: 5, Exit: Returned},
		&Frame{FID: FID{"main.f", 2}, Caller: main, Goroutine: 1, EntrySeq: 6, ExitSeq: 7, Exit: Returned},
	)
	f := uint32(r.FuncNumOf(1))
	r.AddDroppedCallee(0, 0, 1, f, 0) // f#1, listed as it returned
	r.SetInList(1)
	r.Keep([]bool{true, false, false, true})
	want := []DroppedCallee{{At: 0, N: 1, Func: "main.f"}, {At: 1, N: 1, Func: "main.g"}}
	if got, cut := r.DroppedCallees(0); !reflect.DeepEqual(got, want) || cut != -1 {
		t.Errorf("DroppedCallees(main.main#1) = %+v, cut %d; want %+v, none cut", got, cut, want)
	}
	r.SetInList(1) // f#2, now Seq 1, listed, and kept
	r.Keep([]bool{true, true})
	if got, cut := r.DroppedCallees(0); got != nil || cut != 0 {
		t.Errorf("DroppedCallees(main.main#1) = %+v, cut %d with a callee both listed and kept; want none known", got, cut)
	}
}

// TestDroppedCalleesLimit: past the limit on runs, a frame's callees are
// known up to the first one not listed; a run still grows; the runs of a
// frame dropped no longer count.
func TestDroppedCalleesLimit(t *testing.T) {
	r := NewRecording(
		&Frame{FID: FID{"main.main", 1}, Goroutine: 1, EntrySeq: 1, Exit: Running},
		&Frame{FID: FID{"main.f", 1}, Caller: FID{"main.main", 1}, Goroutine: 1, EntrySeq: 2, Exit: Running},
	)
	r.LimitDroppedCallees(3)
	f, g := uint32(r.FuncNumOf(1)), r.FuncID("main.g", Pos{})
	r.AddDroppedCallee(1, 0, 1, g, 0)
	for at := range 1000 {
		r.AddDroppedCallee(0, at, 1, []uint32{f, f, g}[at%3], 0)
	}
	// f, f, g, f, f, g…: runs of f f and g, which with main.f#1's make
	// the limit; the next goes unlisted.
	want := []DroppedCallee{{At: 0, N: 2, Func: "main.f"}, {At: 2, N: 1, Func: "main.g"}}
	if got, cut := r.DroppedCallees(0); !reflect.DeepEqual(got, want) || cut != 3 {
		t.Errorf("DroppedCallees(main.main#1) = %v, cut %d, want %v, cut 3", got, cut, want)
	}
	// main.f#1 dropped: its run is free for another frame's callees.
	r.DropLast()
	r.Enter(&Entry{Func: f, Index: 2, Parent: 0, Goroutine: 1, EntrySeq: 5000})
	r.AddDroppedCallee(1, 0, 1, g, 0)
	r.AddDroppedCallee(1, 1, 1, f, 0)
	want = []DroppedCallee{{At: 0, N: 1, Func: "main.g"}}
	if got, cut := r.DroppedCallees(1); !reflect.DeepEqual(got, want) || cut != 1 {
		t.Errorf("DroppedCallees(main.f#2) = %v, cut %d, want %v, cut 1", got, cut, want)
	}
	// A recorder's own cut: the first place it did not list.
	r.CutDroppedCallees(1, 3)
	r.CutDroppedCallees(1, 0)
	if got, cut := r.DroppedCallees(1); len(got) != 1 || cut != 0 {
		t.Errorf("DroppedCallees(main.f#2) = %v, cut %d after cuts at 3 and 0; want cut 0", got, cut)
	}
}

// TestEntriesWithin counts a frame's recursive entries on its goroutine
// while it ran: not its own, not another goroutine's, not after its exit;
// and cannot say for a frame that did not return.
func TestEntriesWithin(t *testing.T) {
	fr := func(fn string, i int, caller FID, g int64, entry, exit uint64, e Exit) *Frame {
		return &Frame{FID: FID{fn, i}, Caller: caller, Goroutine: g, EntrySeq: entry, ExitSeq: exit, Exit: e}
	}
	main := FID{"main.main", 1}
	r := NewRecording(
		fr("main.main", 1, FID{}, 1, 1, 20, Returned),
		fr("main.walk", 1, main, 1, 2, 12, Returned),
		fr("main.walk", 2, FID{"main.walk", 1}, 1, 3, 6, Returned),
		fr("main.walk", 3, FID{"main.walk", 2}, 1, 4, 5, Returned),
		fr("main.other", 1, FID{"main.walk", 1}, 1, 7, 8, Returned),
		fr("main.walk", 4, FID{}, 2, 9, 10, Returned), // another goroutine
		fr("main.walk", 5, FID{"main.walk", 1}, 1, 10, 11, Returned),
		fr("main.walk", 6, main, 1, 13, 14, Returned), // after walk#1
		fr("main.walk", 7, main, 1, 15, 0, Running),
	)
	for _, tc := range []struct {
		fid  FID
		n    int
		last FID
		ok   bool
	}{
		{FID{"main.walk", 1}, 3, FID{"main.walk", 5}, true},
		{FID{"main.walk", 2}, 1, FID{"main.walk", 3}, true},
		{FID{"main.walk", 3}, 0, FID{}, true},
		{FID{"main.walk", 7}, 0, FID{}, false},
	} {
		seq, ok := r.Find(tc.fid)
		if !ok {
			t.Fatalf("%s not found", tc.fid)
		}
		n, last, ok := r.EntriesWithin(seq)
		lastFID := FID{}
		if last >= 0 {
			lastFID = r.FIDOf(last)
		}
		if n != tc.n || lastFID != tc.last || ok != tc.ok {
			t.Errorf("EntriesWithin(%s) = %d, %s, %v; want %d, %s, %v", tc.fid, n, lastFID, ok, tc.n, tc.last, tc.ok)
		}
	}
}
