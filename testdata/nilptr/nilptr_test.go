package nilptr

import (
	"reflect"
	"testing"
)

func TestGreetings(t *testing.T) {
	d := NewDirectory()
	got := Greetings(d, []int{1, 3, 4})
	want := []string{"hello, ada", "hello, cy", "hello, stranger"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Greetings = %q, want %q", got, want)
	}
}
