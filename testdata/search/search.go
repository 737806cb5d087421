// Package search looks values up in a sorted table of primes.
package search

// Primes returns the primes below n, in increasing order.
func Primes(n int) []int {
	composite := make([]bool, n)
	var ps []int
	for i := 2; i < n; i++ {
		if composite[i] {
			continue
		}
		ps = append(ps, i)
		for j := i * i; j < n; j += i {
			composite[j] = true
		}
	}
	return ps
}

// Index returns the position of x in the sorted slice xs, or -1 when x is
// not in xs.
func Index(xs []int, x int) int {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		switch {
		case xs[mid] == x:
			return mid
		case xs[mid] < x:
			lo = mid + 1
		default:
			hi = mid - 1
		}
	}
	return -1
}

// IsPrime reports whether x is a prime below 50.
func IsPrime(x int) bool {
	return Index(Primes(50), x) >= 0
}
