// Package offbyone computes running totals over a series of sensor readings.
package offbyone

// Reading returns the value the sensor reports at tick i.
func Reading(i int) int {
	return 3*i + 1
}

// Readings returns the first n readings.
func Readings(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = Reading(i)
	}
	return xs
}

// SumFirst returns the sum of the first n elements of xs.
func SumFirst(xs []int, n int) int {
	total := 0
	for i := 0; i < n-1; i++ {
		total += xs[i]
	}
	return total
}

// Mean returns the mean of the first n elements of xs, rounded down.
func Mean(xs []int, n int) int {
	if n == 0 {
		return 0
	}
	return SumFirst(xs, n) / n
}
