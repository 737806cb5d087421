//go:build linux && amd64

package adirt

import "unsafe"

// The hooks the instrumenter inserts. Each gets the addresses of the
// arguments (or results): a hook must be called directly by the
// instrumented function (entry, Go) or by its deferwrap (exit), since it
// finds the frames by their frame pointers.

// frames returns the current g and, for the hook's caller F: a PC in F,
// the return address into F's caller, and the distances of F's frame
// pointer and its caller's from the stack top.
func frames() (gp, pcF, pcCaller, offF, offCaller uintptr)

// exitFrames returns the current g and the return address into the caller
// of the exit hook's deferwrap.
func exitFrames() (gp, pc uintptr)

// peek reads the word at addr (an address in the goroutine's stack).
func peek(addr uintptr) uintptr

// prefetchw asks for the cache line at p to be fetched for writing
// (PREFETCHW: a hint, which never faults).
func prefetchw(p unsafe.Pointer)

// cpuid returns EAX and ECX of CPUID's leaf.
func cpuid(leaf uint32) (eax, ecx uint32)

// ptrOf turns the address of a type descriptor (static data, never moved
// or freed) back into a pointer. Going through a uintptr keeps escape
// analysis from concluding that the hooks' arguments escape.
func ptrOf(u uintptr) unsafe.Pointer

// E0 to E4 and EN record the entry of the calling function, site being its
// index in the instrumenter's table, a0… the addresses of its arguments.
//
//go:noinline
func E0(site uint64) F {
	gp, pcF, pcC, bpF, bpC := frames()
	f, s, p := enter(site, 0, gp, pcF, pcC, bpF, bpC)
	if s != nil {
		s.done(p)
	}
	return f
}

//go:noinline
func E1(site uint64, a0 any) F {
	gp, pcF, pcC, bpF, bpC := frames()
	f, s, p := enter(site, 1, gp, pcF, pcC, bpF, bpC)
	if s != nil {
		p = s.value(p, a0)
		s.done(p)
	}
	return f
}

//go:noinline
func E2(site uint64, a0, a1 any) F {
	gp, pcF, pcC, bpF, bpC := frames()
	f, s, p := enter(site, 2, gp, pcF, pcC, bpF, bpC)
	if s != nil {
		p = s.value(p, a0)
		p = s.value(p, a1)
		s.done(p)
	}
	return f
}

//go:noinline
func E3(site uint64, a0, a1, a2 any) F {
	gp, pcF, pcC, bpF, bpC := frames()
	f, s, p := enter(site, 3, gp, pcF, pcC, bpF, bpC)
	if s != nil {
		p = s.value(p, a0)
		p = s.value(p, a1)
		p = s.value(p, a2)
		s.done(p)
	}
	return f
}

//go:noinline
func E4(site uint64, a0, a1, a2, a3 any) F {
	gp, pcF, pcC, bpF, bpC := frames()
	f, s, p := enter(site, 4, gp, pcF, pcC, bpF, bpC)
	if s != nil {
		p = s.value(p, a0)
		p = s.value(p, a1)
		p = s.value(p, a2)
		p = s.value(p, a3)
		s.done(p)
	}
	return f
}

//go:noinline
func EN(site uint64, as ...any) F {
	gp, pcF, pcC, bpF, bpC := frames()
	if len(as) > 32 {
		as = as[:32]
	}
	f, s, p := enter(site, len(as), gp, pcF, pcC, bpF, bpC)
	if s != nil {
		for _, a := range as {
			p = s.value(p, a)
		}
		s.done(p)
	}
	return f
}

// X0 to X3 and XN record the exit of the frame f, r0… the addresses of
// its results, and when a panic unwinds the frame, the panic's value (see
// unwinding). They are deferred first, so they run last.
//
//go:noinline
func X0(f F) {
	if f.g == nil {
		return
	}
	gp, pc := exitFrames()
	if p, ok := leave(f, 0, pc); ok {
		f.g.done(p)
		f.g.unwinding(gp, pc)
	}
}

//go:noinline
func X1(f F, r0 any) {
	if f.g == nil {
		return
	}
	gp, pc := exitFrames()
	if p, ok := leave(f, 1, pc); ok {
		s := f.g
		p = s.value(p, r0)
		s.done(p)
		s.unwinding(gp, pc)
	}
}

//go:noinline
func X2(f F, r0, r1 any) {
	if f.g == nil {
		return
	}
	gp, pc := exitFrames()
	if p, ok := leave(f, 2, pc); ok {
		s := f.g
		p = s.value(p, r0)
		p = s.value(p, r1)
		s.done(p)
		s.unwinding(gp, pc)
	}
}

//go:noinline
func X3(f F, r0, r1, r2 any) {
	if f.g == nil {
		return
	}
	gp, pc := exitFrames()
	if p, ok := leave(f, 3, pc); ok {
		s := f.g
		p = s.value(p, r0)
		p = s.value(p, r1)
		p = s.value(p, r2)
		s.done(p)
		s.unwinding(gp, pc)
	}
}

//go:noinline
func XN(f F, rs ...any) {
	if f.g == nil {
		return
	}
	gp, pc := exitFrames()
	if len(rs) > 32 {
		rs = rs[:32]
	}
	if p, ok := leave(f, len(rs), pc); ok {
		s := f.g
		for _, r := range rs {
			p = s.value(p, r)
		}
		s.done(p)
		s.unwinding(gp, pc)
	}
}

// Never is false. The instrumenter makes returns that run only when it is
// true, which the compiler cannot know (see instrument's rewrite).
var Never bool

// Go records a go statement of the calling function, just before it runs.
//
//go:noinline
func Go() {
	if !enabled || stopped.Load() {
		return
	}
	gp, pcF, _, _, _ := frames()
	s := lookup(gp)
	if s == nil || len(s.stack) == 0 {
		return
	}
	if p, ok := begin(s, recGo); ok {
		s.hdr().flags |= hdrScan
		s.done(p.uvarint(uint64(pcF)))
	}
}

// Rec records the value recover returned and returns it.
//
//go:noinline
func Rec(v any) any {
	if v != nil {
		gp, _, _, _, _ := frames()
		rec(gp, v)
	}
	return v
}
