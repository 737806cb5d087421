package trace

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// Spill places the recording's frame rows, callee lists, value rows and
// value text in a file at path, mapped into memory, instead of the Go heap:
// the kernel pages them in and out, so an index larger than memory still
// works. The file is removed at once (the mapping keeps it until the
// recording is collected). It is sized for frames frames, values values and
// text bytes of value text, with room for values added later (the debugger
// filling in shallow ones); more than that goes to the heap. Call it before
// the first frame is added.
func (r *Recording) Spill(path string, frames, values, text int) error {
	return r.mapIndex(path, frames, values, text)
}

// OffHeap places the recording's frame rows, callee lists, value rows and
// value text in anonymous memory outside the Go heap, sized as Spill does.
// A recorder that knows the size of its index before it builds it calls it
// first: tens of megabytes allocated on the heap at once would be zeroed
// by the runtime after the kernel, and make the garbage collector mark the
// index again and again as it is filled. The memory is prefaulted in the
// background, ahead of the rows being written.
func (r *Recording) OffHeap(frames, values, text int) error {
	return r.mapIndex("", frames, values, text)
}

// mapIndex maps the index in a file at path, or in anonymous memory if
// path is "".
func (r *Recording) mapIndex(path string, frames, values, text int) error {
	if len(r.rows) > 0 || r.mapped {
		return fmt.Errorf("mapping the index of a recording that already has frames")
	}
	// Room past the counts: a run killed mid-record can count one
	// frame short, and a row past the mapping would move every row to
	// the heap.
	frames += 64
	values += values/8 + 4096
	text += text/8 + 64<<10
	rowBytes := frames * int(unsafe.Sizeof(row{}))
	valBytes := values * int(unsafe.Sizeof(vrow{}))
	kidBytes := frames * 4
	size := rowBytes + valBytes + kidBytes + text
	if size == 0 {
		return nil
	}
	var m []byte
	var err error
	if path == "" {
		m, err = mapAnon(size)
	} else {
		m, err = mapFile(path, size)
	}
	if err != nil {
		if path == "" {
			return fmt.Errorf("mapping memory for the index: %w", err)
		}
		return fmt.Errorf("spilling the index to %s: %w", path, err)
	}
	// Rows and value rows are 8-byte aligned (the mapping is page
	// aligned, the sizes are multiples of 8); then the callee lists (4),
	// then the text.
	r.rows = unsafe.Slice((*row)(unsafe.Pointer(&m[0])), frames)[:0]
	off := rowBytes
	r.vals = unsafe.Slice((*vrow)(unsafe.Pointer(&m[off])), values)[:0]
	off += valBytes
	if frames > 0 {
		r.kids = unsafe.Slice((*int32)(unsafe.Pointer(&m[off])), frames)[:0]
	}
	off += kidBytes
	for ; off < size; off += textBlock {
		end := min(off+textBlock, size)
		r.spare = append(r.spare, m[off:off:end])
	}
	r.mapped, r.spilled = true, path != ""
	if path == "" {
		// Rows and value rows are written side by side, at about the
		// same pace: their pages are faulted in turn.
		go func() {
			const parts = 32
			rs, vs := rowBytes/parts, valBytes/parts
			for i := range parts {
				prefault(m[i*rs : (i+1)*rs])
				prefault(m[rowBytes+i*vs : rowBytes+(i+1)*vs])
			}
			runtime.KeepAlive(r) // m stays mapped
		}()
	}
	runtime.AddCleanup(r, func(m []byte) { unmap(m) }, m)
	return nil
}

// Spilled reports whether the index is in a mapped file (see Spill).
func (r *Recording) Spilled() bool { return r.spilled }

// IsOffHeap reports whether the index is outside the Go heap (see Spill
// and OffHeap).
func (r *Recording) IsOffHeap() bool { return r.mapped }

// mapFile maps a new file of size bytes at path, read-write and shared,
// and removes the file.
func mapFile(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer os.Remove(path)
	if err := f.Truncate(int64(size)); err != nil {
		return nil, err
	}
	return mmap(f, size)
}
