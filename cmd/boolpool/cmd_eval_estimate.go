package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"boolpool/server/estimate"
	"boolpool/server/export"
	"boolpool/server/metrics"
	"boolpool/server/poolestimate"
	"boolpool/server/trecfmt"
)

type evalEstimateRequest struct {
	db, project, pool, qrels, measures string
	runFiles, runs                     []string
	minRel                             int
	asJSON                             bool
}

// runEvalEstimate is `eval --estimate`: the runs' measures estimated from
// the project's sampled pool (poolestimate.Compute, the dashboard's
// estimates panel computes the same).
func runEvalEstimate(ctx context.Context, r evalEstimateRequest, stdout, stderr io.Writer) error {
	if r.project == "" {
		return fmt.Errorf("%w: --estimate needs --project P (its pools hold the sampling design)", errUsage)
	}
	st, p, err := openProject(ctx, r.db, r.project)
	if err != nil {
		return err
	}
	defer st.Close()
	// Files carry the project's ids as TREC tokens (white space encoded):
	// read them back as the project's ids.
	ids, err := export.ProjectIDMaps(ctx, st, p.ID)
	if err != nil {
		return err
	}
	opt := poolestimate.Options{Pool: r.pool, Runs: r.runs, Measures: r.measures, MinRel: r.minRel}
	if r.qrels != "" {
		lines, err := readFile(ctx, r.qrels, trecfmt.ReadQrels)
		if err != nil {
			return err
		}
		for i := range lines {
			lines[i].QueryID, lines[i].DocID = ids.Queries.Decode(lines[i].QueryID), ids.Docs.Decode(lines[i].DocID)
		}
		q, err := qrelsOf(lines)
		if err != nil {
			return fmt.Errorf("%s: %w", r.qrels, err)
		}
		opt.Qrels = q
	}
	for _, path := range r.runFiles {
		run, err := readFile(ctx, path, readRun)
		if err != nil {
			return err
		}
		decoded := metrics.Run{}
		for q, docs := range run {
			for i := range docs {
				docs[i].DocID = ids.Docs.Decode(docs[i].DocID)
			}
			decoded[ids.Queries.Decode(q)] = docs
		}
		ranked, _ := metrics.RankRun(decoded)
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		opt.Rankings = append(opt.Rankings, estimate.NamedRanking{Name: name, Lists: ranked})
	}
	res, err := poolestimate.Compute(ctx, st, p.ID, opt)
	if err != nil {
		return err
	}
	if r.asJSON {
		return jsonOut(stdout, res)
	}
	return printEstimates(stdout, res)
}

func printEstimates(w io.Writer, res poolestimate.Result) error {
	if res.Estimated {
		fmt.Fprintf(w, "estimates from the sampled pool %q (strategy %s): estimate [95%% interval from the sampling design]\n\n", res.Pool, res.Strategy)
	} else {
		fmt.Fprintf(w, "note: %s\n\n", res.Note)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "run")
	for _, m := range res.Measures {
		fmt.Fprintf(tw, "\t%s", m)
	}
	fmt.Fprintln(tw)
	for _, run := range res.Runs {
		fmt.Fprint(tw, run.Run)
		for _, m := range res.Measures {
			v := run.Means[m]
			if res.Estimated {
				fmt.Fprintf(tw, "\t%.4f [%.4f, %.4f]", v.Est, v.Lo, v.Hi)
			} else {
				fmt.Fprintf(tw, "\t%.4f", v.Est)
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := res.RelevantTotal
	fmt.Fprintf(w, "\nrelevant documents: %d judged relevant; estimated in all %.1f [%.1f, %.1f]; estimated recall of the judged set %.3f [%.3f, %.3f]\n",
		res.JudgedRelevant, t.Est, t.Lo, t.Hi, res.JudgedRecall.Est, res.JudgedRecall.Lo, res.JudgedRecall.Hi)
	var sig []string
	for _, p := range res.Pairs {
		if p.Significant {
			sig = append(sig, fmt.Sprintf("  %s: %s vs %s differ by %+.4f (Holm-adjusted p %.3g)", p.Measure, p.A, p.B, p.Diff, p.PHolm))
		}
	}
	fmt.Fprintf(w, "\npairs of runs that differ significantly (paired t-test over queries, Holm-corrected per measure, α 0.05): %d of %d\n", len(sig), len(res.Pairs))
	for _, s := range sig {
		fmt.Fprintln(w, s)
	}
	return nil
}
