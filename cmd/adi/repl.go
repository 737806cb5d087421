package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/adi-go/adi/engine"
	"github.com/adi-go/adi/engine/trace"
)

// engineFlags registers the options shared by every command that records.
func engineFlags(fs *flag.FlagSet) *engine.Options {
	o := &engine.Options{Limits: engine.DefaultLimits}
	l := &o.Limits
	fs.IntVar(&l.MaxFrames, "max-frames", l.MaxFrames, "stop recording new frames after this many (the run goes on)")
	fs.IntVar(&l.MaxSteps, "max-steps", l.MaxSteps, "cut a frame's trace after this many statements")
	fs.IntVar(&l.LoopKeepFirst, "loop-first", l.LoopKeepFirst, "loop iterations kept in full at the start of a loop")
	fs.IntVar(&l.LoopKeepLast, "loop-last", l.LoopKeepLast, "loop iterations kept in full at the end of a loop")
	fs.IntVar(&l.MaxString, "max-string", l.MaxString, "bytes of a string value recorded")
	fs.IntVar(&l.MaxElems, "max-elems", l.MaxElems, "elements of a slice, array or map recorded")
	fs.IntVar(&l.MaxDepth, "max-depth", l.MaxDepth, "how deep nested values are recorded")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "kill the recorded run after this long (a partial recording is kept)")
	fs.DurationVar(&o.ExecTimeout, "exec-timeout", 2*time.Minute, "bound on each re-execution (frame traces, execute)")
	fs.StringVar(&o.Stdin, "stdin", "", "file the target reads as standard input (default: empty)")
	fs.Func("trace", "also record library functions matching this regular expression (repeatable)", func(s string) error {
		o.Trace = append(o.Trace, s)
		return nil
	})
	fs.Func("recorder", "how the run is recorded: auto (instrument for go test/go run, delve for a binary), delve or instrument", func(s string) error {
		k, err := engine.ParseRecorder(s)
		o.Recorder = k
		return err
	})
	return o
}

// parseWithTarget parses adi's flags before "--" and returns the target
// after it; when !ok the command ends with code (0 for -h).
func parseWithTarget(fs *flag.FlagSet, args []string, stderr io.Writer) (target []string, code int, ok bool) {
	own, target, err := splitTarget(args)
	if err != nil {
		if fs.Parse(args) == flag.ErrHelp {
			return nil, 0, false
		}
		fmt.Fprintln(stderr, "adi:", err)
		return nil, 2, false
	}
	if err := fs.Parse(own); err != nil {
		if err == flag.ErrHelp {
			return nil, 0, false
		}
		return nil, 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "adi: unexpected argument %q before \"--\"\n", fs.Arg(0))
		return nil, 2, false
	}
	return target, 0, true
}

// splitTarget separates adi's own arguments from the target after "--".
func splitTarget(args []string) (own, target []string, err error) {
	for i, a := range args {
		if a == "--" {
			if i == len(args)-1 {
				break
			}
			return args[:i], args[i+1:], nil
		}
	}
	return nil, nil, errors.New(`no target: write the program to debug after "--", e.g. adi repl -- go test ./pkg -run TestX`)
}

func replMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "answer each command with exactly one line of JSON")
	opts := engineFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: adi repl [flags] -- TARGET\n\nRecords TARGET, then reads commands, one per line, from standard input.\n\n%s\n\nflags:\n", engine.CommandHelp)
		fs.PrintDefaults()
	}
	targetArgs, code, ok := parseWithTarget(fs, args, stderr)
	if !ok {
		return code
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	opts.Log = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	sess, err := engine.Open(ctx, targetArgs, dir, *opts)
	if err != nil {
		if *asJSON {
			writeJSONLine(stdout, map[string]string{"error": err.Error()})
		}
		fmt.Fprintln(stderr, "adi:", err)
		return 1
	}
	defer sess.Close()

	interactive := !*asJSON && isTerminal(stdin)
	if !*asJSON {
		if f := sess.Current(); f != nil {
			fmt.Fprintf(stdout, "inspecting %s; type help for the commands\n", f.FID)
		} else {
			fmt.Fprintln(stdout, "the recording has no frames of the target's module")
		}
	}
	lines, readErr := readLines(stdin)
	for {
		if interactive {
			fmt.Fprint(stdout, "(adi) ")
		}
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			// Ctrl-C at the prompt ends the session; during a command it
			// ends the command's processes first (ctx reaches them).
			fmt.Fprintln(stderr, "adi: interrupted")
			return 130
		case line, ok = <-lines:
		}
		if !ok {
			break
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ans, err := sess.Exec(ctx, line)
		if errors.Is(err, engine.ErrQuit) {
			break
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "adi: interrupted")
			return 130
		}
		switch {
		case err != nil && *asJSON:
			writeJSONLine(stdout, map[string]string{"error": err.Error()})
		case err != nil:
			fmt.Fprintln(stdout, "error:", err)
		case *asJSON:
			writeJSONLine(stdout, ans.JSON)
		default:
			fmt.Fprintln(stdout, strings.TrimRight(ans.Text, "\n"))
		}
	}
	if err := *readErr; err != nil {
		fmt.Fprintln(stderr, "adi: reading commands:", err)
		return 1
	}
	return 0
}

// readLines reads r line by line on its own goroutine, so that the session
// can stop waiting for input when it is interrupted. The error is set when
// the channel is closed.
func readLines(r io.Reader) (<-chan string, *error) {
	ch := make(chan string)
	var err error
	go func() {
		defer close(ch)
		in := bufio.NewScanner(r)
		in.Buffer(make([]byte, 64*1024), 1<<20)
		for in.Scan() {
			ch <- in.Text()
		}
		err = in.Err()
	}()
	return ch, &err
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) {
	if err := trace.WriteJSON(w, v, ""); err != nil {
		fmt.Fprintf(w, "{\"error\":%q}\n", "encoding the answer: "+err.Error())
	}
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
