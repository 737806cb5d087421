package offline

import (
	"fmt"
	"go/parser"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/report"
	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// TestOutputDiff: where and how a built string first differs from the
// wanted one.
func TestOutputDiff(t *testing.T) {
	for _, c := range []struct {
		got, want string
		k, how, m int
	}{
		{"1_a2", "1_a_2", 3, outputMissing, 1},
		{"ab", "abcd", 2, outputMissing, 2},
		{", a, b", "a, b", 0, outputExtra, 2},
		{"Testcase", "TestCase", 4, outputWrong, 1},
		{"sestCase", "testCase", 0, outputWrong, 1},
		{"abcdefgh", "abXYZWVUT", 2, outputWrong, 1},
		{"Ada", "Ada Lovelace", 3, outputMissing, 9},
		{"Ada Lovelace", "Ada", 3, outputExtra, 9},
	} {
		k, how, m := outputDiff(c.got, c.want)
		if k != c.k || how != c.how || m != c.m {
			t.Errorf("outputDiff(%q, %q) = %d, %d, %d; want %d, %d, %d", c.got, c.want, k, how, m, c.k, c.how, c.m)
		}
	}
}

// snakeSrc is a Snake that puts no underscore before a second letter that
// is upper-case (line 12: i > 1).
const snakeSrc = `package m

import "strings"

// Snake puts an underscore before each upper-case letter but the first
// and lowers it: "HelloWorld" → "hello_world".
func Snake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 1 {
			b.WriteByte('_')
		}
		if upper {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
`

// TestDiagnoseOutput: a test wants another string than the module built;
// the trace of the function that built it, with every iteration, names
// the statement that decided the first wrong byte, for each way a string
// goes wrong: a byte missing (a guard that skipped the write), a byte
// wrong (the assignment of the value written; a flag set in an earlier
// iteration that kept the value from being changed), bytes too many (a
// flag set before the loop that let the write run). Without the rule
// (checked) the spectrum ranks another line first in the last three, and
// the missing byte's guard is the boundary rule's unverified bound; without
// following a flag to where it was set, the flag's two cases name the if.
// The field case's string is made by a call before the one the check read
// (a getter of the field it went into); the bytes case's by a call whose
// []byte the one read turns into a string, and the statement that wrote
// the wrong byte is the suspect, as nothing it read was wrong; its check
// (`if actual != expected {` comparing two strings declared just before)
// is a line the compiler marks as no statement, where no step stops. The
// table case's strings were computed before the check, in its table: the
// rejected one is the one a call of the module returned. The append
// chain's bytes are written by calls given the bytes to append to: the
// one that wrote the first wrong byte is traced. In the short write's,
// no write was skipped: the last write before the gap wrote too little.
// The concatenation's string is no variable's: the operand that holds the
// wrong byte is traced. In the switch's, the case not taken whose write
// writes the wanted bytes is the one that should have run (the default's
// write wrote the wrong byte).
func TestDiagnoseOutput(t *testing.T) {
	for _, c := range []struct {
		name, src, test string
		line            int
		says            string
	}{{
		name: "missing",
		src:  snakeSrc,
		test: `package m

import "testing"

func TestSnake(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"HelloWorld", "hello_world"},
		{"myHTTP", "my_h_t_t_p"},
		{"aB", "a_b"},
	} {
		if got := Snake(c.in); got != c.want {
			t.Errorf("Snake(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
`,
		line: 12, says: "`if upper && i > 1 {` was false, so `b.WriteByte('_')` (line 13), which writes the \"_\" wanted there, did not run",
	}, {
		name: "wrong value",
		src: `package m

// Rot13 turns each letter 13 places on in the alphabet.
func Rot13(s string) string {
	out := make([]byte, 0, len(s))
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z':
			c = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			c = 'A' + (c-'A'+12)%26
		}
		out = append(out, c)
	}
	return string(out)
}
`,
		test: `package m

import "testing"

func TestRot13(t *testing.T) {
	if got := Rot13("abc"); got != "nop" {
		t.Errorf("Rot13 = %q", got)
	}
	if got := Rot13("Hello"); got != "Uryyb" {
		t.Errorf("Rot13 = %q", got)
	}
}
`,
		line: 11, says: "`c = 'A' + (c-'A'+12)%26` made c 84, which `out = append(out, c)` (line 13) wrote",
	}, {
		name: "flag",
		src: `package m

import "strings"

// Title upper-cases the first letter of each word, words being separated
// by spaces and hyphens: "x-ray vision" → "X-Ray Vision".
func Title(s string) string {
	var b strings.Builder
	up := true
	for _, c := range []byte(s) {
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
		up = c == ' '
	}
	return b.String()
}
`,
		test: `package m

import "testing"

func TestTitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go", "Go"},
		{"go is fun", "Go Is Fun"},
		{"x-ray vision", "X-Ray Vision"},
	} {
		if got := Title(c.in); got != c.want {
			t.Errorf("Title(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
`,
		line: 15, says: "`up = c == ' '` made up false; then `if up && c >= 'a' && c <= 'z' {` was false, so c was not changed",
	}, {
		name: "extra",
		src: `package m

import "strings"

// List joins the items with ", ".
func List(items ...string) string {
	var b strings.Builder
	first := false
	for _, it := range items {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(it)
	}
	return b.String()
}
`,
		test: `package m

import "testing"

func TestList(t *testing.T) {
	if got := List(); got != "" {
		t.Errorf("List() = %q", got)
	}
	if got := List("a", "b"); got != "a, b" {
		t.Errorf("List = %q", got)
	}
}
`,
		line: 8, says: "`first := false` made first false; then `if !first {` let `b.WriteString(\", \")` (line 11) run",
	}, {
		name: "field",
		src: `package m

import "strings"

// Name is a person's full name.
type Name struct{ full string }

// New makes the name of first and last (which may be empty).
func New(first, last string) *Name { return &Name{full: join(first, last)} }

func (n *Name) String() string { return n.full }

func join(first, last string) string {
	var b strings.Builder
	b.WriteString(first)
	if last == "" {
		b.WriteByte(' ')
		b.WriteString(last)
	}
	return b.String()
}
`,
		test: `package m

import "testing"

func TestName(t *testing.T) {
	if got := New("Ada", "Lovelace").String(); got != "Ada Lovelace" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 16, says: "`if last == \"\" {` was false, so `b.WriteByte(' ')` (line 17), which writes the \" \" wanted there, did not run",
	}, {
		name: "bytes",
		src: `package m

import "strconv"

// Version is a dotted version number.
type Version struct{ parts []int64 }

func (v *Version) String() string { return string(v.bytes()) }

func (v *Version) bytes() []byte {
	var buf []byte
	for i, p := range v.parts {
		if i > 0 {
			buf = append(buf, '.')
		}
		buf = strconv.AppendInt(buf, p, 16)
	}
	return buf
}
`,
		test: `package m

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct {
		parts []int64
		want  string
	}{
		{[]int64{1, 2, 3}, "1.2.3"},
		{[]int64{17, 3, 0}, "17.3.0"},
	} {
		v := &Version{c.parts}
		actual := v.String()
		expected := c.want
		if actual != expected {
			t.Fatalf("expected: %s\nactual: %s", expected, actual)
		}
	}
}
`,
		line: 16, says: "`buf = strconv.AppendInt(buf, p, 16)` wrote \"1\" where \"7\" belongs",
	}, {
		name: "table",
		src:  snakeSrc,
		test: `package m

import "testing"

type testList []struct{ name, got, exp string }

func (l testList) validate(t *testing.T) {
	for _, test := range l {
		if test.got != test.exp {
			t.Errorf("On %v, expected %q, but got %q", test.name, test.exp, test.got)
		}
	}
}

func TestSnake(t *testing.T) {
	testList{
		{"one word", Snake("hello"), "hello"},
		{"two words", Snake("HelloWorld"), "hello_world"},
		{"second letter", Snake("aB"), "a_b"},
	}.validate(t)
}
`,
		line: 12, says: "`if upper && i > 1 {` was false, so `b.WriteByte('_')` (line 13), which writes the \"_\" wanted there, did not run",
	}, {
		name: "append chain",
		src: `package m

// Encode writes the pairs as k=v lines, quoting values with spaces.
func Encode(pairs [][2]string) string {
	var b []byte
	for _, p := range pairs {
		b = appendPair(b, p[0], p[1])
	}
	return string(b)
}

func appendPair(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ':')
	b = appendValue(b, v)
	return append(b, '\n')
}

func appendValue(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			return append(append(append(b, '"'), v...), '"')
		}
	}
	return append(b, v...)
}
`,
		test: `package m

import "testing"

func TestEncode(t *testing.T) {
	got := Encode([][2]string{{"a", "1"}, {"b", "x y"}})
	if want := "a=1\nb=\"x y\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
`,
		line: 14, says: "`b = append(b, ':')` wrote \":\" where \"=\" belongs, a constant of its own",
	}, {
		name: "short write",
		src: `package m

// Escape puts a backslash before each quote and backslash of s.
func Escape(s string) string {
	var out []byte
	for _, c := range []byte(s) {
		switch c {
		case '"':
			out = append(out, '\\', c)
		case '\\':
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
`,
		test: `package m

import "testing"

func TestEscape(t *testing.T) {
	if got := Escape("say \"hi\""); got != "say \\\"hi\\\"" {
		t.Errorf("got %q", got)
	}
	if got, want := Escape("a\\b"), "a\\\\b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
`,
		line: 11, says: "`out = append(out, c)` wrote the bytes up to the gap, and no condition after it skipped a write: \"\\\\\" should have come with them",
	}, {
		name: "concatenation",
		src: `package m

import "strconv"

// Ordinal gives the ordinal of x: 1st, 2nd, 4th, 11th, 12th…
func Ordinal(x int) string {
	suffix := "th"
	switch x % 10 {
	case 1:
		if x%100 != 11 {
			suffix = "st"
		}
	case 2:
		if x%100 != 2 {
			suffix = "nd"
		}
	}
	return strconv.Itoa(x) + suffix
}
`,
		test: `package m

import "testing"

func TestOrdinal(t *testing.T) {
	for _, c := range []struct {
		x    int
		want string
	}{{1, "1st"}, {2, "2nd"}, {4, "4th"}, {12, "12th"}} {
		if got := Ordinal(c.x); got != c.want {
			t.Errorf("Ordinal(%d) = %q, want %q", c.x, got, c.want)
		}
	}
}
`,
		line: 14, says: "`if x%100 != 2 {` was false, so suffix was not changed before `return strconv.Itoa(x) + suffix` (line 18) wrote it",
	}, {
		name: "format verb",
		src: `package m

import "fmt"

// Price writes an amount of cents in dollars.
func Price(cents int) string {
	dollars := cents / 100
	cents %= 10
	return fmt.Sprintf("$%d.%02d", dollars, cents)
}
`,
		test: `package m

import "testing"

func TestPrice(t *testing.T) {
	if got := Price(1234); got != "$12.34" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 8, says: "`cents %= 10` made cents 4, which `return fmt.Sprintf(\"$%d.%02d\", dollars, cents)` (line 9) wrote",
	}, {
		name: "switch",
		src: `package m

// Escape escapes quotes, newlines and tabs.
func Escape(s string) string {
	var out []byte
	for _, c := range []byte(s) {
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\n':
			out = append(out, '\\', 'n')
		case 'X':
			out = append(out, '\\', 't')
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
`,
		test: `package m

import "testing"

func TestEscape(t *testing.T) {
	if got := Escape("a\"b"); got != "a\\\"b" {
		t.Errorf("got %q", got)
	}
	if got := Escape("a\tb"); got != "a\\tb" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 12, says: "`case 'X':` was false, so `out = append(out, '\\\\', 't')` (line 13), which writes the \"\\\\t\" wanted there, did not run",
	}} {
		// Not in parallel: Delve waits for any child of the process (see
		// adapter's TestConcurrentSessions).
		t.Run(c.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"m.go": c.src, "m_test.go": c.test})
			_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{NoVerify: true}, "go", "test", ".")
			if d.Method != "output" || d.RootCause.Line != c.line {
				t.Fatalf("root cause line %d by %s: %s; want line %d by output", d.RootCause.Line, d.Method, d.Summary, c.line)
			}
			if !strings.Contains(d.Summary, c.says) {
				t.Errorf("summary %q; want it to say %q", d.Summary, c.says)
			}
		})
	}
}

// TestDiagnoseOutputFix: the output rule's fixes, worked out from the
// bytes, verified by re-running the tests: the constants a write writes,
// the constant of an update of the byte written, the base a number is
// written in, a separator written short.
func TestDiagnoseOutputFix(t *testing.T) {
	for _, c := range []struct {
		name, src, test string
		line            int
		fix             string
		says            string // in the summary, if set
	}{{
		name: "constant",
		src: `package m

// Encode writes the pairs as k=v lines.
func Encode(pairs [][2]string) string {
	var b []byte
	for _, p := range pairs {
		b = append(b, p[0]...)
		b = append(b, ':')
		b = append(b, p[1]...)
		b = append(b, '\n')
	}
	return string(b)
}
`,
		test: `package m

import "testing"

func TestEncode(t *testing.T) {
	if got, want := Encode([][2]string{{"a", "1"}, {"b", "2"}}), "a=1\nb=2\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
`,
		line: 8, fix: "+\t\tb = append(b, '=')",
	}, {
		name: "update",
		src: `package m

// Lower turns the capitals of s into small letters.
func Lower(s string) string {
	var out []byte
	for _, c := range []byte(s) {
		if c >= 'A' && c <= 'Z' {
			c += 33
		}
		out = append(out, c)
	}
	return string(out)
}
`,
		test: `package m

import "testing"

func TestLower(t *testing.T) {
	if got := Lower("Go Team"); got != "go team" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 8, fix: "+\t\t\tc += 32",
	}, {
		name: "base",
		src: `package m

import "strconv"

// Dotted writes the parts as a dotted version number.
func Dotted(parts []int64) string {
	var buf []byte
	for i, p := range parts {
		if i > 0 {
			buf = append(buf, '.')
		}
		buf = strconv.AppendInt(buf, p, 16)
	}
	return string(buf)
}
`,
		test: `package m

import "testing"

func TestDotted(t *testing.T) {
	if got := Dotted([]int64{1, 12, 3}); got != "1.12.3" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 12, fix: "+\t\tbuf = strconv.AppendInt(buf, p, 10)",
	}, {
		name: "separator",
		src: `package m

import "strings"

// Join lists the words, separated by commas.
func Join(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(w)
	}
	return b.String()
}
`,
		test: `package m

import "testing"

func TestJoin(t *testing.T) {
	if got := Join([]string{"a", "b", "c"}); got != "a, b, c" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 10, fix: "+\t\t\tb.WriteString(\", \")",
	}, {
		name: "format",
		src: `package m

import "fmt"

// Point is a point of the plane.
type Point struct{ X, Y int }

func (p Point) String() string {
	if p.X == 0 && p.Y == 0 {
		return "origin"
	}
	return fmt.Sprintf("(%d; %d)", p.X, p.Y)
}
`,
		test: `package m

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct {
		p    Point
		want string
	}{{Point{}, "origin"}, {Point{1, 2}, "(1, 2)"}} {
		if got := c.p.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
`,
		line: 12, fix: "+\treturn fmt.Sprintf(\"(%d, %d)\", p.X, p.Y)",
	}, {
		name: "format short",
		src: `package m

import "fmt"

// Range writes the range from lo to hi.
func Range(lo, hi int) string {
	return fmt.Sprintf("[%d,%d]", lo, hi)
}
`,
		test: `package m

import "testing"

func TestRange(t *testing.T) {
	if got := Range(10, 20); got != "[10, 20]" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 7, fix: "+\treturn fmt.Sprintf(\"[%d, %d]\", lo, hi)",
	}, {
		name: "fprintf",
		src: `package m

import (
	"fmt"
	"strings"
)

// Encode writes the pairs as k=v; items.
func Encode(pairs [][2]string) string {
	var b strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s:%s;", p[0], p[1])
	}
	return b.String()
}
`,
		test: `package m

import "testing"

func TestEncode(t *testing.T) {
	if got := Encode([][2]string{{"a", "1"}, {"b", "2"}}); got != "a=1;b=2;" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 12, fix: "+\t\tfmt.Fprintf(&b, \"%s=%s;\", p[0], p[1])",
		says: "the format of `fmt.Fprintf(&b, \"%s:%s;\", p[0], p[1])` writes \":\", with \":\" where \"=\" belongs",
	}, {
		// The first value holds the pieces' text (", "): the pieces fit
		// over the string in three ways, and the fix of the first is
		// refuted.
		name: "format laid",
		src: `package m

import (
	"fmt"
	"strings"
)

// Series lists the words with a serial comma: "a, b, and c".
func Series(words []string, conj string) string {
	if len(words) < 3 {
		return strings.Join(words, " "+conj+" ")
	}
	return fmt.Sprintf("%s %s %s", strings.Join(words[:len(words)-1], ", "), conj, words[len(words)-1])
}
`,
		test: `package m

import "testing"

func TestSeries(t *testing.T) {
	if got := Series([]string{"a", "b", "c"}, "and"); got != "a, b, and c" {
		t.Errorf("got %q", got)
	}
}
`,
		line: 13, fix: "+\treturn fmt.Sprintf(\"%s, %s %s\", strings.Join(words[:len(words)-1], \", \"), conj, words[len(words)-1])",
	}} {
		// Not in parallel: Delve waits for any child of the process (see
		// adapter's TestConcurrentSessions).
		t.Run(c.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"m.go": c.src, "m_test.go": c.test})
			_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{}, "go", "test", ".")
			if d.Method != "output" || d.RootCause.Line != c.line {
				t.Fatalf("root cause line %d by %s: %s; want line %d by output", d.RootCause.Line, d.Method, d.Summary, c.line)
			}
			if d.Verification == nil || d.Verification.Status != report.Passed || !strings.Contains(d.Fix, c.fix) {
				t.Fatalf("fix (verification %+v):\n%s\nwant a passing one with %q", d.Verification, d.Fix, c.fix)
			}
			if !strings.Contains(d.Summary, "makes the failing tests pass") || !strings.Contains(d.Summary, c.says) {
				t.Errorf("summary %q; want it to say %q and that the fix makes the tests pass", d.Summary, c.says)
			}
		})
	}
}

