package trace

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHasPrefetchW checks the reading of CPUID against the flags Linux
// lists (3dnowprefetch is its name for PREFETCHW).
func TestHasPrefetchW(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, flags, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != "flags" {
			continue
		}
		want := slices.Contains(strings.Fields(flags), "3dnowprefetch")
		if got := hasPrefetchW(); got != want {
			t.Errorf("hasPrefetchW() = %v, /proc/cpuinfo lists 3dnowprefetch: %v", got, want)
		}
		return
	}
	t.Fatal("no flags line in /proc/cpuinfo")
}
