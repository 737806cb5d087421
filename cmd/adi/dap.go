package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/adi-go/adi/adapter"
	"github.com/adi-go/adi/agent"
)

func dapMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "serve over TCP at this address (e.g. 127.0.0.1:0) instead of stdio; each connection is a session")
	logLevel := fs.String("log-level", "warn", "log level on standard error: debug (every DAP message), info, warn, error")
	model := fs.String("model", "", "the model of the LLM agent for adi/diagnose (default $ADI_LLM_MODEL; none: the offline diagnoser)")
	baseURL := fs.String("base-url", "", "the OpenAI-compatible endpoint (default $ADI_LLM_BASE_URL, else OpenAI)")
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
	cfg, err := agent.ConfigFromEnv(*model, *baseURL)
	switch {
	case errors.Is(err, agent.ErrNoLLM):
		// adi/diagnose uses the offline diagnoser.
	case err != nil:
		fmt.Fprintln(stderr, "adi dap:", err)
		return 2
	default:
		srv.NewDiagnoser = llmDiagnoser(cfg)
	}
	if *listen == "" {
		if err := srv.ServeStream(ctx, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "adi dap:", err)
			return 1
		}
		return 0
	}
	err = srv.Listen(ctx, *listen, func(a net.Addr) {
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

// llmDiagnoser answers adi/diagnose with the LLM agent: one conversation per
// session, so that follow-up questions continue it.
func llmDiagnoser(cfg agent.LLMConfig) adapter.NewDiagnoserFunc {
	return func(dbg agent.Debugger, opts agent.Options) (adapter.Diagnoser, error) {
		var conv *agent.Conversation
		return adapter.DiagnoserFunc(func(ctx context.Context, question string, emit agent.Emit) (*agent.Diagnosis, error) {
			if conv == nil {
				c, err := agent.NewConversation(ctx, dbg, cfg, opts)
				if err != nil {
					return nil, err
				}
				conv = c
			}
			return conv.Ask(ctx, question, emit)
		}), nil
	}
}
