// Package partests scores words. Its tests run in parallel, so the calls of
// Score from different tests interleave differently on every run.
package partests

// Score is the sum of the positions in the alphabet of the word's letters.
func Score(word string) int {
	s := 0
	for _, r := range word {
		s += int(r-'a') + 1
	}
	return s
}
