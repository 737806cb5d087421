package partests

import (
	"runtime"
	"testing"
)

func total(words []string, rounds int) int {
	sum := 0
	for i := 0; i < rounds; i++ {
		for _, w := range words {
			sum += Score(w)
			runtime.Gosched()
		}
	}
	return sum
}

func TestFruit(t *testing.T) {
	t.Parallel()
	if got := total([]string{"apple", "pear"}, 40); got != 40*(50+40) {
		t.Errorf("total = %d, want %d", got, 40*(50+40))
	}
}

func TestBerries(t *testing.T) {
	t.Parallel()
	if got := total([]string{"fig", "kiwi", "plum"}, 40); got != 40*(22+52+62) {
		t.Errorf("total = %d, want %d", got, 40*(22+52+62))
	}
}

func TestCitrus(t *testing.T) {
	t.Parallel()
	if got := total([]string{"lime", "yuzu"}, 40); got != 40*(39+93) {
		t.Errorf("total = %d, want %d", got, 40*(39+93))
	}
}

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		want  int
	}{
		{"nuts", []string{"pecan", "almond"}, 40 * (39 + 59)},
		{"roots", []string{"beet", "yam"}, 40 * (32 + 39)},
		{"greens", []string{"kale"}, 40 * 29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := total(tc.words, 40); got != tc.want {
				t.Errorf("total = %d, want %d", got, tc.want)
			}
		})
	}
}
