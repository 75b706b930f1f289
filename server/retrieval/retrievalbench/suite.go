// Package retrievalbench is the "retrieval" suite of `boolpool bench`: on
// the full DebQUEST corpus (60,535 documents) and its val queries it
// measures the lexical index build, per-method query latency (p50 / p95,
// one query at a time), the time to pool every val query, and the judging
// simulation (judgments needed to find 50 / 80 / 90 % of the relevant
// documents per strategy, against depth-k pooling judged in document-id
// order and in rank order). It needs the shared data (BOOLPOOL_SHARED_DATA).
package retrievalbench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"boolpool/encoders"
	"boolpool/server/bench"
	"boolpool/server/ingest"
	"boolpool/server/lexical"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// Suite returns the retrieval suite.
func Suite() bench.Suite { return bench.Suite{Name: "retrieval", Run: run} }

// Methods are the runs the suite times and pools (default parameters).
var lexicalMethods = []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"}
var denseMethods = []string{"dense-vanilla", "dense-decomposed", "dense-algebra"}

const (
	depth      = 1000 // results per query
	poolDepth  = 100
	probeDepth = 10
)

func run(ctx context.Context, env *bench.Env) ([]bench.Row, error) {
	const suite = "retrieval"
	if env.SharedData == "" {
		return []bench.Row{{Suite: suite, Name: "skipped", Note: "needs BOOLPOOL_SHARED_DATA (full DebQUEST corpus)"}}, nil
	}
	dir := filepath.Join(env.SharedData, "debquest")
	p, err := env.Store.EnsureProject(ctx, "bench-retrieval")
	if err != nil {
		return nil, err
	}
	if _, err := ingest.Files(ctx, env.Store, p.ID, "quest", []string{filepath.Join(dir, "documents.jsonl.gz"), filepath.Join(dir, "val.jsonl")}, ingest.Options{}); err != nil {
		return nil, err
	}
	var rows []bench.Row
	var ix *lexical.Index
	buildSec, err := bench.Time(1, func() error {
		var err error
		ix, err = retrieval.BuildLexical(ctx, env.Store, p.ID, lexical.DefaultParams(), env.Log)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("lexical index build (%d docs, %d terms, stored)", ix.NumDocs(), ix.NumTerms()), Value: buildSec, Unit: "s"})
	queries, err := retrieval.LoadQueries(ctx, env.Store, p.ID, "val")
	if err != nil {
		return nil, err
	}
	timed := queries
	if env.Quick {
		timed = queries[:min(40, len(queries))]
	}

	deps := retrieval.Deps{Lexical: ix}
	methods := append([]string(nil), lexicalMethods...)
	encNote := ""
	if dense, note, closeDense, err := memoryDense(ctx, env, p.ID); err != nil {
		encNote = "dense methods skipped: " + err.Error()
		rows = append(rows, bench.Row{Suite: suite, Name: "dense methods", Note: encNote})
	} else {
		defer closeDense()
		deps.Dense = dense
		methods = append(methods, denseMethods...)
		encNote = note
	}

	runs := make([]pooling.Run, 0, len(methods))
	for _, name := range methods {
		m, err := retrieval.New(name, nil, deps)
		if err != nil {
			return nil, err
		}
		var ms []float64
		bar := retrieval.NewProgress(env.Progress, "latency "+name, len(timed))
		for _, q := range timed {
			t0 := time.Now()
			if _, err := m.Retrieve(ctx, q, depth); err != nil {
				bar.Done()
				return nil, err
			}
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
			bar.Add(1)
		}
		bar.Done()
		note := "one query at a time, top 1000"
		if _, isDense := denseSet[name]; isDense {
			note += "; " + encNote
		}
		rows = append(rows,
			bench.Row{Suite: suite, Name: name + " latency p50", Value: bench.Percentile(ms, 50), Unit: "ms", Note: note},
			bench.Row{Suite: suite, Name: name + " latency p95", Value: bench.Percentile(ms, 95), Unit: "ms"})
		res, err := retrieval.RunAll(ctx, m, queries, poolDepth, runtime.GOMAXPROCS(0), nil)
		if err != nil {
			return nil, err
		}
		runs = append(runs, toRun(name, res))
	}

	// Pooling every val query: depth-100 over all runs plus the logic probes.
	for _, strategy := range []string{pooling.Depth, pooling.MTF, pooling.Bandit} {
		items := 0
		sec, err := bench.Time(env.Repeats, func() error {
			items = 0
			for _, q := range queries {
				var probes []pooling.Probe
				for _, pr := range retrieval.LogicProbes(ix, q, probeDepth) {
					probes = append(probes, pooling.Probe{Label: pr.Label, Docs: pr.Docs})
				}
				its, err := pooling.Build(q.ID, runs, probes, pooling.Options{Depth: poolDepth, Strategy: strategy}, pooling.NoJudgments)
				if err != nil {
					return err
				}
				items += len(its)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("pool all %d val queries (%s, depth %d, %d runs + probes)", len(queries), strategy, poolDepth, len(runs)),
			Value: sec * 1000, Unit: "ms", Note: fmt.Sprintf("%d items", items)})
	}

	// Simulation with the gold answers as the oracle.
	rel := map[string]map[string]bool{}
	err = env.Store.EachQrel(ctx, p.ID, "positive", "", func(q store.Qrel) error {
		if rel[q.QueryExtID] == nil {
			rel[q.QueryExtID] = map[string]bool{}
		}
		rel[q.QueryExtID][q.DocExtID] = q.Relevance >= 1
		return nil
	})
	if err != nil {
		return nil, err
	}
	qids := make([]string, len(queries))
	for i, q := range queries {
		qids[i] = q.ID
	}
	levels := []float64{0.5, 0.8, 0.9}
	sum, err := pooling.Simulate(qids, runs, poolDepth, rel, pooling.Strategies(), levels, pooling.BanditOptions{})
	if err != nil {
		return nil, err
	}
	rows = append(rows, bench.Row{Suite: suite, Name: fmt.Sprintf("simulation: depth-%d pool over %d runs", poolDepth, len(runs)),
		Value: float64(sum.PoolSize), Unit: "pairs",
		Note: fmt.Sprintf("%d queries with a relevant document in the pool; pool recall %.3f of the gold", sum.Queries, float64(sum.PoolRelevant)/float64(max(sum.QrelsRelevant, 1)))})
	byName := map[string]pooling.SimResult{}
	for _, r := range sum.Results {
		byName[r.Strategy] = r
	}
	for li, l := range levels {
		for _, s := range []string{pooling.Depth, pooling.MTF, pooling.Bandit} {
			v := float64(byName[s].TotalJudgments[li])
			row := bench.Row{Suite: suite, Name: fmt.Sprintf("judgments to find %.0f%% of pooled relevant: %s", 100*l, s), Value: v, Unit: "judgments"}
			row = row.WithRef("depth-k, docid order", float64(byName[pooling.DocID].TotalJudgments[li]))
			row.Note = fmt.Sprintf("vs depth-k in rank order: %.0f (%.2fx)", float64(byName[pooling.Depth].TotalJudgments[li]),
				float64(byName[pooling.Depth].TotalJudgments[li])/max(v, 1))
			if l == 0.9 && s != pooling.Depth {
				row = row.WithTarget(">= 1.43x (30% fewer)", row.Ratio >= 1/0.7)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

var denseSet = map[string]struct{}{"dense-vanilla": {}, "dense-decomposed": {}, "dense-algebra": {}}

func toRun(name string, res map[string][]retrieval.Result) pooling.Run {
	lists := make(map[string][]string, len(res))
	for q, rs := range res {
		docs := make([]string, len(rs))
		for i, r := range rs {
			docs[i] = r.DocID
		}
		lists[q] = docs
	}
	return pooling.Run{Name: name, Lists: lists}
}

// memoryDense encodes the corpus with the static MiniLM encoder into an
// exact in-memory index (the 2-core machine cannot encode 60k documents with
// the transformer within a benchmark run).
func memoryDense(ctx context.Context, env *bench.Env, projectID int64) (_ *retrieval.Dense, note string, closeFn func(), err error) {
	rt, err := encoders.NewRuntime(encoders.Config{CacheDir: env.CacheDir})
	if err != nil {
		return nil, "", nil, err
	}
	enc, err := rt.Open(ctx, encoders.MiniLMStatic)
	if err != nil {
		rt.Close()
		return nil, "", nil, err
	}
	closeFn = func() { enc.Close(); rt.Close() }
	defer func() {
		if err != nil {
			closeFn()
		}
	}()
	var ids, texts []string
	err = env.Store.EachDocument(ctx, projectID, func(d store.Document) error {
		ids = append(ids, d.ExtID)
		texts = append(texts, d.Title+"\n"+d.Body)
		return nil
	})
	if err != nil {
		return nil, "", nil, err
	}
	start := time.Now()
	vecs, err := enc.Encode(ctx, texts)
	if err != nil {
		return nil, "", nil, err
	}
	mv, err := retrieval.NewMemoryVectors(ids, vecs)
	if err != nil {
		return nil, "", nil, err
	}
	note = fmt.Sprintf("encoder %s, exact in-memory search (corpus encoded in %s)", encoders.MiniLMStatic, time.Since(start).Round(time.Second))
	return &retrieval.Dense{Encoder: enc, Vectors: mv}, note, closeFn, nil
}
