package engine

import (
	"runtime"
	"strconv"

	"github.com/go-delve/delve/pkg/dwarf/op"
	"github.com/go-delve/delve/pkg/proc"

	"github.com/adi-go/adi/engine/trace"
)

// amd64 integer argument registers of Go's register ABI, in order, as DWARF
// register numbers: RAX, RBX, RCX, RDI, RSI, R8, R9, R10, R11.
var amd64IntArgRegs = []uint64{0, 3, 2, 5, 4, 8, 9, 10, 11}

// syncArgRegister completes a what-if assignment to an argument. Even in a
// -N build the compiler keeps using the register an argument arrived in
// after spilling it (fib's "n < 2" and "n-1" read AX, "n-2" the stack
// slot), while DWARF places the argument in the stack slot only: Delve sets
// the slot, the code goes on reading the old register. When the argument's
// register still holds the old value, it gets the new one too.
//
// Only word-sized integer, boolean and pointer arguments preceded by
// arguments whose register use is known are handled; others are left to
// Delve alone.
func (in *inFrame) syncArgRegister(name string, old trace.Value) error {
	if runtime.GOARCH != "amd64" {
		return nil
	}
	reg := -1
	next := 0
	for _, a := range in.frame.Args {
		words, ok := intRegWords(a)
		if !ok {
			return nil
		}
		if a.Name == name {
			if words != 1 {
				return nil
			}
			reg = next
			break
		}
		next += words
	}
	if reg < 0 || reg >= len(amd64IntArgRegs) {
		return nil
	}
	oldBits, ok := wordBits(old)
	if !ok {
		return nil
	}
	v, err := in.p.d.EvalVariableInScope(in.goid, 0, 0, name, in.lim.loadConfig())
	if err != nil {
		return err
	}
	newBits, ok := variableBits(v)
	if !ok {
		return nil
	}
	grp, unlock := in.p.d.LockTargetGroup()
	defer unlock()
	th := grp.Selected.CurrentThread()
	regs, err := th.Registers()
	if err != nil {
		return err
	}
	dregs := grp.Selected.BinInfo().Arch.RegistersToDwarfRegisters(0, regs)
	num := amd64IntArgRegs[reg]
	if dregs.Uint64Val(num) != oldBits {
		return nil // the register was reused: the code no longer reads it
	}
	return th.SetReg(num, op.DwarfRegisterFromUint64(newBits))
}

// intRegWords is how many integer registers an argument takes, when known.
func intRegWords(v trace.Value) (int, bool) {
	switch v.Kind {
	case trace.KindInt, trace.KindUint, trace.KindBool, trace.KindPointer, trace.KindMap, trace.KindChan, trace.KindFunc:
		return 1, true
	case trace.KindString, trace.KindInterface:
		return 2, true
	case trace.KindSlice:
		return 3, true
	}
	return 0, false
}

// wordBits is the machine word of a recorded scalar.
func wordBits(v trace.Value) (uint64, bool) {
	switch v.Kind {
	case trace.KindInt:
		n, err := strconv.ParseInt(v.Text, 10, 64)
		return uint64(n), err == nil
	case trace.KindUint:
		n, err := strconv.ParseUint(v.Text, 10, 64)
		return n, err == nil
	case trace.KindBool:
		if v.Text == "true" {
			return 1, true
		}
		return 0, v.Text == "false"
	}
	return 0, false
}

func variableBits(v *proc.Variable) (uint64, bool) {
	n, ok := constantInt(v)
	if ok {
		return uint64(n), true
	}
	if v.Value != nil && v.Value.String() == "true" {
		return 1, true
	}
	if v.Value != nil && v.Value.String() == "false" {
		return 0, true
	}
	return 0, false
}
