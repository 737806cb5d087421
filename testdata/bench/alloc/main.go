// Command alloc is adi's allocation-heavy benchmark: it builds an inverted
// index (map from word to a slice of document numbers) over 4,000 generated
// documents, merges posting lists, and counts word pairs in a map keyed by
// struct, allocating maps and slices all the way.
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

const docs = 4000

var vocabulary = strings.Fields(`go debug frame trace record index delve stack heap map slice
channel goroutine panic defer recover closure method interface struct pointer value
string byte rune int float bool error test bench parse token`)

// document returns the words of document i, the same every run.
func document(i int) []string {
	n := 8 + i%13
	words := make([]string, 0, n)
	x := uint32(i)*2654435761 + 1
	for range n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		words = append(words, vocabulary[int(x%uint32(len(vocabulary)))])
	}
	return words
}

type pair struct{ a, b string }

type index struct {
	postings map[string][]int
	pairs    map[pair]int
}

func newIndex() *index {
	return &index{postings: map[string][]int{}, pairs: map[pair]int{}}
}

func (ix *index) add(doc int, words []string) {
	seen := make(map[string]bool, len(words))
	for i, w := range words {
		if !seen[w] {
			seen[w] = true
			ix.postings[w] = append(ix.postings[w], doc)
		}
		if i > 0 {
			ix.pairs[pair{words[i-1], w}]++
		}
	}
}

// intersect returns the documents in both sorted lists.
func intersect(a, b []int) []int {
	var out []int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func (ix *index) topPairs(k int) []string {
	type counted struct {
		p pair
		n int
	}
	all := make([]counted, 0, len(ix.pairs))
	for p, n := range ix.pairs {
		all = append(all, counted{p, n})
	}
	slices.SortFunc(all, func(x, y counted) int {
		if x.n != y.n {
			return y.n - x.n
		}
		return strings.Compare(x.p.a+" "+x.p.b, y.p.a+" "+y.p.b)
	})
	var out []string
	for _, c := range all[:min(k, len(all))] {
		out = append(out, fmt.Sprintf("%s %s=%d", c.p.a, c.p.b, c.n))
	}
	return out
}

func main() {
	ix := newIndex()
	for i := range docs {
		ix.add(i, document(i))
	}
	both := 0
	for i := 0; i+1 < len(vocabulary); i++ {
		both += len(intersect(ix.postings[vocabulary[i]], ix.postings[vocabulary[i+1]]))
	}
	fmt.Printf("%d words, %d pairs, %d co-occurrences of neighbours\n", len(ix.postings), len(ix.pairs), both)
	fmt.Println("top pairs:", strings.Join(ix.topPairs(3), ", "))
	if len(ix.postings) == 0 {
		fmt.Fprintln(os.Stderr, "alloc: empty index")
		os.Exit(1)
	}
}
