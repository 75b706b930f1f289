package reuse

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/consensus"
	"boolpool/server/metrics"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// LoadDepth is the most results of each run per query that are read:
// measures without a cutoff see each ranking's top LoadDepth.
const LoadDepth = 1000

// DefaultBootstrap is the default number of query bootstrap resamples.
const DefaultBootstrap = 1000

// Options select what the reports are computed over.
type Options struct {
	Pool     string // reusability: required; stability: only this pool's items ("" = all)
	Split    string // only this split's queries ("" = all)
	Measures string // comma-separated measures ("" = DefaultMeasures())
	// Resamples and Seed of the stability report's query bootstrap.
	Resamples int
	Seed      uint64
}

// DefaultMeasures is ndcg@10, average precision when package metrics
// knows it (else p@10), and recall@100.
func DefaultMeasures() string {
	if _, err := metrics.ParseSpec("ap"); err == nil {
		return "ndcg@10,ap,recall@100"
	}
	return "ndcg@10,p@10,recall@100"
}

// ParseMeasures parses a measure list (field "measures"); measures that
// need explicit negatives or NevIR pairs are refused.
func ParseMeasures(list string) ([]metrics.Spec, error) {
	if strings.TrimSpace(list) == "" {
		list = DefaultMeasures()
	}
	specs, err := metrics.ParseSpecs(list)
	if err != nil {
		return nil, apperr.Invalidf("measures", "%v", err)
	}
	for _, s := range specs {
		if s.NeedsNegatives() || s.NeedsPairs() {
			return nil, apperr.Invalidf("measures", "%s needs negatives or NevIR pairs, which these reports do not use", s)
		}
		if s.K > LoadDepth {
			return nil, apperr.Invalidf("measures", "%s: cutoff above the %d results read per run", s, LoadDepth)
		}
	}
	return specs, nil
}

// Family is a run's method family: lexical, sparse, dense or fusion for
// the methods of package retrieval, else the run's own name.
func Family(method, name string) string {
	spec, ok := retrieval.SpecByName(method)
	switch {
	case !ok:
		return name
	case strings.HasPrefix(spec.Name, "sparse-"):
		return "sparse"
	case spec.Needs == retrieval.NeedsDense:
		return "dense"
	case spec.Needs == retrieval.NeedsRuns:
		return "fusion"
	default:
		return "lexical"
	}
}

// project is what both reports read of a project.
type project struct {
	queries map[int64]string // query row id → ext id (of the split)
	runs    []Run
	items   []store.RelevanceItem
	votes   consensus.ProjectVotes
}

// depthFor is how many results per run and query the specs need: their
// largest cutoff (at least 10, for Judged@10), LoadDepth when one has none.
func depthFor(specs []metrics.Spec) int {
	d := 10
	for _, s := range specs {
		if s.K == 0 {
			return LoadDepth
		}
		d = max(d, s.K)
	}
	return d
}

func load(ctx context.Context, st *store.Store, projectID int64, split string, depth int) (project, error) {
	p := project{queries: map[int64]string{}}
	qs, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return p, err
	}
	if split != "" && len(qs) == 0 {
		return p, apperr.Invalidf("split", "no query of this project is in split %q", split)
	}
	for _, q := range qs {
		p.queries[q.ID] = q.ExtID
	}
	infos, err := st.ListRuns(ctx, projectID)
	if err != nil {
		return p, err
	}
	rankings := metrics.Rankings[string]{}
	err = st.EachRunTop(ctx, projectID, depth, func(r store.RunResultTop) error {
		if q, ok := p.queries[r.QueryID]; ok {
			rankings.Add(r.RunID, q, r.DocExtID, r.Score)
		}
		return nil
	})
	if err != nil {
		return p, err
	}
	for _, r := range infos {
		p.runs = append(p.runs, Run{Name: r.Name, Family: Family(r.Method, r.Name), Ranked: rankings.Ranked(r.ID)})
	}
	all, err := st.RelevanceItems(ctx, projectID)
	if err != nil {
		return p, err
	}
	for _, it := range all {
		if _, ok := p.queries[it.QueryID]; ok {
			p.items = append(p.items, it)
		}
	}
	p.votes, err = consensus.LoadProjectVotes(ctx, st, projectID)
	return p, err
}

// majority is an item's consensus label (consensus.Decide, what the
// stored consensus holds once consensus.Current has run), -1 for none.
func (p project) majority(itemID int64) int {
	d, ok := p.votes.Decide(itemID)
	if !ok {
		return -1
	}
	return d.Relevance
}

