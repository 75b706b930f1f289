package evalsim

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"

	"boolpool/server/cal"
	"boolpool/server/estimate"
	"boolpool/server/lexical"
	"boolpool/server/metrics"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// ProjectSpec asks SimulateProject for a simulation over a project's
// stored runs and queries.
type ProjectSpec struct {
	Runs       []string
	Split      string
	Depth      int
	Strategies []string
	Budget     int
	Measures   string // e.g. "ndcg@10,recall@100,ap"
	Sample     estimate.SampleConfig
	Bandit     pooling.BanditOptions
	CAL        pooling.CALSim
	Levels     []float64
	// Qrels is the oracle: query → relevant documents (nil: the project's
	// stored qrels).
	Qrels map[string]map[string]bool
}

// SimulateProject loads the project's runs, queries, gold and (for the
// sample's corpus stratum and cal) its lexical index, then Simulate.
func SimulateProject(ctx context.Context, st *store.Store, projectID int64, spec ProjectSpec, log *slog.Logger) (Summary, error) {
	in, err := LoadInput(ctx, st, projectID, spec, log)
	if err != nil {
		return Summary{}, err
	}
	return Simulate(ctx, in)
}

// LoadInput reads what Simulate needs from the store.
func LoadInput(ctx context.Context, st *store.Store, projectID int64, spec ProjectSpec, log *slog.Logger) (Input, error) {
	measures, err := ParseMeasures(spec.Measures)
	if err != nil {
		return Input{}, err
	}
	if err := spec.Sample.Check(); err != nil && slices.Contains(spec.Strategies, Sample) {
		return Input{}, fmt.Errorf("evalsim: sample design: %w", err)
	}
	runs, withGold, rel, err := pooling.LoadGold(ctx, st, projectID, spec.Runs, spec.Split, spec.Qrels)
	if err != nil {
		return Input{}, err
	}
	in := Input{Runs: runs, Strategies: spec.Strategies, Depth: spec.Depth, Budget: spec.Budget, Measures: measures,
		Sample: spec.Sample, Bandit: spec.Bandit, Levels: spec.Levels}
	for _, q := range withGold {
		in.Queries = append(in.Queries, Query{ID: q.ID, Text: q.Text, Rel: rel[q.ID]})
	}
	needIndex := slices.Contains(spec.Strategies, pooling.CAL) && spec.CAL.Engine == nil ||
		slices.Contains(spec.Strategies, Sample) && spec.Sample.Corpus != nil
	var ix *lexical.Index
	if needIndex {
		if ix, err = retrieval.LoadLexical(ctx, st, projectID, log); err != nil {
			return Input{}, err
		}
	}
	if slices.Contains(spec.Strategies, pooling.CAL) {
		c := spec.CAL
		if c.Engine == nil {
			c.Engine = cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions())
		}
		in.CAL = &c
	}
	if slices.Contains(spec.Strategies, Sample) && spec.Sample.Corpus != nil {
		if in.Proxy, err = ProxyRanking(ctx, ix, withGold, ProxyDepth(spec.Sample)); err != nil {
			return Input{}, err
		}
		if spec.Sample.Corpus.Rest {
			in.Corpus = make([]string, ix.NumDocs())
			for i := range in.Corpus {
				in.Corpus[i] = ix.DocID(uint32(i))
			}
		}
	}
	return in, nil
}

// ProxyDepth is how deep the proxy ranking of a design's corpus stratum
// must go: its largest proxy-rank bound.
func ProxyDepth(cfg estimate.SampleConfig) int {
	if cfg.Corpus == nil || len(cfg.Corpus.Bounds) == 0 {
		return 0
	}
	return slices.Max(cfg.Corpus.Bounds)
}

// ProxyRanking is the cheap relevance proxy of the corpus stratum: the
// BM25 ranking of each query's text, to depth.
func ProxyRanking(ctx context.Context, ix *lexical.Index, queries []retrieval.Query, depth int) (map[string][]string, error) {
	out := map[string][]string{}
	if depth < 1 {
		return out, nil
	}
	m, err := retrieval.New("bm25", nil, retrieval.Deps{Lexical: ix})
	if err != nil {
		return nil, err
	}
	res, err := retrieval.RunAll(ctx, m, queries, depth, runtime.GOMAXPROCS(0), nil)
	if err != nil {
		return nil, fmt.Errorf("evalsim: proxy ranking: %w", err)
	}
	for q, rs := range res {
		docs := make([]string, len(rs))
		for i, r := range rs {
			docs[i] = r.DocID
		}
		out[q] = docs
	}
	return out, nil
}

// ParseMeasures parses the measures an estimate reports; the estimators
// know ap, ndcg@k, p@k and recall@k (recall needs a cutoff here).
func ParseMeasures(list string) ([]metrics.Spec, error) {
	specs, err := metrics.ParseSpecs(list)
	if err != nil {
		return nil, fmt.Errorf("evalsim: measures: %w", err)
	}
	for _, s := range specs {
		switch {
		case s.Name == "ap", s.Name == metrics.MeasureNDCG && s.K > 0, s.Name == metrics.MeasureP, s.Name == metrics.MeasureRecall && s.K > 0:
		default:
			return nil, fmt.Errorf("evalsim: measure %q has no estimator (want ap, ndcg@k, p@k or recall@k)", s)
		}
	}
	return specs, nil
}
