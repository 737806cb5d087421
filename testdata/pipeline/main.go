// Command pipeline sums the squares of 1..10 with a fan-out of three
// workers, each squaring one chunk of the input, and a fan-in that adds the
// partial sums.
package main

import (
	"fmt"
	"os"
	"sync"
)

type partial struct {
	worker int
	sum    int
}

func square(x int) int {
	return x * x
}

func worker(id int, xs []int, out chan<- partial, wg *sync.WaitGroup) {
	defer wg.Done()
	s := 0
	for _, x := range xs {
		s += square(x)
	}
	out <- partial{worker: id, sum: s}
}

// fanOut splits xs into one chunk per worker and starts the workers.
func fanOut(xs []int, workers int) <-chan partial {
	out := make(chan partial, workers)
	var wg sync.WaitGroup
	chunk := len(xs) / workers
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go worker(w, xs[w*chunk:(w+1)*chunk], out, &wg)
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// fanIn adds up the partial sums, indexed by worker so the order is fixed.
func fanIn(in <-chan partial, workers int) int {
	sums := make([]int, workers)
	for p := range in {
		sums[p.worker] = p.sum
	}
	total := 0
	for _, s := range sums {
		total += s
	}
	return total
}

func main() {
	xs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	total := fanIn(fanOut(xs, 3), 3)
	fmt.Println("sum of squares:", total)
	if want := 385; total != want {
		fmt.Printf("wrong total: got %d, want %d\n", total, want)
		os.Exit(1)
	}
}
