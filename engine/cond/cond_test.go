package cond

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/adi-go/adi/engine/trace"
)

// Fixture constructors: values as the recorder renders them.

func scalar(name, typ string, kind trace.Kind, text string) trace.Value {
	return trace.Value{Name: name, Type: typ, Kind: kind, Text: text}
}

func intV(name string, n int64) trace.Value {
	return scalar(name, "int", trace.KindInt, strconv.FormatInt(n, 10))
}

func uintV(name string, n uint64) trace.Value {
	return scalar(name, "uint", trace.KindUint, strconv.FormatUint(n, 10))
}

func floatV(name string, f float64) trace.Value {
	return scalar(name, "float64", trace.KindFloat, strconv.FormatFloat(f, 'g', -1, 64))
}

func boolV(name string, b bool) trace.Value {
	return scalar(name, "bool", trace.KindBool, strconv.FormatBool(b))
}

func strV(name, s string) trace.Value {
	v := scalar(name, "string", trace.KindString, strconv.Quote(s))
	v.Len = int64(len(s))
	return v
}

// cutStrV is a string of n bytes of which only prefix was recorded.
func cutStrV(name, prefix string, n int64) trace.Value {
	v := scalar(name, "string", trace.KindString,
		strconv.Quote(prefix)+"…+"+strconv.FormatInt(n-int64(len(prefix)), 10)+" more")
	v.Len, v.Cut = n, true
	return v
}

func structV(name, typ string, fields ...trace.Value) trace.Value {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + ": " + f.Text
	}
	return trace.Value{Name: name, Type: typ, Kind: trace.KindStruct,
		Text: typ + "{" + strings.Join(parts, ", ") + "}", Children: fields}
}

// ptrV points to pointee; a nil pointee makes a nil pointer.
func ptrV(name, typ string, pointee *trace.Value) trace.Value {
	v := trace.Value{Name: name, Type: typ, Kind: trace.KindPointer, Text: "nil", Nil: true}
	if pointee != nil {
		v.Nil, v.Text = false, "&"+pointee.Text
		v.Children = []trace.Value{*pointee}
	}
	return v
}

// ifaceV holds dyn; a nil dyn makes a nil interface.
func ifaceV(name, typ string, dyn *trace.Value) trace.Value {
	v := trace.Value{Name: name, Type: typ, Kind: trace.KindInterface, Text: "nil", Nil: true}
	if dyn != nil {
		v.Nil, v.Text = false, dyn.Text
		v.Children = []trace.Value{*dyn}
	}
	return v
}

// listV is a slice or array of n elements, of which elems were recorded.
func listV(name, typ string, kind trace.Kind, n int64, elems ...trace.Value) trace.Value {
	parts := make([]string, len(elems))
	for i := range elems {
		elems[i].Name = "[" + strconv.Itoa(i) + "]"
		parts[i] = elems[i].Text
	}
	text := "[" + strings.Join(parts, ", ")
	cut := int64(len(elems)) < n
	if cut {
		text += ", …+" + strconv.FormatInt(n-int64(len(elems)), 10) + " more"
	}
	return trace.Value{Name: name, Type: typ, Kind: kind, Text: text + "]",
		Len: n, Cap: n, Cut: cut, Children: elems}
}

// mapV is a map of n entries, of which the pairs (key text, value) were
// recorded.
func mapV(name, typ string, n int64, entries ...trace.Value) trace.Value {
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = e.Name + ": " + e.Text
	}
	return trace.Value{Name: name, Type: typ, Kind: trace.KindMap, Text: typ + "{" + strings.Join(parts, ", ") + "}",
		Len: n, Cut: int64(len(entries)) < n, Children: entries}
}

func named(name string, v trace.Value) trace.Value { v.Name = name; return v }

