package trace

import "testing"

func TestShortFunc(t *testing.T) {
	for in, want := range map[string]string{
		"main.fib": "main.fib",
		"github.com/adi-go/adi/testdata/nilptr.(*Directory).Find": "nilptr.(*Directory).Find",
		"example.com/m/parser.Parse":                              "parser.Parse",
		"example.com/m/parser.Map[...].func1":                     "parser.Map[...].func1",
		"gopkg.in/yaml%2ev3.Unmarshal":                            "yaml%2ev3.Unmarshal",
		"example.com/m.F":                                         "m.F",
	} {
		if got := ShortFunc(in); got != want {
			t.Errorf("ShortFunc(%q) = %q, want %q", in, got, want)
		}
	}
}
