package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The golden transcripts are the specification of the engine's answers on
// every program of the repository's testdata (but broken and spin, which
// other tests cover): for each case a fresh session over the recording of
// argv runs the script, and the transcript — each command as "> COMMAND"
// followed by its text answer or "error: …" — must equal
// testdata/golden/NAME.txt once normalised. Run with -update to rewrite the
// golden files, then review them against the fixture's source: they are
// what an LLM reads.
//
// Fixture packages are spelled in full in fids, e.g.
// github.com/adi-go/adi/testdata/nilptr.Greeting#3; the shorthands below
// keep the table readable.
const (
	nilptrPkg       = "github.com/adi-go/adi/testdata/nilptr."
	offbyonePkg     = "github.com/adi-go/adi/testdata/offbyone."
	searchPkg       = "github.com/adi-go/adi/testdata/search."
	recursionPkg    = "github.com/adi-go/adi/testdata/recursion."
	methodsPkg      = "github.com/adi-go/adi/testdata/methods."
	genericsPkg     = "github.com/adi-go/adi/testdata/generics."
	droppederrPkg   = "github.com/adi-go/adi/testdata/droppederr."
	deferrecoverPkg = "github.com/adi-go/adi/testdata/deferrecover."
	tabletestPkg    = "github.com/adi-go/adi/testdata/tabletest."
)

type goldenCase struct {
	name   string
	argv   []string
	script []string
	// norm replaces, in this case's transcript only, what differs between
	// runs by design (nondet's clock seed).
	norm []replacement
}

type replacement struct {
	re   *regexp.Regexp
	with string
}