// TestDiagnoseFormatRefuted: a format whose wanted bytes the tests refute
// is no root cause. The first value printed holds the format's piece
// (" "), and its own separator is the wrong byte: in the only way the
// piece fits over the string that holds the byte, "%s-%s" prints the
// wrong string still.
func TestDiagnoseFormatRefuted(t *testing.T) {
	dir := writeModule(t, map[string]string{"m.go": `package m

import (
	"fmt"
	"strings"
)

// Pair writes the words joined by dashes, then the last one.
func Pair(words []string, last string) string {
	return fmt.Sprintf("%s %s", strings.Join(words, " "), last)
}
`, "m_test.go": `package m

import "testing"

func TestPair(t *testing.T) {
	if got := Pair([]string{"a", "b"}, "c"); got != "a-b c" {
		t.Errorf("got %q", got)
	}
}
`})
	_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{}, "go", "test", ".")
	if d.Method == "output" || d.Fix != "" {
		t.Fatalf("diagnosis by %s: %s\nfix:\n%s\nwant the format's refuted finding dropped", d.Method, d.Summary, d.Fix)
	}
}

// TestSprintfFormat: a format's constant pieces, and the ways they fit
// over what it printed.
func TestSprintfFormat(t *testing.T) {
	for _, c := range []struct {
		call, printed string
		pieces        []string // text@from-to
		lays          [][]int
	}{
		{`fmt.Sprintf("(%d; %d)", x, y)`, "(1; 22)", []string{"(@0-1", "; @3-5", ")@7-8"}, [][]int{{0, 2, 6}}},
		{`fmt.Sprintf("%s=%-4.2f%%", k, v)`, "a=1.50%", []string{"@0-0", "=@2-3", "%@9-11"}, [][]int{{0, 1, 6}}},
		{"fmt.Sprintf(`%v`, x)", "{1}", []string{"@0-0", "@2-2"}, [][]int{{0, 3}}},
		// A verb's value that holds a piece's text: each way, leftmost
		// first.
		{`fmt.Sprintf("%s %s", x, y)`, "a, b c", []string{"@0-0", " @2-3", "@5-5"}, [][]int{{0, 2, 6}, {0, 4, 6}}},
		{`fmt.Sprintf("%d-%d)", x, y)`, "1-2", []string{"@0-0", "-@2-3", ")@5-6"}, nil}, // not what the format printed
		{`fmt.Sprintf("%*d", 3, x)`, "", nil, nil},
		{`fmt.Sprintf("%[2]d %[1]d", x, y)`, "", nil, nil},
		{`fmt.Sprintf("%d %d", x)`, "", nil, nil},
		{`fmt.Sprint("a", x)`, "", nil, nil},
	} {
		e, err := parser.ParseExpr(c.call)
		if err != nil {
			t.Fatal(err)
		}
		_, pieces, _, ok := sprintfFormat(e)
		var got []string
		for _, p := range pieces {
			got = append(got, fmt.Sprintf("%s@%d-%d", p.text, p.from, p.to))
		}
		if ok != (c.pieces != nil) || !slices.Equal(got, c.pieces) {
			t.Errorf("%s: pieces %q (%v); want %q", c.call, got, ok, c.pieces)
			continue
		}
		if lays := layFormat(pieces, c.printed); fmt.Sprint(lays) != fmt.Sprint(c.lays) {
			t.Errorf("%s over %q: laid at %v; want %v", c.call, c.printed, lays, c.lays)
		}
	}
}

