package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"boolpool/server/apperr"
	"boolpool/server/reuse"
	"boolpool/server/store"
)

// evalSubcommands are `boolpool eval reusability` and `boolpool eval
// stability` (issue 24), dispatched from runEval.
var evalSubcommands = map[string]runFunc{"reusability": runEvalReusability, "stability": runEvalStability}

const reusabilityUsage = `usage: boolpool eval reusability --project P --pool NAME [--measures LIST] [--split S] [--json]

Leave-one-run-out (Zobel 1998) and leave-one-family-out over the project's
consensus qrels (majority; relevant = grade >= 2): for each run that
contributed to the pool, the judged documents only it contributed to their
query's pool leave the qrels and every stored run is scored again over the
same queries (a missing ranking scores as empty). Families: lexical, sparse,
dense, fusion (the run's retrieval method), else the run's own name.

--json prints:
  {"pool": "depth-10", "queries": 40, "measures": ["ndcg@10", ...],
   "runs": [{"name", "family", "contributed", "unique", "mean": {measure: x}}],
   "leave_one_run_out": [{"left_out": "bm25", "runs": ["bm25"], "removed": n,
       "removed_relevant": n, "judged_at_10": {run: x},
       "measures": {measure: {"kendall_tau": t|null, "tau_ap": t|null,
           "runs": [{"run", "with", "without", "change", "rank_with", "rank_without"}]}}}],
   "leave_one_family_out": [same shape, left_out = the family],
   "max_abs_change": {measure: x}, "max_abs_change_family": {measure: x}}
τ is Kendall's tau-b, τ_AP Yilmaz, Aslam & Robertson (2008) with the full
ranking as the truth; null when undefined (fewer than two runs, or every run
tied). Ranks: mean descending, ties by run name.
`

const stabilityUsage = `usage: boolpool eval stability --project P [--pool NAME] [--measures LIST] [--split S] [--bootstrap B] [--seed S] [--json]

Kendall's τ (tau-b) and τ_AP between rankings of the stored runs: majority
consensus (the truth) vs Dawid–Skene; each annotator's own labels vs the
majority over the queries that annotator judged (Voorhees 2000); B query
bootstrap resamples vs all queries. --pool counts only that pool's items
as judged.

--json prints:
  {"pool": "...", "queries": n, "measures": [...], "runs": [...],
   "majority_vs_dawid_skene": {"items": n, "differ": n, "measures": {measure: {"kendall_tau", "tau_ap"}}},
   "annotators": [{"annotator", "judgments", "queries", "measures": {measure: {"kendall_tau", "tau_ap"}}}],
   "bootstrap": {"resamples": B, "seed": S, "measures": {measure: {"mean_tau", "p5_tau", "mean_tau_ap"}}}}
A correlation is null when undefined (fewer than two runs, or every run tied).
`

// reuseFlags are the flags both sub-commands share.
type reuseFlags struct {
	db, project, pool, measures, split *string
	asJSON                             *bool
}

func addReuseFlags(fs *flag.FlagSet, db *string, poolDoc string) reuseFlags {
	return reuseFlags{
		db:       db,
		project:  fs.String("project", "", "project `name` (required)"),
		pool:     fs.String("pool", "", poolDoc),
		measures: fs.String("measures", "", "comma-separated `measures` (default "+reuse.DefaultMeasures()+")"),
		split:    fs.String("split", "", "only this split's queries"),
		asJSON:   fs.Bool("json", false, "print the JSON shown above instead of tables"),
	}
}

// open checks --measures and opens the store and the project; the caller
// closes the store.
func (f reuseFlags) open(ctx context.Context) (*store.Store, store.Project, error) {
	if _, err := reuse.ParseMeasures(*f.measures); err != nil {
		return nil, store.Project{}, flagError(err)
	}
	return openProject(ctx, *f.db, *f.project)
}

func runEvalReusability(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval reusability", stderr, reusabilityUsage)
	f := addReuseFlags(fs, dbFlag(fs), "pool `name` whose sources are left out (required)")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *f.project == "" || *f.pool == "" {
		return fmt.Errorf("%w: --project and --pool are required", errUsage)
	}
	st, p, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := reuse.LoadReusability(ctx, st, p.ID, reuse.Options{Pool: *f.pool, Split: *f.split, Measures: *f.measures})
	if err != nil {
		return flagError(err)
	}
	if *f.asJSON {
		return jsonOut(stdout, rep)
	}
	return printReusability(stdout, rep)
}

func runEvalStability(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval stability", stderr, stabilityUsage)
	f := addReuseFlags(fs, dbFlag(fs), "only this pool's items count as judged (default: every relevance item)")
	resamples := fs.Int("bootstrap", reuse.DefaultBootstrap, "query bootstrap `resamples` (0: none)")
	seed := fs.Uint64("seed", 1, "random seed of the bootstrap")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *f.project == "" {
		return fmt.Errorf("%w: --project is required", errUsage)
	}
	st, p, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := reuse.LoadStability(ctx, st, p.ID, reuse.Options{Pool: *f.pool, Split: *f.split, Measures: *f.measures, Resamples: *resamples, Seed: *seed})
	if err != nil {
		return flagError(err)
	}
	if *f.asJSON {
		return jsonOut(stdout, rep)
	}
	return printStability(stdout, rep)
}

