package engine

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPUs returns the CPUs of each thread of this process.
func threadCPUs(t *testing.T) map[int]unix.CPUSet {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[int]unix.CPUSet{}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err != nil {
			continue // the thread has gone
		}
		sets[tid] = set
	}
	return sets
}

// TestOneCPU: while a target is under Delve, every thread of this process
// runs on one CPU; when the last target has gone, each has its CPUs back.
func TestOneCPU(t *testing.T) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	want := 1
	if all.Count() < 2 {
		want = all.Count() // nothing to do
	}
	check := func(when string, n int) {
		t.Helper()
		for tid, set := range threadCPUs(t) {
			if set.Count() != n {
				t.Errorf("%s: thread %d may run on %d CPUs, want %d", when, tid, set.Count(), n)
			}
		}
	}
	undo1 := oneCPU()
	check("pinned", want)
	undo2 := oneCPU() // a second target at once
	undo1()
	undo1() // undo is idempotent: it must not release the second
	check("the first undone", want)
	undo2()
	check("both undone", all.Count())
	for tid, set := range threadCPUs(t) {
		if set != all {
			t.Errorf("thread %d runs on %v, want %v", tid, set, all)
		}
	}
}
