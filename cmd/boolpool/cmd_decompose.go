package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"boolpool/server/decompose"
)

// runDecompose splits free-text queries into Boolean expressions over
// atoms, or evaluates the decomposer on a QUEST-format file.
func runDecompose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return decomposeMain(ctx, args, os.Stdin, stdout, stderr)
}

// decomposeOutput is the JSON line printed per query.
type decomposeOutput struct {
	Query string `json:"query,omitempty"`
	decompose.Result
}

// decomposeMain is runDecompose with standard input passed in, so tests
// can feed queries.
func decomposeMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("decompose", stderr, `usage: boolpool decompose [--json] [--echo] ["QUERY"]
       boolpool decompose --eval FILE [--json]

Without QUERY, reads one query per line from standard input.`)
	asJSON := fs.Bool("json", false, "print one JSON object per query (with --eval: the report as JSON)")
	evalPath := fs.String("eval", "", "evaluate on a QUEST-format jsonl `file` (query, original_query, metadata.template)")
	withQuery := fs.Bool("echo", false, "include the input query in the JSON output")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if *evalPath != "" {
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: --eval takes no query argument", errUsage)
		}
		return decomposeEval(*evalPath, *asJSON, stdout)
	}
	emit := func(q string) error {
		r := decompose.Decompose(q)
		if *asJSON {
			out := decomposeOutput{Result: r}
			if *withQuery {
				out.Query = q
			}
			b, err := json.Marshal(out)
			if err != nil {
				return fmt.Errorf("encode: %w", err)
			}
			_, err = fmt.Fprintf(stdout, "%s\n", b)
			return err
		}
		tmpl := r.Template
		if tmpl == "" {
			tmpl = "(no QUEST template)"
		}
		_, err := fmt.Fprintf(stdout, "%s\t%s\t%s\n", q, tmpl, r.Expression.Format(r.Atoms))
		return err
	}
	if fs.NArg() > 0 {
		// Unquoted words are one query, as a shell user would mean them.
		return emit(strings.Join(fs.Args(), " "))
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			continue
		}
		if err := emit(q); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	return nil
}

func decomposeEval(path string, asJSON bool, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	items, err := decompose.ReadQuest(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(items) == 0 {
		return fmt.Errorf("%s: no queries", path)
	}
	rep := decompose.Evaluate(items)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.Write(stdout)
}
