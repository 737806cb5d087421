package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/service/api"
	"github.com/go-delve/delve/service/debugger"
)

// Program is what the engine runs: a built binary with its arguments.
type Program struct {
	Path string
	Args []string
	Dir  string
	// Env overrides or adds environment variables ("K=V") for the target.
	Env []string
	// Stdin is a file whose contents the target reads as standard input; ""
	// gives it an empty standard input.
	Stdin string
	// ModulePath is the main module's path; functions in it (and in package
	// main) are user code.
	ModulePath string
}

// TempDir is the directory the target's os.TempDir returns: $TMPDIR as
// the target sees it (prog.Env, else adi's environment), else /tmp.
func (prog *Program) TempDir() string {
	dir := os.Getenv("TMPDIR")
	for _, kv := range prog.Env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			dir = v
		}
	}
	if dir == "" {
		return "/tmp"
	}
	return filepath.Clean(dir)
}

// process is one run of the target under Delve, with its output captured.
type process struct {
	d      *debugger.Debugger
	stdout *capture
	stderr *capture
	done   sync.Once
	// tmp is the target's temporary directory (see Program.TempDir).
	tmp string
	// unpin undoes oneCPU.
	unpin func()
	// count is the binary's counting hook, nil if none (see counter).
	countOnce sync.Once
	count     *counting
	// stops counts the stops on the way to frames (what reaching one
	// costs: see route).
	stops int
	// pid is the process's, which Delve attached to.
	pid int
}

// capture collects a stream of the target's output, bounded in memory: past
// max bytes only the last max bytes are kept.
type capture struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	lost int
	wg   sync.WaitGroup
	tee  func([]byte)
}

