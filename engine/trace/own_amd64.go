package trace

import "unsafe"

// own asks for the cache line at p to be fetched for writing, where the
// processor can (PREFETCHW): a hint, which never faults.
//
// The recorder writes a frame row every hundred nanoseconds or so into
// memory made by another thread (see mapping.ahead), whose lines are then
// in that thread's core or in none: each first store to one waits for the
// line, unless it was asked for ahead.
func own(p unsafe.Pointer) {
	if canOwn {
		prefetchw(p)
	}
}

// canOwn says whether the processor has PREFETCHW.
var canOwn = hasPrefetchW()

// hasPrefetchW reports whether the processor has PREFETCHW (CPUID
// 0x80000001, ECX bit 8).
func hasPrefetchW() bool {
	if top, _ := cpuid(0x80000000); top < 0x80000001 {
		return false
	}
	_, ecx := cpuid(0x80000001)
	return ecx&(1<<8) != 0
}

func prefetchw(p unsafe.Pointer)

// cpuid returns EAX and ECX of CPUID's leaf.
func cpuid(leaf uint32) (eax, ecx uint32)