func frame() []trace.Value {
	inner := structV("", "main.T", intV("X", 5), strV("Name", "pp"), ptrV("Next", "*main.T", nil))
	next := structV("", "main.T", intV("X", 7), strV("Name", "nx"), ptrV("Next", "*main.T", nil))
	withNext := structV("", "main.T", intV("X", 1), strV("Name", "q"), ptrV("Next", "*main.T", &next))
	seven := intV("", 7)
	p := ptrV("p", "*main.T", &inner)
	s := strV("", "in iface")
	arr2 := listV("", "[2]int", trace.KindArray, 2, intV("", 4), intV("", 5))
	cutField := structV("cst", "main.T", intV("X", 1), cutStrV("Name", "lo", 100))
	cutField.Cut = true
	cutStruct := trace.Value{Type: "main.T", Kind: trace.KindStruct, Text: "main.T{…}", Cut: true}
	return []trace.Value{
		intV("n", 42),
		intV("m", -3),
		intV("zero", 0),
		scalar("i64", "int64", trace.KindInt, "9223372036854775807"),
		scalar("r", "int32", trace.KindInt, "97"),
		uintV("u", 7),
		scalar("umax", "uint64", trace.KindUint, "18446744073709551615"),
		floatV("f", 1.5),
		floatV("big", 3e10),
		scalar("f32", "float32", trace.KindFloat, "0.1"),
		floatV("nan", math.NaN()),
		floatV("inf", math.Inf(1)),
		scalar("c", "complex128", trace.KindComplex, "(1+2i)"),
		strV("s", "abc"),
		strV("empty", ""),
		cutStrV("cs", "hello", 1000),
		cutStrV("cs2", "hello", 1000),
		cutStrV("cs3", "help!", 1000),
		boolV("b", true),
		boolV("nb", false),
		p,
		ptrV("np", "*main.T", nil),
		ptrV("q", "*main.T", &withNext),
		named("t", inner),
		{Name: "dp", Type: "*main.T", Kind: trace.KindPointer, Text: "&main.T{…}", Cut: true},
		ptrV("dsp", "*main.T", &cutStruct),
		structV("o", "main.Outer", structV("Inner", "main.Inner", intV("Z", 9)), intV("W", 1)),
		listV("xs", "[]int", trace.KindSlice, 3, intV("", 1), intV("", 2), intV("", 3)),
		{Name: "nilxs", Type: "[]int", Kind: trace.KindSlice, Text: "nil", Nil: true},
		listV("longxs", "[]int", trace.KindSlice, 100, intV("", 10), intV("", 20)),
		listV("arr", "[2]string", trace.KindArray, 2, strV("", "a"), strV("", "b")),
		listV("ts", "[]*main.T", trace.KindSlice, 2, p, ptrV("", "*main.T", nil)),
		mapV("mp", "map[string]int", 2, intV(`"k"`, 1), intV(`"j"`, 2)),
		mapV("im", "map[int]string", 1, strV("3", "three")),
		mapV("cutmap", "map[string]int", 50, intV(`"a"`, 1)),
		mapV("longkeys", "map[string]int", 1, intV(`"abcdef"…+100 more`, 1)),
		{Name: "nilmap", Type: "map[string]int", Kind: trace.KindMap, Text: "nil", Nil: true},
		ifaceV("err", "error", nil),
		ifaceV("ie", "any", &seven),
		ifaceV("is", "any", &s),
		ifaceV("ip", "any", &p),
		{Name: "ch", Type: "chan int", Kind: trace.KindChan, Text: "chan int", Len: 2, Cap: 4},
		{Name: "fn", Type: "func()", Kind: trace.KindFunc, Text: "nil", Nil: true},
		ptrV("pa", "*[2]int", &arr2),
		{Name: "icut", Type: "any", Kind: trace.KindInterface, Text: "main.T{…}", Cut: true},
		scalar("color", "main.Color", trace.KindInt, "Red"),
		{Name: "nolen", Type: "string", Kind: trace.KindString, Text: `"ab"…+3 more`, Cut: true},
		// Text cut for display (over 400 characters) inside the quotes.
		{Name: "trunc", Type: "string", Kind: trace.KindString, Text: `"hello wor…`, Len: 500, Cut: true},
		{Name: "truncEsc", Type: "string", Kind: trace.KindString, Text: `"ab\…`, Len: 500, Cut: true},
		{Name: "truncHex", Type: "string", Kind: trace.KindString, Text: `"ab\x4…`, Len: 500, Cut: true},
		// Cut because a field is: the fields are all there.
		cutField,
		{Name: "bad", Type: "int", Kind: trace.KindInt, Error: "could not read memory at 0x0"},
	}
}

