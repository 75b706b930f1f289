// Package scalebench is the "scale" suite of `boolpool-lab bench` (issue 15):
// synthetic corpora of growing size (default 100k, 300k and 1M documents,
// resampled from the DebQUEST corpus's sentences with a Zipfian vocabulary,
// generated deterministically, no downloads) go through the whole setup
// pipeline — import, lexical index, static encode, pgvector HNSW, the
// first dense search after the build (cold), an untimed warm-up (every
// method over 20 queries, the dense kNN of every query), 200 timed
// queries per retrieval method, HNSW recall@10/@100 against exact search on
// the same queries, pool, live dashboard load — with the real
// 60k-document DebQUEST corpus through the same pipeline in the same run
// as the reference. It reports per size the time of each step, latency
// p50/p95, peak RSS of this process (the server's part: the lexical index
// and the encoder live here) and of the run's Postgres backends, the
// database's growth on disk, and per cost the exponent b of cost ∝ n^b
// fitted over the sizes. It is not part of `make test`: it runs only when
// named (`boolpool-lab bench --suites scale`).
package scalebench

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"boolpool/encoders"
	"boolpool/server/devtools/bench"
	"boolpool/server/embedjob"
	"boolpool/server/ingest"
	"boolpool/server/lexical"
	"boolpool/server/live"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Name is the suite's name.
const Name = "scale"

// DefaultSizes are the corpus sizes run when none are given.
var DefaultSizes = []int{100_000, 300_000, 1_000_000}

// Suite returns the scale suite over sizes (nil: DefaultSizes).
func Suite(sizes []int) bench.Suite {
	if len(sizes) == 0 {
		sizes = DefaultSizes
	}
	return bench.Suite{Name: Name, Run: func(ctx context.Context, env *bench.Env) ([]bench.Row, error) { return run(ctx, env, sizes) }}
}

var methods = []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt",
	"dense-vanilla", "dense-decomposed", "dense-algebra"}

const (
	nQueries  = 200
	depth     = 1000 // results per query, as the retrieval suite
	poolDepth = 100
	seed      = 15 // the corpora's seed (issue 15)
	// warmQueries is the number of queries each method runs, untimed,
	// before the timed pass (see warmUp).
	warmQueries = 20
)

// point is one corpus size's measurements.
type point struct {
	label string
	n     int
	cost  map[string]float64 // metric → value
}

// metric is a reported figure; growth says whether its exponent is fitted.
type metric struct {
	key, name, unit string
	growth          bool
}

var metrics = []metric{
	{"import", "import (upsert + sentences)", "s", true},
	{"lexical", "lexical index build (stored)", "s", true},
	{"encode", "static encode (minilm-static, batch 512)", "s", true},
	{"hnsw", "HNSW build (pgvector, the project's own index, " + store.HNSWDesign() + ")", "s", true},
	{"e2e", "import → index → encode → HNSW", "s", true},
	{"pool", "pool build (bm25 + dense-vanilla, depth 100, 200 queries) + publish", "s", true},
	{"live", "live dashboard load (live.LoadData)", "ms", true},
	{"cold_dense", "first dense search after the build (cold: dense-vanilla, one query, top 1000)", "ms", false},
	{"recall10", "HNSW recall@10 vs exact search (200 queries, as dense-vanilla)", "", false},
	{"recall100", "HNSW recall@100 vs exact search (same queries)", "", false},
	{"rss_server", "peak RSS, this process (index, encoder, runs)", "MiB", true},
	{"rss_pg", "peak RSS, the run's Postgres backends (sum)", "MiB", true},
	{"disk", "database growth on disk", "MiB", true},
}

