package droppederr

import "testing"

const stock = `
apples,3
pears, 5
plums,7
`

func TestParseCount(t *testing.T) {
	if got := len(Parse(stock)); got != 3 {
		t.Errorf("len(Parse(stock)) = %d, want 3", got)
	}
}

func TestTotal(t *testing.T) {
	if got, want := Total(Parse(stock)), 15; got != want {
		t.Errorf("Total = %d, want %d", got, want)
	}
}
