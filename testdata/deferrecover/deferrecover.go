// Package deferrecover summarizes the latencies of a batch of requests.
package deferrecover

import (
	"fmt"
	"sort"
)

// Stats summarizes a batch of latencies in milliseconds.
type Stats struct {
	Min, Median, Max int
}

func sorted(xs []int) []int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s
}

func stats(s []int) Stats {
	return Stats{Min: s[0], Median: s[len(s)/2], Max: s[len(s)]}
}

// Summarize returns the statistics of a batch; an empty batch has the zero
// Stats.
func Summarize(latencies []int) (st Stats) {
	defer func() {
		if r := recover(); r != nil {
			st = Stats{}
		}
	}()
	return stats(sorted(latencies))
}

// Report formats the statistics of a batch.
func Report(name string, latencies []int) string {
	st := Summarize(latencies)
	return fmt.Sprintf("%s: min %dms, median %dms, max %dms", name, st.Min, st.Median, st.Max)
}