func run(ctx context.Context, env *bench.Env, sizes []int) ([]bench.Row, error) {
	if env.SharedData == "" {
		return []bench.Row{{Suite: Name, Name: "skipped", Note: "needs BOOLPOOL_SHARED_DATA (the DebQUEST corpus to resample)"}}, nil
	}
	dir := filepath.Join(env.SharedData, "debquest")
	realDocs := filepath.Join(dir, "documents.jsonl.gz")
	src, err := ReadSource(realDocs)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "boolpool-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	queries := filepath.Join(tmp, "queries.jsonl")
	if err := writeQueries(filepath.Join(dir, "val.jsonl"), queries, nQueries); err != nil {
		return nil, err
	}
	rt, err := encodeRuntime(env)
	if err != nil {
		return nil, err
	}
	if rt != nil {
		defer rt.Close()
	} else if rt, err = env.Runtime(); err != nil {
		return nil, err
	}
	enc, err := rt.Open(ctx, encoders.MiniLMStatic)
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	user, err := env.Store.CreateUser(ctx, store.NewUser{Username: "scale-bench", Role: vocab.RoleResearcher})
	if err != nil {
		return nil, err
	}

	var pts []point
	measure := func(label, docs string, n int) error {
		fmt.Fprintf(env.Progress, "scale: %s (%d documents) …\n", label, n)
		p, err := pipeline(ctx, env, enc, user.ID, label, docs, queries, n)
		if err != nil {
			return fmt.Errorf("scale %s: %w", label, err)
		}
		pts = append(pts, p)
		printMatrix(env.Progress, pts) // so far, in case a larger size is cut short
		return nil
	}
	if !env.Quick { // --quick: the synthetic sizes only (a smoke test)
		if err := measure("DebQUEST 60k (real)", realDocs, len(src.Lengths)); err != nil {
			return nil, err
		}
	}
	for _, n := range sizes {
		path := filepath.Join(tmp, fmt.Sprintf("synthetic-%d.jsonl.gz", n))
		t0 := time.Now()
		if err := writeCorpus(path, src, n); err != nil {
			return nil, err
		}
		fmt.Fprintf(env.Progress, "scale: generated %d documents in %s\n", n, time.Since(t0).Round(time.Millisecond))
		if err := measure(fmt.Sprintf("synthetic %s", short(n)), path, n); err != nil {
			return nil, err
		}
		_ = os.Remove(path)
	}
	return growthRows(pts), nil
}

// encodeRuntime opens the runtime the suite encodes with, configured as
// the server's encode jobs and `boolpool encode` configure theirs (ONNX
// Runtime's threads not spinning between calls, so Postgres's COPY of the
// previous batch gets the CPU); the caller closes it. It is nil when the
// environment cannot open a runtime of its own (then the shared one is
// used).
func encodeRuntime(env *bench.Env) (*encoders.Runtime, error) {
	if env.OpenRuntime == nil {
		return nil, nil
	}
	return env.OpenRuntime(encoders.Config{CacheDir: encoders.DefaultCacheDir(), NoSpin: true})
}

// printMatrix writes the compact table (one line per cost, one column per
// size, the fitted exponent last) that bench/results.md quotes.
func printMatrix(w io.Writer, pts []point) {
	fmt.Fprintf(w, "\n| cost | unit |")
	for _, p := range pts {
		fmt.Fprintf(w, " %s |", p.label)
	}
	fmt.Fprintf(w, " growth n^b |\n|---|---|")
	for range pts {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w, "---:|")
	for _, m := range allMetrics() {
		fmt.Fprintf(w, "| %s | %s |", m.name, m.unit)
		for _, p := range pts {
			fmt.Fprintf(w, " %.4g |", p.cost[m.key])
		}
		if b := fitExponent(pts, m.key); len(pts) > 1 && m.growth && !math.IsNaN(b) {
			fmt.Fprintf(w, " %.2f |\n", b)
		} else {
			fmt.Fprintln(w, " |")
		}
	}
	if len(pts) > 1 {
		fmt.Fprintf(w, "\nn log n over %d → %d documents is n^%.2f.\n", pts[0].n, pts[len(pts)-1].n, nlognExponent(pts[0].n, pts[len(pts)-1].n))
	}
}

func allMetrics() []metric {
	all := append([]metric(nil), metrics...)
	for _, m := range methods {
		all = append(all, metric{"p50 " + m, m + " latency p50 (top 1000)", "ms", true}, metric{"p95 " + m, m + " latency p95", "ms", false})
	}
	return all
}

