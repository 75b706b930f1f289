package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

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
       boolpool decompose --project P [--split S] [--only-missing] [--dry-run] [--json]

Without QUERY, reads one query per line from standard input. With --project,
stores the decomposer's expression of each of the project's queries (audited,
one transaction) and prints how many per template and which failed; without
--only-missing, existing expressions (researchers' corrections too) are replaced.`)
	asJSON := fs.Bool("json", false, "print one JSON object per query (with --eval: the report as JSON; with --project: the summary as JSON)")
	evalPath := fs.String("eval", "", "evaluate on a QUEST-format jsonl `file` (query, original_query, metadata.template)")
	withQuery := fs.Bool("echo", false, "include the input query in the JSON output")
	db := dbFlag(fs)
	project := fs.String("project", "", "store expressions for this project's queries")
	split := fs.String("split", "", "with --project: only this split's queries")
	onlyMissing := fs.Bool("only-missing", false, "with --project: only queries without an expression")
	dryRun := fs.Bool("dry-run", false, "with --project: decompose and summarise, store nothing")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if *project != "" {
		if fs.NArg() > 0 || *evalPath != "" {
			return fmt.Errorf("%w: --project takes no query argument and no --eval", errUsage)
		}
		return decomposeProject(ctx, *db, *project, decompose.StoreOptions{Split: *split, OnlyMissing: *onlyMissing, DryRun: *dryRun}, *asJSON, stdout)
	}
	if *split != "" || *onlyMissing || *dryRun {
		return fmt.Errorf("%w: --split, --only-missing and --dry-run need --project", errUsage)
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

// decomposeProject stores the decomposer's expressions for a project's
// queries and prints the summary.
func decomposeProject(ctx context.Context, db, name string, opts decompose.StoreOptions, asJSON bool, stdout io.Writer) error {
	st, p, err := openProject(ctx, db, name)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := decompose.StoreProjectExpressions(ctx, st, p.ID, opts)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return writeDecomposeSummary(stdout, name, sum)
}

func writeDecomposeSummary(w io.Writer, project string, sum decompose.Summary) error {
	verb := "stored"
	if sum.DryRun {
		verb = "would store (dry run, nothing stored)"
	}
	fmt.Fprintf(w, "project %s: %d queries; %s %d expressions", project, sum.Queries, verb, sum.Stored)
	if sum.Skipped > 0 {
		fmt.Fprintf(w, "; %d skipped (already had one)", sum.Skipped)
	}
	fmt.Fprintf(w, "; %d failed\n", len(sum.Failed))
	if len(sum.ByTemplate) > 0 {
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "template\tqueries")
		for _, tc := range sum.ByTemplate {
			t := tc.Template
			if t == "" {
				t = "(no QUEST template)"
			}
			fmt.Fprintf(tw, "%s\t%d\n", t, tc.Queries)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, f := range sum.Failed {
		fmt.Fprintf(w, "failed\t%s\t%q\t%s\n", f.ExtID, f.Text, f.Reason)
	}
	return nil
}
