package generics

import (
	"reflect"
	"testing"
)

func TestMax(t *testing.T) {
	if got := Max([]string{"pear", "apple", "plum"}); got != "plum" {
		t.Errorf("Max = %q, want plum", got)
	}
}

func TestReverse(t *testing.T) {
	got := Reverse([]int{1, 2, 3, 4})
	want := []int{4, 3, 2, 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Reverse([1 2 3 4]) = %v, want %v", got, want)
	}
}
