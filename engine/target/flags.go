package target

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// flagAction says what adi does with a flag of go test or go run.
type flagAction int

const (
	passBuild flagAction = iota // give it to go build / go test -c
	passTest                    // translate to -test.NAME=VALUE for the test binary
	passVet                     // keep for the go test commands, which run go vet (see Spec.Vet)
	drop                        // leave it out, with a note saying why
	reject                      // refuse the command line, saying why
)

// flagSpec describes one flag the go command knows.
type flagSpec struct {
	action flagAction
	isBool bool   // takes no separate value (but accepts -name=value)
	why    string // for drop: the note; for reject: the reason and the fix
	// check validates the value (for bool flags without a value: "true").
	check func(value string) error
}

// Reasons shared by several flags.
const (
	whyProfile  = "profiles taken under a debugger measure the debugger; run go test without adi to profile"
	whyFuzz     = "fuzzing needs an instrumented build and runs many processes; to debug one failing input write -run=FuzzName/<file in testdata/fuzz/FuzzName>"
	whyCoverage = "coverage is not collected under adi; remove it"
	whyExe      = "adi needs an ordinary executable built by the gc compiler; remove it"
	whyInstr    = "instrumented builds are not supported under adi; remove it"
)

// buildFlags are the go build flags, shared by go test and go run.
var buildFlags = map[string]flagSpec{
	// Passed through.
	"tags":          {action: passBuild},
	"ldflags":       {action: passBuild, check: checkLdflags},
	"mod":           {action: passBuild},
	"modfile":       {action: passBuild},
	"asmflags":      {action: passBuild},
	"p":             {action: passBuild, check: checkPositiveInt},
	"pgo":           {action: passBuild},
	"overlay":       {action: passBuild},
	"pkgdir":        {action: passBuild},
	"installsuffix": {action: passBuild},
	"a":             {action: passBuild, isBool: true},
	"buildvcs":      {action: passBuild, isBool: true, check: checkBuildvcs},
	"modcacherw":    {action: passBuild, isBool: true},

	// Dropped: they only change what the go command prints.
	"x":    {action: drop, isBool: true, why: "adi shows the build's errors itself"},
	"work": {action: drop, isBool: true, why: "adi builds in its own temporary directory"},
	"json": {action: drop, isBool: true, why: "adi shows the program's output itself"},
	// -cover alone is harmless to drop; the other coverage flags ask for output
	// the user expects to get, so they are rejected.
	"cover": {action: drop, isBool: true, why: "coverage is not collected under adi"},

	// Rejected.
	"gcflags":    {action: reject, why: "adi builds with -gcflags=all=-N -l itself (no optimizations, no inlining, so every variable and call can be seen) and takes no other -gcflags; remove it"},
	"trimpath":   {action: reject, isBool: true, why: "it removes the source paths from the binary, so adi could not show your source; remove it"},
	"race":       {action: reject, isBool: true, why: whyInstr},
	"msan":       {action: reject, isBool: true, why: whyInstr},
	"asan":       {action: reject, isBool: true, why: whyInstr},
	"covermode":  {action: reject, why: whyCoverage},
	"coverpkg":   {action: reject, why: whyCoverage},
	"o":          {action: reject, why: "adi chooses where the binary goes; remove it"},
	"exec":       {action: reject, why: "adi runs the program under its debugger; remove it"},
	"n":          {action: reject, isBool: true, why: "-n only prints the commands and builds nothing; remove it"},
	"buildmode":  {action: reject, why: whyExe},
	"compiler":   {action: reject, why: whyExe},
	"gccgoflags": {action: reject, why: whyExe},
	"linkshared": {action: reject, isBool: true, why: whyExe},
	"toolexec":   {action: reject, why: "a tool run around the compiler may change the code adi shows; remove it"},
	"C":          {action: reject, why: "-C must be the first flag, right after go test or go run"},
	"h":          {action: reject, isBool: true, why: "adi does not show go's help; run go help test or go help run"},
	"help":       {action: reject, isBool: true, why: "adi does not show go's help; run go help test or go help run"},
	"?":          {action: reject, isBool: true, why: "adi does not show go's help; run go help test or go help run"},
}

