package adapter_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/adapter/daptest"
)

// The tests run adi's sessions with TMPDIR pointing at a directory of their
// own, so that every build directory a session makes (os.MkdirTemp("",
// "adi-")) is under tmpRoot, in this process and in the adi binaries it
// starts: a process whose executable lives there was started by these tests,
// and none may outlive its session.
var tmpRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	// The fuzzer minimises each new input it finds, for up to a minute by
	// default, before it goes on. The adapter's coverage varies from run
	// to run of one input (its reader and its worker race), so a new input
	// rarely minimises: a 30s run of FuzzReadMessage would do nothing
	// else. Unless the flag is given, minimise for a second only.
	if flag.Lookup("test.fuzzminimizetime") != nil && !flagSet("test.fuzzminimizetime") {
		flag.Set("test.fuzzminimizetime", "1s")
	}
	dir, err := os.MkdirTemp("", "adapter-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Resolve symlinks: /proc/PID/exe shows the real path.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	tmpRoot = dir
	os.Setenv("TMPDIR", dir)
	code := m.Run()
	// Whatever test left them, no process started by adi may outlive
	// the tests: report them, and end them.
	if ps := targetProcesses(nil); len(ps) > 0 {
		fmt.Fprintf(os.Stderr, "processes started by adi remain after the tests:\n%s\n", strings.Join(ps, "\n"))
		for _, pid := range targetPIDs() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if code == 0 {
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// flagSet reports whether the flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// repoRoot is the module's root directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), ".."))
}

// fixture is the absolute path of a testdata directory.
func fixture(t testing.TB, name string) string {
	return filepath.Join(repoRoot(t), "testdata", name)
}

var (
	adiOnce sync.Once
	adiPath string
	adiErr  error
)

// adiBinary builds cmd/adi once per test run.
func adiBinary(t testing.TB) string {
	t.Helper()
	adiOnce.Do(func() {
		dir := filepath.Join(tmpRoot, "bin")
		adiPath = filepath.Join(dir, "adi")
		cmd := exec.Command("go", "build", "-o", adiPath, "./cmd/adi")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			adiErr = fmt.Errorf("go build ./cmd/adi: %v\n%s", err, out)
		}
	})
	if adiErr != nil {
		t.Fatal(adiErr)
	}
	return adiPath
}

var (
	fibOnce sync.Once
	fibPath string
	fibErr  error
)

// fibBinary builds testdata/fib with the flags mode exec wants, once.
func fibBinary(t testing.TB) string {
	t.Helper()
	fibOnce.Do(func() {
		fibPath = filepath.Join(tmpRoot, "bin", "fib")
		cmd := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", fibPath, "./testdata/fib")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			fibErr = fmt.Errorf("go build ./testdata/fib: %v\n%s", err, out)
		}
	})
	if fibErr != nil {
		t.Fatal(fibErr)
	}
	return fibPath
}

// conn is the client's end of one session, whatever carries it.
type conn struct {
	*daptest.Client
	// Kill makes the client vanish: its streams close at once, with no
	// disconnect.
	Kill func()
	// Ended reports whether the server's side of the session ends within d
	// (the in-process server returned, the stdio process exited; for TCP,
	// that the server closed the connection).
	Ended func(d time.Duration) bool
}

// transport starts sessions over one kind of connection.
type transport struct {
	name  string
	start func(t *testing.T, srv *adapter.Server) *conn
}

// transports are the ways a client reaches adi dap: srv is used by the
// in-process one only (nil: a default Server).
var transports = []transport{
	{"pipe", func(t *testing.T, srv *adapter.Server) *conn { return pipeSession(t, srv) }},
	{"stdio", stdioSession},
	{"tcp", tcpSession},
}

