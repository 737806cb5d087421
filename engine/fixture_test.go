package engine

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adi-go/adi/engine/trace"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// repoRoot is the module's root directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// fixture is a recorded testdata target, shared by the tests of one run:
// recording under Delve costs a second or more per target.
type fixture struct {
	rec  *trace.Recording
	prog *Program
	err  error
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*fixture{}
)

// record returns the shared recording of a target command line (relative
// to the repository root), e.g. record(t, "go", "run", "./testdata/fib", "5").
func record(t testing.TB, argv ...string) (*trace.Recording, *Program) {
	t.Helper()
	key := strings.Join(argv, " ")
	fixturesMu.Lock()
	fx, ok := fixtures[key]
	if !ok {
		fx = &fixture{}
		// The reference (Delve) recorder: the goldens show composite
		// values in full, which the instrumenting recorder keeps only
		// shallowly; TestRecordersAgree checks that the two agree.
		s, err := Open(context.Background(), argv, repoRoot(t), Options{Recorder: RecorderDelve, Timeout: 2 * time.Minute})
		if err != nil {
			fx.err = err
		} else {
			fx.rec, fx.prog = s.Recording(), s.Program()
			// The build stays for the run of the tests; the OS temp dir
			// is cleaned by TestMain.
			builds = append(builds, s)
		}
		fixtures[key] = fx
	}
	fixturesMu.Unlock()
	if fx.err != nil {
		t.Fatalf("recording %s: %v", key, fx.err)
	}
	return fx.rec, fx.prog
}

// builds are closed when the test binary ends.
var builds []*Session

// newSession returns a fresh session (empty B, i at the start) over the
// shared recording of argv.
func newSession(t testing.TB, argv ...string) *Session {
	t.Helper()
	rec, prog := record(t, argv...)
	return NewSession(rec, prog, Limits{}, 2*time.Minute)
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	for _, s := range builds {
		s.Close()
	}
	os.Exit(code)
}

// openFrame opens argv in dir (the session is closed when the test ends)
// and returns it with the frame fid of its recording.
func openFrame(t testing.TB, argv []string, dir string, opts Options, fid trace.FID) (*Session, *trace.Frame) {
	t.Helper()
	s, err := Open(context.Background(), argv, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f, err := s.Recording().Frame(fid)
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}
