package offbyone

import "testing"

func TestReadings(t *testing.T) {
	xs := Readings(4)
	if len(xs) != 4 || xs[0] != 1 || xs[3] != 10 {
		t.Errorf("Readings(4) = %v, want [1 4 7 10]", xs)
	}
}

func TestSumFirst(t *testing.T) {
	xs := Readings(30)
	got := SumFirst(xs, 25)
	want := 925
	if got != want {
		t.Errorf("SumFirst(xs, 25) = %d, want %d", got, want)
	}
}
