package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/adi-go/adi/agent"
	"github.com/adi-go/adi/engine"
)

// diagnoseResult is the --json answer: the diagnosis, and what --apply did.
type diagnoseResult struct {
	*agent.Diagnosis
	Applied    []string `json:"applied,omitempty"`
	ApplyError string   `json:"apply_error,omitempty"`
}

// diagnoseMain is "adi diagnose": record the target, diagnose the failure
// offline, print the diagnosis. Exit code 0 when a diagnosis was made, 1
// when the target passed (or could not be recorded), 2 on usage errors.
func diagnoseMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("adi diagnose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the diagnosis as one line of JSON")
	apply := fs.Bool("apply", false, "write the fix to your files, if its verification passed")
	noVerify := fs.Bool("no-verify", false, "propose a fix without re-running the tests with it")
	opts := engineFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: adi diagnose [flags] -- TARGET

Records TARGET, finds the root cause of its failure offline (panic origin
tracing, spectrum-based fault localisation over the package's tests, rules
over the recorded frames), proposes a fix where a template is safe and
verifies it by re-running the tests on an overlay copy; your files change
only with --apply.

flags:
`)
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
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	fail := func(err error) int {
		if *asJSON {
			writeJSONLine(stdout, map[string]string{"error": err.Error()})
		}
		fmt.Fprintln(stderr, "adi:", err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	opts.Log = logf
	sess, err := engine.Open(ctx, targetArgs, dir, *opts)
	if err != nil {
		return fail(err)
	}
	defer sess.Close()
	target := agent.Target{Argv: targetArgs, Dir: dir, Env: opts.Env}
	diag, err := agent.Diagnose(ctx, sess, agent.Options{
		Target: target, NoVerify: *noVerify, CommandTimeout: opts.ExecTimeout, Log: logf,
	})
	if errors.Is(err, agent.ErrPassed) {
		if *asJSON {
			writeJSONLine(stdout, map[string]any{"passed": true, "message": err.Error()})
		} else {
			fmt.Fprintln(stdout, err.Error())
		}
		return 1
	}
	if err != nil {
		return fail(err)
	}
	res := diagnoseResult{Diagnosis: diag}
	if *apply {
		files, err := agent.Apply(ctx, target, diag)
		if err != nil {
			res.ApplyError = err.Error()
			fmt.Fprintln(stderr, "adi: not applied:", err)
		}
		res.Applied = files
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return fail(err)
		}
		return 0
	}
	fmt.Fprint(stdout, diag.Text())
	for _, f := range res.Applied {
		fmt.Fprintf(stdout, "applied the fix to %s\n", f)
	}
	return 0
}
