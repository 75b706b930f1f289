// Package atomsbench is the "atoms" suite of `boolpool-lab bench` (issue 13's
// target): constraint pooling against the query-level strategies on all
// DebQUEST val queries, from one run. First over the pools: atoms-pools and
// the pool orders over the same candidates (depth-100 pools of boolpool's
// six lexical runs over the 60,535 documents), cal over the whole corpus
// with its stopping rule. Then over the whole corpus (whole.go): atoms (a
// learner per atom), cal-full (a learner per query, no stopping rule) and
// the query-level bound cal-bound; the target row compares atoms
// to 95 % with the best query-level strategy to 90 %. It
// reports the judgments each needs to reach 0.5 / 0.8 / 0.9 / 0.95 of ALL
// query-level gold (an atom judgment costs one judgment) and the atoms'
// figure beside the best query-level strategy's. It needs the shared data
// (BOOLPOOL_SHARED_DATA): documents, val queries and the atom oracle
// atom-qrels-val.tsv.gz.
package atomsbench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"boolpool/server/atoms"
	"boolpool/server/atomsim"
	"boolpool/server/cal"
	"boolpool/server/devtools/bench"
	"boolpool/server/devtools/valproject"
	"boolpool/server/pooling"
)

// Suite returns the atoms suite.
func Suite() bench.Suite { return bench.Suite{Name: "atoms", Run: run} }

// levels: the 0.5 / 0.8 / 0.9 / 0.95 of all gold.
var levels = []float64{0.5, 0.8, 0.9, 0.95}

// queryLevel are the query-level strategies compared: the pool orders and
// cal (continuous active learning over the whole corpus, the cal suite's
// settings).
var queryLevel = []string{pooling.DocID, pooling.Depth, pooling.MTF, pooling.Bandit, pooling.CAL}

func run(ctx context.Context, env *bench.Env) ([]bench.Row, error) {
	const suite = "atoms"
	if env.SharedData == "" {
		return []bench.Row{{Suite: suite, Name: "skipped", Note: "needs BOOLPOOL_SHARED_DATA (full DebQUEST corpus and atom oracle)"}}, nil
	}
	dir := filepath.Join(env.SharedData, "debquest")
	oracle, err := atoms.ReadOracleFile(filepath.Join(dir, "atom-qrels-val.tsv.gz"))
	if err != nil {
		return nil, fmt.Errorf("atomsbench: %w", err)
	}
	t0 := time.Now()
	vp, err := valproject.Load(ctx, env.Store, dir, "bench-atoms", env.Log)
	if err != nil {
		return nil, err
	}
	p, ix := vp.Store, vp.Index
	setup := time.Since(t0)

	t0 = time.Now()
	sum, err := pooling.SimulateGoldProject(ctx, env.Store, p.ID, pooling.GoldSpec{Runs: valproject.RunMethods, Depth: valproject.PoolDepth, Split: "val", Strategies: queryLevel, Levels: levels,
		CAL: pooling.CALSim{Engine: cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions()), Knee: pooling.DefaultCALKnee(), MaxPerQuery: 1000}}, env.Log)
	if err != nil {
		return nil, err
	}
	qlTook := time.Since(t0)
	t0 = time.Now()
	at, err := atomsim.SimulateProject(ctx, env.Store, p.ID, valproject.RunMethods, valproject.PoolDepth, "val", oracle, 0)
	if err != nil {
		return nil, err
	}
	atTook := time.Since(t0)

	rows := []bench.Row{{Suite: suite, Name: fmt.Sprintf("simulation against ALL val gold (%d queries, %d relevant pairs)", sum.Queries, sum.Gold),
		Value: (qlTook + atTook).Seconds(), Unit: "s",
		Note: fmt.Sprintf("depth-%d pools of %d lexical runs; query level %s, atoms %s (setup: import, index, runs %s); queries interleaved",
			valproject.PoolDepth, len(valproject.RunMethods), qlTook.Round(time.Millisecond), atTook.Round(time.Millisecond), setup.Round(time.Second))}}
	if at.Gold != sum.Gold {
		rows = append(rows, bench.Row{Suite: suite, Name: "gold differs between the simulations", Value: float64(at.Gold), Unit: "pairs",
			Note: fmt.Sprintf("atoms %d, query level %d (atoms: queries with an expression and atoms)", at.Gold, sum.Gold)})
	}
	atFound := 0
	if len(at.Steps) > 0 {
		atFound = at.Steps[len(at.Steps)-1].Found
	}
	rows = append(rows, bench.Row{Suite: suite, Name: "atoms-pools: recall of all gold at its end", Value: at.Recall(), Unit: "share",
		Note: fmt.Sprintf("%d atom judgments, %d found (%.1f judgments per relevant)", len(at.Steps), atFound, float64(len(at.Steps))/float64(max(atFound, 1)))})
	for _, name := range sum.Order {
		r := sum.Strategies[name]
		rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("%s: recall of all gold at its end", name), Value: r.Recall, Unit: "share",
			Note: fmt.Sprintf("%d judgments, %d found", r.Judgments, r.Found)})
	}
	for _, l := range levels {
		key := pooling.LevelKey(l)
		need := int(math.Ceil(l*float64(sum.Gold) - 1e-9))
		// The best query-level strategy at this level: the fewest judgments.
		best, bestN := "", 0
		for _, name := range sum.Order {
			if n := sum.Strategies[name].JudgmentsTo[key]; n != nil && (best == "" || *n < bestN) {
				best, bestN = name, *n
			}
		}
		row := bench.Row{Suite: suite, Name: fmt.Sprintf("judgments to %.0f%% of all gold: atoms-pools", 100*l), Unit: "judgments"}
		n, ok := at.JudgmentsTo(l)
		if ok {
			row.Value = float64(n)
			row.Note = fmt.Sprintf("%.1f judgments per relevant found", float64(n)/float64(max(need, 1)))
		} else {
			row.Name += " (never reached)"
			row.Value, row.Unit = at.Recall(), "share (recall at its end)"
			row.Note = fmt.Sprintf("after all its %d judgments", len(at.Steps))
		}
		if best != "" && ok {
			row = row.WithRef("best query-level strategy ("+best+")", float64(bestN))
		} else if best == "" {
			row.Note += "; no query-level strategy reaches it"
		} else {
			row.Note += fmt.Sprintf("; best query-level (%s): %d", best, bestN)
		}
		rows = append(rows, row)
	}
	whole, err := wholeCorpus(ctx, env, p.ID, oracle, ix, sum)
	if err != nil {
		return nil, err
	}
	return append(rows, whole...), nil
}
