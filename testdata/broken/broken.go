// Package broken does not compile: it uses an undefined name and assigns a
// string to an int. It is used to test how build failures are reported.
package broken

import "strings"

// Shout upper-cases s and appends an exclamation mark.
func Shout(s string) string {
	return strings.ToUpper(s) + suffix
}

// Length returns the number of bytes of s.
func Length(s string) int {
	var n int
	n = "len"
	_ = s
	return n
}

// Words splits s into words.
func Words(s string) []string {
	return strings.Fields(s)
}
