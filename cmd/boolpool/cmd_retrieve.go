package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"boolpool/encoders"
	"boolpool/server/app"
	"boolpool/server/export"
	"boolpool/server/metrics"
	"boolpool/server/progress"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/trecfmt"
)

// paramFlag collects repeated --param k=v.
type paramFlag map[string]string

func (p paramFlag) String() string {
	var parts []string
	for k, v := range p {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (p paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want k=v, got %q", s)
	}
	p[k] = v
	return nil
}

// runRetrieve runs one retrieval method over a project's queries, stores
// the run and optionally writes it as a TREC run file.
func runRetrieve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if sub, ok := subcommand(args, map[string]runFunc{"bench": runRetrieveBench, "eval": runRetrieveEval}); ok {
		return sub(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("retrieve", stderr, "usage: boolpool retrieve --project P --method NAME [--param k=v]... [--split S] [--depth 1000] [--out run.txt]\n       boolpool retrieve --list\n       boolpool retrieve bench --project P [--split S] [--methods a,b]\n       boolpool retrieve eval --project P [--runs a,b] [--split S] [--negatives FILE] [--bm25-variants]")
	pf := addProjectFlags(fs)
	method := fs.String("method", "", "method `name` (see --list)")
	params := paramFlag{}
	fs.Var(params, "param", "method parameter `k=v` (repeatable)")
	split := fs.String("split", "", "only the queries of this split (default all)")
	depth := fs.Int("depth", 1000, "results per query")
	name := fs.String("name", "", "run `name` to store (default: the method name, with non-default parameters)")
	out := fs.String("out", "", "also write the run to this TREC run `file` (- = stdout)")
	encoder := fs.String("encoder", encoders.MiniLMStatic, "dense encoder `name` for dense methods")
	vectors := fs.String("vectors", "pgvector", "dense methods' document vectors: pgvector (stored embeddings, HNSW) or memory (encode the documents in-process, exact search)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "queries retrieved in parallel")
	noStore := fs.Bool("no-store", false, "do not store the run in the database")
	list := fs.Bool("list", false, "list the methods and their parameters")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list {
		return printMethods(stdout)
	}
	if *pf.project == "" || *method == "" {
		return fmt.Errorf("%w: --project and --method are required", errUsage)
	}
	if *depth < 1 {
		return fmt.Errorf("%w: --depth must be positive", errUsage)
	}
	st, p, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	env := newRetrieveEnv(st, p, *encoder, *vectors, stderr)
	defer env.Close()
	var record map[string]string
	if spec, ok := retrieval.SpecByName(*method); ok && spec.Needs == retrieval.NeedsDense {
		record = map[string]string{"encoder": *encoder, "vectors": *vectors}
	}
	sum, queries, results, err := retrieval.RunProject(ctx, env.resources(), retrieval.RunRequest{Method: *method, Params: params,
		Split: *split, Depth: *depth, Name: *name, Workers: *workers, NoStore: *noStore, Record: record}, stderr)
	if err != nil {
		return err
	}
	runName := sum.Name
	if *out != "" {
		ids, err := export.ProjectIDMaps(ctx, st, p.ID)
		if err != nil {
			return err
		}
		if err := writeTRECRun(ctx, *out, stdout, runName, queries, results, ids); err != nil {
			return err
		}
	}
	stored := "stored as run " + runName
	if !sum.Stored {
		stored = "not stored"
	}
	fmt.Fprintf(stderr, "%s: %d queries, %d results in %s (%.1f queries/s), %s\n", *method, sum.Queries, sum.Results,
		sum.Took.Round(time.Millisecond), float64(sum.Queries)/sum.Took.Seconds(), stored)
	for _, w := range sum.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return nil
}

func printMethods(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, s := range retrieval.Specs() {
		fmt.Fprintf(tw, "%s\t(%s)\t%s\n", s.Name, s.Needs, s.Summary)
		for _, p := range s.Params {
			fmt.Fprintf(tw, "  --param %s=%s\t\t%s\n", p.Name, p.Default, p.Doc)
		}
	}
	return tw.Flush()
}

// writeTRECRun writes a run file, ids written as the project's TREC tokens
// (trecfmt's id rule: the same tokens as the project's qrels exports).
func writeTRECRun(ctx context.Context, path string, stdout io.Writer, tag string, queries []retrieval.Query, results map[string][]retrieval.Result, ids trecfmt.IDMaps) error {
	var lines []trecfmt.RunLine
	tag = trecfmt.EncodeID(tag)
	for _, q := range queries {
		for i, r := range results[q.ID] {
			lines = append(lines, trecfmt.RunLine{QueryID: ids.Queries.Encode(q.ID), Iter: "Q0", DocID: ids.Docs.Encode(r.DocID), Rank: i + 1, Score: r.Score, Tag: tag})
		}
	}
	if path == "-" {
		return trecfmt.WriteRun(ctx, stdout, lines)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	if err := trecfmt.WriteRun(ctx, f, lines); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newRetrieveEnv is a command's retrieval environment in project p: the
// dense encoder's name, where its document vectors come from (vectors:
// pgvector, or memory for exact ones encoded on the fly), and a text log
// and progress on stderr.
func newRetrieveEnv(st *store.Store, p store.Project, encoder, vectors string, stderr io.Writer) *retrieveEnv {
	return &retrieveEnv{st: st, project: p, encoder: encoder, memory: vectors == "memory",
		log: slog.New(slog.NewTextHandler(stderr, nil)), progress: stderr}
}

// retrieveEnv loads the resources methods need, once, on demand.
type retrieveEnv struct {
	st       *store.Store
	project  store.Project
	encoder  string
	memory   bool   // exact in-memory vectors encoded on the fly instead of pgvector
	cacheDir string // encoders' cache ("" = the default)
	log      *slog.Logger
	progress io.Writer

	res   *retrieval.Resources
	dense *retrieval.Dense
	rt    *encoders.Runtime
	enc   *encoders.ONNXEncoder
}

func (e *retrieveEnv) Close() {
	if e.enc != nil {
		e.enc.Close()
	}
	if e.rt != nil {
		e.rt.Close()
	}
}

// resources hands the retrieval package the project's resources, with the
// dense encoder opened here (the encoders package).
func (e *retrieveEnv) resources() *retrieval.Resources {
	if e.res == nil {
		e.res = &retrieval.Resources{Store: e.st, ProjectID: e.project.ID, ProjectName: e.project.Name, Log: e.log, OpenDense: e.denseDeps}
	}
	return e.res
}

func (e *retrieveEnv) method(ctx context.Context, name string, params map[string]string) (retrieval.Method, error) {
	return e.resources().Method(ctx, name, params)
}

func (e *retrieveEnv) denseDeps(ctx context.Context) (*retrieval.Dense, error) {
	if e.dense != nil {
		return e.dense, nil
	}
	var vectors retrieval.VectorIndex
	if !e.memory {
		v, err := app.PgvectorIndex(ctx, e.st, e.project, e.encoder)
		if err != nil {
			return nil, err
		}
		vectors = v
	}
	var err error
	e.rt, err = app.OpenRuntime(encoders.Config{CacheDir: e.cacheDir})
	if err != nil {
		return nil, err
	}
	e.enc, err = e.rt.Open(ctx, e.encoder)
	if err != nil {
		return nil, err
	}
	if e.memory {
		if vectors, err = e.encodeInMemory(ctx); err != nil {
			return nil, err
		}
	}
	e.dense = &retrieval.Dense{Encoder: e.enc, Vectors: vectors}
	return e.dense, nil
}

// encodeInMemory embeds every document of the project (title + text).
func (e *retrieveEnv) encodeInMemory(ctx context.Context) (*retrieval.MemoryVectors, error) {
	var ids, texts []string
	err := e.st.EachDocument(ctx, e.project.ID, func(d store.Document) error {
		ids = append(ids, d.ExtID)
		texts = append(texts, d.Title+"\n"+d.Body)
		return nil
	})
	if err != nil {
		return nil, err
	}
	bar := progress.New(e.progress, "encode "+e.encoder, "", len(texts), 0)
	defer bar.Done()
	vecs := make([][]float32, 0, len(texts))
	const batch = 256
	for i := 0; i < len(texts); i += batch {
		vs, err := e.enc.Encode(ctx, texts[i:min(i+batch, len(texts))])
		if err != nil {
			return nil, err
		}
		vecs = append(vecs, vs...)
		bar.Add(len(vs))
	}
	return retrieval.NewMemoryVectors(ids, vecs)
}

// jsonOut writes v as indented JSON.
func jsonOut(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// benchRow is one method's latency summary.
type benchRow struct {
	Method  string  `json:"method"`
	Queries int     `json:"queries"`
	P50ms   float64 `json:"p50_ms"`
	P95ms   float64 `json:"p95_ms"`
	MeanMs  float64 `json:"mean_ms"`
	Error   string  `json:"error,omitempty"`
}

// runRetrieveBench measures per-query latency (one query at a time) of
// each method over a project's queries.
func runRetrieveBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("retrieve bench", stderr, "")
	pf := addProjectFlags(fs)
	split := fs.String("split", "", "only this split's queries")
	methods := fs.String("methods", "bm25,bm25-strict-boolean,pnorm,sparse-disentangled-negation,sparse-maxpool-union,sparse-cpt,dense-vanilla,dense-decomposed,dense-algebra",
		"comma-separated methods (default parameters)")
	depth := fs.Int("depth", 1000, "results per query")
	encoder := fs.String("encoder", encoders.MiniLMStatic, "dense encoder `name`")
	vectors := fs.String("vectors", "pgvector", "dense document vectors: pgvector or memory")
	asJSON := fs.Bool("json", false, "print JSON")
	st, p, err := pf.parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	env := newRetrieveEnv(st, p, *encoder, *vectors, stderr)
	defer env.Close()
	queries, err := retrieval.LoadQueries(ctx, st, p.ID, *split)
	if err != nil {
		return err
	}
	var rows []benchRow
	for _, name := range strings.Split(*methods, ",") {
		name = strings.TrimSpace(name)
		row := benchRow{Method: name, Queries: len(queries)}
		m, err := env.method(ctx, name, nil)
		if err == nil {
			var ms []float64
			bar := progress.New(stderr, name, "", len(queries), 0)
			for _, q := range queries {
				t0 := time.Now()
				if _, err = m.Retrieve(ctx, q, *depth); err != nil {
					break
				}
				ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
				bar.Add(1)
			}
			bar.Done()
			if err == nil {
				row.P50ms, row.P95ms, row.MeanMs = percentile(ms, 0.50), percentile(ms, 0.95), mean(ms)
			}
		}
		if err != nil {
			row.Error = err.Error()
		}
		rows = append(rows, row)
	}
	if *asJSON {
		return jsonOut(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tqueries\tp50 ms\tp95 ms\tmean ms")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t(%s)\n", r.Method, r.Queries, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\n", r.Method, r.Queries, r.P50ms, r.P95ms, r.MeanMs)
	}
	return tw.Flush()
}

// percentile is the nearest-rank percentile of xs.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// evalRow is one run's mean of every measure over one template.
type evalRow struct {
	Run      string             `json:"run"`
	Template string             `json:"template"` // "all" for every query
	Queries  int                `json:"queries"`
	Means    map[string]float64 `json:"means"`
	Counts   map[string]int     `json:"counts"`
}

// runRetrieveEval scores stored runs against the project's qrels, broken
// down by query template. It is a thin wrapper over eval's evaluator
// (metrics.EvaluateRun: trec_eval's ranking by score, ties by docid
// descending, never the stored ranks), scoring like `eval --complete` over
// the project's queries that have positive qrels: a query a run returned
// nothing for counts as an empty ranking.
func runRetrieveEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("retrieve eval", stderr, "usage: boolpool retrieve eval --project P [--runs a,b] [--split S] [--negatives FILE] [--metrics LIST] [--bm25-variants] [--json]")
	pf := addProjectFlags(fs)
	runs := fs.String("runs", "", "comma-separated stored run `names` (default: all runs)")
	split := fs.String("split", "", "only this split's queries")
	negPath := fs.String("negatives", "", "qrels `file` of explicit negatives, added to the project's own (see boolpool pool negatives)")
	list := fs.String("metrics", "", "measures (default ndcg@10,recall@100,mrecall@100,negrecall@10,mrr@10, plus negabove with explicit negatives and nevir with NevIR pairs)")
	variants := fs.Bool("bm25-variants", false, "also retrieve (without storing) bm25 with each query-term weighting, qtf=count and qtf=unique, and evaluate both")
	depth := fs.Int("depth", 1000, "results per query of --bm25-variants")
	asJSON := fs.Bool("json", false, "print JSON")
	st, p, err := pf.parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	queries, err := retrieval.LoadQueries(ctx, st, p.ID, *split)
	if err != nil {
		return err
	}
	inSplit := make(map[string]bool, len(queries))
	for _, q := range queries {
		inSplit[q.ID] = true
	}
	qrels := metrics.Qrels{}
	err = st.EachMergedQrel(ctx, p.ID, "positive", func(q store.Qrel) error {
		if !inSplit[q.QueryExtID] {
			return nil
		}
		if qrels[q.QueryExtID] == nil {
			qrels[q.QueryExtID] = map[string]int{}
		}
		qrels[q.QueryExtID][q.DocExtID] = q.Relevance
		return nil
	})
	if err != nil {
		return err
	}
	opt := metrics.Options{MinRel: 1, Complete: true, Negatives: map[string]map[string]bool{}}
	addNeg := func(q, d string) {
		if opt.Negatives[q] == nil {
			opt.Negatives[q] = map[string]bool{}
		}
		opt.Negatives[q][d] = true
	}
	err = st.EachQrel(ctx, p.ID, "negative", "", func(q store.Qrel) error {
		addNeg(q.QueryExtID, q.DocExtID)
		return nil
	})
	if err != nil {
		return err
	}
	if *negPath != "" {
		file, err := readNegatives(ctx, *negPath)
		if err != nil {
			return err
		}
		ids, err := export.ProjectIDMaps(ctx, st, p.ID)
		if err != nil {
			return err
		}
		for q, ds := range file {
			for d := range ds {
				addNeg(ids.Queries.Decode(q), ids.Docs.Decode(d))
			}
		}
	}
	pairs, err := projectNevIRPairs(ctx, st, p.ID)
	if err != nil {
		return err
	}
	for _, pr := range pairs {
		if inSplit[pr.Query1] && inSplit[pr.Query2] {
			opt.NevIRPairs = append(opt.NevIRPairs, pr)
		}
	}
	specList := *list
	if specList == "" {
		specList = "ndcg@10,recall@100,mrecall@100,negrecall@10,mrr@10"
		if len(opt.Negatives) > 0 {
			specList += ",negabove"
		}
		if len(opt.NevIRPairs) > 0 {
			specList += ",nevir"
		}
	}
	specs, err := metrics.ParseSpecs(specList)
	if err != nil {
		return fmt.Errorf("%w: --metrics: %v", errUsage, err)
	}

	names := splitList(*runs)
	if len(names) == 0 && *runs == "" {
		infos, err := st.ListRuns(ctx, p.ID)
		if err != nil {
			return err
		}
		for _, r := range infos {
			names = append(names, r.Name)
		}
	}
	type namedRun struct {
		name string
		run  metrics.Run
	}
	var all []namedRun
	for _, name := range names {
		stored, err := retrieval.LoadRun(ctx, st, p.ID, name)
		if err != nil {
			return fmt.Errorf("run %s: %w", name, err)
		}
		all = append(all, namedRun{name, toMetricsRun(stored)})
	}
	if *variants {
		env := newRetrieveEnv(st, p, "", "pgvector", stderr)
		defer env.Close()
		for _, qtf := range []string{"count", "unique"} {
			params := map[string]string{"qtf": qtf}
			_, _, results, err := retrieval.RunProject(ctx, env.resources(), retrieval.RunRequest{Method: "bm25", Params: params,
				Split: *split, Depth: *depth, Workers: runtime.GOMAXPROCS(0), NoStore: true}, stderr)
			if err != nil {
				return err
			}
			all = append(all, namedRun{retrieval.DefaultRunName("bm25", params) + " (not stored)", toMetricsRun(results)})
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("project %s has no runs to evaluate", p.Name)
	}

	templates := []string{"all"}
	templateOf := make(map[string]string, len(queries))
	seen := map[string]bool{}
	for _, q := range queries {
		templateOf[q.ID] = q.Template
		if q.Template != "" && !seen[q.Template] {
			seen[q.Template] = true
			templates = append(templates, q.Template)
		}
	}
	// Documents are evaluated under their TREC tokens (issue 25): ties of
	// score break by docid as trec_eval breaks them, so the numbers equal
	// those of the exported run and qrels files.
	tokens, err := export.ProjectIDMaps(ctx, st, p.ID)
	if err != nil {
		return err
	}
	qrels, opt = tokenizeEval(tokens.Docs, qrels, opt)
	for i := range all {
		all[i].run = tokenizeRun(tokens.Docs, all[i].run)
	}
	var rows []evalRow
	for _, nr := range all {
		res := metrics.EvaluateRun(qrels, nr.run, specs, opt)
		warnMissing(stderr, "boolpool retrieve eval: run "+nr.name, res.Missing, len(qrels), true)
		rows = append(rows, templateRows(nr.name, templates, templateOf, res)...)
	}
	if *asJSON {
		return jsonOut(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "template\trun\tn")
	for _, s := range specs {
		fmt.Fprintf(tw, "\t%s", s)
	}
	fmt.Fprintln(tw)
	for _, t := range templates {
		for _, r := range rows {
			if r.Template != t {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d", t, r.Run, r.Queries)
			for _, s := range specs {
				if c := r.Counts[s.String()]; c > 0 {
					fmt.Fprintf(tw, "\t%.3f", r.Means[s.String()])
				} else {
					fmt.Fprint(tw, "\t-")
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// toMetricsRun converts retrieval results (in any order: the evaluator
// ranks them by score) to a metrics.Run.
// tokenizeEval is qrels and opt with every document id written as its
// TREC token (docs.Encode).
func tokenizeEval(docs *trecfmt.IDMap, qrels metrics.Qrels, opt metrics.Options) (metrics.Qrels, metrics.Options) {
	if docs.Len() == 0 {
		return qrels, opt
	}
	outQ := make(metrics.Qrels, len(qrels))
	for q, ds := range qrels {
		m := make(map[string]int, len(ds))
		for d, g := range ds {
			m[docs.Encode(d)] = g
		}
		outQ[q] = m
	}
	if opt.Negatives != nil {
		neg := make(map[string]map[string]bool, len(opt.Negatives))
		for q, ds := range opt.Negatives {
			m := make(map[string]bool, len(ds))
			for d := range ds {
				m[docs.Encode(d)] = true
			}
			neg[q] = m
		}
		opt.Negatives = neg
	}
	pairs := make([]metrics.NevIRPair, len(opt.NevIRPairs))
	for i, pr := range opt.NevIRPairs {
		pr.Doc1, pr.Doc2 = docs.Encode(pr.Doc1), docs.Encode(pr.Doc2)
		pairs[i] = pr
	}
	opt.NevIRPairs = pairs
	return outQ, opt
}

// tokenizeRun is run with every document id written as its TREC token.
func tokenizeRun(docs *trecfmt.IDMap, run metrics.Run) metrics.Run {
	if docs.Len() == 0 {
		return run
	}
	out := make(metrics.Run, len(run))
	for q, ds := range run {
		s := make([]metrics.Scored, len(ds))
		for i, d := range ds {
			s[i] = metrics.Scored{DocID: docs.Encode(d.DocID), Score: d.Score}
		}
		out[q] = s
	}
	return out
}

func toMetricsRun(results map[string][]retrieval.Result) metrics.Run {
	run := make(metrics.Run, len(results))
	for q, rs := range results {
		docs := make([]metrics.Scored, len(rs))
		for i, r := range rs {
			docs[i] = metrics.Scored{DocID: r.DocID, Score: r.Score}
		}
		run[q] = docs
	}
	return run
}

// templateRows splits one evaluation into rows: "all" (the evaluator's own
// means, so they equal eval's) and one per template, each mean summed in
// query order as metrics.Evaluate sums.
func templateRows(run string, templates []string, templateOf map[string]string, res metrics.Result) []evalRow {
	byT := map[string]*evalRow{}
	for _, t := range templates {
		byT[t] = &evalRow{Run: run, Template: t, Means: map[string]float64{}, Counts: map[string]int{}}
	}
	all := byT["all"]
	all.Queries = len(res.PerQuery)
	for k, v := range res.Mean {
		all.Means[k], all.Counts[k] = v, res.Count[k]
	}
	for _, q := range metrics.SortedKeys(res.PerQuery) {
		row := byT[templateOf[q]]
		if row == nil || row == all {
			continue
		}
		row.Queries++
		for k, v := range res.PerQuery[q] {
			row.Means[k] += v
			row.Counts[k]++
		}
	}
	out := make([]evalRow, 0, len(templates))
	for _, t := range templates {
		row := byT[t]
		if row != all {
			for k := range row.Means {
				row.Means[k] /= float64(row.Counts[k])
			}
		}
		out = append(out, *row)
	}
	return out
}
