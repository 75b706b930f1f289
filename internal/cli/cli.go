// Package cli is the command-line frame both binaries share (cmd/boolpool,
// cmd/boolpool-lab): a table of sub-commands, the dispatch with its exit
// codes (0 done, 1 failed, 2 bad usage), the usage listing, and flag sets
// whose errors are usage errors.
package cli

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

// ErrUsage marks an error caused by bad command-line usage (exit code 2).
var ErrUsage = errors.New("usage")

// Func runs a (sub-)command: args are the arguments after its name; it
// writes results to stdout and diagnostics to stderr.
type Func func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Command is one entry of a binary's command table.
type Command struct {
	Summary string
	Run     Func
}

// VersionCommand is the version command of the binary prog: it prints
// prog and version (main's, set with -ldflags "-X main.version=...").
func VersionCommand(prog, version string) Command {
	return Command{Summary: "print the version", Run: func(_ context.Context, _ []string, stdout, _ io.Writer) error {
		fmt.Fprintln(stdout, prog, version)
		return nil
	}}
}

// Main runs the binary prog: the command os.Args names, cancelled on
// SIGINT or SIGTERM, then exits with Run's code.
func Main(prog string, cmds map[string]Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, prog, cmds, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Run dispatches args to the command they name and returns the process's
// exit code; prog names the binary in messages.
func Run(ctx context.Context, prog string, cmds map[string]Command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		PrintUsage(stderr, prog, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", prog, args[0])
		PrintUsage(stderr, prog, cmds)
		return 2
	}
	if err := c.Run(ctx, args[1:], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", prog, args[0], err)
		if errors.Is(err, ErrUsage) {
			return 2
		}
		return 1
	}
	return 0
}

// PrintUsage lists the commands in name order.
func PrintUsage(w io.Writer, prog string, cmds map[string]Command) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", prog)
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", prog)
}

// ParseFlags parses args, mapping flag errors (and -h) to ErrUsage.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fmt.Errorf("%w: help requested", ErrUsage)
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}

// NewFlagSet is the flag set of the sub-command name: parse errors and
// help go to stderr, and help prints usage (when not empty) followed by
// the flags' defaults.
func NewFlagSet(name string, stderr io.Writer, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprintln(stderr, usage)
			fs.PrintDefaults()
		}
	}
	return fs
}
