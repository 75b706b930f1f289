// Package poolestimate estimates a project's runs from its sampled pool
// (issue 24): it reads the pool's sampling design (the strata and every
// item's inclusion probability, stored by pooling.Make for strategy
// sample), the project's consensus judgments and the stored runs, and
// hands them to server/estimate. The dashboard's estimates panel (GET
// /api/projects/:project/estimates) and `boolpool eval --estimate` both
// call Compute, so they print the same numbers.
//
// A pool without a sampling design falls back to the usual measures over
// the judged documents (an unjudged document counts as not relevant) and
// says so in Result.Note.
package poolestimate

import (
	"context"
	"fmt"
	"sort"

	"boolpool/server/apperr"
	"boolpool/server/consensus"
	"boolpool/server/estimate"
	"boolpool/server/metrics"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// DefaultMeasures are the measures estimated when none are asked for.
const DefaultMeasures = "ap,ndcg@10,p@10,recall@100"

// Options choose what Compute estimates.
type Options struct {
	// Pool names the sampled pool ("": the project's newest pool with
	// strategy sample; without one, the newest pool, unestimated).
	Pool string
	// Runs are the stored runs to estimate (nil: every stored run, unless
	// Rankings are given).
	Runs []string
	// Rankings are further runs to estimate (e.g. run files), best first.
	Rankings []estimate.NamedRanking
	// Measures, e.g. "ap,ndcg@10" ("": DefaultMeasures).
	Measures string
	// Qrels replaces the project's consensus judgments (e.g. a qrels file
	// exported from the project): query → document → grade.
	Qrels map[string]map[string]int
	// MinRel is the lowest relevant grade (0: 1).
	MinRel int
}

// Result is Compute's answer.
type Result struct {
	Pool      string `json:"pool"`
	Strategy  string `json:"strategy"`
	Estimated bool   `json:"estimated"` // false: no sampling design, plain measures
	Note      string `json:"note,omitempty"`
	estimate.Report
}

// Compute estimates the runs' measures from the pool's design and the
// judgments so far.
func Compute(ctx context.Context, st *store.Store, projectID int64, opt Options) (Result, error) {
	specs, err := metrics.ParseSpecs(orDefault(opt.Measures))
	if err != nil {
		return Result{}, apperr.Invalidf("measures", "%v", err)
	}
	for _, s := range specs {
		if !estimable(s) {
			return Result{}, apperr.Invalidf("measures", "%s has no estimator (want ap, ndcg@k, p@k or recall@k)", s)
		}
	}
	pool, err := choosePool(ctx, st, projectID, opt.Pool)
	if err != nil {
		return Result{}, err
	}
	names := opt.Runs
	if len(names) == 0 && len(opt.Rankings) == 0 {
		infos, err := st.ListRuns(ctx, projectID)
		if err != nil {
			return Result{}, err
		}
		for _, r := range infos {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 && len(opt.Rankings) == 0 {
		return Result{}, apperr.Invalidf("runs", "the project has no stored runs to estimate")
	}
	runs, err := pooling.LoadRuns(ctx, st, projectID, names)
	if err != nil {
		return Result{}, err
	}
	judged := opt.Qrels
	if judged == nil {
		if judged, err = ConsensusQrels(ctx, st, projectID); err != nil {
			return Result{}, err
		}
	}
	minRel := opt.MinRel
	if minRel <= 0 {
		minRel = 1
	}
	res := Result{Pool: pool.Name, Strategy: pool.Strategy}
	stored, err := st.PoolDesign(ctx, pool.ID)
	if err != nil {
		return Result{}, err
	}
	designs := queryDesigns(stored)
	in := estimate.Input{Judged: judged, Specs: specs, MinRel: minRel, PoolSparse: true}
	for _, r := range runs {
		in.Runs = append(in.Runs, estimate.NamedRanking{Name: r.Name, Lists: r.Lists})
	}
	in.Runs = append(in.Runs, opt.Rankings...)
	if len(designs) > 0 {
		res.Estimated = true
		in.Designs = designs
		res.Report = estimate.Estimate(in)
		return res, nil
	}
	// No design: every judged document of the pool's queries is a unit of
	// a certainty stratum, which makes every estimate the plain measure
	// (unjudged = not relevant) with no sampling error.
	res.Note = fmt.Sprintf("pool %q has no sampling design (strategy %s): the usual measures over the judged documents, an unjudged document counted as not relevant, no intervals from a design", pool.Name, pool.Strategy)
	items, err := st.PoolItems(ctx, pool.ID)
	if err != nil {
		return Result{}, err
	}
	in.Designs = map[string]estimate.QueryDesign{}
	for _, it := range items {
		if _, ok := in.Designs[it.QueryExtID]; !ok {
			in.Designs[it.QueryExtID] = certain(it.QueryExtID, judged[it.QueryExtID])
		}
	}
	res.Report = estimate.Estimate(in)
	return res, nil
}

// certain is the design in which every judged document was taken with
// probability 1.
func certain(q string, judged map[string]int) estimate.QueryDesign {
	d := estimate.QueryDesign{Query: q, Strata: []estimate.Stratum{{Name: "judged", Population: len(judged), Sampled: len(judged)}}}
	docs := make([]string, 0, len(judged))
	for doc := range judged {
		docs = append(docs, doc)
	}
	sort.Strings(docs)
	for _, doc := range docs {
		d.Units = append(d.Units, estimate.Unit{Doc: doc, Stratum: 0, Pi: 1})
	}
	return d
}

func orDefault(m string) string {
	if m == "" {
		return DefaultMeasures
	}
	return m
}

func estimable(s metrics.Spec) bool {
	switch s.Name {
	case metrics.MeasureAP:
		return true
	case metrics.MeasureNDCG, metrics.MeasureP, metrics.MeasureRecall:
		return s.K > 0
	}
	return false
}

// choosePool is the named pool, or the newest sampled pool, or the newest
// pool.
func choosePool(ctx context.Context, st *store.Store, projectID int64, name string) (store.PoolInfo, error) {
	if name != "" {
		p, err := st.PoolByName(ctx, projectID, name)
		if err != nil {
			return p, apperr.Invalidf("pool", "no pool named %q in this project", name)
		}
		return p, nil
	}
	pools, err := st.ListPools(ctx, projectID)
	if err != nil {
		return store.PoolInfo{}, err
	}
	if len(pools) == 0 {
		return store.PoolInfo{}, apperr.Invalidf("pool", "the project has no pool")
	}
	best := -1
	for i, p := range pools {
		if best < 0 || newer(p, pools[best], pooling.Sample) {
			best = i
		}
	}
	return pools[best], nil
}

// newer prefers a pool of strategy want, then the later one.
func newer(a, b store.PoolInfo, want string) bool {
	if (a.Strategy == want) != (b.Strategy == want) {
		return a.Strategy == want
	}
	return a.CreatedAt.After(b.CreatedAt)
}

// ConsensusQrels is the project's consensus labels after bringing them up
// to date with every stored judgment (consensus.Current): query →
// document → grade.
func ConsensusQrels(ctx context.Context, st *store.Store, projectID int64) (map[string]map[string]int, error) {
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	err := st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if out[r.QueryExtID] == nil {
			out[r.QueryExtID] = map[string]int{}
		}
		out[r.QueryExtID][r.DocExtID] = r.Relevance
		return nil
	})
	return out, err
}

// queryDesigns turns a pool's stored sampling design into the estimator's.
func queryDesigns(stored map[string]store.PoolDesignQuery) map[string]estimate.QueryDesign {
	out := make(map[string]estimate.QueryDesign, len(stored))
	for q, d := range stored {
		qd := estimate.QueryDesign{Query: d.Query, Strata: make([]estimate.Stratum, len(d.Strata)), Units: make([]estimate.Unit, len(d.Units))}
		for i, s := range d.Strata {
			qd.Strata[i] = estimate.Stratum{Name: s.Name, Population: s.Population, Sampled: s.Sampled}
		}
		for i, u := range d.Units {
			qd.Units[i] = estimate.Unit{Doc: u.Doc, Stratum: u.Stratum, Pi: u.Pi}
		}
		out[q] = qd
	}
	return out
}