// TestBuiltBytes: the string being built, as the recording shows each way
// of building one.
func TestBuiltBytes(t *testing.T) {
	bytesOf := func(typ string, bs ...string) trace.Value {
		v := trace.Value{Kind: trace.KindSlice, Type: typ, Len: int64(len(bs))}
		for _, b := range bs {
			v.Children = append(v.Children, trace.Value{Kind: trace.KindUint, Text: b})
		}
		return v
	}
	buf := bytesOf("[]uint8", "104", "105")
	builder := trace.Value{Kind: trace.KindStruct, Type: "strings.Builder", Children: []trace.Value{
		{Name: "addr", Kind: trace.KindPointer, Text: "&strings.Builder{…}", Cut: true}, buf}}
	builder.Children[1].Name = "buf"
	cut := bytesOf("[]uint8", "104", "105")
	cut.Len = 40
	for _, c := range []struct {
		name  string
		v     trace.Value
		known string
		n     int
		ok    bool
	}{
		{"string", trace.Value{Kind: trace.KindString, Text: `"hi"`, Len: 2}, "hi", 2, true},
		{"cut string", trace.Value{Kind: trace.KindString, Text: `"hi"…+3 more`, Len: 5, Cut: true}, "hi", 5, true},
		{"bytes", buf, "hi", 2, true},
		{"bytes kept in part", cut, "hi", 40, true},
		{"nil bytes", trace.Value{Kind: trace.KindSlice, Type: "[]uint8", Nil: true, Text: "nil"}, "", 0, true},
		{"ints", bytesOf("[]int", "1"), "", 0, false},
		{"builder", builder, "hi", 2, true},
		{"pointer to builder", trace.Value{Kind: trace.KindPointer, Children: []trace.Value{builder}}, "hi", 2, true},
		{"buffer read from", trace.Value{Kind: trace.KindStruct, Type: "bytes.Buffer", Children: []trace.Value{
			{Name: "buf", Kind: trace.KindSlice, Type: "[]uint8"}, {Name: "off", Kind: trace.KindInt, Text: "1"}}}, "", 0, false},
		{"other struct", trace.Value{Kind: trace.KindStruct, Type: "m.T"}, "", 0, false},
	} {
		known, n, ok := builtBytes(&c.v)
		if string(known) != c.known || n != c.n || ok != c.ok {
			t.Errorf("%s: builtBytes = %q, %d, %v; want %q, %d, %v", c.name, known, n, ok, c.known, c.n, c.ok)
		}
	}
}

