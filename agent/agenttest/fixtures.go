package agenttest

import "github.com/adi-go/adi/agent/report"

// Fixture is a testdata bug with its documented root cause
// (testdata/README.md).
type Fixture struct {
	Name string
	Argv []string
	// File and Line are the root cause; Func is its function's short name.
	File string
	Line int
	Func string
	// Required: the diagnoser must name the line (or the function with the
	// line in its evidence). The others are diagnosed as well as they can
	// be, and must not be confidently wrong.
	Required bool
	// Fix is the verification status the proposed fix must reach ("": no
	// fix is proposed).
	Fix report.Status
}

// Fixtures are the buggy fixtures of testdata/README.md.
var Fixtures = []Fixture{
	{"nilmap", []string{"go", "run", "./testdata/nilmap"}, "testdata/nilmap/main.go", 18, "NewRegistry", true, report.Passed},
	{"nilptr", []string{"go", "test", "./testdata/nilptr"}, "testdata/nilptr/nilptr.go", 40, "Greeting", true, ""},
	{"index", []string{"go", "run", "./testdata/index"}, "testdata/index/main.go", 17, "pageCount", true, report.Passed},
	{"offbyone", []string{"go", "test", "./testdata/offbyone"}, "testdata/offbyone/offbyone.go", 21, "SumFirst", true, report.Passed},
	{"search", []string{"go", "test", "./testdata/search"}, "testdata/search/search.go", 24, "Index", true, report.Passed},
	{"droppederr", []string{"go", "test", "./testdata/droppederr"}, "testdata/droppederr/droppederr.go", 19, "parseLine", true, ""},
	{"deferrecover", []string{"go", "test", "./testdata/deferrecover"}, "testdata/deferrecover/deferrecover.go", 21, "stats", true, report.Passed},
	{"tabletest", []string{"go", "test", "./testdata/tabletest", "-run", "TestFormatSize"}, "testdata/tabletest/tabletest.go", 13, "scale", true, report.Passed},
	{"recursion", []string{"go", "test", "./testdata/recursion", "-run", "TestFib10"}, "testdata/recursion/recursion.go", 7, "Fib", true, report.Passed},
	{"methods", []string{"go", "test", "./testdata/methods"}, "testdata/methods/methods.go", 13, "Inc", true, report.Passed},
	{"closure", []string{"go", "run", "./testdata/closure"}, "testdata/closure/main.go", 18, "formatters", false, ""},
	{"generics", []string{"go", "test", "./testdata/generics"}, "testdata/generics/generics.go", 22, "Pop", true, report.Passed},
	{"pipeline", []string{"go", "run", "./testdata/pipeline"}, "testdata/pipeline/main.go", 37, "fanOut", false, ""},
}
