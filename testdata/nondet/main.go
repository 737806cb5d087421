// Command nondet rolls dice seeded from the clock, so the arguments of its
// functions (and its output) differ from one run to the next. It exits 0.
package main

import (
	"fmt"
	"time"
)

// next advances a linear congruential generator.
func next(state uint64) uint64 {
	return state*6364136223846793005 + 1442695040888963407
}

// roll returns a die roll in 1..6 and the new generator state.
func roll(state uint64) (int, uint64) {
	state = next(state)
	return int(state>>33)%6 + 1, state
}

func throw(seed uint64, n int) []int {
	var out []int
	state := seed
	for i := 0; i < n; i++ {
		var r int
		r, state = roll(state)
		out = append(out, r)
	}
	return out
}

func total(rs []int) int {
	t := 0
	for _, r := range rs {
		t += r
	}
	return t
}

func main() {
	seed := uint64(time.Now().UnixNano())
	rs := throw(seed, 5)
	fmt.Printf("seed %d: rolls %v, total %d\n", seed, rs, total(rs))
}