func newCapture(r *os.File, max int, tee func([]byte)) *capture {
	c := &capture{max: max, tee: tee}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer r.Close()
		b := make([]byte, 32*1024)
		for {
			n, err := r.Read(b)
			if n > 0 {
				c.write(b[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *capture) write(p []byte) {
	if c.tee != nil {
		c.tee(p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if over := c.buf.Len() - c.max; over > 0 {
		c.lost += over
		c.buf.Next(over)
	}
}

// String waits for the stream to end and returns what was kept.
func (c *capture) String() string {
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost > 0 {
		return fmt.Sprintf("[adi: first %d bytes of output dropped]\n", c.lost) + c.buf.String()
	}
	return c.buf.String()
}

// OutputFunc receives the target's output as it is produced: stream is
// "stdout" or "stderr". Calls for the two streams may be concurrent.
type OutputFunc func(stream string, p []byte)

// launch starts prog stopped at its first instruction, under Delve. The
// caller must call kill when done with it; output streams end when the
// process does.
func launch(prog *Program, maxOutput int, output OutputFunc) (*process, error) {
	stdinPath := prog.Stdin
	if stdinPath == "" {
		stdinPath = os.DevNull
	}
	stdin, err := os.Open(stdinPath)
	if err != nil {
		return nil, fmt.Errorf("standard input for the target: %w", err)
	}
	defer stdin.Close()
	stdout, stderr, outW, errW, err := capturePipes(maxOutput, output)
	if err != nil {
		return nil, err
	}
	pid, err := startStopped(prog, stdin, outW, errW)
	outW.Close()
	errW.Close()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", prog.Path, err)
	}
	p := &process{stdout: stdout, stderr: stderr, tmp: prog.TempDir(), pid: pid}
	cfg := &debugger.Config{WorkingDir: prog.Dir, Backend: "native", AttachPid: pid}
	if p.d, err = debugger.New(cfg, []string{prog.Path}); err != nil {
		killGroup(pid)
		return nil, fmt.Errorf("starting %s under the debugger: %w", prog.Path, err)
	}
	p.unpin = oneCPU()
	return p, nil
}

// capturePipes makes the pipes a target writes its standard output and
// error to, each read by a capture (bounded by maxOutput, passed on to
// output as it arrives). The caller hands outW and errW to the target and
// closes them once it has them.
func capturePipes(maxOutput int, output OutputFunc) (stdout, stderr *capture, outW, errW *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, nil, err
	}
	tee := func(stream string) func([]byte) {
		if output == nil {
			return nil
		}
		return func(p []byte) { output(stream, p) }
	}
	return newCapture(outR, maxOutput, tee("stdout")), newCapture(errR, maxOutput, tee("stderr")), outW, errW, nil
}

// kill ends the process (if still alive) and releases the debugger.
func (p *process) kill() {
	p.done.Do(func() {
		if p.d != nil {
			// An error means the process is already gone. Delve lets go
			// of its threads, which stop again (the stop startStopped
			// left them in), and the process group ends.
			p.d.Detach(true)
			killGroup(p.pid)
		}
		if p.unpin != nil {
			p.unpin()
		}
	})
}

// exited reports whether err says the target process has exited, and its
// exit status.
func exited(err error) (int, bool) {
	var pe proc.ErrProcessExited
	if errors.As(err, &pe) {
		return pe.Status, true
	}
	return 0, false
}

// setBreakpoint creates one logical breakpoint on the given addresses.
func (p *process) setBreakpoint(addrs []uint64) (int, error) {
	bp, err := p.d.CreateBreakpoint(&api.Breakpoint{Addrs: addrs}, "", nil, false)
	if err != nil {
		return 0, err
	}
	return bp.ID, nil
}

// setFuncBreakpoint creates a logical breakpoint at the entry of the named
// function (after its prologue).
func (p *process) setFuncBreakpoint(fn string) (int, error) {
	bp, err := p.d.CreateBreakpoint(&api.Breakpoint{FunctionName: fn}, "", nil, false)
	if err != nil {
		return 0, err
	}
	return bp.ID, nil
}

func (p *process) clearBreakpoint(id int) error {
	_, err := p.d.ClearBreakpoint(&api.Breakpoint{ID: id})
	return err
}

// readVars reads the arguments and results at scope with cfg (locals instead,
// if locals). An interface that Delve cannot name the type of because it
// read the runtime's module data through the interface's own memory (an
// argument still in registers at a function's entry: "error loading module
// data: read out of bounds") is read again, after a global error (io.EOF)
// has had Delve read the module data from the process's memory: Delve
// keeps it until the target runs again.
func readVars(scope *proc.EvalScope, cfg proc.LoadConfig, locals bool) ([]*proc.Variable, error) {
	read := scope.FunctionArguments
	if locals {
		read = scope.LocalVariables
	}
	vars, err := read(cfg)
	if err != nil || !slices.ContainsFunc(vars, moduleDataLost) || !loadModuleData(scope) {
		return vars, err
	}
	return read(cfg)
}

// loadModuleData has Delve read the runtime's module data from the
// process's memory, through a global error (see readVars), until the target
// runs again. It reports whether it did.
func loadModuleData(scope *proc.EvalScope) bool {
	for _, name := range []string{"io.EOF", "errors.ErrUnsupported"} {
		v, err := scope.EvalExpression(name, proc.LoadConfig{FollowPointers: true, MaxVariableRecurse: 1, MaxStringLen: 1})
		if err == nil && !moduleDataLost(v) && len(v.Children) == 1 && v.Children[0].Addr != 0 {
			return true
		}
	}
	return false
}

// moduleDataLost reports whether v, or a value in it, is unreadable for
// want of the runtime's module data (see readVars).
func moduleDataLost(v *proc.Variable) bool {
	if v.Unreadable != nil && strings.Contains(v.Unreadable.Error(), "error loading module data") {
		return true
	}
	for i := range v.Children {
		if moduleDataLost(&v.Children[i]) {
			return true
		}
	}
	return false
}

// halt stops a running process; safe to call from any goroutine.
func (p *process) halt() {
	p.d.Command(&api.DebuggerCommand{Name: api.Halt}, nil, nil, nil)
}
