package search

import "testing"

func TestPrimes(t *testing.T) {
	if got := len(Primes(50)); got != 15 {
		t.Errorf("len(Primes(50)) = %d, want 15", got)
	}
}

func TestIndex(t *testing.T) {
	ps := Primes(50)
	for _, x := range []int{2, 19, 47} {
		got := Index(ps, x)
		if got < 0 || ps[got] != x {
			t.Errorf("Index(primes, %d) = %d, want the position of %d", x, got, x)
		}
	}
}

func TestIsPrimeComposite(t *testing.T) {
	if IsPrime(21) {
		t.Errorf("IsPrime(21) = true, want false")
	}
}