// TestLiteralBytes: the bytes a write of constants writes, and none for a
// write of a variable.
func TestLiteralBytes(t *testing.T) {
	file := parseSnippet(t, `package m

func f(b []byte, w *strings.Builder, c byte) {
	b = append(b, 0, 0, 0)
	b = append(b, '\n', '=')
	b = append(b, "ab"...)
	w.WriteString(", ")
	w.WriteByte('\\')
	b = append(b, c)
	w.WriteByte(c)
	b = append(b, 0x1ff)
}
`)
	for _, c := range []struct {
		line int
		want string
		ok   bool
	}{
		{4, "\x00\x00\x00", true},
		{5, "\n=", true},
		{6, "ab", true},
		{7, ", ", true},
		{8, `\`, true},
		{9, "", false},
		{10, "", false},
		{11, "", false},
	} {
		got, ok := literalBytes(file.StmtAt(c.line))
		if string(got) != c.want || ok != c.ok {
			t.Errorf("line %d: %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestDiagnoseOutputRefused: where the trace cannot show which statement
// wrote the first wrong byte, the rule names none: zeros appended as room
// for a call to fill in (utf8.EncodeRune into the slice's end), a slice
// made at its full length and filled in by index (checked: without the
// constants' check and the make's, it names the append, the make).
func TestDiagnoseOutputRefused(t *testing.T) {
	test := `package m

import "testing"

func TestEncode(t *testing.T) {
	if got := Encode([]rune("ab")); got != "ab" {
		t.Errorf("got %q", got)
	}
}
`
	for _, c := range []struct{ name, src string }{{
		name: "placeholder",
		src: `package m

import "unicode/utf8"

// Encode encodes the runes as UTF-8.
func Encode(rs []rune) string {
	var b []byte
	for _, r := range rs {
		b = append(b, 0, 0, 0, 0)
		n := utf8.EncodeRune(b[len(b)-4:], r+1)
		b = b[:len(b)-4+n]
	}
	return string(b)
}
`,
	}, {
		name: "made",
		src: `package m

// Encode encodes the runes, all ASCII, as bytes.
func Encode(rs []rune) string {
	out := make([]byte, len(rs))
	for i, r := range rs {
		out[i] = byte(r + 1)
	}
	return string(out)
}
`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeModule(t, map[string]string{"m.go": c.src, "m_test.go": test})
			_, d := diagnoseWith(t, dir, engine.Options{Timeout: 2 * time.Minute}, Options{NoVerify: true}, "go", "test", ".")
			if d.Method == "output" {
				t.Errorf("root cause line %d by output: %s; want another method", d.RootCause.Line, d.Summary)
			}
		})
	}
}

// TestWriteIn: the statements that write to the string in buf.
func TestWriteIn(t *testing.T) {
	file := parseSnippet(t, `package m

func f(buf bytes.Buffer, b []byte, w io.Writer, s string) {
	fmt.Fprintf(&buf, "-%s", s)
	fmt.Fprint(buf, s)
	buf.WriteString(s)
	buf = append(buf, s...)
	buf += s
	fmt.Fprintf(w, "%s", s)
	b = append(b, s...)
	w.Write(b)
}
`)
	for line := 4; line <= 11; line++ {
		stmt := file.StmtAt(line)
		want := line <= 8
		if got := writeIn(stmt, "buf") != nil; got != want {
			t.Errorf("line %d (%s): writes to buf %v, want %v", line, file.Text(stmt), got, want)
		}
	}
}