func lookupIn(vals []trace.Value) func(string) (*trace.Value, bool) {
	return func(name string) (*trace.Value, bool) {
		for i := range vals {
			if vals[i].Name == name {
				return &vals[i], true
			}
		}
		return nil, false
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		// literals and names
		{"true", true},
		{"false", false},
		{"b", true},
		{"!b", false},
		{"!nb", true},
		{"(b)", true},
		// integer comparisons
		{"n == 42", true},
		{"n != 42", false},
		{"n < 43", true},
		{"n <= 42", true},
		{"n > 42", false},
		{"n >= 42", true},
		{"42 == n", true},
		{"m < 0", true},
		{"-m == 3", true},
		{"+n == 42", true},
		{"n == 42.0", true},
		{"n < 42.5", true},
		{"n == 42.5", false},
		{"n > m", true},
		{"r == 'a'", true},
		{"i64 == 9223372036854775807", true},
		{"u == 7", true},
		{"u > n", false},
		{"umax == 18446744073709551615", true},
		{"umax > i64", true},
		// arithmetic
		{"n + 1 == 43", true},
		{"n - 50 == -8", true},
		{"n * 2 == 84", true},
		{"n / 5 == 8", true},
		{"n / 5.0 == 8", true},
		{"n % 5 == 2", true},
		{"m / 2 == -1", true},
		{"m % 2 == -1", true},
		{"7 / 2 == 3", true},
		{"7 / 2.0 == 3.5", true},
		{"n * 1.5 == 63", true},
		{"n & 2 == 2", true},
		{"n | 1 == 43", true},
		{"n ^ 2 == 40", true},
		{"n &^ 2 == 40", true},
		{"u - 8 == -1", true}, // exact, does not wrap
		{"i64 + 1 > i64", true},
		{"(n + 2) * 2 == 88", true},
		// floats
		{"f == 1.5", true},
		{"f > 1", true},
		{"f * 2 == 3", true},
		{"f / 0 > big", true}, // +Inf, as in Go
		{"big == 3e10", true},
		{"f32 == 0.1", true},
		{"nan == nan", false},
		{"nan != nan", true},
		{"inf > big", true},
		{"n > f", true},
		// strings
		{`s == "abc"`, true},
		{`s != "abc"`, false},
		{`s < "abd"`, true},
		{`s > "ab"`, true},
		{`s + "d" == "abcd"`, true},
		{`"x" + s == "xabc"`, true},
		{`empty == ""`, true},
		{"s[0] == 'a'", true},
		{"s[2] == 99", true},
		// cut strings decided by their prefix and length
		{`cs == "hello"`, false},
		{`cs != "hello"`, true},
		{`cs == "help"`, false},
		{`cs > "hello"`, true},
		{`cs < "help"`, true},
		{`cs > "a"`, true},
		{`cs != cs3`, true},
		{`cs < cs3`, true},
		{`cs[1] == 'e'`, true},
		{"len(cs) == 1000", true},
		// bools
		{"b == true", true},
		{"b != nb", true},
		{"b && !nb", true},
		{"b || bad == 1", true}, // short-circuit skips the unreadable value
		{"nb && bad == 1", false},
		{"n > 40 && n < 50", true},
		{"n < 40 || s == \"abc\"", true},
		// nil
		{"p != nil", true},
		{"np == nil", true},
		{"nil == np", true},
		{"np != nil && np.X > 1", false},
		{"np == nil || np.X > 1", true},
		{"nilxs == nil", true},
		{"xs != nil", true},
		{"nilmap == nil", true},
		{"mp == nil", false},
		{"err == nil", true},
		{"ie != nil", true},
		{"fn == nil", true},
		{"ch != nil", true},
		// len
		{"len(s) == 3", true},
		{"len(empty) == 0", true},
		{`len("héllo") == 6`, true},
		{"len(xs) == 3", true},
		{"len(longxs) == 100", true},
		{"len(arr) == 2", true},
		{"len(mp) == 2", true},
		{"len(cutmap) == 50", true},
		{"len(nilmap) == 0", true},
		{"len(ch) == 2", true},
		{"len(s + \"de\") == 5", true},
		{"len(is) == 8", true},
		// fields, through pointers and interfaces
		{"p.X == 5", true},
		{`p.Name == "pp"`, true},
		{"p.Next == nil", true},
		{"(*p).X == 5", true},
		{"q.Next.X == 7", true},
		{"q.Next.Next == nil", true},
		{"t.X == 5", true},
		{"ip.X == 5", true},
		{"o.Z == 9", true}, // promoted from the embedded Inner
		{"o.Inner.Z == 9", true},
		{"o.W == 1", true},
		// indexing
		{"xs[0] == 1", true},
		{"xs[2] == 3", true},
		{"xs[n-40] == 3", true},
		{"xs[1.0] == 2", true},
		{"longxs[1] == 20", true},
		{`arr[1] == "b"`, true},
		{"ts[0].X == 5", true},
		{"ts[1] == nil", true},
		{`mp["k"] == 1`, true},
		{`mp["j"] + mp["k"] == 3`, true},
		{`im[3] == "three"`, true},
		{`cutmap["a"] == 1`, true},
		{"xs[len(xs)-1] == 3", true},
		{"len(pa) == 2", true},
		{"pa[1] == 5", true},
		{"(*pa)[0] == 4", true},
		{"len(nolen) == 5", true},
		{"len(trunc) == 500", true},
		{`trunc != "hello"`, true},
		{"trunc[4] == 'o'", true},
		{"truncEsc[1] == 'b'", true},
		{"truncHex[1] == 'b'", true},
		{"cst.X == 1", true},
		{`cst.Name != "lo"`, true},
		{`nolen != "abc"`, true},
		{`nolen > "ab"`, true},
		// interfaces
		{"ie == 7", true},
		{"ie + 1 == 8", true},
		{`is == "in iface"`, true},
		{"err != 7", true},
		{"err == ie", false},
	}
	lookup := lookupIn(frame())
	for _, tt := range tests {
		c, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := c.Eval(lookup)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Eval(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		src  string
		is   error  // sentinel, nil for none
		want string // in the message
	}{
		{"n + 1", ErrType, "condition n + 1 is int, not bool"},
		{`s == 3`, ErrType, "cannot compare s (string) and 3 (untyped int)"},
		{`n == "x"`, ErrType, `cannot compare n (int) and "x" (untyped string)`},
		{`s + 1`, ErrType, "mismatched types string and untyped int"},
		{`b == 1`, ErrType, "cannot compare b (bool) and 1 (untyped int)"},
		{"b < nb", ErrType, "operator < is not defined on bool"},
		{"n && b", ErrType, "operator && needs booleans: n is int"},
		{"nb || n", ErrType, "operator || needs booleans: n is int"},
		{"!n", ErrType, "operator ! needs a bool"},
		{"-s == 1", ErrType, "operator - needs a number"},
		{`s - "a" == ""`, ErrType, "operator - is not defined on strings"},
		{"f % 2 == 0", ErrType, "operator % is not defined on floats"},
		{"b + b", ErrType, "operator + is not defined on b (bool)"},
		{"n / 0 == 1", nil, "division by zero"},
		{"n % zero == 1", nil, "division by zero"},
		{"n == nil", ErrType, "cannot compare n (int) with nil"},
		{"nil == nil", ErrType, "cannot compare nil and nil"},
		{"p < nil", ErrType, "operator < is not defined on nil"},
		{"p == q", ErrType, "cannot compare p (*main.T) and q (*main.T)"},
		{"t == t", ErrType, "cannot compare t (main.T) and t (main.T)"},
		{"c == 1", ErrType, "complex numbers are not supported"},
		{"len(n) == 1", ErrType, "invalid argument n (int) for len"},
		{"np.X > 1", nil, "cannot read np.X: np is nil"},
		{"q.Next.Next.X == 1", nil, "cannot read q.Next.Next.X: q.Next.Next is nil"},
		{"*np == nil", nil, "np is nil"},
		{"err.X == 1", nil, "err is nil"},
		{"*n == 1", ErrType, "cannot indirect n (int)"},
		{"n.X == 1", ErrType, "n is int, not a struct"},
		{"p.Y == 1", ErrType, "p (main.T) has no field Y; it has: X, Name, Next"},
		{"xs.X == 1", ErrType, "xs is []int, not a struct"},
		{"n[0] == 1", ErrType, "cannot index n (int)"},
		{"xs[3] == 1", nil, "index 3 out of range for xs (length 3)"},
		{"xs[-1] == 1", nil, "index -1 out of range"},
		{`xs["a"] == 1`, ErrType, "want an integer"},
		{"xs[1.5] == 1", ErrType, "want an integer"},
		{"s[3] == 1", nil, "index 3 out of range for s (length 3)"},
		{`mp["z"] == 1`, nil, `key "z" not in map mp`},
		{`nilmap["z"] == 1`, nil, `key "z" not in map nilmap`},
		{`im[4] == ""`, nil, "key 4 not in map im"},
		{`longkeys["abcdefgh"] == 1`, ErrCut, `key "abcdefgh" of longkeys may be the recorded key "abcdef"…+100 more, which was cut at recording time; raise --max-string`},
		{`longkeys["abc"] == 1`, nil, `key "abc" not in map longkeys`},
		{"bad == 1", nil, "cannot read bad: could not read memory at 0x0"},
		{"b && bad == 1", nil, "cannot read bad"},
		{"ie < nil", ErrType, "not defined on nil"},
		{"err < 1", ErrType, "not defined on a nil interface"},
		{"err + 1 == 2", nil, "err is nil"},
		{"color == 1", ErrType, "color (main.Color) was recorded as Red, which is not a number"},
		{`mp[is] == 1`, nil, `key "in iface" not in map mp`},
		{`nolen == "abcde"`, ErrCut, "nolen was cut at recording time (2 of 5 bytes recorded)"},
		// cut values
		{"trunc[9] == 1", ErrCut, "trunc was cut at recording time (9 of 500 bytes recorded); raise --max-string"},
		{"truncEsc[2] == 1", ErrCut, "(2 of 500 bytes recorded)"},
		{"truncHex[2] == 1", ErrCut, "(2 of 500 bytes recorded)"},
		{"cst.Y == 1", ErrType, "cst (main.T) has no field Y; it has: X, Name"},
		{"icut == 1", ErrCut, "the dynamic value of icut (any) was cut"},
		{`cs == cs2`, ErrCut, "cs was cut at recording time (5 of 1000 bytes recorded), so cs == cs2 cannot be decided; raise --max-string"},
		{`cs > "hello, world"`, ErrCut, "--max-string"},
		{`"" + cs <= cs2`, ErrCut, "--max-string"},
		{"cs[10] == 1", ErrCut, "--max-string"},
		{`mp[cs] == 1`, ErrCut, "the key cs was cut"},
		{"longxs[50] == 1", ErrCut, "longxs[50] was cut at recording time (2 of the 100 elements of longxs were recorded); raise --max-elems"},
		{`cutmap["b"] == 1`, ErrCut, `key "b" of cutmap was not recorded (1 of its 50 entries were); raise --max-elems`},
		{"dp.X == 1", ErrCut, "what dp points to was cut at recording time; raise --max-depth"},
		{"dsp.X == 1", ErrCut, "dsp.X was cut at recording time"},
	}
	lookup := lookupIn(frame())
	for _, tt := range tests {
		c, err := Compile(tt.src)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := c.Eval(lookup)
		if err == nil {
			t.Errorf("Eval(%q) = %v, want an error containing %q", tt.src, got, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Eval(%q): error %q does not contain %q", tt.src, err, tt.want)
		}
		for _, s := range []error{ErrSyntax, ErrUnknownName, ErrType, ErrCut} {
			if errors.Is(err, s) != (s == tt.is) {
				t.Errorf("Eval(%q): errors.Is(%q, %v) = %v", tt.src, err, s, errors.Is(err, s))
			}
		}
	}
}

func TestSyntax(t *testing.T) {
	tests := []struct{ src, want string }{
		{"n >", `condition "n >" does not parse: 1:4: expected operand`},
		{"", `condition "" does not parse: 1:1: expected operand`},
		{"n = 3", `1:3: expected '==', found '=' (use == to compare)`},
		{"a b", "does not parse: 1:3"},
		{`"abc`, "string literal not terminated"},
		{"f(x) > 1", `condition "f(x) > 1": 1:1: calling f is not supported in conditions; supported: comparisons, && || !, arithmetic, len(x), field selection, indexing`},
		{"p.String() == \"\"", "calling p.String is not supported"},
		{"int64(n) == 1", "calling int64 is not supported"},
		{"len(a, b) == 1", "1:1: len takes exactly one argument"},
		{"T{} == t", "a composite literal is not supported"},
		{"n == 1 && func() bool { return true }()", "calling func() bool { return true } is not supported"},
		{"xs[1:2] == nil", "a slice expression is not supported"},
		{"x.(int) == 1", "a type assertion is not supported"},
		{"&n == nil", "taking an address (&) is not supported"},
		{"<-ch == 1", "receiving from a channel is not supported"},
		{"^n == 1", "the unary operator ^ is not supported"},
		{"n << 1 == 2", "1:1: the operator << is not supported"},
		{"c == 1i", "the literal 1i is not supported"},
		{"[]int == nil", "a type is not supported"},
	}
	for _, tt := range tests {
		c, err := Compile(tt.src)
		if err == nil {
			t.Errorf("Compile(%q) = %v, want an error", tt.src, c)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Compile(%q): %v is not ErrSyntax", tt.src, err)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q): error %q does not contain %q", tt.src, err, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"true", nil},
		{"n > 1", []string{"n"}},
		{"s == \"x\" && n > m || n < 0", []string{"m", "n", "s"}},
		{"p != nil && p.X > len(xs) && xs[i] == true", []string{"i", "p", "xs"}},
		{"o.Inner.Z == 1", []string{"o"}},
		{"m[k] == 1", []string{"k", "m"}},
		{"len > 1", []string{"len"}}, // a variable named len, not the builtin
	}
	for _, tt := range tests {
		c, err := Compile(tt.src)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.src, err)
		}
		if got := c.Names(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Compile(%q).Names() = %q, want %q", tt.src, got, tt.want)
		}
		if c.String() != tt.src {
			t.Errorf("String() = %q, want %q", c.String(), tt.src)
		}
	}
}

