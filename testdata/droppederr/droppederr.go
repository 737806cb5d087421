// Package droppederr reads a small stock list, one "name,quantity" line per
// item, and totals the quantities.
package droppederr

import (
	"strconv"
	"strings"
)

// Item is one line of the stock list.
type Item struct {
	Name string
	Qty  int
}

func parseLine(line string) Item {
	fields := strings.Split(line, ",")
	name := strings.TrimSpace(fields[0])
	qty, _ := strconv.Atoi(fields[1])
	return Item{Name: name, Qty: qty}
}

// Parse parses the non-empty lines of text.
func Parse(text string) []Item {
	var items []Item
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		items = append(items, parseLine(line))
	}
	return items
}

// Total returns the sum of the quantities of items.
func Total(items []Item) int {
	total := 0
	for _, it := range items {
		total += it.Qty
	}
	return total
}