// pipeSession serves one session in this process over a pair of io.Pipes.
func pipeSession(t testing.TB, srv *adapter.Server) *conn {
	t.Helper()
	if srv == nil {
		srv = &adapter.Server{Log: testLogger(t)}
	}
	cr, cw := io.Pipe() // client → server
	sr, sw := io.Pipe() // server → client
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStream(context.Background(), cr, sw)
		sw.Close()
		cr.Close()
		done <- err
	}()
	c := daptest.New(t, sr, cw)
	var once sync.Once
	kill := func() {
		once.Do(func() {
			cw.Close()
			sr.Close()
		})
	}
	endedFn := waitEnd(t, done, "ServeStream")
	t.Cleanup(func() {
		kill()
		if !endedFn(30 * time.Second) {
			t.Errorf("the in-process session did not end 30s after its client went away")
		}
	})
	return &conn{Client: c, Kill: kill, Ended: endedFn}
}

// stdioSession runs `adi dap` and talks to it over its stdin and stdout.
func stdioSession(t *testing.T, _ *adapter.Server) *conn {
	t.Helper()
	cmd := exec.Command(adiBinary(t), "dap", "--log-level", "info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of the test's own, not cmd.StdoutPipe: Wait closes that one
	// once the process has exited, and what the process wrote last (the
	// event saying why it closes the connection) could be lost unread.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdout.Close() })
	cmd.Stdout = w
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	c := daptest.New(t, stdout, stdin)
	var once sync.Once
	kill := func() { once.Do(func() { stdin.Close() }) }
	endedFn := waitEnd(t, done, "adi dap")
	t.Cleanup(func() {
		kill()
		if !endedFn(30 * time.Second) {
			t.Errorf("adi dap did not exit 30s after its stdin closed")
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("adi dap's log:\n%s", stderr.String())
		}
	})
	return &conn{Client: c, Kill: kill, Ended: endedFn}
}

// tcpServer is a running `adi dap --listen 127.0.0.1:0`.
type tcpServer struct {
	Addr string
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan error
}

// startTCPServer starts `adi dap --listen 127.0.0.1:0` and waits for the
// line that says where it listens; the server is stopped at the end of the
// test.
func startTCPServer(t testing.TB) *tcpServer {
	t.Helper()
	cmd := exec.Command(adiBinary(t), "dap", "--listen", "127.0.0.1:0", "--log-level", "info")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpServer{cmd: cmd, log: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Errorf("adi dap --listen did not exit 10s after SIGINT")
			cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("adi dap --listen's log:\n%s", s.log.String())
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	const prefix = "DAP server listening at: "
	select {
	case line := <-lines:
		addr, ok := strings.CutPrefix(line, prefix)
		if !ok {
			t.Fatalf("adi dap --listen printed %q, want %q followed by the address", line, prefix)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			t.Fatalf("adi dap --listen printed %q: %v", line, err)
		}
		s.Addr = addr
	case err := <-s.done:
		t.Fatalf("adi dap --listen exited before listening: %v\n%s", err, s.log.String())
	case <-time.After(time.Minute):
		t.Fatalf("adi dap --listen printed nothing in a minute\n%s", s.log.String())
	}
	return s
}

// Running reports whether the server process is still up.
func (s *tcpServer) Running() bool {
	select {
	case err := <-s.done:
		s.done <- err
		return false
	default:
		return true
	}
}

// waitEnded waits up to d for the server to log the end of n sessions.
func (s *tcpServer) waitEnded(n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if strings.Count(s.log.String(), `msg="client disconnected"`) >= n {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dial opens a session on s.
func (s *tcpServer) dial(t *testing.T) *conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", s.Addr, 10*time.Second)
	if err != nil {
		t.Fatalf("dialing %s: %v", s.Addr, err)
	}
	c := daptest.New(t, nc, nc)
	var once sync.Once
	kill := func() { once.Do(func() { nc.Close() }) }
	t.Cleanup(kill)
	ended := func(d time.Duration) bool { return c.Closed(d) }
	return &conn{Client: c, Kill: kill, Ended: ended}
}

// tcpSession starts a server of its own for one session.
func tcpSession(t *testing.T, _ *adapter.Server) *conn {
	t.Helper()
	return startTCPServer(t).dial(t)
}

// lockedBuffer collects a process's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// targetProcesses lists the processes running a target binary that a
// session of these tests built (/proc/PID/exe under tmpRoot/adi-*/, named
// adi-target or adi-target.test) or that the tests built for mode exec
// (tmpRoot/bin/fib), or building one (a go command whose command line
// names a build directory under tmpRoot).
func targetProcesses(t testing.TB) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		if t != nil {
			t.Fatalf("scanning processes: %v", err)
		}
		return nil
	}
	var out []string
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", pid, "exe"))
		if err != nil {
			continue // gone, or a kernel thread
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		base := filepath.Base(exe)
		built := (base == "adi-target" || base == "adi-target.test") &&
			strings.HasPrefix(filepath.Base(filepath.Dir(exe)), "adi-") && filepath.Dir(filepath.Dir(exe)) == tmpRoot
		// Mode exec runs a binary the tests built beforehand, in tmpRoot/bin.
		prebuilt := filepath.Dir(exe) == filepath.Join(tmpRoot, "bin") && base != "adi"
		target := built || prebuilt
		// The go command building a target names its output there.
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		building := strings.Contains(string(cmdline), tmpRoot+"/adi-")
		if !target && !building {
			continue
		}
		if building {
			exe = strings.Join(strings.Fields(strings.ReplaceAll(string(cmdline), "\x00", " ")), " ")
		}
		state := ""
		if b, err := os.ReadFile(filepath.Join("/proc", pid, "stat")); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) {
				state = string(b[i+2 : i+3])
			}
		}
		out = append(out, fmt.Sprintf("pid %s (state %s): %s", pid, state, exe))
	}
	return out
}