func TestUnknownName(t *testing.T) {
	c, err := Compile("m > 1 && n > 0")
	if err != nil {
		t.Fatal(err)
	}
	err = Check(c, []string{"n", "s"})
	var une *UnknownNameError
	if !errors.As(err, &une) || !errors.Is(err, ErrUnknownName) {
		t.Fatalf("Check: %v, want an *UnknownNameError", err)
	}
	if une.Name != "m" || !reflect.DeepEqual(une.Known, []string{"n", "s"}) {
		t.Errorf("Check: %+v", une)
	}
	if want := `unknown name "m" in condition; the frame has: n, s`; err.Error() != want {
		t.Errorf("Check: %q, want %q", err, want)
	}
	if err := Check(c, nil); err == nil || err.Error() != `unknown name "m" in condition; the frame has no arguments or results` {
		t.Errorf("Check(nil): %v", err)
	}
	if err := Check(c, []string{"n", "m"}); err != nil {
		t.Errorf("Check: %v", err)
	}

	// Eval sees only a lookup function: no Known list.
	_, err = c.Eval(lookupIn([]trace.Value{intV("n", 1)}))
	if !errors.As(err, &une) || !errors.Is(err, ErrUnknownName) || une.Name != "m" || une.Known != nil {
		t.Fatalf("Eval: %v, want an *UnknownNameError for m", err)
	}
	if want := `unknown name "m" in condition`; err.Error() != want {
		t.Errorf("Eval: %q, want %q", err, want)
	}
	if _, err := c.Eval(nil); !errors.Is(err, ErrUnknownName) {
		t.Errorf("Eval(nil lookup): %v", err)
	}
	// Short-circuit: the unknown name is never read.
	c, _ = Compile("n < 0 && m > 1")
	if ok, err := c.Eval(lookupIn([]trace.Value{intV("n", 1)})); ok || err != nil {
		t.Errorf("Eval short-circuit: %v, %v", ok, err)
	}
	if _, err := Evaluate("zz", lookupIn(nil)); err == nil || err.Error() != `unknown name "zz" in expression` {
		t.Errorf("Evaluate: %v", err)
	}
}

