package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"text/tabwriter"
	"time"

	"boolpool/api"
	"boolpool/server/estimate"
	"boolpool/server/evalsim"
	"boolpool/server/export"
	"boolpool/server/pooling"
	"boolpool/server/vocab"
)

// simConfig is the design `pool simulate --strategies sample` draws: the
// flags of `pool --strategy sample` (the default strata when
// --sample-strata is empty; seed 0 is 1); --budget, not --sample-budget,
// scales it. Errors name the flag.
func (f *sampleFlags) simConfig() (estimate.SampleConfig, error) {
	cfg := estimate.DefaultConfig()
	if *f.budget != 0 {
		return cfg, fmt.Errorf("%w: --sample-budget: pool simulate takes --budget", errUsage)
	}
	if *f.strata != "" {
		strata, err := api.ParseSampleStrata(*f.strata)
		if err != nil {
			return cfg, fmt.Errorf("%w: --sample-strata: %v", errUsage, err)
		}
		cfg.Strata = nil
		for _, s := range strata {
			cfg.Strata = append(cfg.Strata, estimate.RankStratum{From: s.From, To: s.To, Rate: s.Rate})
		}
	}
	if *f.corpus != "" || *f.corpusRest != 0 {
		c := &estimate.CorpusStratum{}
		var err error
		if c.Bounds, c.Rates, err = api.ParseSampleCorpus(*f.corpus); err != nil {
			return cfg, fmt.Errorf("%w: --sample-corpus: %v", errUsage, err)
		}
		if *f.corpusRest != 0 {
			c.Rest, c.RestRate = true, *f.corpusRest
		}
		cfg.Corpus = c
	}
	cfg.Seed = max(*f.seed, 1)
	if err := cfg.Check(); err != nil {
		return cfg, fmt.Errorf("%w: --sample-strata/--sample-corpus: %v", errUsage, err)
	}
	return cfg, nil
}

type estimateRequest struct {
	db, project, split, qrelsFile string
	runs, strategies              []string
	depth, budget                 int
	measures                      string
	sample                        *sampleFlags
	levels                        []float64
	asJSON                        bool
	bandit                        pooling.BanditOptions
	cal                           pooling.CALSim
}

// runPoolSimulateEstimate is `pool simulate --estimate`: every strategy
// judges with the qrels as the oracle up to --budget, and each run's
// measures under those judgments are compared with the full qrels.
func runPoolSimulateEstimate(ctx context.Context, r estimateRequest, stdout, stderr io.Writer) error {
	if r.measures == "" {
		return fmt.Errorf("%w: strategy sample needs --estimate MEASURES (e.g. ndcg@10,recall@100,ap)", errUsage)
	}
	if r.budget < 1 {
		return fmt.Errorf("%w: --estimate needs --budget N (the judgments every strategy may spend)", errUsage)
	}
	if len(r.runs) < 2 {
		return fmt.Errorf("%w: --runs: give at least two runs to rank", errUsage)
	}
	if err := vocab.CheckStrategies(vocab.Estimate, r.strategies); err != nil {
		return fmt.Errorf("%w: --strategies: %v", errUsage, err)
	}
	if _, err := evalsim.ParseMeasures(r.measures); err != nil {
		return fmt.Errorf("%w: --estimate: %v", errUsage, err)
	}
	cfg, err := r.sample.simConfig()
	if err != nil {
		return err
	}
	st, p, err := openProject(ctx, r.db, r.project)
	if err != nil {
		return err
	}
	defer st.Close()
	var rel map[string]map[string]bool
	if r.qrelsFile != "" {
		ids, err := export.ProjectIDMaps(ctx, st, p.ID)
		if err != nil {
			return err
		}
		if rel, err = readRelevant(ctx, r.qrelsFile, ids); err != nil {
			return err
		}
	}
	start := time.Now()
	sum, err := evalsim.SimulateProject(ctx, st, p.ID, evalsim.ProjectSpec{Runs: r.runs, Split: r.split, Depth: r.depth,
		Strategies: r.strategies, Budget: r.budget, Measures: r.measures, Sample: cfg, Bandit: r.bandit, CAL: r.cal,
		Levels: r.levels, Qrels: rel}, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "simulated in %s\n", time.Since(start).Round(time.Millisecond))
	if r.asJSON {
		return jsonOut(stdout, sum)
	}
	return printEstimateSimulation(stdout, sum)
}

func printEstimateSimulation(w io.Writer, sum evalsim.Summary) error {
	fmt.Fprintf(w, "%d queries, %d relevant (query, document) pairs in the gold, %d runs, budget %d judgments per strategy\n",
		sum.Queries, sum.Gold, len(sum.RunNames), sum.Budget)
	fmt.Fprintln(w, "each measure under the strategy's judgments vs the full qrels (unjudged = not relevant, except sample: estimates)")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tjudgments\tfound\tmeasure\tkendall τ\tτ_AP\tRMSE\tmax |err|\t95% CI coverage")
	for _, name := range sum.Order {
		res := sum.Strategies[name]
		for _, m := range sum.Measures {
			a := res.Estimate[m]
			cov := "-"
			if a.CICoverage != nil {
				cov = fmt.Sprintf("%.2f", *a.CICoverage)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.3f\t%.3f\t%.4f\t%.4f\t%s\n", name, res.Judgments, res.Found, m, a.KendallTau, a.TauAP, a.RMSE, a.MaxAbsErr, cov)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s, ok := sum.Strategies[evalsim.Sample]; ok && s.Relevant != nil {
		rv := s.Relevant
		fmt.Fprintf(w, "\nsample: estimated relevant documents %.0f (95%% CI %.0f–%.0f) vs %d in the gold (%+.1f %%, covered: %v)\n",
			rv.Est, rv.Lo, rv.Hi, rv.Gold, 100*rv.RelErr, rv.Covered)
	}
	for _, name := range sum.Order {
		res := sum.Strategies[name]
		for _, m := range sum.Measures {
			fmt.Fprintf(w, "\n%s, %s: run, full qrels, this strategy\n", name, m)
			runs := append([]string(nil), sum.RunNames...)
			sort.SliceStable(runs, func(i, j int) bool { return res.Runs[m][runs[i]].Truth > res.Runs[m][runs[j]].Truth })
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			for _, run := range runs {
				v := res.Runs[m][run]
				ci := ""
				if v.Lo != nil {
					ci = fmt.Sprintf("\t[%.4f, %.4f]", *v.Lo, *v.Hi)
				}
				fmt.Fprintf(tw, "  %s\t%.4f\t%.4f%s\n", run, v.Truth, v.Value, ci)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}