// poolItems reads a pool's items of the loaded queries; an unknown pool
// is refused naming the field "pool".
func poolItems(ctx context.Context, st *store.Store, projectID int64, name string, queries map[int64]string) ([]PoolItem, error) {
	if name == "" {
		return nil, apperr.Invalidf("pool", "required: the pool to test")
	}
	info, err := st.PoolByName(ctx, projectID, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apperr.Refusedf(apperr.ErrNotFound, "pool", "no pool %q in this project", name)
	}
	if err != nil {
		return nil, err
	}
	rows, err := st.PoolItems(ctx, info.ID)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(queries))
	for _, q := range queries {
		known[q] = true
	}
	out := make([]PoolItem, 0, len(rows))
	for _, r := range rows {
		if known[r.QueryExtID] {
			out = append(out, PoolItem{Query: r.QueryExtID, Doc: r.DocExtID, Sources: r.Sources})
		}
	}
	return out, nil
}

// LoadReusability computes a project's reusability report for the pool
// opt.Pool over the majority consensus of every relevance item.
func LoadReusability(ctx context.Context, st *store.Store, projectID int64, opt Options) (ReusabilityReport, error) {
	specs, err := ParseMeasures(opt.Measures)
	if err != nil {
		return ReusabilityReport{}, err
	}
	p, err := load(ctx, st, projectID, opt.Split, depthFor(specs))
	if err != nil {
		return ReusabilityReport{}, fmt.Errorf("reusability: %w", err)
	}
	items, err := poolItems(ctx, st, projectID, opt.Pool, p.queries)
	if err != nil {
		return ReusabilityReport{}, fmt.Errorf("reusability: %w", err)
	}
	qrels := metrics.Qrels{}
	for _, it := range p.items {
		g := p.majority(it.ID)
		if g < 0 {
			continue
		}
		q := p.queries[it.QueryID]
		if qrels[q] == nil {
			qrels[q] = map[string]int{}
		}
		qrels[q][it.DocExtID] = g
	}
	return Reusability(ReuseInput{Pool: opt.Pool, Runs: p.runs, Items: items, Qrels: qrels, Specs: specs, MinRel: consensus.RelevantThreshold}), nil
}

// LoadStability computes a project's stability report: majority vs
// Dawid–Skene (consensus.DawidSkeneDecisions), each annotator vs the
// majority, and the query bootstrap; with opt.Pool only that pool's
// documents count as judged.
func LoadStability(ctx context.Context, st *store.Store, projectID int64, opt Options) (StabilityReport, error) {
	specs, err := ParseMeasures(opt.Measures)
	if err != nil {
		return StabilityReport{}, err
	}
	if opt.Resamples < 0 || opt.Resamples > 100000 {
		return StabilityReport{}, apperr.Invalidf("bootstrap", "must be between 0 and 100000")
	}
	p, err := load(ctx, st, projectID, opt.Split, depthFor(specs))
	if err != nil {
		return StabilityReport{}, fmt.Errorf("stability: %w", err)
	}
	var inPool map[[2]string]bool
	if opt.Pool != "" {
		items, err := poolItems(ctx, st, projectID, opt.Pool, p.queries)
		if err != nil {
			return StabilityReport{}, fmt.Errorf("stability: %w", err)
		}
		inPool = make(map[[2]string]bool, len(items))
		for _, it := range items {
			inPool[[2]string{it.Query, it.Doc}] = true
		}
	}
	ds, _, err := consensus.DawidSkeneDecisions(ctx, st, projectID)
	if err != nil {
		return StabilityReport{}, fmt.Errorf("stability: %w", err)
	}
	var items []JudgedItem
	for _, it := range p.items {
		q := p.queries[it.QueryID]
		if inPool != nil && !inPool[[2]string{q, it.DocExtID}] {
			continue
		}
		ji := JudgedItem{Query: q, Doc: it.DocExtID, Majority: p.majority(it.ID), DawidSkene: -1}
		if d, ok := ds[it.ID]; ok {
			ji.DawidSkene = d.Relevance
		}
		for _, v := range p.votes.Votes[it.ID] {
			name := p.votes.Users[v.Rater]
			if name == "" {
				name = fmt.Sprintf("user %d", v.Rater)
			}
			ji.Votes = append(ji.Votes, Vote{Annotator: name, Label: v.Label})
		}
		items = append(items, ji)
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].Query < items[b].Query })
	return Stability(StabilityInput{Pool: opt.Pool, Runs: p.runs, Items: items, Specs: specs, MinRel: consensus.RelevantThreshold,
		Resamples: opt.Resamples, Seed: opt.Seed}), nil
}
