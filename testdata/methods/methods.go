// Package methods counts page views on a site with one Counter per page.
package methods

import "fmt"

// Counter counts the views of one page.
type Counter struct {
	page string
	n    int
}

// Inc counts one view.
func (c Counter) Inc() {
	c.n++
}

// Value returns the number of views counted so far.
func (c *Counter) Value() int {
	return c.n
}

// String formats the counter as page=views.
func (c Counter) String() string {
	return fmt.Sprintf("%s=%d", c.page, c.n)
}

// Site holds the counters of its pages.
type Site struct {
	counters []*Counter
}

func (s *Site) counter(page string) *Counter {
	for _, c := range s.counters {
		if c.page == page {
			return c
		}
	}
	c := &Counter{page: page}
	s.counters = append(s.counters, c)
	return c
}

// Visit records one view of page.
func (s *Site) Visit(page string) {
	s.counter(page).Inc()
}

// Views returns the number of views of page.
func (s *Site) Views(page string) int {
	return s.counter(page).Value()
}
