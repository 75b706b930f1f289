// Command boolpool-lab is the lab binary beside the server binary
// (cmd/boolpool): the benchmarks, the load generator and the synthetic-data
// suites of server/devtools. It is built by `make bench` only, so the
// serving binary links none of the dev tooling (internal/archtest checks
// `go list -deps ./cmd/boolpool`).
package main

import (
	"context"
	"flag"
	"io"

	"boolpool/internal/cli"
)

// commands is the lab's command table (internal/cli).
func commands() map[string]cli.Command {
	return map[string]cli.Command{
		"version": cli.VersionCommand("boolpool-lab", version),
		"bench":   {Summary: "run the benchmarks and print one table (make bench)", Run: runBench},
	}
}

// errUsage marks an error caused by bad command-line usage (exit code 2).
var errUsage = cli.ErrUsage

func main() { cli.Main("boolpool-lab", commands()) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Run(ctx, "boolpool-lab", commands(), args, stdout, stderr)
}

// version is set with -ldflags "-X main.version=..." by make bench.
var version = "dev"

// newFlagSet is the flag set of the sub-command name; parse errors and
// help go to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet { return cli.NewFlagSet(name, stderr, "") }

// parseFlags parses args, mapping flag errors (and -h) to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.ParseFlags(fs, args) }
