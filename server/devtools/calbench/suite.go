// Package calbench is the "cal" suite of `boolpool-lab bench`: continuous
// active learning (server/cal) on the full DebQUEST corpus (60,535
// documents) and its val queries. It measures one training + scoring round
// against one exact BM25 query over the same corpus, and runs `pool
// simulate`'s simulation against ALL the val gold for every strategy
// (docid, depth, mtf, bandit over depth-100 pools of the six lexical runs,
// and cal) from one run, reporting judgments_to 0.5 / 0.8 / 0.9 / 0.95 (and
// 0.25 / 0.4) side by side. It needs the shared data (BOOLPOOL_SHARED_DATA).
package calbench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"boolpool/server/cal"
	"boolpool/server/devtools/bench"
	"boolpool/server/devtools/valproject"
	"boolpool/server/lexical"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
)

// Suite returns the cal suite.
func Suite() bench.Suite { return bench.Suite{Name: "cal", Run: run} }

// levels: the 0.5 / 0.8 / 0.9 / 0.95, and 0.25 / 0.4, which the
// pool-bound strategies reach before their 0.5 ceiling.
var levels = []float64{0.25, 0.4, 0.5, 0.8, 0.9, 0.95}

func run(ctx context.Context, env *bench.Env) ([]bench.Row, error) {
	const suite = "cal"
	if env.SharedData == "" {
		return []bench.Row{{Suite: suite, Name: "skipped", Note: "needs BOOLPOOL_SHARED_DATA (full DebQUEST corpus)"}}, nil
	}
	dir := filepath.Join(env.SharedData, "debquest")
	vp, err := valproject.Load(ctx, env.Store, dir, "bench-cal", env.Log)
	if err != nil {
		return nil, err
	}
	p, ix, queries := vp.Store, vp.Index, vp.Queries
	var rows []bench.Row
	t0 := time.Now()
	f := cal.FromIndex(ix)
	rows = append(rows, bench.Row{Suite: suite, Name: "tf-idf features from the stored lexical index", Value: float64(time.Since(t0).Microseconds()) / 1000, Unit: "ms",
		Note: fmt.Sprintf("%d documents, %d terms, %d weights; once per project and process", f.NumDocs(), f.Dim(), f.NNZ())})
	engine := cal.NewEngine(f, cal.DefaultOptions())

	rel, err := pooling.StoredRelevant(ctx, env.Store, p.ID)
	if err != nil {
		return nil, err
	}
	roundRow, err := roundTimes(ctx, env, engine, ix, queries, rel)
	if err != nil {
		return nil, err
	}
	rows = append(rows, roundRow)

	t0 = time.Now()
	spec := pooling.GoldSpec{Runs: valproject.RunMethods, Depth: valproject.PoolDepth, Split: "val", Strategies: pooling.GoldStrategies(), Levels: levels,
		CAL: pooling.CALSim{Engine: engine, Knee: pooling.DefaultCALKnee(), MaxPerQuery: 1000}}
	sum, err := pooling.SimulateGoldProject(ctx, env.Store, p.ID, spec, env.Log)
	if err != nil {
		return nil, err
	}
	took := time.Since(t0)
	rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("simulation against ALL val gold (%d queries, %d relevant pairs)", sum.Queries, sum.Gold),
		Value: took.Seconds(), Unit: "s",
		Note: fmt.Sprintf("depth-%d pools of %d lexical runs; cal: the fused runs as a feature, knee ρ >= %g from rank %d or %g judgments per relevant found + %d, at most 1000 per query; queries interleaved one judgment per turn",
			valproject.PoolDepth, len(valproject.RunMethods), spec.CAL.Knee.Rho, spec.CAL.Knee.MinRank, spec.CAL.Knee.EffortPerRel, spec.CAL.Knee.EffortBase)})
	for _, name := range sum.Order {
		r := sum.Strategies[name]
		rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("%s: recall of all gold at its end", name), Value: r.Recall, Unit: "share",
			Note: fmt.Sprintf("%d judgments, %d found (%.1f judgments per relevant)", r.Judgments, r.Found, float64(r.Judgments)/float64(max(r.Found, 1)))})
	}
	// cal at the pools' effort: the budget is what docid judged (its whole
	// pools), cal's stopping rule ignored.
	budget := sum.Strategies[pooling.DocID].Judgments
	bspec := spec
	bspec.Strategies, bspec.Budget = []string{pooling.CAL}, budget
	bsum, err := pooling.SimulateGoldProject(ctx, env.Store, p.ID, bspec, env.Log)
	if err != nil {
		return nil, err
	}
	br := bsum.Strategies[pooling.CAL]
	rows = append(rows, bench.Row{Suite: suite, Name: "cal: recall of all gold at the pools' size (--budget = docid's judgments, no stopping rule)", Value: br.Recall, Unit: "share",
		Note: fmt.Sprintf("%d judgments, %d found (%.1f judgments per relevant); the pool strategies: %.3f; judgments to %s", br.Judgments, br.Found,
			float64(br.Judgments)/float64(max(br.Found, 1)), sum.Strategies[pooling.DocID].Recall, levelList(br))})
	for _, l := range levels {
		key := pooling.LevelKey(l)
		need := int(math.Ceil(l*float64(sum.Gold) - 1e-9))
		for _, name := range sum.Order {
			r := sum.Strategies[name]
			row := bench.Row{Suite: suite, Name: fmt.Sprintf("judgments to %.0f%% of all gold: %s", 100*l, name), Unit: "judgments"}
			if n := r.JudgmentsTo[key]; n != nil {
				row.Value = float64(*n)
				row.Note = fmt.Sprintf("%.1f judgments per relevant found", float64(*n)/float64(need))
			} else {
				row.Name += " (never reached)"
				row.Value, row.Unit = r.Recall, "share (recall at its end)"
				row.Note = fmt.Sprintf("after all its %d judgments", r.Judgments)
			}
			if name == pooling.CAL && l == 0.9 {
				n := r.JudgmentsTo[key]
				row = row.WithTarget("<= 10 per relevant found", n != nil && float64(*n) <= 10*float64(need))
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// roundTimes reviews queries with the gold as the oracle for 50 judgments
// each, then times one more round (train with the prior as a feature +
// score the corpus + pick 20)
// against one exact BM25 query of the same text, alternately.
func roundTimes(ctx context.Context, env *bench.Env, e *cal.Engine, ix *lexical.Index, queries []retrieval.Query, rel map[string]map[string]bool) (bench.Row, error) {
	n := 20
	if env.Quick {
		n = 5
	}
	var roundMs, bm25Ms []float64
	a := lexical.NewAnalyzer()
	for i, q := range queries[:min(n, len(queries))] {
		labels := map[string]bool{}
		var err error
		// The prior, a feature of every round: the query's BM25 top 600
		// (the size of the fusion of the six depth-100 runs).
		var prior []string
		for _, h := range ix.Search(ix.QueryVector(a, q.Text), 600) {
			prior = append(prior, ix.DocID(h.Doc))
		}
		// 50 judgments of AutoTAR's first rounds, labelled by the gold.
		s := e.NewSession(q.Text, prior)
		for len(labels) < 50 {
			var b []string
			if b, err = s.Next(ctx); err != nil {
				return bench.Row{}, err
			}
			for _, d := range b {
				r := rel[q.ID][d]
				labels[d] = r
				if err := s.Judge(d, r); err != nil {
					return bench.Row{}, err
				}
			}
		}
		t0 := time.Now()
		if _, err := e.NextBatch(ctx, cal.Request{Query: q.Text, Labels: labels, Prior: prior, Size: 20, Round: i}); err != nil {
			return bench.Row{}, err
		}
		t1 := time.Now()
		ix.Search(ix.QueryVector(a, q.Text), 1000)
		t2 := time.Now()
		roundMs = append(roundMs, float64(t1.Sub(t0).Microseconds())/1000)
		bm25Ms = append(bm25Ms, float64(t2.Sub(t1).Microseconds())/1000)
	}
	c, r := bench.Median(roundMs), bench.Median(bm25Ms)
	row := bench.Row{Suite: "cal", Name: fmt.Sprintf("one cal round over %d documents (train + score all + top 20), median of %d queries", e.Features().NumDocs(), len(roundMs)),
		Value: c, Unit: "ms", Note: fmt.Sprintf("after 50 judgments; p95 %.1f ms", bench.Percentile(roundMs, 95))}
	row = row.WithRef("one exact BM25 query (top 1000)", r)
	return row.WithTarget("<= 500 ms", c <= 500), nil
}

// levelList is "25%: n, 40%: n, …" of a result ("–": never reached).
func levelList(r pooling.GoldResult) string {
	var out []string
	for _, l := range levels {
		v := "–"
		if n := r.JudgmentsTo[pooling.LevelKey(l)]; n != nil {
			v = fmt.Sprint(*n)
		}
		out = append(out, fmt.Sprintf("%.0f%%: %s", 100*l, v))
	}
	return strings.Join(out, ", ")
}
