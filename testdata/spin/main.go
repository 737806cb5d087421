// Command spin never terminates: it polls for a condition that never
// becomes true, calling tick about 20 times per second. It is used to
// test timeouts.
package main

import (
	"fmt"
	"time"
)

type poller struct {
	ticks int
}

// tick counts one poll and reports whether the work is done.
func (p *poller) tick() bool {
	p.ticks++
	return ready(p.ticks)
}

// ready reports whether the work is done; it never is.
func ready(ticks int) bool {
	return ticks < 0
}

func wait(p *poller) {
	for !p.tick() {
		if p.ticks%20 == 1 {
			fmt.Println("waiting, tick", p.ticks)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func main() {
	fmt.Println("spin: starting")
	wait(&poller{})
	fmt.Println("spin: done")
}
