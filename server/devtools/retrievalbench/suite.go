// Package retrievalbench is the "retrieval" suite of `boolpool-lab bench`: on
// the full DebQUEST corpus (60,535 documents) and its val queries it
// measures the lexical index build, per-method query latency (p50 / p95,
// one query at a time), the time to pool every val query, and the judging
// simulation (judgments needed to find 50 / 80 / 90 % of the relevant
// documents per strategy, against depth-k pooling judged in document-id
// order and in rank order). Dense methods use the static MiniLM encoder
// through pgvector HNSW, with exact in-memory search as the reference. It
// needs the shared data (BOOLPOOL_SHARED_DATA).
package retrievalbench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"boolpool/encoders"
	"boolpool/server/devtools/bench"
	"boolpool/server/embedjob"
	"boolpool/server/ingest"
	"boolpool/server/lexical"
	"boolpool/server/pooling"
	"boolpool/server/progress"
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
	var exact *retrieval.Dense // in-memory exact search, the reference for HNSW
	encNote := ""
	if dense, memDense, note, closeDense, err := pgDense(ctx, env, p.ID); err != nil {
		rows = append(rows, bench.Row{Suite: suite, Name: "dense methods", Note: "skipped: " + err.Error()})
	} else {
		defer closeDense()
		deps.Dense, exact, encNote = dense, memDense, note
		methods = append(methods, denseMethods...)
	}

	runs := make([]pooling.Run, 0, len(methods))
	for _, name := range methods {
		m, err := retrieval.New(name, nil, deps)
		if err != nil {
			return nil, err
		}
		ms, res, err := latencies(ctx, env, m, timed, "latency "+name)
		if err != nil {
			return nil, err
		}
		note := "one query at a time, top 1000"
		row := bench.Row{Suite: suite, Name: name + " latency p50", Value: bench.Percentile(ms, 50), Unit: "ms", Note: note}
		if _, isDense := denseSet[name]; isDense {
			row.Note += "; " + encNote
			if name == "dense-vanilla" {
				ref, err := retrieval.New(name, nil, retrieval.Deps{Dense: exact})
				if err != nil {
					return nil, err
				}
				refMs, refRes, err := latencies(ctx, env, ref, timed, "latency exact "+name)
				if err != nil {
					return nil, err
				}
				row = row.WithRef("exact in-memory kNN (Go)", bench.Percentile(refMs, 50))
				row.Note += fmt.Sprintf("; HNSW recall@100 vs exact %.3f", recallAt(res, refRes, 100))
			}
		}
		rows = append(rows, row,
			bench.Row{Suite: suite, Name: name + " latency p95", Value: bench.Percentile(ms, 95), Unit: "ms"})
		if len(timed) != len(queries) {
			if res, err = retrieval.RunAll(ctx, m, queries, poolDepth, runtime.GOMAXPROCS(0), nil); err != nil {
				return nil, err
			}
		}
		runs = append(runs, toRun(name, res, poolDepth))
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

// latencies runs m over queries one at a time and returns the per-query
// milliseconds and the results.
func latencies(ctx context.Context, env *bench.Env, m retrieval.Method, queries []retrieval.Query, label string) ([]float64, map[string][]retrieval.Result, error) {
	ms := make([]float64, 0, len(queries))
	res := make(map[string][]retrieval.Result, len(queries))
	bar := progress.New(env.Progress, label, "", len(queries), 0)
	defer bar.Done()
	for _, q := range queries {
		t0 := time.Now()
		rs, err := m.Retrieve(ctx, q, depth)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		res[q.ID] = rs
		bar.Add(1)
	}
	return ms, res, nil
}

// recallAt is the mean share of the exact top k that the approximate top k
// found.
func recallAt(approx, exact map[string][]retrieval.Result, k int) float64 {
	var sum float64
	n := 0
	for q, ex := range exact {
		ex = ex[:min(k, len(ex))]
		if len(ex) == 0 {
			continue
		}
		got := map[string]bool{}
		for _, r := range approx[q][:min(k, len(approx[q]))] {
			got[r.DocID] = true
		}
		hit := 0
		for _, r := range ex {
			if got[r.DocID] {
				hit++
			}
		}
		sum += float64(hit) / float64(len(ex))
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func toRun(name string, res map[string][]retrieval.Result, depth int) pooling.Run {
	lists := make(map[string][]string, len(res))
	for q, rs := range res {
		rs = rs[:min(depth, len(rs))]
		docs := make([]string, len(rs))
		for i, r := range rs {
			docs[i] = r.DocID
		}
		lists[q] = docs
	}
	return pooling.Run{Name: name, Lists: lists}
}

// pgDense embeds the corpus with the static MiniLM encoder into pgvector
// (boolpool encode's job: HNSW index built after the load) and, as the
// reference, into an exact in-memory index. The transformer encoders cannot
// embed 60k documents on a 2-core machine within a benchmark run.
func pgDense(ctx context.Context, env *bench.Env, projectID int64) (pg, mem *retrieval.Dense, note string, closeFn func(), err error) {
	enc, err := env.OpenEncoder(ctx, encoders.MiniLMStatic)
	if err != nil {
		return nil, nil, "", nil, err
	}
	closeFn = func() { enc.Close() }
	defer func() {
		if err != nil {
			closeFn()
		}
	}()
	rep, err := embedjob.Dense(ctx, env.Store, enc, embedjob.Options{ProjectID: projectID, Batch: 512, Log: env.Log})
	if err != nil {
		return nil, nil, "", nil, err
	}
	mem, err = (&denseOpener{enc: enc}).open(ctx, env.Store, projectID)
	if err != nil {
		return nil, nil, "", nil, err
	}
	note = fmt.Sprintf("encoder %s, pgvector HNSW (m 16, ef_construction 64, ef_search 1000, iterative scan; corpus encoded in %s, index built in %s)",
		encoders.MiniLMStatic, rep.DocumentTime.Round(time.Second), rep.IndexTime.Round(time.Second))
	pg = &retrieval.Dense{Encoder: enc, Vectors: &retrieval.PgVectors{Store: env.Store, ProjectID: projectID, Encoder: rep.Encoder}}
	return pg, mem, note, closeFn, nil
}
