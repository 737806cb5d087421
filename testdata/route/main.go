// Command route calls leaf 500 times while warming up, then twice from
// target: leaf#502, leaf(1001), is reached from target#1's entry in 2
// stops instead of 502 from the start (engine's route).
package main

import "fmt"

func leaf(i int) int { return i * 2 }

func warm(n int) int {
	sum := 0
	for i := 0; i < n; i++ {
		sum += leaf(i)
	}
	return sum
}

func target(x int) int {
	return leaf(x) + leaf(x+1)
}

func main() {
	fmt.Println(warm(500), target(1000))
}
