// Command boolpool is the binary of the boolpool annotation platform:
// server, database migrations, import/export, encoders, retrieval, pooling
// and evaluation. The benchmarks and load tools are the lab binary's
// (cmd/boolpool-lab), so this one links none of server/devtools.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one sub-command of the CLI. run receives the arguments after the
// sub-command name; it writes results to stdout and diagnostics to stderr.
type command struct {
	summary string
	run     runFunc
}

// commands is the CLI's command table. Each entry lives in its own file
// (cmd_<name>.go).
func commands() map[string]command {
	return map[string]command{
		"version": {"print the version", runVersion},
		"eval":    {"score TREC runs against qrels (trec_eval semantics)", runEval},
		"agree":   {"inter-annotator agreement over a ratings file", runAgree},
		"migrate": {"apply pending database migrations", runMigrate},
		"serve":   {"run the HTTP server and web app (with a job worker; --workers 0: without)", runServe},
		"worker":  {"run background jobs (encode, retrieve) queued by the servers", runWorker},
		"user":    {"add an account: user add --username U --role R --password P [--project P]", runUser},
		"crowd":   {"crowd studies: crowd set (completion code, URL, quota), crowd participants (payment table)", runCrowd},
		"backup":  {"dump the database (pg_dump custom format)", runBackup},
		"restore": {"restore a backup into the database, in one transaction", runRestore},
		"demo":    {"load the demo project and accounts (or rebuild its data)", runDemo},
		"import":  {"import documents, queries, qrels or runs into a project", runImport},
		"export":  {"export a project's queries, documents, qrels, runs or judgments", runExport},

		"model":     {"convert BERT checkpoints to ONNX; prepare the registered encoders", runModel},
		"embed":     {"print the vectors of texts (--encoder minilm|minilm-int8|minilm-static)", runEmbed},
		"encode":    {"embed a project's documents and queries into pgvector (resumable, incremental)", runEncode},
		"decompose": {"split free-text queries into Boolean expressions over atoms", runDecompose},
		"index":     {"rebuild a project's lexical (BM25) index, and an encoder's HNSW index", runIndex},
		"retrieve":  {"run a retrieval method over a project's queries (--list for methods)", runRetrieve},
		"pool":      {"build a judging pool from runs; simulate judging orders; explicit negatives", runPool},
		"atoms":     {"shared constraints: sync, list, merge, split, labels, variants, check", runAtoms},
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
		fmt.Fprintf(stderr, "boolpool: unknown command %q\n\n", args[0])
		printUsage(stderr, cmds)
		return 2
	}
	if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "boolpool %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: boolpool <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'boolpool <command> -h' for a command's flags.")
}

// version is set with -ldflags "-X main.version=..." by make build.
var version = "dev"

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, "boolpool", version)
	return nil
}
