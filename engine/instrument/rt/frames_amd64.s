//go:build linux

#include "textflag.h"

// func frames() (gp, pcF, pcCaller, offF, offCaller uintptr)
//
// Called by a hook (a Go function with a frame) that was called by the
// instrumented function F: BP is the hook's frame pointer. The frame
// pointers are returned as distances from the stack top (g.stack.hi), which
// stay the same when the stack is moved.
TEXT ·frames(SB), NOSPLIT, $0-40
	MOVQ (TLS), AX
	MOVQ AX, gp+0(FP)
	MOVQ 8(AX), BX
	MOVQ 8(BP), DX
	MOVQ DX, pcF+8(FP)
	MOVQ (BP), CX
	MOVQ BX, DX
	SUBQ CX, DX
	MOVQ DX, offF+24(FP)
	MOVQ 8(CX), DX
	MOVQ DX, pcCaller+16(FP)
	MOVQ (CX), CX
	MOVQ BX, DX
	SUBQ CX, DX
	MOVQ DX, offCaller+32(FP)
	RET

// func exitFrames() (gp, pc uintptr)
//
// Called by an exit hook X that a deferwrap called: pc is the return
// address into the deferwrap's caller (F itself, runtime.deferreturn,
// runtime.gopanic or runtime.Goexit).
TEXT ·exitFrames(SB), NOSPLIT, $0-16
	MOVQ (TLS), AX
	MOVQ AX, gp+0(FP)
	MOVQ (BP), CX
	MOVQ 8(CX), DX
	MOVQ DX, pc+8(FP)
	RET

// func peek(addr uintptr) uintptr
TEXT ·peek(SB), NOSPLIT, $0-16
	MOVQ addr+0(FP), AX
	MOVQ (AX), AX
	MOVQ AX, ret+8(FP)
	RET

// func ptrOf(u uintptr) unsafe.Pointer
TEXT ·ptrOf(SB), NOSPLIT, $0-16
	MOVQ u+0(FP), AX
	MOVQ AX, ret+8(FP)
	RET

// func prefetchw(p unsafe.Pointer)
TEXT ·prefetchw(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	// PREFETCHW (AX), which the assembler does not know.
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08
	RET

// func cpuid(leaf uint32) (eax, ecx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-16
	MOVL leaf+0(FP), AX
	XORL CX, CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL CX, ecx+12(FP)
	RET
