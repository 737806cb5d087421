// Command initgen exercises the kinds of calls a recorder must see: init
// functions, a method value, a deferred call, a panic that is recovered and
// a goroutine. It has no bug and exits 0.
package main

import (
	"fmt"
	"sync"
)

var greeting string

var table = buildTable(3)

func init() {
	greeting = "hello"
}

func init() {
	table = append(table, 100)
}

func buildTable(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i * i
	}
	return out
}

type acc struct {
	total int
}

func (a *acc) add(v int) {
	a.total += v
}

func cleanup(name string) {
	fmt.Println("cleanup", name)
}

func mustPositive(v int) int {
	if v < 0 {
		panic(fmt.Sprintf("negative value %d", v))
	}
	return v
}

func safe(v int) (r int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("recovered: %v", p)
		}
	}()
	return mustPositive(v), nil
}

func work(add func(int), vals []int, wg *sync.WaitGroup) {
	defer wg.Done()
	for _, v := range vals {
		add(v)
	}
}

func main() {
	defer cleanup("main")
	fmt.Println(greeting, table)
	a := &acc{}
	add := a.add
	var wg sync.WaitGroup
	wg.Add(1)
	go work(add, table, &wg)
	wg.Wait()
	fmt.Println("total", a.total)
	if _, err := safe(-1); err != nil {
		fmt.Println(err)
	}
	v, _ := safe(4)
	fmt.Println("safe", v)
}
