package pooling

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"boolpool/server/apperr"
	"boolpool/server/cal"
	"boolpool/server/estimate"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// Spec describes a pool to build over a project's stored runs.
type Spec struct {
	Name       string   `json:"name"`
	Runs       []string `json:"runs"`
	Depth      int      `json:"depth"`
	Strategy   string   `json:"strategy"`
	Probes     bool     `json:"probes"`
	ProbeDepth int      `json:"probe_depth"`
	Split      string   `json:"split"`
	JudgedK    []int    `json:"judged_k"`
	// JudgedRuns are further stored runs whose Judged@k against the pool is
	// reported (runs that did not contribute to it).
	JudgedRuns []string `json:"judged_runs,omitempty"`
	// CAL configures strategy cal (continuous active learning while the raters judge).
	CAL CALParams `json:"cal,omitempty"`
	// Atoms configures strategy atoms (constraint pooling, created by
	// atompool.Publish).
	Atoms AtomsParams `json:"atoms,omitempty"`
	// Sample configures strategy sample (a stratified sample with
	// inclusion probabilities; sample.go).
	Sample *SampleParams `json:"sample,omitempty"`
}

// Report is what building a pool produced.
type Report struct {
	PoolID      int64                      `json:"pool_id"`
	Name        string                     `json:"name"`
	Strategy    string                     `json:"strategy"`
	Depth       int                        `json:"depth"`
	Composition Composition                `json:"composition"`
	JudgedAtK   map[string]map[int]float64 `json:"judged_at_k"` // run → k → share of its top k in the pool
	// Sample sums a sampled pool's design over its queries.
	Sample *SampleReport `json:"sample,omitempty"`
}

// LoadRuns reads stored runs.
func LoadRuns(ctx context.Context, st *store.Store, projectID int64, names []string) ([]Run, error) {
	runs := make([]Run, len(names))
	for i, n := range names {
		res, err := retrieval.LoadRun(ctx, st, projectID, n)
		if err != nil {
			return nil, err
		}
		lists := make(map[string][]string, len(res))
		for q, rs := range res {
			docs := make([]string, len(rs))
			for j, r := range rs {
				docs[j] = r.DocID
			}
			lists[q] = docs
		}
		runs[i] = Run{Name: n, Lists: lists}
	}
	return runs, nil
}

// Create checks spec (Check), builds a pool from stored runs (plus, with Probes, the logic probes
// from the project's lexical index), saves it as a draft and reports its
// composition and the Judged@k of each run against it. Adaptive strategies
// start from no judgments (their order is refined by calling Build again as
// judgments arrive). It is Make without publishing.
func Create(ctx context.Context, st *store.Store, projectID int64, spec Spec, log *slog.Logger) (Report, error) {
	m, err := Make(ctx, st, projectID, MakeRequest{Spec: spec}, log, nil)
	return m.Report, err
}

// MakeRequest asks Make for a pool.
type MakeRequest struct {
	Spec Spec
	// Publish publishes the pool as relevance items (the pool builder's
	// publish); without it the pool is saved as a draft (`boolpool pool`).
	Publish bool
	// RatersPerItem, with Publish, becomes the project's raters per item
	// (0: unchanged).
	RatersPerItem int
	By            int64 // who publishes (the audit log; 0: a command)
	// JobID is the background job running Make (0: none); a retry of the
	// job finds the pool an earlier attempt published instead of
	// publishing it twice.
	JobID int64
}

// Made is what Make did.
type Made struct {
	Report
	Published     bool
	Publish       store.PublishResult // relevance items created (with Published)
	RatersPerItem int                 // the project's raters per item after publishing
	// Again: an earlier attempt of the same job had published the pool.
	Again bool
}

// Progress hears how far Make is: the phase and done of total units
// (queries while building). Nil: nobody listens.
type Progress func(phase string, done, total int)