var goldenCases = []goldenCase{
	{
		// Root cause: NewRegistry (main.go:18) never makes the map; Add
		// panics at main.go:24, called from load at main.go:34.
		name: "nilmap",
		argv: []string{"go", "run", "./testdata/nilmap"},
		script: []string{
			"outcome",
			"frame",
			"step-out",
			"call-tree main.main#1",
			"frames main.(*Registry).Add",
			"frame main.NewRegistry#1",
			"execute main.(*Registry).Add#1 24 1 r.ports == nil",
			"execute main.(*Registry).Add#1 24 1 len(r.order)",
		},
	},
	{
		// Root cause: Greeting (nilptr.go:40) dereferences the nil *User
		// that Find returns for id 4.
		name: "nilptr",
		argv: []string{"go", "test", "./testdata/nilptr"},
		script: []string{
			"outcome",
			"frame",
			"step-out",
			"frames " + nilptrPkg + "(*Directory).Find",
			"frame " + nilptrPkg + "(*Directory).Find#3",
			"break " + nilptrPkg + "Greeting id > 3",
			"prev",
			"execute " + nilptrPkg + "Greeting#3 40 1 u == nil",
		},
	},
	{
		// Root cause: pageCount (main.go:17) returns n/size + 1 = 4 for 12
		// items; firstOfPage panics at main.go:22 on page 3.
		name: "index",
		argv: []string{"go", "run", "./testdata/index"},
		script: []string{
			"outcome",
			"frame",
			"step-out",
			"frame main.pageCount#1",
			"execute main.pageCount#1 17 1 (n+size-1)/size",
			"break main.firstOfPage p >= 2",
			"continue",
			"prev",
			"call-tree main.main#1",
		},
	},
	{
		// Root cause: SumFirst (offbyone.go:21) loops i < n-1 and skips the
		// n-th element.
		name: "offbyone",
		argv: []string{"go", "test", "./testdata/offbyone"},
		script: []string{
			"outcome",
			"frame",
			"frame " + offbyonePkg + "SumFirst#1",
			"execute " + offbyonePkg + "SumFirst#1 24 1 i",
			"execute " + offbyonePkg + "SumFirst#1 24 1 total + xs[n-1]",
			"frames " + offbyonePkg + "Readings",
			"break " + offbyonePkg + "Reading i == 24",
			"continue",
			"step-out",
		},
	},
	{
		// Root cause: Index (search.go:24) loops lo < hi and gives up on a
		// one-element range.
		name: "search",
		argv: []string{"go", "test", "./testdata/search"},
		script: []string{
			"outcome",
			"frame",
			"frames " + searchPkg + "Index",
			"break " + searchPkg + "Index r0 == -1",
			"continue",
			"continue",
			"prev",
			"execute " + searchPkg + "Index#3 35 1 lo == hi && xs[lo] == x",
			"call-tree " + searchPkg + "TestIsPrimeComposite#1",
		},
	},
	{
		// Root cause: Fib (recursion.go:7) has the base case n <= 2.
		name: "recursion",
		argv: []string{"go", "test", "./testdata/recursion"},
		script: []string{
			"outcome",
			"frame",
			"frame " + recursionPkg + "Fib#1",
			"call-tree " + recursionPkg + "Fib#1 2",
			"break " + recursionPkg + "Fib n == 2",
			"continue",
			"execute " + recursionPkg + "Fib#1 7 1 n = 3",
			"frame " + recursionPkg + "Sequence#1",
		},
	},
	{
		// Root cause: Counter.Inc (methods.go:13) has a value receiver, so
		// c.n++ increments a copy.
		name: "methods",
		argv: []string{"go", "test", "./testdata/methods"},
		script: []string{
			"outcome",
			"frame",
			"frames " + methodsPkg + "Counter.Inc",
			"frame " + methodsPkg + "Counter.Inc#1",
			"step-out",
			"frame " + methodsPkg + "(*Site).counter#3",
			"frame " + methodsPkg + "(*Counter).Value#1",
			"execute " + methodsPkg + "(*Site).Views#1 50 1 len(s.counters)",
		},
	},
	{
		// Root cause: formatters (main.go:18) assigns the loop value to the
		// one prefix variable all the closures share.
		name: "closure",
		argv: []string{"go", "run", "./testdata/closure"},
		script: []string{
			"outcome",
			"frame",
			"frame main.formatters#1",
			"frames main.formatters.func1",
			"frame main.formatters.func1#1",
			"step-out",
			"execute main.formatters.func1#1 20 1 prefix",
			"execute main.formatters#1 23 1 prefix",
		},
	},
	{
		// Root cause: (*Stack[T]).Pop (generics.go:22) returns the bottom
		// element s.items[0].
		name: "generics",
		argv: []string{"go", "test", "./testdata/generics"},
		script: []string{
			"outcome",
			"frame",
			"frames " + genericsPkg + "Reverse",
			"call-tree " + genericsPkg + "Reverse[...]#1",
			"frame " + genericsPkg + "(*Stack[...]).Pop#1",
			"step-out",
			"execute " + genericsPkg + "(*Stack[...]).Pop#1 22 1 s.items[len(s.items)-1]",
			"break " + genericsPkg + "(*Stack).Pop ok == false",
			"continue",
			"frame " + genericsPkg + "Max[...]#1",
		},
	},
	{
		// Root cause: fanOut (main.go:37) gives the last worker xs[6:9] and
		// drops element 10.
		name: "pipeline",
		argv: []string{"go", "run", "./testdata/pipeline"},
		script: []string{
			"outcome",
			"call-tree main.main#1",
			"frame main.fanOut#1",
			"frames main.worker",
			"execute main.fanOut#1 37 3 xs[w*chunk:]",
			"frame main.fanIn#1",
		},
	},
	{
		// Root cause: parseLine (droppederr.go:19) drops Atoi's error for
		// " 5".
		name: "droppederr",
		argv: []string{"go", "test", "./testdata/droppederr"},
		script: []string{
			"outcome",
			"frame",
			"frames " + droppederrPkg + "parseLine",
			"frame " + droppederrPkg + "parseLine#5",
			"execute " + droppederrPkg + "parseLine#5 19 1 fields[1]",
			"execute " + droppederrPkg + "parseLine#5 20 1 qty = 5",
			"step-out",
		},
	},
	{
		// Root cause: stats (deferrecover.go:21) indexes s[len(s)]; the
		// deferred recover in Summarize swallows the panic.
		name: "deferrecover",
		argv: []string{"go", "test", "./testdata/deferrecover"},
		script: []string{
			"outcome",
			"frame",
			"call-tree",
			"frames " + deferrecoverPkg + "stats",
			"frame " + deferrecoverPkg + "stats#2",
			"step-out",
			"frame " + deferrecoverPkg + "Summarize.func1#2",
			"execute " + deferrecoverPkg + "stats#2 21 1 len(s)",
		},
	},
	{
		// Root cause: scale (tabletest.go:13) loops while f > 1024, so 1024
		// bytes stays in unit B.
		name: "tabletest",
		argv: []string{"go", "test", "./testdata/tabletest"},
		script: []string{
			"outcome",
			"frame",
			"frames " + tabletestPkg + "FormatSize",
			"break " + tabletestPkg + "scale n <= 1024",
			"continue",
			"step-out",
			"execute " + tabletestPkg + "scale#1 13 1 f >= 1024",
			"execute " + tabletestPkg + "scale#1 13 1 f = 1025",
			"execute " + tabletestPkg + "FormatSize#3 22 1 n = 1025",
		},
	},
	{
		name: "fib",
		argv: []string{"go", "run", "./testdata/fib", "4"},
		script: []string{
			"outcome",
			"frame",
			"frame main.fib#1",
			"call-tree main.main#1",
			"frames main.fib",
			"break main.fib n == 1",
			"continue",
			"continue",
			"prev",
			"step-out",
			"execute main.fib#1 13 1 n = 3",
		},
	},
	{
		// simulate's 100 iterations are summarised.
		name: "loop",
		argv: []string{"go", "run", "./testdata/loop"},
		script: []string{
			"outcome",
			"frame main.simulate#1",
			"frames main.step",
			"execute main.simulate#1 18 50 hash",
			"break main.step i == 50",
			"continue",
			"step-out",
		},
	},
	{
		// The seed comes from the clock: re-executing to a frame whose
		// arguments depend on it diverges.
		name: "nondet",
		argv: []string{"go", "run", "./testdata/nondet"},
		script: []string{
			"call-tree main.main#1 0",
			"frame main.throw#1",
			"frame main.roll#3",
			"execute main.throw#1 24 1 n",
		},
		norm: []replacement{{regexp.MustCompile(`\b[0-9]{6,}\b`), "N"}},
	},
	{
		name: "initgen",
		argv: []string{"go", "run", "./testdata/initgen"},
		script: []string{
			"outcome",
			"frame",
			"call-tree main.main#1",
			"frame main.main#1",
			"frame main.work#1",
			"frame main.safe#1",
			"frame main.mustPositive#1",
			"frame main.safe.func1#1",
			"frame main.init.0#1",
			"frame main.cleanup#1",
		},
	},
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t, c.argv...)
			var b strings.Builder
			for i, cmd := range c.script {
				if i > 0 {
					b.WriteByte('\n')
				}
				fmt.Fprintf(&b, "> %s\n", cmd)
				ans, err := s.Exec(context.Background(), cmd)
				if err != nil {
					fmt.Fprintf(&b, "error: %v\n", err)
					continue
				}
				b.WriteString(ans.Text)
				if !strings.HasSuffix(ans.Text, "\n") {
					b.WriteByte('\n')
				}
			}
			got := normalizeGolden(b.String(), repoRoot(t), c.norm)
			file := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript differs from %s (-want +got):\n%s", file, lineDiff(string(want), got))
			}
		})
	}
}

