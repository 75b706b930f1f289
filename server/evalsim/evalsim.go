// Package evalsim plans a judging budget before anyone judges (issue 24):
// it judges a project's queries with each pooling strategy, the gold qrels
// as the oracle, and asks how well the runs' measures come out under each
// strategy's judgments — the sampled pool (strategy "sample") through the
// estimators of server/estimate (Horvitz–Thompson / statAP / infNDCG with
// design-based intervals), every other strategy the usual way (an unjudged
// document counts as not relevant). Each measure's accuracy is reported
// against its value under the full gold: Kendall τ and τ_AP of the run
// ranking, RMSE and the largest absolute error over runs, and for the
// sample the share of 95 % intervals that contain the full-gold value.
//
// It is laboratory code: `boolpool pool simulate --estimate` and the
// `estimate` suite of `boolpool-lab bench` use it; no serving path does.
package evalsim

import (
	"context"
	"fmt"
	"math"
	"slices"

	"boolpool/server/estimate"
	"boolpool/server/metrics"
	"boolpool/server/pooling"
	"boolpool/server/vocab"
)

// Sample is the strategy name of the stratified sampled pool.
const Sample = vocab.StrategySample

// Strategies lists the strategies Simulate knows: the gold simulation's
// plus the sampled pool.
func Strategies() []string { return vocab.Strategies(vocab.Estimate) }

// Query is one query of the simulation with its gold.
type Query struct {
	ID   string
	Text string
	Rel  map[string]bool // relevant documents (the oracle)
}

// Input is everything Simulate reads.
type Input struct {
	Queries []Query       // queries with at least one relevant document
	Runs    []pooling.Run // full rankings, evaluated and pooled
	// Proxy is each query's proxy ranking of the corpus (e.g. BM25 of the
	// query text) for the sample's corpus stratum; Corpus every document
	// id (for its Rest part). Both only with Sample.Corpus.
	Proxy  map[string][]string
	Corpus []string

	Strategies []string
	Depth      int // pool depth of the pool strategies (depth, docid, mtf, bandit)
	Budget     int // judgments per strategy (required)
	Measures   []metrics.Spec
	Sample     estimate.SampleConfig // the design; its rates < 1 are scaled to Budget
	Bandit     pooling.BanditOptions
	CAL        *pooling.CALSim // needed for strategy cal
	Levels     []float64
	// PerQueryOnly turns off the pooled estimate of sparse strata
	// (estimate.Input.PoolSparse): every stratum from its own
	// Horvitz–Thompson sum.
	PerQueryOnly bool
}

// Accuracy is one measure's agreement under a strategy with the full gold.
type Accuracy struct {
	KendallTau float64 `json:"kendall_tau"`
	TauAP      float64 `json:"tau_ap"`
	RMSE       float64 `json:"rmse"`
	MaxAbsErr  float64 `json:"max_abs_err"`
	// CICoverage is the share of runs whose interval contains the
	// full-gold value; nil where the strategy gives no interval.
	CICoverage *float64 `json:"ci_coverage"`
}

// RunValue is one run's measure under the full gold and under a strategy.
type RunValue struct {
	Truth float64  `json:"truth"`
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
}

