package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"boolpool/server/metrics"
	"boolpool/server/trecfmt"
)

// runEval scores TREC runs against qrels with trec_eval's semantics (see
// package metrics for the exact rules).
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", stderr, "usage: boolpool eval --qrels FILE --run FILE [--run FILE…] [--negatives FILE] [--metrics LIST] [--min-rel N] [--complete] [--json | --ci N [--seed S]]")
	var (
		qrelsPath = fs.String("qrels", "", "TREC qrels `file` (qid iter docid grade)")
		negPath   = fs.String("negatives", "", "qrels-shaped `file` listing explicit negatives (every line is one; the grade column is ignored)")
		list      = fs.String("metrics", "", "comma-separated `measures` name@k from mrr, ndcg, p, recall, mrecall, judged, f1, negrecall, violation (default "+metrics.DefaultSpecs+", plus negrecall@10,violation with --negatives)")
		minRel    = fs.Int("min-rel", 1, "lowest grade counted as relevant (trec_eval -l); nDCG always uses raw grades")
		complete  = fs.Bool("complete", false, "also score qrels queries missing from a run, as empty rankings (trec_eval -c)")
		asJSON    = fs.Bool("json", false, "print JSON instead of a table")
		ciRuns    = fs.Int("ci", 0, "table only: bootstrap `resamples` for 95% intervals of the means, and as many permutations for paired randomisation tests of each run against the first (0 = off)")
		seed      = fs.Uint64("seed", 1, "random seed for --ci (results are deterministic per seed)")
		runPaths  []string
	)
	fs.Func("run", "TREC run `file` (qid Q0 docid rank score tag); repeat for several runs", func(s string) error {
		runPaths = append(runPaths, s)
		return nil
	})
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *qrelsPath == "" || len(runPaths) == 0 {
		return fmt.Errorf("%w: --qrels and at least one --run are required", errUsage)
	}
	if *minRel < 1 {
		return fmt.Errorf("%w: --min-rel must be at least 1", errUsage)
	}
	specList := *list
	if specList == "" {
		specList = metrics.DefaultSpecs
		if *negPath != "" {
			specList += ",negrecall@10,violation"
		}
	}
	specs, err := metrics.ParseSpecs(specList)
	if err != nil {
		return fmt.Errorf("%w: --metrics: %v", errUsage, err)
	}
	for _, s := range specs {
		if s.NeedsNegatives() && *negPath == "" {
			return fmt.Errorf("%w: measure %s needs --negatives", errUsage, s)
		}
	}

	qrelLines, err := readFile(ctx, *qrelsPath, trecfmt.ReadQrels)
	if err != nil {
		return err
	}
	qrels, err := metrics.NewQrels(qrelLines)
	if err != nil {
		return fmt.Errorf("%s: %w", *qrelsPath, err)
	}
	opt := metrics.Options{MinRel: *minRel, Complete: *complete}
	if *negPath != "" {
		negLines, err := readFile(ctx, *negPath, trecfmt.ReadQrels)
		if err != nil {
			return err
		}
		opt.Negatives = map[string]map[string]bool{}
		for _, l := range negLines {
			if opt.Negatives[l.QueryID] == nil {
				opt.Negatives[l.QueryID] = map[string]bool{}
			}
			opt.Negatives[l.QueryID][l.DocID] = true
		}
	}

	out := evalOutput{Runs: map[string]evalRun{}}
	var names []string
	results := map[string]metrics.Result{}
	for _, path := range runPaths {
		run, err := readFile(ctx, path, readRun)
		if err != nil {
			return err
		}
		ranked, dups := metrics.RankRun(run)
		if dups > 0 {
			fmt.Fprintf(stderr, "boolpool eval: %s: %d duplicate docid lines ignored (the first line of each document counts)\n", path, dups)
		}
		name := filepath.Base(path)
		if _, clash := results[name]; clash {
			name = path
		}
		if _, clash := results[name]; clash {
			return fmt.Errorf("%w: run %s given twice", errUsage, path)
		}
		res := metrics.Evaluate(qrels, ranked, specs, opt)
		if len(res.PerQuery) == 0 {
			fmt.Fprintf(stderr, "boolpool eval: %s: no query is in both the run and the qrels\n", path)
		}
		results[name] = res
		names = append(names, name)
		out.Runs[name] = evalRun{Mean: res.Mean, PerQuery: res.PerQuery}
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if err := printEvalTable(stdout, names, results, specs, *ciRuns, *seed); err != nil {
		return err
	}
	if *ciRuns > 0 && len(names) > 1 {
		return printPairedTests(stdout, names, results, specs, *ciRuns, *seed)
	}
	return nil
}