// pipeline runs one corpus through setup and retrieval in a project of
// its own and returns its measurements.
func pipeline(ctx context.Context, env *bench.Env, enc *encoders.ONNXEncoder, userID int64, label, docs, queries string, n int) (point, error) {
	pt := point{label: label, n: n, cost: map[string]float64{}}
	proj, err := env.Store.EnsureProject(ctx, fmt.Sprintf("scale-%d", n))
	if err != nil {
		return pt, err
	}
	diskBefore, err := databaseSize(ctx, env.Store)
	if err != nil {
		return pt, err
	}
	runtime.GC()
	sampler := startRSS(ctx, env.Store)
	defer sampler.stop()

	start := time.Now()
	if _, err := ingest.Files(ctx, env.Store, proj.ID, "quest", []string{docs, queries}, ingest.Options{}); err != nil {
		return pt, err
	}
	pt.cost["import"] = time.Since(start).Seconds()

	t := time.Now()
	ix, err := retrieval.BuildLexical(ctx, env.Store, proj.ID, lexical.DefaultParams(), env.Log)
	if err != nil {
		return pt, err
	}
	pt.cost["lexical"] = time.Since(t).Seconds()

	rep, err := embedjob.Dense(ctx, env.Store, enc, embedjob.Options{ProjectID: proj.ID, Batch: 512, Log: env.Log})
	if err != nil {
		return pt, err
	}
	pt.cost["encode"], pt.cost["hnsw"] = rep.DocumentTime.Seconds(), rep.IndexTime.Seconds()
	pt.cost["e2e"] = time.Since(start).Seconds()

	qs, err := retrieval.LoadQueries(ctx, env.Store, proj.ID, "")
	if err != nil {
		return pt, err
	}
	deps := retrieval.Deps{Lexical: ix, Dense: &retrieval.Dense{Encoder: enc, Vectors: &retrieval.PgVectors{Store: env.Store, ProjectID: proj.ID, Encoder: rep.Encoder}}}
	ms, err := warmUp(ctx, deps, qs)
	if err != nil {
		return pt, err
	}
	pt.cost["cold_dense"] = ms
	var runNames []string
	for _, name := range methods {
		m, err := retrieval.New(name, nil, deps)
		if err != nil {
			return pt, err
		}
		ms := make([]float64, 0, len(qs))
		res := make(map[string][]retrieval.Result, len(qs))
		for _, q := range qs {
			t := time.Now()
			rs, err := m.Retrieve(ctx, q, depth)
			if err != nil {
				return pt, fmt.Errorf("%s on %s: %w", name, q.ID, err)
			}
			ms = append(ms, float64(time.Since(t).Microseconds())/1000)
			res[q.ID] = rs[:min(poolDepth, len(rs))]
		}
		p50, p95 := bench.Percentile(ms, 50), bench.Percentile(ms, 95)
		pt.cost["p50 "+name], pt.cost["p95 "+name] = p50, p95
		if name == "bm25" || name == "dense-vanilla" {
			if _, err := retrieval.SaveRun(ctx, env.Store, proj.ID, name, name, nil, qs, res); err != nil {
				return pt, err
			}
			runNames = append(runNames, name)
		}
	}

	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	qvecs, err := enc.Encode(ctx, texts)
	if err != nil {
		return pt, err
	}
	recall, err := hnswRecall(ctx, env.Store, deps.Dense.Vectors.(*retrieval.PgVectors), qvecs)
	if err != nil {
		return pt, err
	}
	pt.cost["recall10"], pt.cost["recall100"] = recall[0], recall[1]

	t = time.Now()
	pr, err := pooling.Create(ctx, env.Store, proj.ID, pooling.Spec{Name: "scale", Runs: runNames, Depth: poolDepth, Strategy: pooling.Depth}, env.Log)
	if err != nil {
		return pt, err
	}
	pub, err := env.Store.PublishPool(ctx, pr.PoolID, userID, 0)
	if err != nil {
		return pt, err
	}
	pt.cost["pool"] = time.Since(t).Seconds()

	t = time.Now()
	if _, err := live.LoadData(ctx, env.Store, proj.ID); err != nil {
		return pt, err
	}
	pt.cost["live"] = float64(time.Since(t).Microseconds()) / 1000

	server, pg := sampler.stop()
	pt.cost["rss_server"], pt.cost["rss_pg"] = server, pg
	diskAfter, err := databaseSize(ctx, env.Store)
	if err != nil {
		return pt, err
	}
	pt.cost["disk"] = float64(diskAfter-diskBefore) / (1 << 20)
	// Each size's vectors stay: every project has an HNSW index of its
	// own, so the next size's build covers that size alone.
	fmt.Fprintf(env.Progress, "scale: %s done in %s (%d docs, %d terms, %d items published)\n", label, time.Since(start).Round(time.Second), ix.NumDocs(), ix.NumTerms(), pub.Items)
	pt.label = fmt.Sprintf("%s: %d docs, %d terms", label, ix.NumDocs(), ix.NumTerms())
	return pt, nil
}

