package offline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adi-go/adi/agent/syntax"
)

// TestEndsMismatch checks which functions the ends rule suspects: a read
// of one end of a slice that the function then cuts off at the other, and
// none of the right ways to pop, dequeue or peek.
func TestEndsMismatch(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // the element read, "" for none
	}{
		{"stack popped from the bottom", "v := s.items[0]\n\ts.items = s.items[:len(s.items)-1]\n\t_ = v", "s.items[0]"},
		{"queue taken from the back", "v := q[len(q)-1]\n\tq = q[1:]\n\t_ = v", "q[len(q)-1]"},
		{"in a condition", "if q[0] > 0 {\n\t\tq = q[:len(q)-1]\n\t}", "q[0]"},
		{"a stack", "v := s.items[len(s.items)-1]\n\ts.items = s.items[:len(s.items)-1]\n\t_ = v", ""},
		{"a queue", "v := q[0]\n\tq = q[1:]\n\t_ = v", ""},
		{"a peek after the cut", "q = q[1:]\n\t_ = q[len(q)-1]", ""},
		{"another slice", "v := p[0]\n\tq = q[:len(q)-1]\n\t_ = v", ""},
		{"a write of the first element", "q[0] = 1\n\tq = q[:len(q)-1]", ""},
		{"in a function literal", "f := func() int { return q[0] }\n\tq = q[:len(q)-1]\n\t_ = f", ""},
		{"a copy, not a cut", "v := q[0]\n\tr := q[:len(q)-1]\n\t_, _ = v, r", ""},
		{"a heap's pop", "v := q[0]\n\tq[0] = q[len(q)-1]\n\tq = q[:len(q)-1]\n\t_ = v", ""},
		{"a swap-remove from the front", "v := q[len(q)-1]\n\tq[len(q)-1] = q[0]\n\tq = q[1:]\n\t_ = v", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\n\nfunc f(p, q []int, s *struct{ items []int }) int {\n\t" + tc.body + "\n\treturn 0\n}\n"
			file := parseSnippet(t, src)
			fd := file.FuncDecl(3)
			if fd == nil {
				t.Fatalf("no function at line 3 of\n%s", src)
			}
			got := ""
			if m := endsMismatch(file, fd); m != nil {
				got = file.Text(m.index)
			}
			if got != tc.want {
				t.Errorf("suspected %q, want %q, in\n%s", got, tc.want, src)
			}
		})
	}
}

// parseSnippet writes src, a Go file, to a directory of the test's and
// parses it.
func parseSnippet(t *testing.T, src string) *syntax.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := syntax.NewCache().File(path)
	if err != nil {
		t.Fatal(err)
	}
	return file
}