// noTargetProcesses fails the test if a target process of these tests
// remains d after its session ended (processes take a moment to be reaped).
func noTargetProcesses(t testing.TB, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ps := targetProcesses(t)
		if len(ps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes started by adi remain after their sessions ended:\n%s", strings.Join(ps, "\n"))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killTargets ends the target processes that a test's sessions left
// behind (after reporting them), so that they do not count against the
// tests that follow.
func killTargets(t testing.TB) {
	t.Helper()
	for range 50 {
		ps := targetPIDs()
		if len(ps) == 0 {
			return
		}
		for _, pid := range ps {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("target processes survive SIGKILL: %v", targetProcesses(t))
}

// targetPIDs are the pids of targetProcesses.
func targetPIDs() []int {
	var pids []int
	for _, p := range targetProcesses(nil) {
		var pid int
		fmt.Sscanf(p, "pid %d", &pid)
		pids = append(pids, pid)
	}
	return pids
}

// buildDirs lists the session build directories (tmpRoot/adi-*) that
// exist now.
func buildDirs() map[string]bool {
	m, _ := filepath.Glob(filepath.Join(tmpRoot, "adi-*"))
	out := map[string]bool{}
	for _, d := range m {
		out[d] = true
	}
	return out
}

// newBuildDirs lists the build directories that exist now and did not in
// before.
func newBuildDirs(before map[string]bool) []string {
	var out []string
	for d := range buildDirs() {
		if !before[d] {
			out = append(out, d)
		}
	}
	return out
}

// testLogger is a debug-level logger whose output is shown when the test
// fails.
func testLogger(t testing.TB) *slog.Logger {
	buf := &lockedBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// waitEnd returns a function that waits up to d for done, once: it reports
// whether the session (or process) has ended, logging its error.
func waitEnd(t testing.TB, done <-chan error, what string) func(d time.Duration) bool {
	var ended bool
	return func(d time.Duration) bool {
		if ended {
			return true
		}
		select {
		case err := <-done:
			ended = true
			if err != nil {
				t.Logf("%s: %v", what, err)
			}
			return true
		case <-time.After(d):
			return false
		}
	}
}