// warmUp times the first dense search after the HNSW build (the graph's
// pages may still be on disk: at 8.8M documents it was several times a
// warm search) and returns it in ms, then warms what the timed pass uses,
// untimed: every method over the first warmQueries queries, and the
// dense-vanilla kNN of every query once. The p50/p95 rows are then the
// figures of a server that has been searching, and the cold start has its
// own row.
func warmUp(ctx context.Context, deps retrieval.Deps, qs []retrieval.Query) (float64, error) {
	if len(qs) == 0 {
		return 0, nil
	}
	vanilla, err := retrieval.New("dense-vanilla", nil, deps)
	if err != nil {
		return 0, err
	}
	t := time.Now()
	if _, err := vanilla.Retrieve(ctx, qs[0], depth); err != nil {
		return 0, fmt.Errorf("dense-vanilla on %s (cold): %w", qs[0].ID, err)
	}
	cold := float64(time.Since(t).Microseconds()) / 1000
	for _, name := range methods {
		m, err := retrieval.New(name, nil, deps)
		if err != nil {
			return 0, err
		}
		todo := qs[:min(warmQueries, len(qs))]
		if name == "dense-vanilla" {
			todo = qs
		}
		for _, q := range todo {
			if _, err := m.Retrieve(ctx, q, depth); err != nil {
				return 0, fmt.Errorf("%s on %s (warm-up): %w", name, q.ID, err)
			}
		}
	}
	return cold, nil
}

// growthRows is the table: one row per metric and size, the first size
// (the real 60k corpus) the reference of the others, and the fitted
// exponent over all sizes in the last size's note.
func growthRows(pts []point) []bench.Row {
	if len(pts) == 0 {
		return nil
	}
	all := allMetrics()
	var rows []bench.Row
	ref := pts[0]
	for _, m := range all {
		for i, p := range pts {
			row := bench.Row{Suite: Name, Name: fmt.Sprintf("%s — %s", m.name, p.label), Value: p.cost[m.key], Unit: m.unit}
			if i > 0 {
				row = row.WithRef(ref.label[:strings.Index(ref.label, ":")], ref.cost[m.key])
				row.Note = fmt.Sprintf("%.1fx the size", float64(p.n)/float64(ref.n))
			}
			if i == len(pts)-1 && m.growth && len(pts) > 1 {
				b := fitExponent(pts, m.key)
				row.Note += fmt.Sprintf("; growth n^%.2f over %d sizes (n log n over this range ≈ n^%.2f)", b, len(pts), nlognExponent(pts[0].n, p.n))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// fitExponent is the least-squares slope of log cost against log n.
func fitExponent(pts []point, key string) float64 {
	var sx, sy, sxx, sxy, k float64
	for _, p := range pts {
		v := p.cost[key]
		if v <= 0 {
			continue
		}
		x, y := math.Log(float64(p.n)), math.Log(v)
		sx, sy, sxx, sxy, k = sx+x, sy+y, sxx+x*x, sxy+x*y, k+1
	}
	if k < 2 || k*sxx-sx*sx == 0 {
		return math.NaN()
	}
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}

// nlognExponent is the exponent n log n shows between sizes a and b.
func nlognExponent(a, b int) float64 {
	fa, fb := float64(a)*math.Log(float64(a)), float64(b)*math.Log(float64(b))
	return math.Log(fb/fa) / math.Log(float64(b)/float64(a))
}

func short(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000_000 && n%100_000 == 0:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func writeCorpus(path string, src Source, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err := Generate(gz, src, n, seed); err != nil {
		f.Close()
		return err
	}
	if err := gz.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeQueries copies the first n queries of a QUEST queries file without
// their answers (the synthetic corpora do not hold those documents).
func writeQueries(from, to string, n int) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("scalebench: %w", err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	w := bufio.NewWriter(out)
	for k := 0; k < n && sc.Scan(); k++ {
		var q map[string]any
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			out.Close()
			return fmt.Errorf("scalebench: %s:%d: %w", from, k+1, err)
		}
		q["docs"] = []string{}
		b, _ := json.Marshal(q)
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	if err := sc.Err(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func databaseSize(ctx context.Context, st *store.Store) (int64, error) {
	var n int64
	if err := st.Pool().QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0, fmt.Errorf("scalebench: database size: %w", err)
	}
	return n, nil
}
