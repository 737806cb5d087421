package trace

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// tableSource is a ValueSource of values in a table, by reference; it
// counts the values it made.
type tableSource struct {
	vals  [][]Value
	made  int
	bytes int
}

func (s *tableSource) AppendValues(dst []Value, ref uint32, n int, names []string) []Value {
	for i, v := range s.vals[ref][:n] {
		v.Name = ""
		if i < len(names) {
			v.Name = names[i]
		}
		dst = append(dst, v)
		s.made++
	}
	return dst
}

func (s *tableSource) Bytes() int { return s.bytes }

// sourceFrames are frames of two functions, with the values a tableSource
// holds for them (unnamed, as a record file has them).
func sourceFrames() ([]*Frame, *tableSource) {
	src := &tableSource{bytes: 1000}
	var frames []*Frame
	frames = append(frames, &Frame{FID: FID{"main.main", 1}, EntrySeq: 1, Exit: Returned, ExitSeq: 20})
	for i := 1; i <= 6; i++ {
		f := &Frame{FID: FID{"main.f", i}, Caller: FID{"main.main", 1}, EntrySeq: uint64(2 * i), ExitSeq: uint64(2*i + 1),
			Exit: Returned,
			Args: []Value{{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{…}", Cut: true},
				{Name: "s", Type: "string", Kind: KindString, Text: `"ab"…+8 more`, Len: 10, Cut: true},
				{Name: "", Type: "int", Kind: KindInt, Text: "7"}},
			Results: []Value{{Name: "~r0", Type: "[]int", Kind: KindSlice, Text: "[]int{…} (len 3)", Len: 3, Cap: 4, Cut: true}}}
		f.Args[2].Text = string(rune('0' + i))
		frames = append(frames, f)
	}
	return frames, src
}

// addSourced adds frames to r as a recorder that leaves values in src
// does: every second main.f frame's values in src, the others' in the
// store.
func addSourced(r *Recording, frames []*Frame, src *tableSource) {
	r.SetValueSource(src)
	for i, f := range frames {
		parent := 0
		if i == 0 {
			parent = -1
		}
		seq := r.Enter(&Entry{Func: r.FuncID(f.FID.Func, f.Decl), Index: f.FID.Index, Parent: parent, EntrySeq: f.EntrySeq,
			CallSite: r.PosID(f.CallSite)})
		r.SetExit(seq, f.Exit, f.ExitSeq)
		if i%2 == 0 {
			r.SetArgs(seq, f.Args)
			r.SetResults(seq, f.Results)
			continue
		}
		fn := r.FuncID(f.FID.Func, f.Decl)
		r.SetValueNames(fn, []string{"p", "s"}, []string{"~r0"})
		for k, vs := range [][]Value{f.Args, f.Results} {
			if len(vs) > 0 {
				r.AttachSource(seq, uint32(len(src.vals)), len(vs), k == 1)
				src.vals = append(src.vals, vs)
			}
		}
	}
	r.Index()
}

// TestSourceValues reads frames whose values are in a ValueSource: they
// read back as the same frames in the store do, named by their function;
// the source makes them only when they are read, and ValueBytes counts
// what it keeps.
func TestSourceValues(t *testing.T) {
	frames, src := sourceFrames()
	r := &Recording{}
	addSourced(r, frames, src)
	if src.made != 0 {
		t.Errorf("%d values made before any was read", src.made)
	}
	for i, want := range frames {
		got := r.At(i)
		want.Seq, want.Parent = i, min(i, 1)-1
		got.Caller = want.Caller
		if !reflect.DeepEqual(got, want) {
			t.Errorf("frame %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if src.made != 3*4 {
		t.Errorf("the source made %d values, want 12 (4 values of 3 frames)", src.made)
	}
	without := r.ValueBytes()
	src.bytes = 5000
	if got := r.ValueBytes(); got != without+4000 {
		t.Errorf("ValueBytes %d with a source of 5000 bytes, %d with one of 1000", got, without)
	}
}

// TestSourceSetArg changes a value of a frame whose values are in the
// source: its values move to the store, the other frames' stay.
func TestSourceSetArg(t *testing.T) {
	frames, src := sourceFrames()
	r := &Recording{}
	addSourced(r, frames, src)
	full := Value{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{X: 1}",
		Children: []Value{{Name: "X", Type: "int", Kind: KindInt, Text: "1"}}}
	r.SetArg(1, 0, full)
	r.SetResult(3, 0, full)
	if w := &r.rows[1]; w.inSource&srcArgs != 0 || w.inSource&srcResults == 0 {
		t.Errorf("frame 1's inSource %b after SetArg: arguments still in the source, or results not", w.inSource)
	}
	want := slices.Concat([]Value{full}, frames[1].Args[1:])
	if f := r.At(1); !reflect.DeepEqual(f.Args, want) || !reflect.DeepEqual(f.Results, frames[1].Results) {
		t.Errorf("after SetArg: args %+v results %+v", f.Args, f.Results)
	}
	if f := r.At(3); !reflect.DeepEqual(f.Results, []Value{full}) || !reflect.DeepEqual(f.Args, frames[3].Args) {
		t.Errorf("after SetResult: args %+v results %+v", f.Args, f.Results)
	}
	if f := r.At(5); !reflect.DeepEqual(f.Args, frames[5].Args) || !reflect.DeepEqual(f.Results, frames[5].Results) {
		t.Errorf("frame 5 changed too: args %+v results %+v", f.Args, f.Results)
	}
	r.SetArgs(5, nil)
	if f := r.At(5); f.Args != nil || !reflect.DeepEqual(f.Results, frames[5].Results) {
		t.Errorf("after SetArgs(nil): args %+v results %+v", f.Args, f.Results)
	}
}

// TestSourceKeep drops frames of a recording with values in the source
// and in the store: the kept frames' values read back as before.
func TestSourceKeep(t *testing.T) {
	frames, src := sourceFrames()
	r := &Recording{}
	addSourced(r, frames, src)
	r.SetArg(2, 0, Value{Name: "p", Type: "*main.T", Kind: KindPointer, Text: "&main.T{X: 2}"})
	before := []*Frame{r.At(0), r.At(2), r.At(3), r.At(5), r.At(6)}
	r.Keep([]bool{true, false, true, true, false, true, true})
	r.Index()
	if r.Len() != len(before) {
		t.Fatalf("%d frames kept, want %d", r.Len(), len(before))
	}
	for i, want := range before {
		got := r.At(i)
		if !reflect.DeepEqual(got.Args, want.Args) || !reflect.DeepEqual(got.Results, want.Results) {
			t.Errorf("frame %d (%s) after Keep: args %+v results %+v, want %+v %+v", i, got.FID, got.Args, got.Results, want.Args, want.Results)
		}
	}
}

// TestSourceSpill keeps values in a source with the frame rows in a
// mapped file: the flags and references are in the mapped rows.
func TestSourceSpill(t *testing.T) {
	frames, src := sourceFrames()
	r := &Recording{}
	if err := r.Spill(filepath.Join(t.TempDir(), "index"), len(frames), 8, 256); err != nil {
		t.Fatal(err)
	}
	addSourced(r, frames, src)
	for i, want := range frames {
		if got := r.At(i); !reflect.DeepEqual(got.Args, want.Args) || !reflect.DeepEqual(got.Results, want.Results) {
			t.Errorf("frame %d: args %+v results %+v, want %+v %+v", i, got.Args, got.Results, want.Args, want.Results)
		}
	}
}
