package recursion

import (
	"reflect"
	"testing"
)

func TestFib10(t *testing.T) {
	if got, want := Fib(10), 55; got != want {
		t.Errorf("Fib(10) = %d, want %d", got, want)
	}
}

func TestSequence(t *testing.T) {
	got := Sequence(8)
	want := []int{1, 1, 2, 3, 5, 8, 13, 21}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sequence(8) = %v, want %v", got, want)
	}
}
