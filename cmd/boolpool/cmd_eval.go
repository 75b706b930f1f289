package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"boolpool/server/live"
	"boolpool/server/metrics"
	"boolpool/server/store"
	"boolpool/server/trecfmt"
)

// runEval scores TREC runs against qrels with trec_eval's semantics (see
// package metrics for the exact rules).
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if sub, ok := subcommand(args, evalSubcommands); ok { // cmd_eval_reuse.go
		return sub(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("eval", stderr, "usage: boolpool eval --qrels FILE --run FILE [--run FILE…] [--negatives FILE] [--nevir FILE | --project P] [--metrics LIST] [--min-rel N] [--complete] [--per-query] [--json | --ci N [--seed S]]\n       boolpool eval --estimate --project P [--pool NAME] [--runs a,b | --run FILE…] [--qrels FILE] [--metrics ap,ndcg@10,p@10,recall@100] [--json]\n       boolpool eval reusability --project P --pool NAME [--measures LIST] [--split S] [--json]\n       boolpool eval stability --project P [--pool NAME] [--measures LIST] [--bootstrap B] [--json]")
	var (
		qrelsPath = fs.String("qrels", "", "TREC qrels `file` (qid iter docid grade)")
		negPath   = fs.String("negatives", "", "qrels-shaped `file` listing explicit negatives (every line is one; the grade column is ignored)")
		nevirPath = fs.String("nevir", "", "NevIR pairs `file` (the import format: JSON lines or one JSON array) for --metrics nevir; queries and documents are named as the importer names them")
		project   = fs.String("project", "", "take the NevIR pairs for --metrics nevir from this project's imported NevIR queries (needs the database)")
		db        = dbFlag(fs)
		list      = fs.String("metrics", "", "comma-separated `measures` name@k from mrr, ndcg, p, recall, mrecall, judged, f1, negrecall, violation, negabove, nevir (default "+metrics.DefaultSpecs+", plus negrecall@10,violation,negabove with --negatives and nevir with NevIR pairs)")
		minRel    = fs.Int("min-rel", 1, "lowest grade counted as relevant (trec_eval -l); nDCG always uses raw grades")
		complete  = fs.Bool("complete", false, "also score qrels queries missing from a run, as empty rankings (trec_eval -c), and every NevIR pair")
		perQuery  = fs.Bool("per-query", false, "also print every query's values (table: one block per run; JSON: per_query)")
		asJSON    = fs.Bool("json", false, "print JSON instead of a table")
		ciRuns    = fs.Int("ci", 0, "table only: bootstrap `resamples` for 95% intervals of the means, and as many permutations for paired randomisation tests of each run against the first (0 = off)")
		seed      = fs.Uint64("seed", 1, "random seed for --ci (results are deterministic per seed)")
		estimateF = fs.Bool("estimate", false, "estimate ap, ndcg@k, p@k, recall@k with 95% intervals from the sampling design of --project's pool (--pool; default its newest sampled pool) and its consensus judgments (or --qrels); a pool without a design falls back to the usual measures and says so")
		poolName  = fs.String("pool", "", "--estimate: the sampled pool `name`")
		storedRun = fs.String("runs", "", "--estimate: stored run `names` to estimate (default: every stored run when no --run file is given)")
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
	if *estimateF {
		return runEvalEstimate(ctx, evalEstimateRequest{db: *db, project: *project, pool: *poolName, qrels: *qrelsPath, runFiles: runPaths,
			runs: splitList(*storedRun), measures: *list, minRel: *minRel, asJSON: *asJSON}, stdout, stderr)
	}
	if *qrelsPath == "" || len(runPaths) == 0 {
		return fmt.Errorf("%w: --qrels and at least one --run are required", errUsage)
	}
	if *minRel < 1 {
		return fmt.Errorf("%w: --min-rel must be at least 1", errUsage)
	}
	if *nevirPath != "" && *project != "" {
		return fmt.Errorf("%w: --nevir and --project both name NevIR pairs: give one", errUsage)
	}
	hasPairs := *nevirPath != "" || *project != ""
	specList := *list
	if specList == "" {
		specList = metrics.DefaultSpecs
		if *negPath != "" {
			specList += ",negrecall@10,violation,negabove"
		}
		if hasPairs {
			specList += ",nevir"
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
		if s.NeedsPairs() && !hasPairs {
			return fmt.Errorf("%w: measure %s needs NevIR pairs: --nevir FILE or --project P", errUsage, s)
		}
	}

	qrelLines, err := readFile(ctx, *qrelsPath, trecfmt.ReadQrels)
	if err != nil {
		return err
	}
	qrels, err := qrelsOf(qrelLines)
	if err != nil {
		return fmt.Errorf("%s: %w", *qrelsPath, err)
	}
	opt := metrics.Options{MinRel: *minRel, Complete: *complete}
	if *negPath != "" {
		if opt.Negatives, err = readNegatives(ctx, *negPath); err != nil {
			return err
		}
	}
	switch {
	case *nevirPath != "":
		if opt.NevIRPairs, err = readFile(ctx, *nevirPath, readNevIRPairs); err != nil {
			return err
		}
	case *project != "":
		st, p, err := openProject(ctx, *db, *project)
		if err != nil {
			return err
		}
		opt.NevIRPairs, err = projectNevIRPairs(ctx, st, p.ID)
		st.Close()
		if err != nil {
			return err
		}
		if len(opt.NevIRPairs) == 0 {
			return fmt.Errorf("project %s has no NevIR pairs (import them with --format nevir)", *project)
		}
	}

	var names []string
	results := map[string]metrics.Result{}
	for _, path := range runPaths {
		run, err := readFile(ctx, path, readRun)
		if err != nil {
			return err
		}
		name := filepath.Base(path)
		if _, clash := results[name]; clash {
			name = path
		}
		if _, clash := results[name]; clash {
			return fmt.Errorf("%w: run %s given twice", errUsage, path)
		}
		res := metrics.EvaluateRun(qrels, run, specs, opt)
		if res.Duplicates > 0 {
			fmt.Fprintf(stderr, "boolpool eval: %s: %d duplicate docid lines ignored (the first line of each document counts)\n", path, res.Duplicates)
		}
		warnMissing(stderr, "boolpool eval: "+path, res.Missing, len(qrels), *complete)
		if len(res.PerQuery) == 0 {
			fmt.Fprintf(stderr, "boolpool eval: %s: no query is in both the run and the qrels\n", path)
		}
		results[name] = res
		names = append(names, name)
	}

	if *asJSON {
		out := evalOutput{Runs: map[string]evalRun{}}
		for _, name := range names {
			res := results[name]
			r := evalRun{Queries: len(res.PerQuery), Missing: res.Missing, Mean: res.Mean, Count: res.Count}
			if *perQuery {
				r.PerQuery = res.PerQuery
			}
			out.Runs[name] = r
		}
		return jsonOut(stdout, out)
	}
	if *perQuery {
		if err := printEvalTable(stdout, names, results, specs, *ciRuns, *seed); err != nil {
			return err
		}
	} else if err := printMeansTable(stdout, names, results, specs, *ciRuns, *seed); err != nil {
		return err
	}
	if *ciRuns > 0 && len(names) > 1 {
		return printPairedTests(stdout, names, results, specs, *ciRuns, *seed)
	}
	return nil
}

// warnMissing tells, on stderr, how many of the qrels queries a run has no
// line for: without --complete they are silently left out of the means.
func warnMissing(stderr io.Writer, prefix string, missing, total int, complete bool) {
	if missing == 0 {
		return
	}
	if complete {
		fmt.Fprintf(stderr, "%s: %d of %d qrels queries have no line in the run; they score 0 as empty rankings\n", prefix, missing, total)
		return
	}
	fmt.Fprintf(stderr, "%s: warning: %d of %d qrels queries have no line in the run and are left out of the means; --complete scores them as 0\n", prefix, missing, total)
}

// evalOutput is eval's --json output.
type evalOutput struct {
	Runs map[string]evalRun `json:"runs"`
}

// evalRun is one run in eval's --json output: the number of queries scored,
// the qrels queries the run lacks, each measure's mean and the number of
// queries (NevIR: pairs) behind it, and, with --per-query only, every
// query's values.
type evalRun struct {
	Queries  int                           `json:"queries"`
	Missing  int                           `json:"missing"`
	Mean     map[string]float64            `json:"mean"`
	Count    map[string]int                `json:"count"`
	PerQuery map[string]map[string]float64 `json:"per_query,omitempty"`
}

// readNegatives reads a qrels-shaped file of explicit negatives.
func readNegatives(ctx context.Context, path string) (map[string]map[string]bool, error) {
	lines, err := readFile(ctx, path, trecfmt.ReadQrels)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, l := range lines {
		if out[l.QueryID] == nil {
			out[l.QueryID] = map[string]bool{}
		}
		out[l.QueryID][l.DocID] = true
	}
	return out, nil
}

// projectNevIRPairs lists a project's imported NevIR pairs the way the
// dashboard finds them (live.NevIRPairs).
func projectNevIRPairs(ctx context.Context, st *store.Store, projectID int64) ([]metrics.NevIRPair, error) {
	qs, err := st.ProjectQueries(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return live.NevIRPairs(qs), nil
}

// readNevIRPairs reads NevIR pairs in the import format (one JSON object per
// line, or one JSON array of objects, pretty-printed or not) and names them
// as the importer does: pair id = the "id" field, else "pair<line>" with the
// line the object starts on; queries "<id>-q1"/"<id>-q2", documents
// "<id>-doc1"/"<id>-doc2".
func readNevIRPairs(ctx context.Context, r io.Reader, file string) ([]metrics.NevIRPair, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	lineAt := func(off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }
	var out []metrics.NevIRPair
	seen := map[string]int{}
	add := func(raw []byte, line int) error {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("%s:%d: invalid NevIR pair: %v", file, line, err)
		}
		id := ""
		if len(p.ID) > 0 && string(p.ID) != "null" {
			var s string
			if json.Unmarshal(p.ID, &s) == nil {
				id = s
			} else {
				id = string(bytes.TrimSpace(p.ID))
			}
		}
		if id == "" {
			id = fmt.Sprintf("pair%d", line)
		}
		if prev, dup := seen[id]; dup {
			return fmt.Errorf("%s:%d: field id: pair %q already given on line %d", file, line, id, prev)
		}
		seen[id] = line
		out = append(out, metrics.NevIRPair{Query1: id + "-q1", Query2: id + "-q2", Doc1: id + "-doc1", Doc2: id + "-doc2"})
		return nil
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%s:1: invalid JSON: %v", file, err)
		}
		for dec.More() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// The element starts after the separator and white space.
			off := int(dec.InputOffset())
			if i := bytes.IndexFunc(data[off:], func(r rune) bool { return r != ',' && r != ' ' && r != '\t' && r != '\r' && r != '\n' }); i > 0 {
				off += i
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("%s:%d: invalid JSON: %v", file, lineAt(off), err)
			}
			if err := add(raw, lineAt(off)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := add(line, n+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// printMeansTable prints one row per run: the number of queries scored and
// each measure's mean (with --ci, the 95% bootstrap interval below it).
func printMeansTable(w io.Writer, names []string, results map[string]metrics.Result, specs []metrics.Spec, resamples int, seed uint64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := []string{"run", "queries"}
	for _, s := range specs {
		cols = append(cols, s.String())
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, name := range names {
		res := results[name]
		cells := []string{name, strconv.Itoa(len(res.PerQuery))}
		for _, s := range specs {
			cells = append(cells, meanCell(res, s.String()))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
		if resamples > 0 {
			lo, hi := []string{"  ci95-low", ""}, []string{"  ci95-high", ""}
			for _, s := range specs {
				vals := res.Values(s.String())
				if len(vals) == 0 {
					lo, hi = append(lo, "-"), append(hi, "-")
					continue
				}
				iv := metrics.Bootstrap(vals, resamples, 0.95, seed)
				lo = append(lo, strconv.FormatFloat(iv.Low, 'f', 4, 64))
				hi = append(hi, strconv.FormatFloat(iv.High, 'f', 4, 64))
			}
			fmt.Fprintln(tw, strings.Join(lo, "\t"))
			fmt.Fprintln(tw, strings.Join(hi, "\t"))
		}
	}
	return tw.Flush()
}

// meanCell formats a measure's mean, "-" when no query has it.
func meanCell(res metrics.Result, measure string) string {
	if res.Count[measure] == 0 {
		return "-"
	}
	return strconv.FormatFloat(res.Mean[measure], 'f', 4, 64)
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

// qrelsOf builds the qrels of judgment lines. A document judged twice for
// the same query with different grades is an error (trec_eval rejects any
// repeat): the two grades cannot both hold. An exact repeat is harmless and
// accepted.
func qrelsOf(lines []trecfmt.Qrel) (metrics.Qrels, error) {
	q := metrics.Qrels{}
	for _, l := range lines {
		m := q[l.QueryID]
		if m == nil {
			m = map[string]int{}
			q[l.QueryID] = m
		}
		if prev, dup := m[l.DocID]; dup && prev != l.Rel {
			return nil, fmt.Errorf("qrels: query %s document %s judged twice (%d and %d)", l.QueryID, l.DocID, prev, l.Rel)
		}
		m[l.DocID] = l.Rel
	}
	return q, nil
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
