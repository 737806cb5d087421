// Command closure builds one label formatter per kind of record and checks
// the labels they produce.
package main

import (
	"fmt"
	"os"
)

type formatter func(id int) string

// formatters returns one formatter per kind; the formatter for kind k
// prints ids as k-id.
func formatters(kinds []string) []formatter {
	prefix := "id"
	var fs []formatter
	for _, k := range kinds {
		prefix = k
		fs = append(fs, func(id int) string {
			return fmt.Sprintf("%s-%d", prefix, id)
		})
	}
	return fs
}

func labels(fs []formatter, ids []int) []string {
	var out []string
	for i, f := range fs {
		out = append(out, f(ids[i]))
	}
	return out
}

func check(got, want []string) int {
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			fmt.Printf("label %d: got %s, want %s\n", i, got[i], want[i])
			bad++
		}
	}
	return bad
}

func main() {
	kinds := []string{"user", "order", "item"}
	got := labels(formatters(kinds), []int{7, 8, 9})
	fmt.Println("labels:", got)
	if bad := check(got, []string{"user-7", "order-8", "item-9"}); bad > 0 {
		fmt.Printf("%d wrong labels\n", bad)
		os.Exit(1)
	}
	fmt.Println("ok")
}
