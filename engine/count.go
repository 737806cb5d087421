package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

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
	stop    []uint64 // where a breakpoint in adirt.Stop goes
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
	fns := bi.LookupFunc()[instrument.RuntimeModule+".Stop"]
	if len(fns) == 0 {
		return nil
	}
	c := &counting{}
	for _, fn := range fns {
		pc, err := proc.FirstPCAfterPrologue(t, fn, false)
		if err != nil {
			return nil
		}
		c.stop = append(c.stop, pc)
	}
	scope, err := proc.ThreadScope(t, t.CurrentThread())
	if err != nil {
		return nil
	}
	v, err := scope.EvalExpression(fmt.Sprintf("%q.Ctl", instrument.RuntimeModule), proc.LoadConfig{})
	if err != nil || v.Addr == 0 {
		return nil
	}
	c.ctl = v.Addr
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
