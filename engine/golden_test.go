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
// Commands name functions the short way a person types them
// (nilptr.Greeting for github.com/adi-go/adi/testdata/nilptr.Greeting,
// generics.(*Stack).Pop for generics.(*Stack[...]).Pop). The answers write
// them without their import path (nilptr.Greeting#3), but for some that
// still spell them in full: the heading of frames, breakpoint, the
// "at line N (visit K) of …" of execute, the errors of execute and the
// long call lists of a skipped loop ("6 calls: …, …, …").
//
// Goroutine ids other than 1 differ from run to run (test goroutines,
// spawned workers): the transcript numbers them G1, G2, … in order of first
// appearance.
//
// A command whose answer is wrong today is left out of its script with a
// TODO(engine bug) comment saying what it prints and what it should, so
// that the golden files only hold correct answers.
type goldenCase struct {
	name   string
	argv   []string
	script []string
	// norm replaces, in this case's transcript only, what differs between
	// runs by design (nondet's clock seed, pipeline's channel lengths).
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
			"frames nilptr.(*Directory).Find",
			"frame nilptr.(*Directory).Find#3",
			"break nilptr.Greeting id > 3",
			"break nilptr.(*Directory).Find r0 == nil",
			"continue",
			"continue",
			"prev",
			"execute nilptr.Greeting#3 40 1 u == nil",
		},
	},
	{
		// Root cause: pageCount (main.go:17) returns n/size + 1 = 4 for 12
		// items; firstOfPage panics at main.go:22 on page 4 (p = 3).
		name: "index",
		argv: []string{"go", "run", "./testdata/index"},
		script: []string{
			"outcome",
			"frame",
			"call-tree main.main#1",
			"frame main.pageCount#1",
			"execute main.pageCount#1 17 1 (n+size-1)/size",
			"break main.firstOfPage p >= 2",
			"prev",
			"prev",
			"continue",
			"step-out",
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
			"frame offbyone.SumFirst#1",
			"execute offbyone.SumFirst#1 22 24 i",
			"execute offbyone.SumFirst#1 21 26 i",
			"execute offbyone.SumFirst#1 24 1 total + xs[n-1]",
			"frames offbyone.Readings",
			"break offbyone.Reading i == 24",
			"continue",
			// TODO(engine bug): "step-out" to offbyone.Readings#2 shows no
			// change at the last kept step: it prints
			// "13  xs[i] = Reading(i)    ⇢ offbyone.Reading#34(i=29) → 88",
			// but xs[29] went 0 → 88 there, so the step must carry a
			// change of xs (e.g. "xs[29]: 0 → 88"); values are compared
			// by their text, which is cut after 16 elements
			// ("…+14 more"), so changes beyond the cut are lost.
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
			"frames search.Index",
			"break search.Index r0 == -1",
			"continue",
			"continue",
			"prev",
			"execute search.Index#3 35 1 lo == hi && xs[lo] == x",
			"call-tree search.TestIsPrimeComposite#1",
		},
	},
	{
		// Root cause: Fib (recursion.go:7) has the base case n <= 2.
		name: "recursion",
		argv: []string{"go", "test", "./testdata/recursion"},
		script: []string{
			"outcome",
			"frame",
			"frame recursion.Fib#1",
			"call-tree recursion.Fib#1 2",
			"break recursion.Fib n == 2",
			"continue",
			"step-out",
			"execute recursion.Fib#1 7 1 n = 3",
			"frame recursion.Sequence#1",
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
			"frames methods.Counter.Inc",
			"step-into methods.Counter.Inc#1",
			"step-out",
			"frame methods.(*Site).counter#3",
			"frame methods.(*Counter).Value#1",
			"execute methods.(*Site).Views#1 50 1 s.counters[0].n",
			"execute methods.(*Site).Visit#1 46 1 s.counters[0].n",
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
			"step-into main.formatters.func1#1",
			"step-out",
			"execute main.formatters.func1#1 20 1 prefix",
			"execute main.formatters#1 23 1 prefix",
			"execute main.formatters.func1#1 20 1 prefix = \"user\"",
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
			"frames generics.Reverse",
			"call-tree generics.Reverse[...]#1",
			"step-into generics.(*Stack).Pop#1",
			// TODO(engine bug): "step-out" (Reverse[...]#1's FLT) has no
			// step for line 29 "s := &Stack[T]{}": it prints
			// "28  func Reverse[T any](xs []T) []T {  s =
			// &generics.Stack[int]{items: nil} (new)" and goes on with
			// "30  for _, x := range xs {"; the header step must carry no
			// change and be followed by "29  s := &Stack[T]{}  s =
			// &generics.Stack[int]{items: nil} (new)".
			"frames generics.(*Stack).Pop",
			"execute generics.(*Stack[...]).Pop#1 22 1 s.items[len(s.items)-1]",
			"break generics.(*Stack).Pop ok == false",
			"continue",
			"frame generics.Max#1",
		},
	},
	{
		// Root cause: fanOut (main.go:37) gives the last worker xs[6:9] and
		// drops element 10. Which worker enters first varies from run to
		// run, so worker#N and square#N name different invocations in
		// different recordings: the script stays away from them (the
		// full "call-tree main.main#1" lists them, so only its first
		// level is shown). How many partial sums wait in the channel
		// when a value is read depends on the scheduling too: the
		// transcript hides the len of channel values, not their cap.
		name: "pipeline",
		argv: []string{"go", "run", "./testdata/pipeline"},
		script: []string{
			"outcome",
			"call-tree main.main#1 1",
			"frames main.fanOut",
			// TODO(engine bug): "frame main.fanIn#1" fails in most
			// recordings (5 tries of 6) with "re-execution diverged from
			// the recording at main.fanIn#1: argument in is <-chan
			// main.partial (len 3, cap 3), the recording has <-chan
			// main.partial (len 0, cap 3); the program is not
			// deterministic …" (or len 0 against len 1): the number of
			// values buffered in a channel is scheduling state and must
			// not count as a divergence. It must give fanIn#1's FLT
			// (three receives at lines 49-50 filling sums, then total:
			// 0 → 14 → 91 → 285 at line 54, returned 285), as it does
			// when the lens happen to agree.
			// TODO(engine bug): "frame main.fanOut#1" now shows the three
			// iterations, line 39's spawn and "43 return out", but (a) the
			// go statement at line 37 gives its visits the worker
			// invocations in the order the workers entered, not the one
			// each visit spawned: in a recording where worker(2, …)
			// entered before worker(1, …), the visit w = 1 prints
			// "⇢ go main.worker#2(id=2, xs=[]int{7, 8, 9}, …)" where it
			// must name the invocation with id=1, xs=[]int{4, 5, 6}; and
			// (b) the workers' sends show up as changes of out
			// ("out: chan main.partial (len 0, cap 3) → … (len 1, cap 3)")
			// on whichever of fanOut's steps at lines 35 and 37 they
			// happened to overlap, differing from run to run, while the
			// last step says "returned <-chan main.partial (len 0, cap
			// 3)" read from the recording.
			"execute main.fanOut#1 37 1 xs[w*chunk:(w+1)*chunk]",
			"execute main.fanOut#1 37 3 w",
			"execute main.fanOut#1 36 1 len(xs) - workers*chunk",
			"break main.worker id == 2",
			"break main.square x == 10",
			"breakpoints",
		},
		norm: []replacement{{regexp.MustCompile(`\(len [0-9]+, cap ([0-9]+)\)`), "(len L, cap $1)"}},
	},
	{
		// Root cause: parseLine (droppederr.go:19) drops Atoi's error for
		// " 5".
		name: "droppederr",
		argv: []string{"go", "test", "./testdata/droppederr"},
		script: []string{
			"outcome",
			"frame",
			"frames droppederr.parseLine",
			"step-into droppederr.parseLine#5",
			"execute droppederr.parseLine#5 19 1 fields[1]",
			"execute droppederr.parseLine#5 20 1 qty = 5",
			"step-out",
			"frame droppederr.Total#1",
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
			"frames deferrecover.stats",
			"step-into deferrecover.stats#2",
			"step-out",
			"frame deferrecover.Summarize.func1#2",
			"frames deferrecover.Summarize.func1",
			"execute deferrecover.stats#2 21 1 len(s)",
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
			"frames tabletest.TestFormatSize.func1",
			// The failed subtest's closure: its captured tt is new at
			// the closure's line, not a change from what Delve read
			// before the closure copied it in.
			"frame tabletest.TestFormatSize.func1#3",
			"frames tabletest.FormatSize",
			"break tabletest.scale n <= 1024",
			"continue",
			"step-out",
			"execute tabletest.scale#1 13 1 f >= 1024",
			"execute tabletest.scale#1 13 1 f = 1025",
			"execute tabletest.FormatSize#3 22 1 n = 1025",
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
			"frame main.init.0#1",
			"frame main.init.1#1",
			// TODO(engine bug): "call-tree main.main#1" and "frames
			// main.work" show the method value argument as
			// "add=func(int)" (its type), e.g. "main.work#1(add=func(int),
			// vals=[]int{0, 1, 4, 100}, wg=&sync.WaitGroup{…}) · spawned by
			// main.main#1 at main.go:73"; it must read
			// "add=main.(*acc).add-fm", as the FLT of main#1 does at line
			// 70 ("add = main.(*acc).add-fm (new)").
			// TODO(engine bug): "frame main.main#1" differs from run to
			// run: the change the work goroutine makes while main waits,
			// "a: &main.acc{total: 0} → &main.acc{total: 105}", lands on
			// "74  wg.Wait()" in most recordings but on "73  go work(add,
			// table, &wg)" in some (about one in six); it must always be
			// on 74. (The step at line 74 and the callees — go work#1 on
			// 73, safe#1 on 76, safe#2 on 79, cleanup#1 on 81 — are right
			// now.)
			// TODO(engine bug): "frame main.work#1" gives the callees to
			// the right visits now (add#1 on the first "62 add(v)", add#2
			// and add#3 on the skip line, add#4 on the last) but still
			// shows a change nobody made on its header step: "59  func
			// work(add func(int), vals []int, wg *sync.WaitGroup) {  add:
			// func(int) → main.(*acc).add-fm"; the header step must carry
			// no change (and the frame's header must read
			// add=main.(*acc).add-fm).
			// TODO(engine bug): "frame main.safe#1" and "frame
			// main.safe#2" show the one return statement as four steps:
			// "56 return mustPositive(v), nil", "57 }", "56 return
			// mustPositive(v), nil", "57 }" (safe#1 puts mustPositive#1,
			// safe.func1#1 and the change err: nil → … on the first 56;
			// safe#2 puts "r: 0 → 4" and mustPositive#2 on the first 56
			// and safe.func1#2 on the first 57). They must show 56 once
			// and 57 once.
			// TODO(engine bug): "frame main.safe.func1#2" shows
			// "52  if p := recover(); p != nil {" without "p = nil (new)"
			// (p's scope ends before the next stop); it must show
			// "52  if p := recover(); p != nil {  p = nil (new)".
			"frames main.safe.func1",
			"frame main.safe.func1#1",
			"frames main.(*acc).add",
			"frame main.(*acc).add#4",
			"call-tree main.safe#1",
			"frame main.mustPositive#1",
			"call-tree main.safe#2",
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
	pcOffset    = regexp.MustCompile(`(\.go:[0-9]+) \+0x[0-9a-f]+\b`)
	testElapsed = regexp.MustCompile(`\([0-9]+\.[0-9]+s\)`)
	pkgElapsed  = regexp.MustCompile(`(?m)^(\s*(?:ok|FAIL)\s.*\t)[0-9]+\.[0-9]+s$`)
	goroutineID = regexp.MustCompile(`\bgoroutine ([0-9]+)\b`)
)

// normalizeGolden replaces what differs between machines and runs: the
// repository's path, addresses, the offsets of a traceback's PCs in their
// functions (which the counting hook and Go's versions move), durations
// and the ids of goroutines other than 1 (numbered G1, G2, … in order of
// first appearance).
func normalizeGolden(s, root string, extra []replacement) string {
	s = strings.ReplaceAll(s, root, "$ROOT")
	s = hexAddr.ReplaceAllString(s, "0xADDR")
	s = pcOffset.ReplaceAllString(s, "${1} +0xOFF")
	s = testElapsed.ReplaceAllString(s, "(T)")
	s = pkgElapsed.ReplaceAllString(s, "${1}T")
	ids := map[string]string{}
	s = goroutineID.ReplaceAllStringFunc(s, func(m string) string {
		id := goroutineID.FindStringSubmatch(m)[1]
		if id == "1" {
			return m
		}
		g, ok := ids[id]
		if !ok {
			g = fmt.Sprintf("G%d", len(ids)+1)
			ids[id] = g
		}
		return "goroutine " + g
	})
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
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
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
