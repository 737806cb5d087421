// Command loop runs a small simulation whose main loop makes 100
// iterations; each iteration calls step and updates two variables. It has
// no bug and exits 0: it exercises loop summarisation.
package main

import "fmt"

// step mixes the iteration number into the running hash.
func step(hash, i int) int {
	return (hash*31 + i) % 1009
}

// simulate runs n iterations and returns the final hash and the number of
// iterations on which the hash was even.
func simulate(n int) (hash, evens int) {
	hash = 7
	for i := 0; i < n; i++ {
		hash = step(hash, i)
		if hash%2 == 0 {
			evens++
		}
	}
	return hash, evens
}

func report(hash, evens int) string {
	return fmt.Sprintf("hash=%d evens=%d", hash, evens)
}

func main() {
	hash, evens := simulate(100)
	fmt.Println(report(hash, evens))
}
