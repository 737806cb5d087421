// Command libpanic encodes a value that encoding/json cannot encode: the
// library panics and recovers inside json.Marshal, and encode returns the
// error. No frame of the program panics there. Then it prints a value
// whose String method panics, which fmt recovers from: that frame
// panicked, and only library code recovered. Last, fmt.Println (which the
// compiler inlines into main) calls a String method: its call site is
// main's line.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type broken struct{}

func (broken) String() string { panic("broken String") }

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

func main() {
	fmt.Println(encode(map[string]any{"ok": 1}))
	fmt.Println(encode(map[string]any{"c": make(chan int)}))
	fmt.Fprintln(os.Stdout, broken{})
	fmt.Println(celsius(21.5))
}
