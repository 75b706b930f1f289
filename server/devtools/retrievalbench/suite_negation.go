package retrievalbench

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"boolpool/encoders"
	"boolpool/server/decompose"
	"boolpool/server/devtools/bench"
	"boolpool/server/embedjob"
	"boolpool/server/ingest"
	"boolpool/server/live"
	"boolpool/server/metrics"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// The negation suite's fixtures are small files written for boolpool (not
// taken from the public releases): 16 NevIR-style pairs and 16
// BoolQuestions-style NOT questions, each with one positive and one
// explicit-negative passage.
//
//go:embed testdata/nevir.jsonl testdata/boolq_not.jsonl
var fixtures embed.FS

// NegationSuite returns the "negation" suite: NevIR pairwise accuracy and
// the BoolQuestions pair measure (negabove: share of NOT questions whose
// negative passage scores at or above the positive one) on the shipped
// fixtures, each negation-aware method against its plain counterpart in
// the same run. Expressions come from the decomposer (in memory). Dense
// methods use the static MiniLM encoder with exact in-memory search; they
// are skipped with a note when the encoder is not prepared.
func NegationSuite() bench.Suite { return bench.Suite{Name: "negation", Run: runNegation} }

// negationPair is one comparison: a negation-aware method and the plain
// method it is measured against.
type negationPair struct{ method, plain string }

func runNegation(ctx context.Context, env *bench.Env) ([]bench.Row, error) {
	const suite = "negation"
	dense, closeDense, denseErr := denseFactory(ctx, env)
	if closeDense != nil {
		defer closeDense()
	}
	var rows []bench.Row
	if denseErr != nil {
		dense = nil
		rows = append(rows, bench.Row{Suite: suite, Name: "dense methods", Note: "skipped: " + denseErr.Error()})
	}

	// NevIR: higher is better.
	nevir, err := loadFixture(ctx, env, "bench-negation-nevir", "nevir", "nevir.jsonl", dense)
	if err != nil {
		return nil, err
	}
	comparisons := []negationPair{{"sparse-disentangled-negation", "bm25"}}
	if denseErr == nil {
		comparisons = append(comparisons, negationPair{"dense-algebra", "dense-vanilla"})
	}
	for _, c := range comparisons {
		v, ref, err := nevir.scorePair(ctx, c, metrics.MeasureNevIR)
		if err != nil {
			return nil, err
		}
		r := bench.Row{Suite: suite, Name: fmt.Sprintf("NevIR pairwise accuracy, %d fixture pairs: %s", len(nevir.opt.NevIRPairs), c.method),
			Value: v, Unit: "share", HigherIsBetter: true, Note: "both queries of a pair must rank their own document first; expressions from the decomposer"}
		rows = append(rows, r.WithRef(c.plain, ref))
	}

	// BoolQuestions NOT: lower is better.
	boolq, err := loadFixture(ctx, env, "bench-negation-boolq", "boolq", "boolq_not.jsonl", dense)
	if err != nil {
		return nil, err
	}
	comparisons = []negationPair{{"bm25-strict-boolean", "bm25"}, {"sparse-disentangled-negation", "bm25"}}
	if denseErr == nil {
		comparisons = append(comparisons, negationPair{"dense-algebra", "dense-vanilla"})
	}
	for _, c := range comparisons {
		v, ref, err := boolq.scorePair(ctx, c, metrics.MeasureNegAbove)
		if err != nil {
			return nil, err
		}
		r := bench.Row{Suite: suite, Name: fmt.Sprintf("BoolQuestions NOT, %d fixture questions: negative passage at or above the positive (negabove): %s", len(boolq.queries), c.method),
			Value: v, Unit: "share", Note: "lower is better; a tie or two unretrieved passages count as at or above"}
		rows = append(rows, r.WithRef(c.plain, ref))
	}
	return rows, nil
}

// fixtureProject is one imported fixture with what evaluating it needs.
type fixtureProject struct {
	res     *retrieval.Resources
	queries []retrieval.Query
	qrels   metrics.Qrels
	opt     metrics.Options
	cache   map[string]metrics.Result
}

