package adapter

import (
	"strings"
	"testing"
)

func TestLineOutput(t *testing.T) {
	var got []string
	o := &lineOutput{send: func(stream, text string) { got = append(got, stream+":"+text) }}
	for _, p := range []string{"panic: ", "assignment to entry in nil map", "\n\ngoroutine 1", " [running]:\n", "main.main()"} {
		o.write("stderr", []byte(p))
	}
	o.write("stdout", []byte("loading services\n"))
	o.flush()
	want := "stderr:panic: assignment to entry in nil map\n\n|stderr:goroutine 1 [running]:\n|stdout:loading services\n|stderr:main.main()"
	if g := strings.Join(got, "|"); g != want {
		t.Fatalf("events:\n%q\nwant:\n%q", g, want)
	}
}
