package engine

import (
	"go/constant"
	"reflect"
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
	// The frame's goroutine's thread, which need not be the current one.
	g, err := proc.FindGoroutine(grp.Selected, in.goid)
	if err != nil || g == nil || g.Thread == nil {
		return nil
	}
	th := g.Thread
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

// resultsFromThread corrects vs, the results Delve read for the frame th
// just returned from, by th's registers (see resultsFromRegisters).
func resultsFromThread(tgt *proc.Target, th proc.Thread, vs []*proc.Variable) {
	if runtime.GOARCH != "amd64" {
		return
	}
	regs, err := th.Registers()
	if err != nil {
		return
	}
	dregs := tgt.BinInfo().Arch.RegistersToDwarfRegisters(0, regs)
	resultsFromRegisters(vs, dregs.Uint64Val)
}

// resultsFromRegisters sets the integer and boolean results among vs, the
// results Delve read for the frame a stepping command just left, from the
// registers the function returned them in (Go's register ABI: reg gives a
// register of the thread, stopped at the return address, by its DWARF
// number). Delve reads results from their slots in the frame, which is
// gone by then: the slots lie below the stack pointer, where nothing
// keeps them, and an asynchronous preemption at the return address writes
// its saved registers over them. The registers are the results as the
// caller receives them.
//
// Results are taken in order while their register use is known (see
// intKindWords); the first that is not (a struct, an array, a float) ends
// the correction, as do results past the ABI's integer registers.
func resultsFromRegisters(vs []*proc.Variable, reg func(num uint64) uint64) {
	next := 0
	for _, v := range vs {
		if v == nil || v.RealType == nil {
			return
		}
		words, ok := intKindWords(v.Kind)
		if !ok || next+words > len(amd64IntArgRegs) {
			return
		}
		if words == 1 {
			setFromBits(v, reg(amd64IntArgRegs[next]))
		}
		next += words
	}
}

// intKindWords is how many integer registers a value of kind k takes in
// Go's register ABI, when it takes only integer registers.
func intKindWords(k reflect.Kind) (int, bool) {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Bool, reflect.Ptr, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return 1, true
	case reflect.String, reflect.Interface:
		return 2, true
	case reflect.Slice:
		return 3, true
	}
	return 0, false
}

// setFromBits gives an integer or boolean variable the value of the
// register word w, cut to the variable's size; other kinds are left.
func setFromBits(v *proc.Variable, w uint64) {
	size := v.RealType.Size()
	if size < 1 || size > 8 {
		return
	}
	shift := 64 - 8*uint(size)
	switch v.Kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.Value = constant.MakeInt64(int64(w<<shift) >> shift)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.Value = constant.MakeUint64(w << shift >> shift)
	case reflect.Bool:
		v.Value = constant.MakeBool(w&0xff != 0)
	default:
		return
	}
	v.Unreadable = nil
}
