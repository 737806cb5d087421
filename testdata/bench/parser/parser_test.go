package parser

import (
	"fmt"
	"strings"
	"testing"
)

// generate writes n records as a JSON-like array, the same text every time
// (a linear congruential generator, no package math/rand).
func generate(n int) string {
	var b strings.Builder
	seed := uint32(12345)
	rnd := func(m int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % m
	}
	words := []string{"alpha", "beta", "gamma", "delta", "tab\\tbed", "quote\\\"d", "line\\nbreak"}
	b.WriteString("[\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "name": "%s-%d", "active": %t, "score": %d, "tags": [`,
			i, words[rnd(len(words))], i, rnd(2) == 0, rnd(2000)-1000)
		for j := range rnd(4) {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"%s"`, words[rnd(len(words))])
		}
		fmt.Fprintf(&b, `], "parent": null, "pos": {"x": %d, "y": %d}}`, rnd(100), rnd(100))
	}
	b.WriteString("\n]\n")
	return b.String()
}

func TestParseGenerated(t *testing.T) {
	const n = 2500
	src := generate(n)
	t.Logf("%d bytes of input", len(src))
	if len(src) < 250_000 {
		t.Fatalf("generated input is %d bytes, want a few hundred KB", len(src))
	}
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != n {
		t.Fatalf("Parse gave %T of %d elements, want []any of %d", v, len(arr), n)
	}
	var ids int64
	for i, e := range arr {
		rec, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("element %d is %T, want an object", i, e)
		}
		ids += rec["id"].(int64)
		if rec["parent"] != nil {
			t.Fatalf("element %d: parent = %v, want null", i, rec["parent"])
		}
		name := rec["name"].(string)
		if !strings.HasSuffix(name, fmt.Sprintf("-%d", i)) {
			t.Fatalf("element %d: name %q does not end in -%d", i, name, i)
		}
	}
	if want := int64(n * (n - 1) / 2); ids != want {
		t.Fatalf("sum of ids = %d, want %d", ids, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{`{"a" 1}`, `[1, 2`, `"open`, `[1] 2`, `{"a": nope}`} {
		if _, err := Parse(src); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", src)
		}
	}
}