func TestEvaluate(t *testing.T) {
	tests := []struct{ src, want string }{
		{"n", "42"},
		{"n + 1", "43"},
		{"-m", "3"},
		{"n / 5", "8"},
		{"7 / 2.0", "3.5"},
		{"n * 1.5", "63"},
		{"1 << 0 == 1 || true", ""}, // shifts are rejected; see below
		{"f * 2", "3"},
		{"big", "3e+10"},
		{"big * 10", "3e+11"},
		{"f / 0", "+Inf"},
		{"u - 8", "-1"},
		{"umax + 1", "18446744073709551616"},
		{"s", `"abc"`},
		{`s + "d"`, `"abcd"`},
		{"cs", `"hello"…+995 more`},
		{`cs + "!"`, `"hello"…+996 more`},
		{`"<" + cs`, `"<hello"…+995 more`},
		{"s[0]", "97"},
		{"len(cs)", "1000"},
		{"b", "true"},
		{"n > 1", "true"},
		{"p", p0Text},
		{"p.X", "5"},
		{"*p", "main.T{X: 5, Name: \"pp\", Next: nil}"},
		{"xs", "[1, 2, 3]"},
		{"xs[1]", "2"},
		{`mp["k"]`, "1"},
		{"ie", "7"},
		{"nil", "nil"},
		{"'a'", "97"},
		{`"x"`, `"x"`},
	}
	lookup := lookupIn(frame())
	for _, tt := range tests {
		got, err := Evaluate(tt.src, lookup)
		if tt.want == "" {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("Evaluate(%q) = %q, %v; want ErrSyntax", tt.src, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Evaluate(%q): %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Evaluate(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
	if _, err := Evaluate("f(x)", lookup); err == nil || !strings.Contains(err.Error(), "not supported in expressions") {
		t.Errorf("Evaluate(f(x)): %v", err)
	}
	if _, err := Evaluate("n >", lookup); err == nil || !strings.HasPrefix(err.Error(), `expression "n >" does not parse`) {
		t.Errorf("Evaluate(n >): %v", err)
	}
}

const p0Text = `&main.T{X: 5, Name: "pp", Next: nil}`

// TestReuse evaluates one compiled condition over several frames.
func TestReuse(t *testing.T) {
	c, err := Compile("p != nil && p.X > 1")
	if err != nil {
		t.Fatal(err)
	}
	five := structV("", "main.T", intV("X", 5))
	one := structV("", "main.T", intV("X", 1))
	for _, tt := range []struct {
		p    trace.Value
		want bool
	}{
		{ptrV("p", "*main.T", &five), true},
		{ptrV("p", "*main.T", &one), false},
		{ptrV("p", "*main.T", nil), false},
	} {
		got, err := c.Eval(lookupIn([]trace.Value{tt.p}))
		if err != nil || got != tt.want {
			t.Errorf("Eval with p = %s: %v, %v; want %v", tt.p.Text, got, err, tt.want)
		}
	}
}