type evalOutput struct {
	Runs map[string]evalRun `json:"runs"`
}

type evalRun struct {
	Mean     map[string]float64            `json:"mean"`
	PerQuery map[string]map[string]float64 `json:"per_query"`
}

// printEvalTable prints, per run, one row per query and a final "all" row
// of means, like trec_eval -q but with measures as columns.
func printEvalTable(w io.Writer, names []string, results map[string]metrics.Result, specs []metrics.Spec, resamples int, seed uint64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, name := range names {
		res := results[name]
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "run %s (%d queries)\n", name, len(res.PerQuery))
		cols := []string{"qid"}
		for _, s := range specs {
			cols = append(cols, s.String())
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
		row := func(label string, vals map[string]float64) {
			cells := []string{label}
			for _, s := range specs {
				v, ok := vals[s.String()]
				if !ok {
					cells = append(cells, "-")
					continue
				}
				cells = append(cells, strconv.FormatFloat(v, 'f', 4, 64))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		for _, q := range metrics.SortedKeys(res.PerQuery) {
			row(q, res.PerQuery[q])
		}
		row("all", res.Mean)
		if resamples > 0 {
			lo, hi := map[string]float64{}, map[string]float64{}
			for _, s := range specs {
				vals := res.Values(s.String())
				if len(vals) == 0 {
					continue
				}
				iv := metrics.Bootstrap(vals, resamples, 0.95, seed)
				lo[s.String()], hi[s.String()] = iv.Low, iv.High
			}
			row("ci95-low", lo)
			row("ci95-high", hi)
		}
	}
	return tw.Flush()
}

// printPairedTests prints, for every run after the first, the mean
// difference from the first run and its two-sided randomisation p-value
// over the queries both runs scored.
func printPairedTests(w io.Writer, names []string, results map[string]metrics.Result, specs []metrics.Spec, trials int, seed uint64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\npaired randomisation test against %s (%d permutations): difference (p)\n", names[0], trials)
	cols := []string{"run"}
	for _, s := range specs {
		cols = append(cols, s.String())
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	base := results[names[0]]
	for _, name := range names[1:] {
		cells := []string{name}
		for _, s := range specs {
			t := metrics.PairedRandomization(results[name].Values(s.String()), base.Values(s.String()), trials, seed)
			if t.N == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%+.4f (%.4f)", t.Diff, t.P))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// readRun streams a run file straight into a metrics.Run, so a large run
// is held once, not twice.
func readRun(ctx context.Context, r io.Reader, file string) (metrics.Run, error) {
	rr := trecfmt.NewRunReader(r, file)
	run := metrics.Run{}
	for n := 0; ; n++ {
		if n%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l, err := rr.Read()
		if err == io.EOF {
			return run, nil
		}
		if err != nil {
			return nil, err
		}
		run[l.QueryID] = append(run[l.QueryID], metrics.Scored{DocID: l.DocID, Score: l.Score})
	}
}

// readFile opens path and hands it to a trecfmt reader, which names the
// file in its errors.
func readFile[T any](ctx context.Context, path string, read func(context.Context, io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(ctx, f, path)
	if err != nil {
		return zero, err
	}
	return v, nil
}
