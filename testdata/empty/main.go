// Command empty calls functions whose bodies are empty: compiled, each is a
// single RET instruction, where a function's entry and its return are one
// address; and one with no RET at all, which always panics. It has no bug
// and exits 0.
package main

import (
	"encoding/binary"
	"fmt"
)

// order is initialised by the linker: the package initializer is left
// with nothing to do but return.
var order = binary.LittleEndian

type shape interface{ isShape() }

type square struct{ side int }

// isShape marks square as a shape.
func (square) isShape() {}

func noop() {}

// fail always panics: compiled, it has no RET instruction.
func fail(msg string) { panic(msg) }

// try calls fail and recovers.
func try() (ok bool) {
	defer func() { recover() }()
	fail("no")
	return true
}

func area(s square) int {
	noop()
	return s.side * s.side
}

func main() {
	noop()
	var s shape = square{side: 3}
	s.isShape()
	fmt.Println("area", area(square{side: 3}), order, try())
	noop()
}