// Make checks the request's spec (Check), builds the pool query by query,
// and saves it, and with Publish publishes it, in one transaction
// (store.SaveNewPool): either all of it is written or nothing. It is the
// one way pools are made: the pool job (the pool builder's publish) and
// `boolpool pool` call it. It returns when ctx ends.
func Make(ctx context.Context, st *store.Store, projectID int64, o MakeRequest, log *slog.Logger, progress Progress) (Made, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if o.Spec.Strategy == Atoms {
		return Made{}, apperr.Invalidf("strategy", "a pool with strategy atoms publishes constraint items: atompool.Publish builds it")
	}
	spec, err := Check(ctx, st, projectID, o.Spec)
	if err != nil {
		return Made{}, err
	}
	progress("loading runs", 0, 0)
	runs, pool, err := buildPool(ctx, st, projectID, spec, log, func(done, total int) { progress("building the pool", done, total) })
	if err != nil {
		return Made{}, err
	}
	n := store.NewPool{ProjectID: projectID, Name: spec.Name, Strategy: spec.Strategy, Depth: spec.Depth,
		Publish: o.Publish, RatersPerItem: o.RatersPerItem, By: o.By, JobID: o.JobID}
	for _, qp := range pool {
		for _, it := range qp.items {
			n.Items = append(n.Items, store.PoolItemIn{QueryID: qp.query.RowID, DocExtID: it.DocID, Priority: it.Priority, Sources: it.Sources, Probe: it.Probe,
				Origin: it.Origin, Round: it.Round, Inclusion: it.Inclusion, Stratum: it.Stratum})
		}
		if qp.design != nil {
			for h, s := range qp.design.Strata {
				n.Strata = append(n.Strata, store.PoolStratumIn{QueryID: qp.query.RowID, Stratum: h, Name: s.Name, Population: s.Population, Sampled: s.Sampled})
			}
		}
	}
	if n.Params, err = json.Marshal(spec); err != nil {
		return Made{}, fmt.Errorf("pooling: %w", err)
	}
	// A cal pool's queries start at round 0; any other pool has none (a
	// draft of the same name may have been a cal pool).
	if spec.Strategy == CAL {
		for _, qp := range pool {
			n.CALQueries = append(n.CALQueries, store.CALQueryIn{QueryID: qp.query.RowID, BatchSize: spec.CAL.Batch})
		}
	}
	extra, err := LoadRuns(ctx, st, projectID, spec.JudgedRuns)
	if err != nil {
		return Made{}, err
	}
	phase := "saving the pool"
	if o.Publish {
		phase = "publishing the pool"
	}
	progress(phase, 0, len(n.Items))
	saved, err := st.SaveNewPool(ctx, n)
	if err != nil {
		return Made{}, err
	}
	progress(phase, len(n.Items), len(n.Items))
	m := Made{Report: poolReport(spec, pool, append(runs, extra...)), Published: saved.Published, Publish: saved.Publish,
		RatersPerItem: saved.RatersPerItem, Again: saved.Again}
	m.PoolID = saved.ID
	return m, nil
}

// queryPool is the part of a pool built for one query.
type queryPool struct {
	query retrieval.Query
	items []Item
	// Sampled pools: the query's design (its units are items), and on the
	// first query what was drawn for all (the rates after scaling to the
	// budget, the judgments expected).
	design       *estimate.QueryDesign
	judgedBefore int          // of its units, documents judged before
	drawn        *sampleDrawn // the first query's: the pool's configuration
}

