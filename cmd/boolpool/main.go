// Command boolpool is the binary of the boolpool annotation platform:
// server, database migrations, import/export, encoders, retrieval, pooling
// and evaluation. The benchmarks and load tools are the lab binary's
// (cmd/boolpool-lab), so this one links none of server/devtools.
package main

import (
	"context"
	"io"

	"boolpool/internal/cli"
)

// command is one sub-command of the CLI (internal/cli).
type command = cli.Command

// commands is the CLI's command table. Each entry lives in its own file
// (cmd_<name>.go).
func commands() map[string]command {
	return map[string]command{
		"version": cli.VersionCommand("boolpool", version),
		"eval":    {Summary: "score TREC runs against qrels (trec_eval semantics)", Run: runEval},
		"agree":   {Summary: "inter-annotator agreement over a ratings file", Run: runAgree},
		"migrate": {Summary: "apply pending database migrations", Run: runMigrate},
		"serve":   {Summary: "run the HTTP server and web app (with a job worker; --workers 0: without)", Run: runServe},
		"worker":  {Summary: "run background jobs (encode, retrieve) queued by the servers", Run: runWorker},
		"user":    {Summary: "add an account: user add --username U --role R --password P [--project P]", Run: runUser},
		"crowd":   {Summary: "crowd studies: crowd set (completion code, URL, quota), crowd participants (payment table)", Run: runCrowd},
		"backup":  {Summary: "dump the database (pg_dump custom format)", Run: runBackup},
		"restore": {Summary: "restore a backup into the database, in one transaction", Run: runRestore},
		"demo":    {Summary: "load the demo project and accounts (or rebuild its data)", Run: runDemo},
		"import":  {Summary: "import documents, queries, qrels or runs into a project", Run: runImport},
		"export":  {Summary: "export a project's queries, documents, qrels, runs or judgments", Run: runExport},

		"model":     {Summary: "convert BERT checkpoints to ONNX; prepare the registered encoders", Run: runModel},
		"embed":     {Summary: "print the vectors of texts (--encoder minilm|minilm-int8|minilm-static)", Run: runEmbed},
		"encode":    {Summary: "embed a project's documents and queries into pgvector (resumable, incremental)", Run: runEncode},
		"decompose": {Summary: "split free-text queries into Boolean expressions over atoms", Run: runDecompose},
		"index":     {Summary: "rebuild a project's lexical (BM25) index, and an encoder's HNSW index", Run: runIndex},
		"retrieve":  {Summary: "run a retrieval method over a project's queries (--list for methods)", Run: runRetrieve},
		"pool":      {Summary: "build a judging pool from runs; simulate judging orders; explicit negatives", Run: runPool},
		"atoms":     {Summary: "shared constraints: sync, list, merge, split, labels, variants, check", Run: runAtoms},
	}
}

// errUsage marks an error caused by bad command-line usage (exit code 2).
var errUsage = cli.ErrUsage

func main() { cli.Main("boolpool", commands()) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Run(ctx, "boolpool", commands(), args, stdout, stderr)
}

// version is set with -ldflags "-X main.version=..." by make build.
var version = "dev"
