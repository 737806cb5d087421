package trace

import "testing"

// TestTestName reads back the name of a test from the text AppendTestText
// gives a *testing.T, whole or cut.
func TestTestName(t *testing.T) {
	text := func(typ, name string, n int64) string {
		b, _ := AppendTestText(nil, typ, name, n)
		return string(b)
	}
	for _, c := range []struct {
		v     Value
		name  string
		whole bool
		ok    bool
	}{
		{Value{Type: "*testing.T", Text: text("*testing.T", "TestParse/tag_with_quoted_name", 30)}, "TestParse/tag_with_quoted_name", true, true},
		{Value{Type: "*testing.B", Text: text("*testing.B", `BenchmarkX/"q",_…`, 17)}, `BenchmarkX/"q",_…`, true, true},
		{Value{Type: "*testing.T", Text: text("*testing.T", "TestLong/a_very_long", 64)}, "TestLong/a_very_long", false, true},
		{Value{Type: "*testing.T", Text: "&testing.T{…}"}, "", false, false},
		{Value{Type: "*testing.T", Text: "nil", Nil: true}, "", false, false},
		{Value{Type: "*main.T", Text: `&main.T{name: "x", …}`}, "", false, false},
	} {
		name, whole, ok := c.v.TestName()
		if name != c.name || whole != c.whole || ok != c.ok {
			t.Errorf("%s: (%q, %v, %v), want (%q, %v, %v)", c.v.Text, name, whole, ok, c.name, c.whole, c.ok)
		}
	}
	if got := text("*testing.T", "TestLong/a_very_long", 64); got != `&testing.T{name: "TestLong/a_very_long"…+44 more, …}` {
		t.Errorf("a cut name reads %s", got)
	}
}
