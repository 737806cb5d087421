// Command fib is adi's call-heavy benchmark: the naive doubly recursive
// Fibonacci function, fib(27) by default, makes 635,621 calls of fib in a
// few milliseconds of native run time. n is the first argument.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	n := 27
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v < 0 || v > 40 {
			fmt.Fprintf(os.Stderr, "fib: the argument must be an integer from 0 to 40, got %q\n", os.Args[1])
			os.Exit(2)
		}
		n = v
	}
	fmt.Printf("fib(%d) = %d\n", n, fib(n))
}
