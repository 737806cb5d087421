// Package recursion computes Fibonacci numbers recursively.
package recursion

// Fib returns the n-th Fibonacci number: Fib(0) = 0, Fib(1) = 1 and
// Fib(n) = Fib(n-1) + Fib(n-2).
func Fib(n int) int {
	if n <= 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

// Sequence returns Fib(1) .. Fib(n).
func Sequence(n int) []int {
	out := make([]int, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, Fib(i))
	}
	return out
}

// SumEven returns the sum of the even numbers among Fib(1) .. Fib(n).
func SumEven(n int) int {
	total := 0
	for _, f := range Sequence(n) {
		if f%2 == 0 {
			total += f
		}
	}
	return total
}
