// Command index splits a list of scores into pages of four and prints the
// first score of every page.
package main

import "fmt"

func scores(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 50 + (i*7)%40
	}
	return out
}

// pageCount returns how many pages of the given size hold n items.
func pageCount(n, size int) int {
	return n/size + 1
}

// firstOfPage returns the first item of page p (counting from 0).
func firstOfPage(items []int, size, p int) int {
	return items[p*size]
}

func printPages(items []int, size int) {
	pages := pageCount(len(items), size)
	fmt.Printf("%d items, %d pages\n", len(items), pages)
	for p := 0; p < pages; p++ {
		fmt.Printf("page %d starts with %d\n", p+1, firstOfPage(items, size, p))
	}
}

func main() {
	items := scores(12)
	printPages(items, 4)
	fmt.Println("done")
}