// buildPool loads spec's runs and queries (and, with Probes, the lexical
// index for the logic probes) and builds the pool's items query by query,
// with no judgments yet; nothing is saved.
// built (nil: not heard) hears the queries done of the pool's queries.
func buildPool(ctx context.Context, st *store.Store, projectID int64, spec Spec, log *slog.Logger, built func(done, total int)) ([]Run, []queryPool, error) {
	if built == nil {
		built = func(int, int) {}
	}
	runs, err := LoadRuns(ctx, st, projectID, spec.Runs)
	if err != nil {
		return nil, nil, err
	}
	if spec.Strategy == CAL {
		pool, err := calFirst(ctx, st, projectID, spec, NewCALEngines(st, log), built)
		return runs, pool, err
	}
	if spec.Strategy == Sample {
		pool, err := sampleBuild(ctx, st, projectID, spec, runs, log, built)
		return runs, pool, err
	}
	queries, err := retrieval.LoadQueries(ctx, st, projectID, spec.Split)
	if err != nil {
		return nil, nil, err
	}
	var ix *lexical.Index
	if spec.Probes {
		if ix, err = retrieval.LoadLexical(ctx, st, projectID, log); err != nil {
			return nil, nil, err
		}
	}
	pool := make([]queryPool, 0, len(queries))
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		built(i, len(queries))
		var probes []Probe
		if ix != nil {
			for _, p := range retrieval.LogicProbes(ix, q, spec.ProbeDepth) {
				probes = append(probes, Probe{Label: p.Label, Docs: p.Docs})
			}
		}
		if corpusAtoms(spec) {
			// Candidates: every document of the corpus; the first batch is
			// chosen at publish by an active learner per atom, so the
			// preview lists no run's candidates.
			pool = append(pool, queryPool{query: q})
			continue
		}
		strategy := spec.Strategy
		if strategy == Atoms {
			// Previewed as its candidates: the runs' top depth, in rank order.
			strategy = Depth
		}
		items, err := Build(q.ID, runs, probes, Options{Depth: spec.Depth, Strategy: strategy}, NoJudgments)
		if err != nil {
			return nil, nil, err
		}
		pool = append(pool, queryPool{query: q, items: items})
	}
	built(len(queries), len(queries))
	return runs, pool, nil
}

// poolReport is the composition of a built pool and the Judged@k of each
// of runs against it (PoolID is left 0).
func poolReport(spec Spec, pool []queryPool, runs []Run) Report {
	var all []Item
	inPool := map[string]map[string]bool{}
	for _, qp := range pool {
		inPool[qp.query.ID] = map[string]bool{}
		for _, it := range qp.items {
			inPool[qp.query.ID][it.DocID] = true
		}
		all = append(all, qp.items...)
	}
	rep := Report{Name: spec.Name, Strategy: spec.Strategy, Depth: spec.Depth,
		Composition: Compose(all, spec.Runs), JudgedAtK: map[string]map[int]float64{}}
	if spec.Strategy == Sample {
		rep.Sample = sampleReport(pool)
	}
	judged := func(q, d string) bool { return inPool[q][d] }
	for _, r := range runs {
		rep.JudgedAtK[r.Name] = map[int]float64{}
		for _, k := range spec.JudgedK {
			rep.JudgedAtK[r.Name][k] = JudgedAtK(restrict(r, inPool), judged, k)
		}
	}
	return rep
}

// restrict keeps only the run's queries that are in the pool (a split).
func restrict(r Run, queries map[string]map[string]bool) Run {
	out := Run{Name: r.Name, Lists: map[string][]string{}}
	for q, l := range r.Lists {
		if _, ok := queries[q]; ok {
			out.Lists[q] = l
		}
	}
	return out
}

// SimulateProject runs Simulate over stored runs with the project's
// positive qrels (relevance >= 1) as the oracle.
func SimulateProject(ctx context.Context, st *store.Store, projectID int64, runNames []string, depth int, split string, strategies []string, levels []float64, bandit BanditOptions) (SimSummary, error) {
	runs, err := LoadRuns(ctx, st, projectID, runNames)
	if err != nil {
		return SimSummary{}, err
	}
	queries, err := retrieval.LoadQueries(ctx, st, projectID, split)
	if err != nil {
		return SimSummary{}, err
	}
	rel, err := storedRelevant(ctx, st, projectID)
	if err != nil {
		return SimSummary{}, err
	}
	qids := make([]string, len(queries))
	for i, q := range queries {
		qids[i] = q.ID
	}
	return Simulate(qids, runs, depth, rel, strategies, levels, bandit)
}

