package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"boolpool/encoders"
	"boolpool/server/atompool"
	"boolpool/server/atomsim"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/evalsim"
	"boolpool/server/export"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/trecfmt"
	"boolpool/server/vocab"
)

// runPool builds a judging pool from stored runs, in this process, through
// pooling.Make, the function the pool builder's pool job runs (saved as a
// draft, or with --publish published as the builder does); `pool simulate` compares
// judging orders with known qrels; `pool negatives` writes the explicit
// negatives of NOT queries from a membership file.
func runPool(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if sub, ok := subcommand(args, map[string]runFunc{"simulate": runPoolSimulate, "negatives": runPoolNegatives}); ok {
		return sub(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("pool", stderr, "usage: boolpool pool --project P --runs a,b,c --depth K --strategy depth|mtf|bandit|cal|atoms|sample [--probes] [--cal-batch N --cal-stop knee|paper-knee|none --cal-max N --cal-seed-runs N] [--atoms-batch N --atoms-max N] [--sample-strata 1-10:1,11-100:0.2,101-1000:0.05 --sample-budget N --sample-corpus 1000:0.02,10000:0.005 --sample-corpus-rest RATE --sample-seed S] [--publish]\n       boolpool pool simulate --project P --runs a,b,c --depth K --qrels FILE [--strategies docid,depth,mtf,bandit,cal] [--budget N] [--json] [--svg FILE] [--split S]\n       boolpool pool simulate --project P --runs a,b,c --qrels FILE --strategies depth,sample[,cal] --budget N --estimate ndcg@10,recall@100,ap [--sample-strata 1-10:1,11-100:0.2,101-1000:0.05] [--sample-corpus 1000:0.02 --sample-corpus-rest R] [--json]\n       boolpool pool negatives --project P --memberships FILE [--split S] [--out FILE]")
	pf := addProjectFlags(fs)
	runs := fs.String("runs", "", "comma-separated stored run `names` (required)")
	depth := fs.Int("depth", 10, "pool depth k per run")
	strategy := fs.String("strategy", pooling.Depth, "judging order: depth (rank order), mtf (Move-to-Front), bandit (MaxMean bandit) cal (continuous active learning over the whole corpus, growing as judgments arrive), atoms (constraint items in batches, published at once, growing as they are labelled) or sample (a stratified sample with inclusion probabilities, for unbiased estimates; --sample-*)")
	calBatch := fs.Int("cal-batch", pooling.DefaultCALBatch, "strategy cal: the first batch per query (then B + ceil(B/10))")
	calStop := fs.String("cal-stop", pooling.CALStopKnee, "strategy cal: stopping rule knee (the simulation's: ρ ≥ 6 from 100 judgments, or 20 judgments per relevant found + 50), paper-knee or none")
	calMax := fs.Int("cal-max", pooling.DefaultCALMax, "strategy cal: judgments per query at most")
	calSeedRuns := fs.Int("cal-seed-runs", 0, "strategy cal: the first batch starts with the top N of the runs' reciprocal-rank fusion")
	atomsBatch := fs.Int("atoms-batch", pooling.DefaultAtomsBatch, "strategy atoms: constraint items per batch")
	atomsCandidates := fs.String("atoms-candidates", pooling.AtomsCandidatesRuns, "strategy atoms: runs (the runs' top depth) or corpus (every document, ranked by an active learner per atom)")
	atomsMax := fs.Int("atoms-max", pooling.DefaultAtomsMax, "strategy atoms: constraint items of the pool at most")
	sample := addSampleFlags(fs) // cmd_pool_sample.go
	probes := fs.Bool("probes", false, "add the logic probes: BM25 top documents of each negated atom and each atom of an AND")
	probeDepth := fs.Int("probe-depth", 10, "documents per probe")
	split := fs.String("split", "", "only this split's queries")
	name := fs.String("name", "", "pool `name` (default: <strategy>-<depth>)")
	judgedK := fs.String("judged-k", "10,20,100", "k values for the Judged@k report")
	judgedRuns := fs.String("judged-runs", "", "further stored runs (not pooled) whose Judged@k against the pool is reported")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	publish := fs.Bool("publish", false, "publish the pool as relevance items, as the pool builder does (default: save a draft)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pf.project == "" || *runs == "" {
		return fmt.Errorf("%w: --project and --runs are required", errUsage)
	}
	ks, err := parseInts(*judgedK)
	if err != nil {
		return fmt.Errorf("%w: --judged-k: %v", errUsage, err)
	}
	sampleParams, err := sample.params(fs, *strategy)
	if err != nil {
		return err
	}
	if *name == "" {
		*name = fmt.Sprintf("%s-%d", *strategy, *depth)
		if *strategy == pooling.Sample {
			*name = "sample"
		}
	}
	st, p, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	spec := pooling.Spec{Name: *name, Runs: splitList(*runs), Depth: *depth, Strategy: *strategy,
		Probes: *probes, ProbeDepth: *probeDepth, Split: *split, JudgedK: ks, JudgedRuns: splitList(*judgedRuns),
		CAL:   pooling.CALParams{Batch: *calBatch, Stop: *calStop, Max: *calMax, SeedRuns: *calSeedRuns},
		Atoms: pooling.AtomsParams{Batch: *atomsBatch, Max: *atomsMax, Candidates: *atomsCandidates}, Sample: sampleParams}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var (
		m       pooling.Made
		created int
	)
	if *strategy == pooling.Atoms {
		// Live constraint pooling: published at once with its first batch.
		m.Report, created, err = atompool.Publish(ctx, st, p.ID, spec, 0, float64(p.GoldRate), log)
	} else {
		m, err = pooling.Make(ctx, st, p.ID, pooling.MakeRequest{Spec: spec, Publish: *publish}, log, nil)
	}
	rep := m.Report
	if err != nil {
		return sampleFlagError(err)
	}
	fmt.Fprintf(stderr, "pool %s built in %s\n", rep.Name, time.Since(start).Round(time.Millisecond))
	if rep.Strategy == pooling.Atoms {
		if *asJSON {
			return jsonOut(stdout, struct {
				pooling.Report
				ConstraintItems int `json:"constraint_items"`
			}{rep, created})
		}
		fmt.Fprintf(stdout, "pool %q (id %d, strategy atoms): published with %d constraint items (first batch of at most %d) over the %d candidates of %d queries (the runs' top %d); each labelled batch queues the next (an atoms-batch job run by serve or worker)\n",
			rep.Name, rep.PoolID, created, *atomsBatch, rep.Composition.Items, rep.Composition.Queries, rep.Depth)
		return nil
	}
	if *asJSON {
		return jsonOut(stdout, rep)
	}
	c := rep.Composition
	fmt.Fprintf(stdout, "pool %q (id %d): %d items over %d queries (%.1f per query); %d carry a probe label, %d found only by probes\n\n",
		rep.Name, rep.PoolID, c.Items, c.Queries, float64(c.Items)/float64(max(c.Queries, 1)), c.ProbeItems, c.ProbeOnly)
	if m.Published {
		fmt.Fprintf(stdout, "published: %d new relevance items (%d gold; %d entries without a stored document skipped), %d raters per item\n\n",
			m.Publish.Items, m.Publish.Gold, m.Publish.NoDocText, m.RatersPerItem)
	}
	if rep.Sample != nil {
		if err := printSampleReport(stdout, rep.Sample); err != nil {
			return err
		}
	}
	if rep.Strategy == pooling.CAL {
		fmt.Fprintf(stdout, "cal: first batches hold %d items a chosen run has within depth %d and %d found by active learning alone; publish the pool and the next batches follow the judgments\n\n",
			c.FromRuns, rep.Depth, c.FromCAL)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "run\tcontributed\tunique")
	for _, k := range ks {
		fmt.Fprintf(tw, "\tJudged@%d", k)
	}
	fmt.Fprintln(tw)
	for _, r := range c.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d", r.Run, r.Contributed, r.Unique)
		for _, k := range ks {
			fmt.Fprintf(tw, "\t%.3f", rep.JudgedAtK[r.Run][k])
		}
		fmt.Fprintln(tw)
	}
	for _, name := range splitList(*judgedRuns) {
		fmt.Fprintf(tw, "%s (not pooled)\t-\t-", name)
		for _, k := range ks {
			fmt.Fprintf(tw, "\t%.3f", rep.JudgedAtK[name][k])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "\noverlap (items found by both)\t")
	fmt.Fprint(tw, "\t")
	for i := range c.Runs {
		fmt.Fprintf(tw, "%d\t", i+1)
	}
	fmt.Fprintln(tw)
	for i, r := range c.Runs {
		fmt.Fprintf(tw, "%d %s\t", i+1, r.Run)
		for _, v := range c.Overlap[i] {
			fmt.Fprintf(tw, "%d\t", v)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func runPoolSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pool simulate", stderr, "")
	pf := addProjectFlags(fs)
	runs := fs.String("runs", "", "comma-separated stored run `names` (required)")
	depth := fs.Int("depth", 100, "pool depth k per run")
	split := fs.String("split", "", "only this split's queries")
	qrelsFile := fs.String("qrels", "", "TREC qrels `file` as the oracle (relevance >= 1 is relevant; default: the project's stored qrels)")
	levels := fs.String("levels", "0.5,0.8,0.9,0.95", "shares of ALL gold to report judgments_to for")
	strategies := fs.String("strategies", strings.Join(pooling.GoldStrategies(), ","), "strategies to compare")
	budget := fs.Int("budget", 0, "cap each strategy's total judgments (0: until its own stopping rule or the end of its pool)")
	discount := fs.Float64("discount", 1, "bandit: discount γ of past rewards (1 = stationary MaxMean; < 1 = MM-NS)")
	kneeRho := fs.Float64("cal-knee-rho", pooling.DefaultCALKnee().Rho, "cal: knee stopping rule's slope-ratio threshold")
	kneeMin := fs.Int("cal-knee-min", pooling.DefaultCALKnee().MinRank, "cal: never stop a query before this many judgments")
	kneeAdjust := fs.Bool("cal-knee-adjust", pooling.DefaultCALKnee().Adjust, "cal: lower the threshold by min(relevant found, 150) (the paper: --cal-knee-rho 156 --cal-knee-min 150 --cal-knee-adjust)")
	effortPerRel := fs.Float64("cal-effort", pooling.DefaultCALKnee().EffortPerRel, "cal: also stop a query after this many judgments per relevant found plus --cal-effort-base (0: off)")
	effortBase := fs.Int("cal-effort-base", pooling.DefaultCALKnee().EffortBase, "cal: the effort cap's base (judgments a query gets with nothing found)")
	calMax := fs.Int("cal-max", 1000, "cal: at most this many judgments per query")
	calSeedRuns := fs.Int("cal-seed-runs", 0, "cal: judge the top N of the fused runs before the first training round")
	calFeatures := fs.String("cal-features", pooling.CALFeaturesLexical, "cal: features, lexical or lexical+dense (the documents' stored vectors of --cal-encoder and the query's cosine; needs boolpool encode)")
	calEncoder := fs.String("cal-encoder", encoders.MiniLMStatic, "cal: dense encoder `name` of --cal-features lexical+dense")
	asJSON := fs.Bool("json", false, "print the JSON contract instead of the table")
	svg := fs.String("svg", "", "also write the recall-vs-judgments chart to this SVG `file`")
	boundMax := fs.Int("cal-bound-max", 20000, "cal-bound: judgments per query's review at most")
	estimateList := fs.String("estimate", "", "compare the runs' `measures` (e.g. ndcg@10,recall@100,ap) under each strategy's judgments with the full qrels; strategy sample gives estimates with intervals (needs --budget)")
	sf := addSampleFlags(fs)
	atomQrels := fs.String("atom-qrels", "", "strategies atoms, atoms-pools, cal-full, cal-bound (issue 13; not mixed with the others): atom oracle `FILE` (atom text<TAB>document<TAB>0|1)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := splitList(*strategies)
	wholeCorpus := isAtomStrategies(names) && !slices.Contains(names, atomsim.StrategyAtomsPools)
	if *pf.project == "" || (*runs == "" && !wholeCorpus) {
		return fmt.Errorf("%w: --project and --runs are required (--runs: not for atoms, cal-full, cal-bound alone)", errUsage)
	}
	if *depth < 1 || *budget < 0 || *calMax < 1 || *boundMax < 1 || *calSeedRuns < 0 || *effortPerRel < 0 || *effortBase < 0 {
		return fmt.Errorf("%w: --depth, --cal-max, --cal-bound-max must be positive and --budget, --cal-seed-runs, --cal-effort, --cal-effort-base not negative", errUsage)
	}
	var lv []float64
	for _, s := range splitList(*levels) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 || f > 1 {
			return fmt.Errorf("%w: --levels: %q is not in (0, 1]", errUsage, s)
		}
		lv = append(lv, f)
	}
	if isAtomStrategies(names) { // issue 13, cmd_pool_atoms.go
		return runPoolSimulateAtoms(ctx, *pf.db, *pf.project, names, splitList(*runs), *depth, *split, *atomQrels, *budget, *boundMax, lv, *asJSON, stdout, stderr)
	}
	if *estimateList != "" || slices.Contains(names, evalsim.Sample) {
		return runPoolSimulateEstimate(ctx, estimateRequest{db: *pf.db, project: *pf.project, runs: splitList(*runs), depth: *depth, split: *split,
			qrelsFile: *qrelsFile, strategies: names, budget: *budget, measures: *estimateList, sample: sf, levels: lv, asJSON: *asJSON,
			bandit: pooling.BanditOptions{Discount: *discount},
			cal:    pooling.CALSim{Knee: cal.KneeOptions{MinRank: *kneeMin, Rho: *kneeRho, Adjust: *kneeAdjust, EffortPerRel: *effortPerRel, EffortBase: *effortBase}, MaxPerQuery: *calMax, SeedRuns: *calSeedRuns}},
			stdout, stderr)
	}
	if err := vocab.CheckStrategies(vocab.Gold, names); err != nil {
		return fmt.Errorf("%w: --strategies: %v", errUsage, err)
	}
	if *calFeatures != pooling.CALFeaturesLexical && *calFeatures != pooling.CALFeaturesDense {
		return fmt.Errorf("%w: --cal-features: %q is not lexical or lexical+dense", errUsage, *calFeatures)
	}
	st, p, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var rel map[string]map[string]bool
	if *qrelsFile != "" {
		ids, err := export.ProjectIDMaps(ctx, st, p.ID)
		if err != nil {
			return err
		}
		if rel, err = readRelevant(ctx, *qrelsFile, ids); err != nil {
			return err
		}
	}
	start := time.Now()
	spec := pooling.GoldSpec{Runs: splitList(*runs), Depth: *depth, Split: *split, Strategies: names, Levels: lv, Budget: *budget,
		Bandit: pooling.BanditOptions{Discount: *discount}, Qrels: rel,
		CAL: pooling.CALSim{Knee: cal.KneeOptions{MinRank: *kneeMin, Rho: *kneeRho, Adjust: *kneeAdjust, EffortPerRel: *effortPerRel, EffortBase: *effortBase}, MaxPerQuery: *calMax, SeedRuns: *calSeedRuns}}
	if *calFeatures == pooling.CALFeaturesDense && slices.Contains(names, pooling.CAL) {
		release, err := calDenseSim(ctx, st, p.ID, *calEncoder, &spec.CAL, stderr)
		if err != nil {
			return err
		}
		defer release()
	}
	sum, err := pooling.SimulateGoldProject(ctx, st, p.ID, spec, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "simulated in %s\n", time.Since(start).Round(time.Millisecond))
	if *svg != "" {
		if err := writeFileWith(*svg, func(w io.Writer) error { return pooling.WriteRecallSVG(w, sum) }); err != nil {
			return err
		}
	}
	if *asJSON {
		return jsonOut(stdout, sum)
	}
	return printGoldSimulation(stdout, sum, *depth)
}

// readRelevant reads a TREC qrels file: query id → documents of relevance
// >= 1, the file's tokens read as the project's ids (ids).
func readRelevant(ctx context.Context, file string, ids trecfmt.IDMaps) (map[string]map[string]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := trecfmt.ReadQrels(ctx, f, file)
	if err != nil {
		return nil, err
	}
	rel := map[string]map[string]bool{}
	for _, q := range qs {
		if q.Rel >= 1 {
			qid := ids.Queries.Decode(q.QueryID)
			if rel[qid] == nil {
				rel[qid] = map[string]bool{}
			}
			rel[qid][ids.Docs.Decode(q.DocID)] = true
		}
	}
	return rel, nil
}

// writeFileWith creates file and writes it with fn.
func writeFileWith(file string, fn func(io.Writer) error) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func printGoldSimulation(w io.Writer, sum pooling.GoldSummary, depth int) error {
	fmt.Fprintf(w, "%d queries, %d relevant (query, document) pairs in the gold; depth-%d pools; recall is of ALL gold\n\n", sum.Queries, sum.Gold, depth)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "strategy\tjudgments\tfound\trecall\tjudgments/found")
	for _, l := range sum.Levels {
		fmt.Fprintf(tw, "\tto %.4g%%", 100*l)
	}
	fmt.Fprintln(tw)
	for _, name := range sum.Order {
		r := sum.Strategies[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.1f", name, r.Judgments, r.Found, r.Recall, float64(r.Judgments)/float64(max(r.Found, 1)))
		for _, l := range sum.Levels {
			if n := r.JudgmentsTo[pooling.LevelKey(l)]; n != nil {
				fmt.Fprintf(tw, "\t%d", *n)
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func runPoolNegatives(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pool negatives", stderr, "")
	pf := addProjectFlags(fs)
	memberships := fs.String("memberships", "", "DebQUEST memberships.tsv(.gz) `file` (required)")
	split := fs.String("split", "", "only this split's queries")
	out := fs.String("out", "-", "TREC qrels `file` of the explicit negatives (- = stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pf.project == "" || *memberships == "" {
		return fmt.Errorf("%w: --project and --memberships are required", errUsage)
	}
	f, err := os.Open(*memberships)
	if err != nil {
		return err
	}
	m, err := pooling.ReadMemberships(f)
	f.Close()
	if err != nil {
		return err
	}
	st, p, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	qs, err := st.ListQueries(ctx, p.ID, *split)
	if err != nil {
		return err
	}
	var lines []trecfmt.Qrel
	withNeg, mismatched := 0, 0
	for _, q := range qs {
		if len(q.Expression) == 0 || string(q.Expression) == "null" {
			continue
		}
		ids, err := pooling.AtomIDs(q.Metadata)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ExtID, err)
		}
		e, err := boolexpr.ParseJSON(q.Expression, len(ids))
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ExtID, err)
		}
		answers, negs, err := pooling.GoldSets(e, ids, m)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ExtID, err)
		}
		// The recomputed answers must be the gold set: a check that atom
		// order and expression agree.
		gold := append([]string(nil), q.AnswerDocs...)
		sort.Strings(gold)
		if strings.Join(gold, "\x00") != strings.Join(answers, "\x00") {
			mismatched++
		}
		if len(negs) > 0 {
			withNeg++
		}
		for _, d := range negs {
			lines = append(lines, trecfmt.Qrel{QueryID: q.ExtID, Iter: "0", DocID: d, Rel: 1})
		}
	}
	if mismatched > 0 {
		return fmt.Errorf("%d queries' recomputed answer sets differ from their gold sets: wrong memberships file or atom order", mismatched)
	}
	fmt.Fprintf(stderr, "%d explicit negatives for %d queries (of %d; gold sets recomputed exactly)\n", len(lines), withNeg, len(qs))
	tokens, err := export.ProjectIDMaps(ctx, st, p.ID)
	if err != nil {
		return err
	}
	for i, l := range lines {
		lines[i].QueryID, lines[i].DocID = tokens.Queries.Encode(l.QueryID), tokens.Docs.Encode(l.DocID)
	}
	if *out == "-" {
		return trecfmt.WriteQrels(ctx, stdout, lines)
	}
	w, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := trecfmt.WriteQrels(ctx, w, lines); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// openProject opens the store and the project name (the --project flag's
// value; an unknown one is an error naming the flag); the caller closes
// the store.
func openProject(ctx context.Context, db, name string) (*store.Store, store.Project, error) {
	st, err := openStore(ctx, db)
	if err != nil {
		return nil, store.Project{}, err
	}
	p, err := st.ProjectByName(ctx, name)
	if err != nil {
		st.Close()
		if errors.Is(err, store.ErrNotFound) {
			return nil, store.Project{}, fmt.Errorf("--project: no project %q", name)
		}
		return nil, store.Project{}, err
	}
	return st, p, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", x)
		}
		out = append(out, n)
	}
	return out, nil
}