var (
	hexAddr     = regexp.MustCompile(`0x[0-9a-f]{6,}`)
	testElapsed = regexp.MustCompile(`\([0-9]+\.[0-9]+s\)`)
	pkgElapsed  = regexp.MustCompile(`(?m)^((?:ok|FAIL|---) .*\t)[0-9]+\.[0-9]+s$`)
)

// normalizeGolden replaces what differs between machines and runs: the
// repository's path, addresses, durations.
func normalizeGolden(s, root string, extra []replacement) string {
	s = strings.ReplaceAll(s, root, "$ROOT")
	s = hexAddr.ReplaceAllString(s, "0xADDR")
	s = testElapsed.ReplaceAllString(s, "(T)")
	s = pkgElapsed.ReplaceAllString(s, "${1}T")
	for _, r := range extra {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// lineDiff is a minimal line diff of want and got (longest common
// subsequence): unchanged lines start with "  ", removed ones with "- ",
// added ones with "+ ". Runs of unchanged lines far from a change are cut.
func lineDiff(want, got string) string {
	a := strings.Split(want, "\n")
	b := strings.Split(got, "\n")
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		mark byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', b[j]})
			j++
		default:
			ops = append(ops, op{'-', a[i]})
			i++
		}
	}
	const context = 3
	near := make([]bool, len(ops))
	for k, o := range ops {
		if o.mark == ' ' {
			continue
		}
		for d := max(0, k-context); d <= min(len(ops)-1, k+context); d++ {
			near[d] = true
		}
	}
	var out strings.Builder
	cut := false
	for k, o := range ops {
		if !near[k] {
			if !cut {
				out.WriteString("  …\n")
				cut = true
			}
			continue
		}
		cut = false
		fmt.Fprintf(&out, "%c %s\n", o.mark, o.text)
	}
	return out.String()
}