// testOnlyFlags are the flags go test knows beyond the build flags. The
// passTest and test-binary flags may also be written -test.NAME.
var testOnlyFlags = map[string]flagSpec{
	// Translated for the test binary.
	"run":       {action: passTest},
	"skip":      {action: passTest},
	"bench":     {action: passTest},
	"benchtime": {action: passTest},
	"count":     {action: passTest, check: checkNonNegativeInt},
	"cpu":       {action: passTest},
	"list":      {action: passTest},
	"parallel":  {action: passTest, check: checkPositiveInt},
	"timeout":   {action: passTest, check: checkDuration},
	"shuffle":   {action: passTest, check: checkShuffle},
	"v":         {action: passTest, isBool: true, check: checkV},
	"short":     {action: passTest, isBool: true},
	"failfast":  {action: passTest, isBool: true},
	"benchmem":  {action: passTest, isBool: true},
	"fullpath":  {action: passTest, isBool: true},

	// Kept for go test -c, which runs go vet as go test does.
	"vet": {action: passVet},

	// Rejected.
	"c":                    {action: reject, isBool: true, why: "adi builds the test binary itself; remove it"},
	"coverprofile":         {action: reject, why: whyCoverage},
	"cpuprofile":           {action: reject, why: whyProfile},
	"memprofile":           {action: reject, why: whyProfile},
	"memprofilerate":       {action: reject, why: whyProfile},
	"blockprofile":         {action: reject, why: whyProfile},
	"blockprofilerate":     {action: reject, why: whyProfile},
	"mutexprofile":         {action: reject, why: whyProfile},
	"mutexprofilefraction": {action: reject, why: whyProfile},
	"trace":                {action: reject, why: whyProfile},
	"outputdir":            {action: reject, why: "adi writes no profiles or artifacts, so there is no output directory; remove it"},
	"artifacts":            {action: reject, isBool: true, why: "adi keeps no test artifacts; remove it"},
	"fuzz":                 {action: reject, why: whyFuzz},
	"fuzztime":             {action: reject, why: whyFuzz},
	"fuzzminimizetime":     {action: reject, why: whyFuzz},
}

// runOnlyFlags are the flags go run knows beyond the build flags.
var runOnlyFlags = map[string]flagSpec{
	"v": {action: drop, isBool: true, why: "it only lists packages as they are built"},
}

// testFlags and runFlags are the complete flag tables of go test and go run.
var (
	testFlags = merge(buildFlags, testOnlyFlags)
	runFlags  = merge(buildFlags, runOnlyFlags)
)

func merge(base, over map[string]flagSpec) map[string]flagSpec {
	m := make(map[string]flagSpec, len(base)+len(over))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// lookupFlag finds name in table. With testPrefix, a test-binary flag may be
// written with a "test." prefix (-test.run), as go test allows.
func lookupFlag(table map[string]flagSpec, name string, testPrefix bool) (flagSpec, bool) {
	if fs, ok := table[name]; ok {
		return fs, true
	}
	if short, ok := strings.CutPrefix(name, "test."); ok && testPrefix && short != "c" && short != "vet" {
		fs, ok := testOnlyFlags[short]
		return fs, ok
	}
	return flagSpec{}, false
}

func checkBool(v string) error {
	if _, err := strconv.ParseBool(v); err != nil {
		return errors.New("want true or false")
	}
	return nil
}

func checkV(v string) error {
	if v == "test2json" {
		return nil
	}
	return checkBool(v)
}

func checkBuildvcs(v string) error {
	if v == "auto" {
		return nil
	}
	return checkBool(v)
}

func checkPositiveInt(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return errors.New("want a positive integer")
	}
	return nil
}

func checkNonNegativeInt(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return errors.New("want a non-negative integer")
	}
	return nil
}

func checkDuration(v string) error {
	if _, err := time.ParseDuration(v); err != nil {
		return errors.New("want a duration such as 30s or 5m")
	}
	return nil
}

func checkShuffle(v string) error {
	if v == "on" || v == "off" {
		return nil
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		return errors.New(`want "on", "off" or a seed (an integer)`)
	}
	return nil
}

// checkLdflags refuses linker flags that strip the debug information adi
// needs: -s (symbol table, and with it DWARF) and -w (DWARF).
func checkLdflags(v string) error {
	// -ldflags may be "pattern=flags"; the pattern never starts with "-".
	if pat, flags, ok := strings.Cut(v, "="); ok && !strings.HasPrefix(pat, "-") && !strings.ContainsAny(pat, " '\"") {
		v = flags
	}
	for _, f := range strings.Fields(v) {
		f = strings.Trim(f, `'"`)
		name, val, hasVal := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if !strings.HasPrefix(f, "-") || (name != "s" && name != "w") {
			continue
		}
		if hasVal {
			if b, err := strconv.ParseBool(val); err == nil && !b {
				continue
			}
		}
		return errors.New("-s and -w strip the debug information adi needs; remove them")
	}
	return nil
}
