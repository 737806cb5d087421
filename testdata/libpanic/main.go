// Command libpanic encodes a value that encoding/json cannot encode: the
// library panics and recovers inside json.Marshal, and encode returns the
// error. No frame of the program panics.
package main

import (
	"encoding/json"
	"fmt"
)

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
}