// loadFixture imports an embedded fixture into its own project (through
// the importer, as `boolpool import` would), and reads back its queries
// (with the decomposer's expressions), qrels, explicit negatives and NevIR
// pairs.
func loadFixture(ctx context.Context, env *bench.Env, project, format, file string, dense *denseOpener) (*fixtureProject, error) {
	p, err := env.Store.EnsureProject(ctx, project)
	if err != nil {
		return nil, err
	}
	data, err := fixtures.ReadFile("testdata/" + file)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "boolpool-negation-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	if _, err := ingest.Files(ctx, env.Store, p.ID, format, []string{path}, ingest.Options{}); err != nil {
		return nil, err
	}
	fp := &fixtureProject{cache: map[string]metrics.Result{}}
	fp.res = &retrieval.Resources{Store: env.Store, ProjectID: p.ID, Log: env.Log}
	if dense != nil {
		fp.res.OpenDense = func(ctx context.Context) (*retrieval.Dense, error) { return dense.open(ctx, env.Store, p.ID) }
	}
	if fp.queries, err = retrieval.LoadQueries(ctx, env.Store, p.ID, ""); err != nil {
		return nil, err
	}
	for i, q := range fp.queries {
		if q.Expr == nil {
			d := decompose.Decompose(q.Text)
			fp.queries[i].Atoms, fp.queries[i].Expr, fp.queries[i].Template = d.Atoms, d.Expression, d.Template
		}
	}
	fp.qrels = metrics.Qrels{}
	fp.opt = metrics.Options{Complete: true, Negatives: map[string]map[string]bool{}}
	err = env.Store.EachQrel(ctx, p.ID, "", "", func(q store.Qrel) error {
		switch q.Kind {
		case "positive":
			if fp.qrels[q.QueryExtID] == nil {
				fp.qrels[q.QueryExtID] = map[string]int{}
			}
			fp.qrels[q.QueryExtID][q.DocExtID] = q.Relevance
		case "negative":
			if fp.opt.Negatives[q.QueryExtID] == nil {
				fp.opt.Negatives[q.QueryExtID] = map[string]bool{}
			}
			fp.opt.Negatives[q.QueryExtID][q.DocExtID] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	lq, err := env.Store.ProjectQueries(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	fp.opt.NevIRPairs = live.NevIRPairs(lq)
	return fp, nil
}

// score runs method (default parameters) over every query of the fixture
// and returns the mean of measure with eval's evaluator.
// scorePair is measure of c's method and of its plain counterpart.
func (fp *fixtureProject) scorePair(ctx context.Context, c negationPair, measure string) (v, ref float64, err error) {
	if v, err = fp.score(ctx, c.method, measure); err != nil {
		return 0, 0, err
	}
	ref, err = fp.score(ctx, c.plain, measure)
	return v, ref, err
}

func (fp *fixtureProject) score(ctx context.Context, method, measure string) (float64, error) {
	res, ok := fp.cache[method]
	if !ok {
		m, err := fp.res.Method(ctx, method, nil)
		if err != nil {
			return 0, err
		}
		results, err := retrieval.RunAll(ctx, m, fp.queries, depth, runtime.GOMAXPROCS(0), nil)
		if err != nil {
			return 0, err
		}
		run := metrics.Run{}
		for q, rs := range results {
			for _, r := range rs {
				run[q] = append(run[q], metrics.Scored{DocID: r.DocID, Score: r.Score})
			}
		}
		specs, err := metrics.ParseSpecs("nevir,negabove")
		if err != nil {
			return 0, err
		}
		res = metrics.EvaluateRun(fp.qrels, run, specs, fp.opt)
		fp.cache[method] = res
	}
	if res.Count[measure] == 0 {
		return 0, fmt.Errorf("negation bench: %s: no query has %s", method, measure)
	}
	return res.Mean[measure], nil
}

// denseOpener holds the static MiniLM encoder; open embeds one fixture
// project's documents into an exact in-memory index.
type denseOpener struct {
	enc *encoders.ONNXEncoder
}

func denseFactory(ctx context.Context, env *bench.Env) (*denseOpener, func(), error) {
	enc, err := env.OpenEncoder(ctx, encoders.MiniLMStatic)
	if err != nil {
		return nil, nil, err
	}
	return &denseOpener{enc: enc}, func() { enc.Close() }, nil
}

func (d *denseOpener) open(ctx context.Context, st *store.Store, projectID int64) (*retrieval.Dense, error) {
	var ids, texts []string
	err := st.EachDocument(ctx, projectID, func(doc store.Document) error {
		ids = append(ids, doc.ExtID)
		texts = append(texts, embedjob.DocumentText(doc.Title, doc.Body))
		return nil
	})
	if err != nil {
		return nil, err
	}
	vecs, err := d.enc.Encode(ctx, texts)
	if err != nil {
		return nil, err
	}
	mv, err := retrieval.NewMemoryVectors(ids, vecs)
	if err != nil {
		return nil, err
	}
	return &retrieval.Dense{Encoder: d.enc, Vectors: mv}, nil
}