// GoldSpec describes a simulation against all the gold.
type GoldSpec struct {
	Runs       []string
	Depth      int
	Split      string
	Strategies []string
	Levels     []float64
	Budget     int
	Bandit     BanditOptions
	// Qrels is the oracle (query id → relevant documents); nil uses the
	// project's stored positive qrels (relevance >= 1).
	Qrels map[string]map[string]bool
	// CAL configures the cal strategy; its Engine is built from the
	// project's lexical index when nil.
	CAL CALSim
}

// SimulateGoldProject runs SimulateGold over the project's queries (of the
// split) that have at least one relevant document in the oracle.
func SimulateGoldProject(ctx context.Context, st *store.Store, projectID int64, spec GoldSpec, log *slog.Logger) (GoldSummary, error) {
	if spec.Depth < 1 {
		return GoldSummary{}, fmt.Errorf("pooling: depth must be positive, got %d", spec.Depth)
	}
	runs, queries, rel, err := LoadGold(ctx, st, projectID, spec.Runs, spec.Split, spec.Qrels)
	if err != nil {
		return GoldSummary{}, err
	}
	var gqs []GoldQuery
	for _, q := range queries {
		gqs = append(gqs, GoldQuery{ID: q.ID, Text: q.Text, Lists: topLists(q.ID, runs, spec.Depth), Rel: rel[q.ID]})
	}
	calSim := spec.CAL
	for _, s := range spec.Strategies {
		if s == CAL && calSim.Engine == nil {
			ix, err := retrieval.LoadLexical(ctx, st, projectID, log)
			if err != nil {
				return GoldSummary{}, err
			}
			calSim.Engine = cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions())
		}
	}
	seqs, err := Sequencers(spec.Strategies, spec.Bandit, &calSim)
	if err != nil {
		return GoldSummary{}, err
	}
	return SimulateGold(ctx, gqs, spec.Strategies, seqs, spec.Levels, spec.Budget)
}

// LoadGold reads what a simulation against gold needs: the named runs,
// the split's queries that have a relevant document in the oracle, and
// the oracle (query id → relevant documents): qrels, or when nil the
// project's stored positive qrels (StoredRelevant).
func LoadGold(ctx context.Context, st *store.Store, projectID int64, runNames []string, split string, qrels map[string]map[string]bool) ([]Run, []retrieval.Query, map[string]map[string]bool, error) {
	runs, err := LoadRuns(ctx, st, projectID, runNames)
	if err != nil {
		return nil, nil, nil, err
	}
	all, err := retrieval.LoadQueries(ctx, st, projectID, split)
	if err != nil {
		return nil, nil, nil, err
	}
	rel := qrels
	if rel == nil {
		if rel, err = storedRelevant(ctx, st, projectID); err != nil {
			return nil, nil, nil, err
		}
	}
	var queries []retrieval.Query
	for _, q := range all {
		if len(rel[q.ID]) > 0 {
			queries = append(queries, q)
		}
	}
	return runs, queries, rel, nil
}

// StoredRelevant is the project's positive qrels with relevance >= 1 (the
// gold of a simulation without a qrels file).
func StoredRelevant(ctx context.Context, st *store.Store, projectID int64) (map[string]map[string]bool, error) {
	return storedRelevant(ctx, st, projectID)
}

// storedRelevant is the project's positive qrels with relevance >= 1.
func storedRelevant(ctx context.Context, st *store.Store, projectID int64) (map[string]map[string]bool, error) {
	rel := map[string]map[string]bool{}
	err := st.EachQrel(ctx, projectID, "positive", "", func(q store.Qrel) error {
		if q.Relevance >= 1 {
			if rel[q.QueryExtID] == nil {
				rel[q.QueryExtID] = map[string]bool{}
			}
			rel[q.QueryExtID][q.DocExtID] = true
		}
		return nil
	})
	return rel, err
}
