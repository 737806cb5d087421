package engine

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"
	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"

	"github.com/adi-go/adi/engine/trace"
)

// TestResultsFromRegisters: results are read from the integer registers
// of the register ABI in order (a string and an interface take two, a
// slice three), cut to their size; a float ends the reading, since its
// registers are another sequence and what follows it is not followed.
func TestResultsFromRegisters(t *testing.T) {
	basic := func(k reflect.Kind, size int64) *proc.Variable {
		ct := godwarf.CommonType{ByteSize: size, ReflectKind: k}
		var typ godwarf.Type
		switch k {
		case reflect.Bool:
			typ = &godwarf.BoolType{BasicType: godwarf.BasicType{CommonType: ct}}
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			typ = &godwarf.UintType{BasicType: godwarf.BasicType{CommonType: ct}}
		case reflect.Float64:
			typ = &godwarf.FloatType{BasicType: godwarf.BasicType{CommonType: ct}}
		case reflect.String:
			typ = &godwarf.StringType{StructType: godwarf.StructType{CommonType: ct}}
		default:
			typ = &godwarf.IntType{BasicType: godwarf.BasicType{CommonType: ct}}
		}
		return &proc.Variable{Kind: k, RealType: typ}
	}
	regs := map[uint64]uint64{
		0: 0xffff_ffff_ffff_ff85, // RAX: int8 -123
		3: 0x1234_5678_0000_002a, // RBX, RCX: a string
		2: 7,
		5: 0xffff_fffe,           // RDI: uint32
		4: 0xaa00,                // RSI: a bool whose low byte is 0
		8: 0xdead_beef_dead_beef, // R8: after the float, not read
	}
	vs := []*proc.Variable{
		basic(reflect.Int8, 1), basic(reflect.String, 16), basic(reflect.Uint32, 4),
		basic(reflect.Bool, 1), basic(reflect.Float64, 8), basic(reflect.Int, 8),
	}
	resultsFromRegisters(vs, func(n uint64) uint64 { return regs[n] })
	want := []string{"-123", "<nil>", "4294967294", "false", "<nil>", "<nil>"}
	for i, v := range vs {
		got := "<nil>"
		if v.Value != nil {
			got = v.Value.String()
		}
		if got != want[i] {
			t.Errorf("result %d (%s): %s, want %s", i, v.Kind, got, want[i])
		}
	}
}

// TestReturnValuesDeadFrame: the results of a frame that returned are
// read at the caller's return address, where the frame's slots are below
// the stack pointer and anything may have written over them (an
// asynchronous preemption there saves its registers on that stack). With
// that memory scribbled over, fib#2's result is still its return value.
func TestReturnValuesDeadFrame(t *testing.T) {
	rec, prog := record(t, fib4...)
	f, err := rec.Frame(trace.FID{Func: "main.fib", Index: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, err := reach(ctx, prog, rec, f, Limits{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer in.p.kill()
	if ended, _, err := in.command(api.StepOut); err != nil || ended {
		t.Fatalf("stepping out of fib#2: ended %v, %v", ended, err)
	}
	grp, unlock := in.p.d.LockTargetGroup()
	th := grp.Selected.CurrentThread()
	regs, err := th.Registers()
	if err != nil {
		unlock()
		t.Fatal(err)
	}
	junk := make([]byte, 512)
	for i := range junk {
		junk[i] = 0xa5
	}
	_, err = grp.Selected.Memory().WriteMemory(regs.SP()-uint64(len(junk)), junk)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	rets := in.returnValues()
	if len(rets) != 1 || rets[0].Text != "2" {
		t.Fatalf("fib#2(n=3) returned %+v, want 2", rets)
	}
}