// flagError names the flag of a field the reuse package refused.
func flagError(err error) error {
	var inv *apperr.Invalid
	if errors.As(err, &inv) && inv.Field != "" {
		return fmt.Errorf("%w: --%s: %s", errUsage, inv.Field, inv.Reason)
	}
	var ref *apperr.Refused
	if errors.As(err, &ref) && ref.Field != "" {
		return fmt.Errorf("--%s: %s", ref.Field, ref.Reason)
	}
	return err
}

// num formats a value with 4 decimals.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// opt formats a possibly undefined value ("-").
func opt(v *float64) string {
	if v == nil {
		return "-"
	}
	return num(*v)
}

func printReusability(w io.Writer, rep reuse.ReusabilityReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "pool %s: %d queries with consensus labels, %d runs\n\n", rep.Pool, rep.Queries, len(rep.Runs))
	fmt.Fprintln(tw, "run\tfamily\tcontributed\tunique\t"+strings.Join(rep.Measures, "\t"))
	for _, r := range rep.Runs {
		cells := []string{r.Name, r.Family, strconv.Itoa(r.Contributed), strconv.Itoa(r.Unique)}
		for _, m := range rep.Measures {
			if v, ok := r.Mean[m]; ok {
				cells = append(cells, num(v))
			} else {
				cells = append(cells, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	section := func(title, what string, los []reuse.LeaveOut, maxes map[string]float64) {
		fmt.Fprintf(tw, "\n%s\n", title)
		fmt.Fprintf(tw, "%s\trun\tremoved (relevant)\tjudged@10\tmeasure\twith\twithout\tchange\trank\tτ\tτ_AP\n", what)
		for _, lo := range los {
			for _, m := range rep.Measures {
				lm := lo.Measures[m]
				for _, rc := range lm.Runs {
					fmt.Fprintf(tw, "%s\t%s\t%d (%d)\t%s\t%s\t%s\t%s\t%+.4f\t%d → %d\t%s\t%s\n", lo.LeftOut, rc.Run, lo.Removed, lo.RemovedRelevant,
						num(lo.JudgedAt10[rc.Run]), m, num(rc.With), num(rc.Without), rc.Change, rc.RankWith, rc.RankWithout, opt(lm.KendallTau), opt(lm.TauAP))
				}
			}
		}
		var parts []string
		for _, m := range rep.Measures {
			if v, ok := maxes[m]; ok {
				parts = append(parts, m+" "+num(v))
			}
		}
		fmt.Fprintf(tw, "max |change|: %s\n", strings.Join(parts, ", "))
	}
	section("leave one run out (Zobel 1998): the qrels without the documents only that run contributed", "left out", rep.LeaveOneRun, rep.MaxAbsChange)
	section("leave one method family out", "family", rep.LeaveOneFamily, rep.MaxAbsChangeFamily)
	return tw.Flush()
}

func printStability(w io.Writer, rep reuse.StabilityReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	scope := "every relevance item"
	if rep.Pool != "" {
		scope = "pool " + rep.Pool
	}
	fmt.Fprintf(tw, "%s: %d queries with consensus labels, %d runs\n\n", scope, rep.Queries, len(rep.Runs))
	head := "comparison\tjudgments\tqueries"
	for _, m := range rep.Measures {
		head += "\t" + m + " τ\t" + m + " τ_AP"
	}
	fmt.Fprintln(tw, head)
	row := func(label, judgments, queries string, corr map[string]reuse.RankCorr) {
		cells := []string{label, judgments, queries}
		for _, m := range rep.Measures {
			cells = append(cells, opt(corr[m].KendallTau), opt(corr[m].TauAP))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	c := rep.Consensus
	row(fmt.Sprintf("majority vs dawid-skene (%d of %d items differ)", c.Differ, c.Items), "-", strconv.Itoa(rep.Queries), c.Measures)
	for _, a := range rep.Annotators {
		row("annotator "+a.Annotator+" vs majority", strconv.Itoa(a.Judgments), strconv.Itoa(a.Queries), a.Measures)
	}
	if b := rep.Bootstrap; b.Resamples > 0 {
		fmt.Fprintf(tw, "\nquery bootstrap (%d resamples, seed %d) vs all queries\n", b.Resamples, b.Seed)
		fmt.Fprintln(tw, "measure\tmean τ\t5th percentile τ\tmean τ_AP")
		for _, m := range rep.Measures {
			bt := b.Measures[m]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m, opt(bt.MeanTau), opt(bt.P5Tau), opt(bt.MeanTauAP))
		}
	}
	return tw.Flush()
}
