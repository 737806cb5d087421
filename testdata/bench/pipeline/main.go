// Command pipeline is adi's goroutine benchmark: a generator feeds 20,000
// numbers to 8 workers (fan-out), each computes the Collatz stopping time
// of its numbers, and a collector merges the results (fan-in) into a total
// and a histogram. The result does not depend on the scheduling.
package main

import (
	"fmt"
	"os"
	"sync"
)

const (
	items   = 20_000
	workers = 8
)

type result struct {
	n     int
	steps int
}

func generate(n int) <-chan int {
	out := make(chan int, 64)
	go func() {
		defer close(out)
		for i := 1; i <= n; i++ {
			out <- i
		}
	}()
	return out
}

// collatz counts the steps of the Collatz sequence from n down to 1.
func collatz(n int) int {
	steps := 0
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

func work(in <-chan int, out chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := range in {
		out <- result{n: n, steps: collatz(n)}
	}
}

func fanOut(in <-chan int, k int) <-chan result {
	out := make(chan result, 64)
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go work(in, out, &wg)
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

type summary struct {
	total   int
	longest result
	buckets [10]int
}

func (s *summary) add(r result) {
	s.total += r.steps
	if r.steps > s.longest.steps || r.steps == s.longest.steps && r.n < s.longest.n {
		s.longest = r
	}
	s.buckets[bucket(r.steps)]++
}

func bucket(steps int) int {
	b := steps / 30
	if b > 9 {
		b = 9
	}
	return b
}

func main() {
	var s summary
	for r := range fanOut(generate(items), workers) {
		s.add(r)
	}
	fmt.Printf("total steps %d; longest: %d takes %d steps; histogram %v\n", s.total, s.longest.n, s.longest.steps, s.buckets)
	if s.total <= 0 {
		fmt.Fprintln(os.Stderr, "pipeline: no steps counted")
		os.Exit(1)
	}
}
