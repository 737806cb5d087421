// Command adi is an agent-centric debugger for Go: it records a run of a Go
// program or test and lets a person or an LLM agent move through it one
// function invocation at a time.
//
// Usage:
//
//	adi repl [flags] -- go test ./pkg -run TestX
//	adi repl [flags] -- go run ./cmd/x args…
//	adi repl [flags] -- ./binary args…
//	adi diagnose [flags] -- go test ./pkg -run TestX
//	adi watch [flags] -- go test ./pkg -run TestX
//	adi dap [--listen 127.0.0.1:0]
//	adi bench [-run RE] [-n 3] [-json] [-- TARGET]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `adi — an agent-centric debugger for Go

usage:
  adi repl [flags] -- TARGET     record TARGET, then answer commands read from standard input
  adi diagnose [flags] -- TARGET find the root cause of TARGET's failure, with a verified fix
  adi watch [flags] -- TARGET    diagnose TARGET, then run and diagnose it again on each save
  adi dap [--listen ADDR]        serve the Debug Adapter Protocol (stdio, or TCP with --listen)
  adi bench [flags] [-- TARGET]  time native runs against the recorders on testdata/bench (or TARGET)
  adi help                       this text

TARGET is the thing to debug, written as you already run it:
  go test [build flags] ./pkg [-run RE] [test flags]
  go run [build flags] ./cmd/x [args…]
  ./path/to/binary [args…]      (built with -gcflags=all=-N -l)

Run "adi repl -h" for the flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "repl":
		return replMain(ctx, args[1:], stdin, stdout, stderr)
	case "dap":
		return dapMain(ctx, args[1:], stdin, stdout, stderr)
	case "diagnose":
		return diagnoseMain(ctx, args[1:], stdin, stdout, stderr)
	case "watch":
		return watchMain(ctx, args[1:], stdin, stdout, stderr)
	case "bench":
		return benchMain(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "adi: unknown command %q\n\n%s", args[0], usage)
	return 2
}
