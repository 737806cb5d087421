// Command fib prints the n-th Fibonacci number, computed with the naive
// doubly recursive definition. n is the first argument and defaults to 15;
// keep it small, the number of calls grows like fib(n) itself.
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

func parseN(args []string) (int, error) {
	if len(args) == 0 {
		return 15, nil
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("n must not be negative, got %d", n)
	}
	return n, nil
}

func main() {
	n, err := parseN(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fib:", err)
		os.Exit(2)
	}
	fmt.Printf("fib(%d) = %d\n", n, fib(n))
}
