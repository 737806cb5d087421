package engine

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/proc"

	"github.com/adi-go/adi/engine/instrument"
)

// counting is the counting hook of a debug build made with it (see
// instrument.Result.CountOverlay): every function of the module calls
// adirt.C at its entry, which counts the entries that adirt.Ctl asks it to
// and then calls adirt.Stop. Reaching the n-th invocation of a function
// then costs two stops of the process (Stop, then the entry itself)
// instead of n.
type counting struct {
	ctl     uint64   // the address of adirt.Ctl
	stop    []uint64 // the entry of adirt.Stop
	goidOff uint64   // the offset of goid in the runtime's g
}

// ctlRanges is the number of address ranges adirt.Ctl holds (Lo, Hi).
const ctlRanges = 4

// counter returns the counting hook of p's binary, nil if it has none.
// It is looked up once.
func (p *process) counter() *counting {
	p.countOnce.Do(func() { p.count = findCounter(p) })
	return p.count
}

func findCounter(p *process) *counting {
	grp, unlock := p.d.LockTargetGroup()
	defer unlock()
	t := grp.Selected
	bi := t.BinInfo()
	if len(bi.Images) == 0 {
		return nil
	}
	// The runtime has no debug information in the counting build (Delve
	// would step into C): its symbols are the binary's.
	img := bi.Images[0]
	syms, err := counterSymbols(img.Path)
	if err != nil || syms.ctl == 0 || syms.stop == 0 {
		return nil
	}
	c := &counting{ctl: img.StaticBase + syms.ctl, stop: []uint64{img.StaticBase + syms.stop}}
	typ, err := bi.FindType("runtime.g")
	if err != nil {
		return nil
	}
	st, ok := typ.(*godwarf.StructType)
	if !ok {
		return nil
	}
	for _, f := range st.Field {
		if f.Name == "goid" && f.Type != nil && f.Type.Size() == 8 {
			c.goidOff = uint64(f.ByteOffset)
		}
	}
	if c.goidOff == 0 {
		return nil
	}
	return c
}

// counterAddrs are the addresses of adirt.Ctl and adirt.Stop in a binary,
// before relocation; 0 when it has none.
type counterAddrs struct{ ctl, stop uint64 }

var (
	counterMu    sync.Mutex
	counterCache = map[string]counterAddrs{}
)

// counterSymbols reads the addresses of the counting hook's symbols from
// the binary at path (once per binary: each re-execution launches it).
func counterSymbols(path string) (counterAddrs, error) {
	st, err := os.Stat(path)
	if err != nil {
		return counterAddrs{}, err
	}
	key := fmt.Sprintf("%s %d %d", path, st.Size(), st.ModTime().UnixNano())
	counterMu.Lock()
	defer counterMu.Unlock()
	if a, ok := counterCache[key]; ok {
		return a, nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return counterAddrs{}, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return counterAddrs{}, err
	}
	var a counterAddrs
	for _, s := range syms {
		switch s.Name {
		case instrument.RuntimeModule + ".Ctl":
			a.ctl = s.Value
		case instrument.RuntimeModule + ".Stop":
			a.stop = s.Value
		}
	}
	counterCache[key] = a
	return a, nil
}

// countEntries continues the process until the entries of the functions
// whose code is in ranges, on goroutine goid (any when goid < 0), have
// been counted n times. The process then stops in adirt.Stop, called at
// the n-th of them, past its entry: the next entry is the (n+1)-th.
// exitedEarly is set when the process exited before.
func (p *process) countEntries(ctx context.Context, c *counting, ranges [][2]uint64, n int, goid int64) (exitedEarly bool, err error) {
	if len(ranges) > ctlRanges || n <= 0 {
		return false, fmt.Errorf("internal error: counting %d entries in %d ranges", n, len(ranges))
	}
	buf := make([]byte, 32+16*ctlRanges)
	binary.LittleEndian.PutUint64(buf[0:], uint64(n))
	if goid >= 0 {
		binary.LittleEndian.PutUint64(buf[8:], c.goidOff)
		binary.LittleEndian.PutUint64(buf[16:], uint64(goid))
	}
	binary.LittleEndian.PutUint64(buf[24:], uint64(len(ranges)))
	for i, r := range ranges {
		binary.LittleEndian.PutUint64(buf[32+8*i:], r[0])
		binary.LittleEndian.PutUint64(buf[32+8*ctlRanges+8*i:], r[1])
	}
	if err := p.writeCtl(c, buf); err != nil {
		return false, err
	}
	id, err := p.setBreakpoint(c.stop)
	if err != nil {
		return false, err
	}
	defer p.clearBreakpoint(id)
	for {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		grp, unlock := p.d.LockTargetGroup()
		err := grp.Continue()
		p.stops++
		if _, ok := exited(err); ok {
			unlock()
			return true, nil
		}
		if err != nil {
			unlock()
			return false, err
		}
		for _, th := range grp.Selected.ThreadList() {
			bs := th.Breakpoint()
			if bs != nil && bs.Breakpoint != nil && bs.Active && bs.Breakpoint.Logical != nil && bs.Breakpoint.Logical.LogicalID == id {
				err := grp.Selected.SwitchThread(th.ThreadID())
				unlock()
				return false, err
			}
		}
		unlock()
	}
}

// writeCtl writes adirt.Ctl.
func (p *process) writeCtl(c *counting, buf []byte) error {
	grp, unlock := p.d.LockTargetGroup()
	defer unlock()
	if _, err := grp.Selected.Memory().WriteMemory(c.ctl, buf); err != nil {
		return fmt.Errorf("writing the counting hook's control block: %w", err)
	}
	return nil
}

// callsCounter reports whether fn calls the counting hook at its entry:
// the instrumenter leaves some functions out (//go:nosplit, cgo files),
// whose entries nothing counts. pc is fn's address after its prologue:
// the hook is the first call of the code there on the header line, after
// the zeroing of the results (runtime.duffzero's, for large ones).
func callsCounter(t *proc.Target, fn *proc.Function, pc uint64) bool {
	insts, err := proc.Disassemble(t.Memory(), nil, t.Breakpoints(), t.BinInfo(), pc, fn.End)
	if err != nil || len(insts) == 0 {
		return false
	}
	header := insts[0].Loc
	for _, in := range insts {
		if in.Loc.Line != header.Line || in.Loc.File != header.File {
			return false
		}
		if !in.IsCall() {
			continue
		}
		if in.DestLoc == nil || in.DestLoc.Fn == nil {
			return false
		}
		switch name := in.DestLoc.Fn.Name; {
		case name == instrument.RuntimeModule+".C":
			return true
		case !strings.HasPrefix(name, "runtime."):
			return false
		}
	}
	return false
}