// Relevant compares the sample's estimated number of relevant documents
// with the gold count.
type Relevant struct {
	Gold    int     `json:"gold"`
	Est     float64 `json:"est"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	RelErr  float64 `json:"rel_err"` // (est − gold) / gold
	Covered bool    `json:"covered"`
}

// StrategyResult is one strategy's judging outcome and its estimates.
type StrategyResult struct {
	pooling.GoldResult
	Estimate map[string]Accuracy            `json:"estimate"`
	Relevant *Relevant                      `json:"relevant_total,omitempty"`
	Runs     map[string]map[string]RunValue `json:"runs"` // measure → run → values
}

// Summary is the `pool simulate --estimate --json` contract: the gold
// simulation's fields plus, per strategy, "estimate".
type Summary struct {
	Queries    int                       `json:"queries"`
	Gold       int                       `json:"gold"`
	RunNames   []string                  `json:"run_names"`
	Measures   []string                  `json:"measures"`
	Budget     int                       `json:"budget"`
	Strategies map[string]StrategyResult `json:"strategies"`
	// SampleDesign is the sample's design after scaling to the budget.
	SampleDesign *estimate.SampleConfig `json:"sample_design,omitempty"`
	Order        []string               `json:"-"`
	Levels       []float64              `json:"-"`
}

// Simulate judges in.Queries with every strategy (the gold as the oracle,
// each strategy capped at in.Budget judgments) and compares the runs'
// measures under each strategy's judgments with the full gold.
func Simulate(ctx context.Context, in Input) (Summary, error) {
	if err := vocab.CheckStrategies(vocab.Estimate, in.Strategies); err != nil {
		return Summary{}, fmt.Errorf("evalsim: %w", err)
	}
	if in.Budget < 1 {
		return Summary{}, fmt.Errorf("evalsim: a budget is required")
	}
	if len(in.Measures) == 0 {
		return Summary{}, fmt.Errorf("evalsim: no measures")
	}
	if len(in.Runs) < 2 {
		return Summary{}, fmt.Errorf("evalsim: at least two runs are needed to rank them")
	}
	qs := append([]Query(nil), in.Queries...)
	slices.SortFunc(qs, func(a, b Query) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	sum := Summary{Queries: len(qs), Budget: in.Budget, Strategies: map[string]StrategyResult{}, Order: in.Strategies, Levels: in.Levels}
	for _, r := range in.Runs {
		sum.RunNames = append(sum.RunNames, r.Name)
	}
	for _, m := range in.Measures {
		sum.Measures = append(sum.Measures, m.String())
	}
	gqs := make([]pooling.GoldQuery, len(qs))
	for i, q := range qs {
		sum.Gold += len(q.Rel)
		gqs[i] = pooling.GoldQuery{ID: q.ID, Text: q.Text, Lists: pooling.TopLists(q.ID, in.Runs, in.Depth), Rel: q.Rel}
	}
	truth, err := evaluatePlain(ctx, qs, in.Runs, in.Measures, func(qi int) map[string]int { return grades(qs[qi].Rel, nil) })
	if err != nil {
		return Summary{}, err
	}

	var designs map[string]estimate.QueryDesign
	seqs := make([]pooling.Sequencer, len(in.Strategies))
	for i, name := range in.Strategies {
		if name != Sample {
			s, err := pooling.Sequencers([]string{name}, in.Bandit, in.CAL)
			if err != nil {
				return Summary{}, err
			}
			seqs[i] = s[0]
			continue
		}
		cfg, ds, err := drawSample(qs, in)
		if err != nil {
			return Summary{}, err
		}
		designs = ds
		sum.SampleDesign = &cfg
		seqs[i] = func(_ context.Context, q pooling.GoldQuery, _ int) ([]string, error) {
			d := designs[q.ID]
			out := make([]string, len(d.Units))
			for j, u := range d.Units {
				out[j] = u.Doc
			}
			return out, nil
		}
	}
	gs, err := pooling.SimulateGold(ctx, gqs, in.Strategies, seqs, in.Levels, in.Budget)
	if err != nil {
		return Summary{}, err
	}
	sum.Gold = gs.Gold
	for _, name := range in.Strategies {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		gr := gs.Strategies[name]
		res := StrategyResult{GoldResult: gr, Estimate: map[string]Accuracy{}, Runs: map[string]map[string]RunValue{}}
		judgedGrades := func(qi int) map[string]int { return grades(qs[qi].Rel, gr.Judged[qi]) }
		if name == Sample {
			rep := estimate.Estimate(sampleInput(qs, in, designs, judgedGrades))
			for mi, m := range sum.Measures {
				vals := map[string]RunValue{}
				for ri, r := range rep.Runs {
					v := r.Means[m]
					lo, hi := v.Lo, v.Hi
					vals[r.Run] = RunValue{Truth: truth[mi][ri], Value: v.Est, Lo: &lo, Hi: &hi}
				}
				res.Runs[m] = vals
				res.Estimate[m] = accuracy(vals, sum.RunNames)
			}
			t := rep.RelevantTotal
			res.Relevant = &Relevant{Gold: sum.Gold, Est: t.Est, Lo: t.Lo, Hi: t.Hi,
				RelErr: (t.Est - float64(sum.Gold)) / math.Max(1, float64(sum.Gold)), Covered: t.Lo <= float64(sum.Gold) && float64(sum.Gold) <= t.Hi}
		} else {
			plain, err := evaluatePlain(ctx, qs, in.Runs, in.Measures, judgedGrades)
			if err != nil {
				return Summary{}, err
			}
			for mi, m := range sum.Measures {
				vals := map[string]RunValue{}
				for ri, r := range in.Runs {
					vals[r.Name] = RunValue{Truth: truth[mi][ri], Value: plain[mi][ri]}
				}
				res.Runs[m] = vals
				res.Estimate[m] = accuracy(vals, sum.RunNames)
			}
		}
		res.Judged = nil
		sum.Strategies[name] = res
	}
	return sum, nil
}

// grades is the qrels of one query: every judged document (all of rel
// when judged is nil) with grade 1 if relevant, else 0.
func grades(rel map[string]bool, judged map[string]bool) map[string]int {
	out := map[string]int{}
	if judged == nil {
		for d := range rel {
			out[d] = 1
		}
		return out
	}
	for d := range judged {
		if rel[d] {
			out[d] = 1
		} else {
			out[d] = 0
		}
	}
	return out
}

// evaluatePlain is measure × run → the mean over qs of the plain measure
// under the qrels of qrelsOf (unjudged = not relevant).
// It stops with ctx's error when ctx ends (checked per query).
func evaluatePlain(ctx context.Context, qs []Query, runs []pooling.Run, specs []metrics.Spec, qrelsOf func(qi int) map[string]int) ([][]float64, error) {
	out := make([][]float64, len(specs))
	for mi := range out {
		out[mi] = make([]float64, len(runs))
	}
	for qi, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		judged := qrelsOf(qi)
		for ri, r := range runs {
			v := metrics.EvaluateQuery(r.Lists[q.ID], judged, nil, specs, 1)
			for mi, s := range specs {
				out[mi][ri] += v[s.String()]
			}
		}
	}
	if len(qs) > 0 {
		for mi := range out {
			for ri := range out[mi] {
				out[mi][ri] /= float64(len(qs))
			}
		}
	}
	return out, nil
}

// drawSample scales the design to the budget and draws every query's
// sample with the generator a sampled pool uses (pooling.SampleRNG: one
// stream per query, so the draw does not depend on the order of the
// queries and equals what `boolpool pool --strategy sample` draws).
func drawSample(qs []Query, in Input) (estimate.SampleConfig, map[string]estimate.QueryDesign, error) {
	inputs := make([]estimate.QueryInput, len(qs))
	for i, q := range qs {
		inputs[i] = queryInput(q.ID, in)
	}
	cfg, err := estimate.ScaleToBudget(inputs, in.Sample, in.Budget)
	if err != nil {
		return cfg, nil, fmt.Errorf("evalsim: sample: %w", err)
	}
	out := make(map[string]estimate.QueryDesign, len(qs))
	for i, q := range qs {
		out[q.ID] = estimate.Draw(inputs[i], cfg, pooling.SampleRNG(cfg.Seed, q.ID))
	}
	return cfg, out, nil
}

func queryInput(qid string, in Input) estimate.QueryInput {
	lists := make([][]string, len(in.Runs))
	for i, r := range in.Runs {
		lists[i] = r.Lists[qid]
	}
	qi := estimate.QueryInput{Query: qid, Lists: lists}
	if in.Sample.Corpus != nil {
		qi.Proxy = in.Proxy[qid]
		if in.Sample.Corpus.Rest {
			qi.Corpus = in.Corpus
		}
	}
	return qi
}

func sampleInput(qs []Query, in Input, designs map[string]estimate.QueryDesign, judgedGrades func(int) map[string]int) estimate.Input {
	ei := estimate.Input{Designs: designs, Judged: map[string]map[string]int{}, Specs: in.Measures, MinRel: 1, PoolSparse: !in.PerQueryOnly}
	for qi, q := range qs {
		ei.Judged[q.ID] = judgedGrades(qi)
	}
	for _, r := range in.Runs {
		ei.Runs = append(ei.Runs, estimate.NamedRanking{Name: r.Name, Lists: r.Lists})
	}
	return ei
}

// accuracy compares a strategy's values with the truth over the runs.
func accuracy(vals map[string]RunValue, runs []string) Accuracy {
	truth, est := map[string]float64{}, map[string]float64{}
	var a Accuracy
	covered, withCI := 0, 0
	var sq float64
	for _, r := range runs {
		v := vals[r]
		truth[r], est[r] = v.Truth, v.Value
		e := math.Abs(v.Value - v.Truth)
		sq += e * e
		a.MaxAbsErr = math.Max(a.MaxAbsErr, e)
		if v.Lo != nil && v.Hi != nil {
			withCI++
			if *v.Lo-1e-12 <= v.Truth && v.Truth <= *v.Hi+1e-12 {
				covered++
			}
		}
	}
	if len(runs) > 0 {
		a.RMSE = math.Sqrt(sq / float64(len(runs)))
	}
	a.KendallTau = estimate.KendallTau(truth, est)
	a.TauAP = estimate.TauAP(truth, est)
	if withCI > 0 {
		c := float64(covered) / float64(withCI)
		a.CICoverage = &c
	}
	return a
}
