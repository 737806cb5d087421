package engine

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// inlineTrees reads the compiler's inline trees from a Go binary's
// pclntab, which debug/gosym leaves out: for a PC in code that was inlined
// into a function, the PC of the call it was inlined at, in the
// function's own code. The instrumented build is optimized: the line of a
// call made from library code inlined into the program (fmt.Println's
// call of Fprintln, in main) is the library's, and the program's line is
// that of the inlined call.
//
// The layout is the runtime's since Go 1.20 (runtime._func,
// runtime.inlinedCall, the pcvalue tables), little-endian, 64-bit.
type inlineTrees struct {
	textStart uint64
	quantum   uint64
	nfunc     int
	functab   []byte // nfunc+1 pairs of uint32: entry offset, _func offset
	funcdata  []byte // where the _func offsets start
	pctab     []byte
	gofunc    []byte // the data at the symbol go:func.*
}

// The indexes of the inline tree among a function's pcdata and funcdata
// (internal/abi's PCDATA_InlTreeIndex and FUNCDATA_InlTree), and the
// offsets in runtime._func of npcdata, nfuncdata and its tables.
const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
	funcNPCData        = 28
	funcNFuncData      = 43
	funcTables         = 44
	inlinedCallSize    = 16
	inlinedCallParent  = 8
)

// loadInlineTrees reads the inline trees of the binary at path.
func loadInlineTrees(path string) (*inlineTrees, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the inline trees of %s: %w", path, err)
	}
	defer f.Close()
	data, text, err := pclntab(f)
	if err != nil {
		return nil, fmt.Errorf("reading the inline trees of %s: %w", path, err)
	}
	le := binary.LittleEndian
	if len(data) < 8+8*8 || le.Uint32(data) != 0xfffffff1 || data[7] != 8 {
		return nil, errors.New("not a Go 1.20 or later pclntab of a 64-bit binary")
	}
	word := func(i int) uint64 { return le.Uint64(data[8+8*i:]) }
	t := &inlineTrees{textStart: text, quantum: uint64(data[6]), nfunc: int(word(0))}
	pctab, pcln0 := word(6), word(7)
	if pctab > uint64(len(data)) || pcln0 > uint64(len(data)) || pcln0+uint64(t.nfunc+1)*8 > uint64(len(data)) {
		return nil, errors.New("a pclntab offset past its end")
	}
	t.pctab, t.funcdata = data[pctab:], data[pcln0:]
	t.functab = t.funcdata[:(t.nfunc+1)*8]
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	for _, s := range syms {
		if s.Name != "go:func.*" {
			continue
		}
		for _, sec := range f.Sections {
			if sec.Type == elf.SHT_PROGBITS && s.Value >= sec.Addr && s.Value < sec.Addr+sec.Size {
				b, err := sec.Data()
				if err != nil {
					return nil, err
				}
				t.gofunc = b[s.Value-sec.Addr:]
			}
		}
	}
	if t.gofunc == nil {
		return nil, errors.New("no go:func.* symbol")
	}
	return t, nil
}

// outermost returns, for pc in code inlined into a function, the PC of
// the outermost inlined call in the function's own code; else pc.
func (t *inlineTrees) outermost(pc uint64) uint64 {
	le := binary.LittleEndian
	entryAt := func(i int) uint64 { return t.textStart + uint64(le.Uint32(t.functab[8*i:])) }
	if t.nfunc == 0 || pc < entryAt(0) || pc >= entryAt(t.nfunc) {
		return pc
	}
	i := sort.Search(t.nfunc, func(i int) bool { return entryAt(i+1) > pc })
	off := uint64(le.Uint32(t.functab[8*i+4:]))
	if off+funcTables > uint64(len(t.funcdata)) {
		return pc
	}
	fn := t.funcdata[off:]
	entry := t.textStart + uint64(le.Uint32(fn))
	npcdata, nfuncdata := int(le.Uint32(fn[funcNPCData:])), int(fn[funcNFuncData])
	if npcdata <= pcdataInlTreeIndex || nfuncdata <= funcdataInlTree || funcTables+4*(npcdata+nfuncdata) > len(fn) {
		return pc
	}
	table := le.Uint32(fn[funcTables+4*pcdataInlTreeIndex:])
	tree := le.Uint32(fn[funcTables+4*npcdata+4*funcdataInlTree:])
	if table == 0 || tree == ^uint32(0) || uint64(tree) > uint64(len(t.gofunc)) {
		return pc
	}
	calls := t.gofunc[tree:]
	// Each inlined call's parent PC is in the code it was inlined into:
	// up to a PC of the function's own (index -1). Bounded, in case of
	// a damaged table.
	for range 1000 {
		ix := t.pcvalue(table, entry, pc)
		if ix < 0 || (int(ix)+1)*inlinedCallSize > len(calls) {
			return pc
		}
		pc = entry + uint64(int32(le.Uint32(calls[int(ix)*inlinedCallSize+inlinedCallParent:])))
	}
	return pc
}

// pcvalue is the value of the pcvalue table at off for pc, in the
// function at entry; -1 if none.
func (t *inlineTrees) pcvalue(off uint32, entry, pc uint64) int32 {
	if uint64(off) >= uint64(len(t.pctab)) {
		return -1
	}
	p := t.pctab[off:]
	val, at := int32(-1), entry
	for first := true; ; first = false {
		uv, n := binary.Uvarint(p)
		if n <= 0 || uv == 0 && !first {
			return -1
		}
		p = p[n:]
		if uv&1 != 0 {
			val += int32(^(uv >> 1))
		} else {
			val += int32(uv >> 1)
		}
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return -1
		}
		p = p[n:]
		at += d * t.quantum
		if pc < at {
			return val
		}
	}
}
