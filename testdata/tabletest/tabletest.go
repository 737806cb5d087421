// Package tabletest formats byte counts for humans.
package tabletest

import "fmt"

var units = []string{"B", "KiB", "MiB", "GiB"}

// scale divides n by 1024 until it is below 1024 (or the units run out) and
// returns the scaled value with the index of its unit.
func scale(n int64) (float64, int) {
	f := float64(n)
	i := 0
	for f > 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return f, i
}

// FormatSize formats n bytes: "512 B", "1.5 KiB", "3.0 GiB".
func FormatSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := scale(n)
	return fmt.Sprintf("%.1f %s", f, units[i])
}
