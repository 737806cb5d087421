package engine

import (
	"os"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pinned counts the processes under Delve that hold this process on one
// CPU (see oneCPU); all is the CPUs it had before.
var pinned struct {
	sync.Mutex
	n   int
	all unix.CPUSet
}

// oneCPU keeps this process on one CPU while Delve drives a target, until
// undo is called. Every stop of the target is a dozen round trips between
// the goroutine that gives Delve its commands and Delve's ptrace thread,
// which makes every ptrace call and memory read: on one CPU a wake-up is a
// switch; across two CPUs it is an interrupt to the other one, which on a
// VM costs more than the work of the round trip. A table-driven test's
// trace took 1.4 ms a statement instead of 2.5 ms (BenchmarkFLTTest).
//
// The target keeps its CPUs: it is started before, and its runtime sizes
// itself by them. So do the processes this one starts later, once undo
// has been called; none starts meanwhile, since Delve's wait for its
// target would take their exits (see adapter's Server.workMu). With one
// CPU allowed, oneCPU does nothing.
func oneCPU() (undo func()) {
	pinned.Lock()
	defer pinned.Unlock()
	if pinned.n == 0 {
		if err := unix.SchedGetaffinity(0, &pinned.all); err != nil || pinned.all.Count() < 2 {
			return func() {}
		}
		var one unix.CPUSet
		one.Set(currentCPU(&pinned.all))
		setThreads(&one)
	}
	pinned.n++
	return sync.OnceFunc(func() {
		pinned.Lock()
		defer pinned.Unlock()
		if pinned.n--; pinned.n == 0 {
			setThreads(&pinned.all)
		}
	})
}

// setThreads sets the CPUs of every thread of this process (a thread made
// later inherits them from the thread that makes it).
func setThreads(set *unix.CPUSet) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		unix.SchedSetaffinity(0, set)
		return
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			unix.SchedSetaffinity(tid, set)
		}
	}
}

// currentCPU returns the CPU this thread runs on, or the first of all if
// the kernel does not say.
func currentCPU(all *unix.CPUSet) int {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e == 0 && all.IsSet(int(cpu)) {
		return int(cpu)
	}
	for i := 0; ; i++ {
		if all.IsSet(i) {
			return i
		}
	}
}
