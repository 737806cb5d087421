package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/adi-go/adi/adapter"
)

func dapMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "serve over TCP at this address (e.g. 127.0.0.1:0) instead of stdio; each connection is a session")
	logLevel := fs.String("log-level", "warn", "log level on standard error: debug (every DAP message), info, warn, error")
	opts := engineFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: adi dap [--listen ADDR] [flags]\n\nServes the Debug Adapter Protocol over stdio, or over TCP with --listen.\nThe launch request says what to debug; flags give the defaults of adi's limits.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "adi dap: bad --log-level %q: use debug, info, warn or error\n", *logLevel)
		return 2
	}
	srv := &adapter.Server{
		Defaults: *opts,
		Log:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("component", "dap"),
	}
	if *listen == "" {
		if err := srv.ServeStream(ctx, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "adi dap:", err)
			return 1
		}
		return 0
	}
	err := srv.Listen(ctx, *listen, func(a net.Addr) {
		// Clients wait for this line, as they do for Delve's.
		fmt.Fprintf(stdout, "DAP server listening at: %s\n", a)
		if f, ok := stdout.(*os.File); ok {
			f.Sync()
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "adi dap:", err)
		return 1
	}
	return 0
}
