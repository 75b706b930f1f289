// Command boolpool-lab is the lab binary beside the server binary
// (cmd/boolpool): the benchmarks, the load generator and the synthetic-data
// suites of server/devtools. It is built by `make bench` only, so the
// serving binary links none of the dev tooling (internal/archtest checks
// `go list -deps ./cmd/boolpool`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one sub-command: run receives the arguments after its name,
// writes results to stdout and diagnostics to stderr.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the lab's command table.
func commands() map[string]command {
	return map[string]command{
		"version": {"print the version", runVersion},
		"bench":   {"run the benchmarks and print one table (make bench)", runBench},
	}
}

// errUsage marks an error caused by bad command-line usage (exit code 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "boolpool-lab: unknown command %q\n\n", args[0])
		printUsage(stderr, cmds)
		return 2
	}
	if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "boolpool-lab %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: boolpool-lab <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'boolpool-lab <command> -h' for a command's flags.")
}

// version is set with -ldflags "-X main.version=..." by make bench.
var version = "dev"

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, "boolpool-lab", version)
	return nil
}

// newFlagSet is the flag set of the sub-command name; parse errors and
// help go to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, mapping flag errors (and -h) to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fmt.Errorf("%w: help requested", errUsage)
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
