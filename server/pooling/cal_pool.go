package pooling

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"boolpool/server/apperr"
	"boolpool/server/cal"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// A pool with strategy "cal" is continuous active learning while the
// raters judge (an ongoing CAL session that grows batch by batch): Create
// serves each query's first batch (the classifier trained on the query text
// as a relevant pseudo-document and on every judgment already made for the
// query, by any pool; the reciprocal-rank fusion of the chosen runs while
// nothing relevant is known, and its top SeedRuns documents up front); once
// a query's batch is fully judged (every rater the project asks for, or
// adjudicated), CALTrigger — a consensus listener — queues a background job
// (CALJobKind, unique per pool, query and round) whose CALGrower checks the
// stopping rule and adds the next, larger batch (AutoTAR growth) to the
// pool and its relevance items, which enter the queues like any other.

// CALJobKind is the job kind that grows a cal pool's query by one batch.
const CALJobKind = vocab.JobKindCALBatch

// CAL pool defaults and bounds.
const (
	DefaultCALBatch = 5
	DefaultCALMax   = 1000
	MaxCALBatch     = 1000
	MaxCALMax       = 100000
)

// Stopping rules of a cal pool.
const (
	CALStopKnee      = "knee"       // DefaultCALKnee (as the simulation)
	CALStopPaperKnee = "paper-knee" // cal.PaperKnee
	CALStopNone      = "none"       // only the cap or a researcher stops it
)

// CALParams configure a cal pool (Spec.CAL).
type CALParams struct {
	Batch    int    `json:"batch"`     // the first batch per query (default 5); then B + ceil(B/10)
	Stop     string `json:"stop"`      // knee (default), paper-knee, none
	Max      int    `json:"max"`       // judgments per query at most (default 1000)
	SeedRuns int    `json:"seed_runs"` // the first batch starts with the top N of the runs' fusion (default 0)
}

// checkCAL fills the defaults of a cal spec and checks its bounds.
func checkCAL(spec Spec) (Spec, error) {
	p := &spec.CAL
	if spec.Probes {
		return spec, apperr.Invalidf("probes", "logic probes do not apply to strategy cal")
	}
	if err := defaultBounded(&p.Batch, "cal.batch", DefaultCALBatch, MaxCALBatch); err != nil {
		return spec, err
	}
	if err := defaultBounded(&p.Max, "cal.max", DefaultCALMax, MaxCALMax); err != nil {
		return spec, err
	}
	if p.SeedRuns < 0 || p.SeedRuns > MaxCALBatch {
		return spec, apperr.Invalidf("cal.seed_runs", "must be between 0 and %d", MaxCALBatch)
	}
	switch p.Stop {
	case "":
		p.Stop = CALStopKnee
	case CALStopKnee, CALStopPaperKnee, CALStopNone:
	default:
		return spec, apperr.Invalidf("cal.stop", "must be %s, %s or %s", CALStopKnee, CALStopPaperKnee, CALStopNone)
	}
	return spec, nil
}

// CALEngines keeps one cal.Engine per project, rebuilt when the project's
// documents change (its corpus fingerprint). Safe for concurrent use.
type CALEngines struct {
	st  *store.Store
	log *slog.Logger

	mu sync.Mutex
	m  map[int64]calEngine
}

type calEngine struct {
	fingerprint string
	e           *cal.Engine
}

// NewCALEngines returns an empty cache.
func NewCALEngines(st *store.Store, log *slog.Logger) *CALEngines {
	return &CALEngines{st: st, log: log, m: map[int64]calEngine{}}
}

// Get returns the project's engine, building its features from the stored
// lexical index (built first if missing or stale).
func (c *CALEngines) Get(ctx context.Context, projectID int64) (*cal.Engine, error) {
	fp, n, err := c.st.CorpusFingerprint(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apperr.Invalidf("strategy", "strategy cal needs the project's documents (none imported)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ce, ok := c.m[projectID]; ok && ce.fingerprint == fp {
		return ce.e, nil
	}
	ix, err := retrieval.LoadLexical(ctx, c.st, projectID, c.log)
	if err != nil {
		return nil, err
	}
	e := cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions())
	c.m[projectID] = calEngine{fingerprint: fp, e: e}
	return e, nil
}

// calFirst builds the first batch of every query of a cal pool (nothing is
// saved): the run lists within the depth give the items' sources and the
// fusion prior; the labels already known for the query seed the classifier.
func calFirst(ctx context.Context, st *store.Store, projectID int64, spec Spec, engines *CALEngines, built func(done, total int)) ([]queryPool, error) {
	queries, err := retrieval.LoadQueries(ctx, st, projectID, spec.Split)
	if err != nil {
		return nil, err
	}
	e, err := engines.Get(ctx, projectID)
	if err != nil {
		return nil, err
	}
	pool := make([]queryPool, 0, len(queries))
	for i, q := range queries {
		built(i, len(queries))
		labels, err := knownLabels(ctx, st, e, q.RowID)
		if err != nil {
			return nil, err
		}
		byRun, err := st.QueryRunLists(ctx, projectID, q.RowID, spec.Runs, spec.Depth)
		if err != nil {
			return nil, err
		}
		docs, err := calBatch(ctx, e, q.Text, labels, spec, byRun, spec.CAL.Batch, 0, nil)
		if err != nil {
			return nil, err
		}
		pool = append(pool, queryPool{query: q, items: calItems(q.ID, docs, spec.Runs, byRun, 0, 0)})
	}
	built(len(queries), len(queries))
	return pool, nil
}

// knownLabels are the labels of a query's judged documents that are in the
// engine's corpus.
func knownLabels(ctx context.Context, st *store.Store, e *cal.Engine, queryID int64) (map[string]bool, error) {
	all, err := st.CALLabels(ctx, queryID)
	if err != nil {
		return nil, err
	}
	for d := range all {
		if _, ok := e.Features().DocNum(d); !ok {
			delete(all, d)
		}
	}
	return all, nil
}

// calBatch asks the engine for the next size documents of a query (round 0
// first puts the top SeedRuns unjudged documents of the runs' fusion);
// exclude are documents already in the pool.
func calBatch(ctx context.Context, e *cal.Engine, text string, labels map[string]bool, spec Spec, byRun map[string][]string, size, round int, exclude map[string]bool) ([]string, error) {
	lists := make([][]string, 0, len(spec.Runs))
	for _, r := range spec.Runs {
		lists = append(lists, byRun[r])
	}
	fused := RRF(lists, 60)
	known := make(map[string]bool, len(labels)+len(exclude))
	for d, rel := range labels {
		known[d] = rel
	}
	for d := range exclude {
		if _, ok := known[d]; !ok {
			known[d] = false // served already: not again
		}
	}
	var out []string
	if round == 0 {
		for _, d := range fused {
			if len(out) >= spec.CAL.SeedRuns {
				break
			}
			if _, j := known[d]; j {
				continue
			}
			if _, ok := e.Features().DocNum(d); ok {
				out = append(out, d)
				known[d] = false
			}
		}
	}
	// The engine sees only real labels: served-but-unjudged documents are
	// not negatives, so they are dropped from its answer instead.
	want := len(out) + size
	more, err := e.NextBatch(ctx, cal.Request{Query: text, Labels: labels, Prior: fused, Size: size + len(known) - len(labels), Round: round})
	if err != nil {
		return nil, err
	}
	for _, d := range more {
		if len(out) >= want {
			break
		}
		if _, j := known[d]; !j {
			out = append(out, d)
			known[d] = false
		}
	}
	return out, nil
}

// calItems are the pool items of a batch: origin "runs" when some chosen
// run has the document within the depth (its sources), "cal" otherwise.
func calItems(qid string, docs []string, runs []string, byRun map[string][]string, round, prio int) []Item {
	items := make([]Item, len(docs))
	for i, d := range docs {
		it := Item{QueryID: qid, DocID: d, Priority: prio + i, Sources: map[string]int{}, Origin: OriginCAL, Round: round}
		for _, r := range runs {
			for k, x := range byRun[r] {
				if x == d {
					it.Sources[r] = k + 1
					break
				}
			}
		}
		if len(it.Sources) > 0 {
			it.Origin = OriginRuns
		}
		items[i] = it
	}
	return items
}

// Item origins.
const (
	OriginRuns = "runs"
	OriginCAL  = vocab.StrategyCAL
)

// CALGrower runs the CALJobKind jobs: it adds a query's next batch once
// its last one is judged, or ends the query by its stopping rule.
type CALGrower struct {
	st      *store.Store
	log     *slog.Logger
	engines *CALEngines
}

// NewCALGrower returns a grower with its own engine cache.
func NewCALGrower(st *store.Store, log *slog.Logger) *CALGrower {
	return &CALGrower{st: st, log: log, engines: NewCALEngines(st, log)}
}

// CALJobParams are a CALJobKind job's parameters: the round to add.
type CALJobParams struct {
	PoolID  int64 `json:"pool_id"`
	QueryID int64 `json:"query_id"`
	Round   int   `json:"round"`
}

// GrowResult says what a grow job did.
type GrowResult struct {
	Round   int    `json:"round"`
	Added   int    `json:"added"`             // pool items of the new batch
	Created int    `json:"created"`           // relevance items created (the others existed)
	Stopped string `json:"stopped,omitempty"` // why the query ended instead
	Skipped string `json:"skipped,omitempty"` // why nothing was done
}

// SpecOf decodes a stored pool's spec.
func SpecOf(p store.PoolInfo) (Spec, error) {
	var spec Spec
	if err := json.Unmarshal(p.Params, &spec); err != nil {
		return spec, fmt.Errorf("pooling: pool %d params: %w", p.ID, err)
	}
	return spec, nil
}

// Grow adds batch round of a cal pool's query when its previous batch is
// fully judged and the stopping rule has not fired; otherwise it records
// why the query stops, or does nothing (a job repeated or come too early).
func (g *CALGrower) Grow(ctx context.Context, projectID int64, p CALJobParams) (GrowResult, error) {
	res := GrowResult{Round: p.Round}
	pool, err := g.st.PoolByID(ctx, projectID, p.PoolID)
	if err != nil {
		return res, err
	}
	spec, err := SpecOf(pool)
	if err != nil {
		return res, err
	}
	cq, err := g.st.CALQueryState(ctx, p.PoolID, p.QueryID)
	if err != nil {
		return res, err
	}
	switch {
	case cq.State != store.CALActive:
		res.Skipped = "the query is stopped"
		return res, nil
	case cq.Round != p.Round-1:
		res.Skipped = fmt.Sprintf("the query is at round %d", cq.Round)
		return res, nil
	case cq.Pending > 0:
		res.Skipped = fmt.Sprintf("%d items of round %d are not fully judged", cq.Pending, cq.Round)
		return res, nil
	}
	e, err := g.engines.Get(ctx, projectID)
	if err != nil {
		return res, err
	}
	labels, err := knownLabels(ctx, g.st, e, p.QueryID)
	if err != nil {
		return res, err
	}
	review, err := g.st.CALReview(ctx, p.PoolID, p.QueryID)
	if err != nil {
		return res, err
	}
	rev := Review(labels, review)
	st := StopStatus(spec.CAL, rev.Rels, cq.ExtendTo)
	stop := ""
	switch {
	case st.Fired:
		stop = "stopping rule: " + st.Estimate.Basis
	case rev.Judged >= spec.CAL.Max:
		stop = fmt.Sprintf("cap: %d judgments (cal.max %d)", rev.Judged, spec.CAL.Max)
	}
	if stop != "" && len(rev.Rels) >= cq.ExtendTo {
		res.Stopped = stop
		return res, g.st.SetCALState(ctx, 0, p.PoolID, p.QueryID, store.CALStopped, stop, -1)
	}
	byRun, err := g.st.QueryRunLists(ctx, projectID, p.QueryID, spec.Runs, spec.Depth)
	if err != nil {
		return res, err
	}
	inPool := make(map[string]bool, len(review))
	for _, it := range review {
		inPool[it.DocExtID] = true
	}
	size := cal.NextBatchSize(cq.BatchSize)
	docs, err := calBatch(ctx, e, cq.QueryText, labels, spec, byRun, size, p.Round, inPool)
	if err != nil {
		return res, err
	}
	if len(docs) == 0 {
		res.Stopped = "every document of the corpus is judged"
		return res, g.st.SetCALState(ctx, 0, p.PoolID, p.QueryID, store.CALStopped, res.Stopped, -1)
	}
	items := calItems(cq.QueryExtID, docs, spec.Runs, byRun, p.Round, 0)
	batch := make([]store.CALBatchItem, len(items))
	for i, it := range items {
		batch[i] = store.CALBatchItem{DocExtID: it.DocID, Origin: it.Origin, Sources: it.Sources}
	}
	proj, err := g.st.ProjectByID(ctx, projectID)
	if err != nil {
		return res, err
	}
	created, added, err := g.st.AddCALBatch(ctx, p.PoolID, p.QueryID, p.Round, size, batch, float64(proj.GoldRate))
	if err != nil {
		return res, err
	}
	if !added {
		res.Skipped = "the query changed meanwhile"
		return res, nil
	}
	res.Added, res.Created = len(batch), created
	g.log.Info("cal batch added", "pool", p.PoolID, "query", cq.QueryExtID, "round", p.Round, "items", len(batch), "created", created)
	return res, nil
}

// ReviewState is one query's review as the stopping rule sees it.
type ReviewState struct {
	// Rels are the judgments in review order: the query's labels from
	// outside the pool first (seeds, by document id), then the pool's
	// judged items in round and priority order.
	Rels   []bool
	Judged int // of the pool's own items
	Found  int // relevant documents known for the query (seeds included)
}

// Review orders a query's labels for the stopping rule.
func Review(labels map[string]bool, items []store.CALReviewItem) ReviewState {
	inPool := make(map[string]bool, len(items))
	for _, it := range items {
		inPool[it.DocExtID] = true
	}
	var seeds []string
	for d := range labels {
		if !inPool[d] {
			seeds = append(seeds, d)
		}
	}
	sort.Strings(seeds)
	var r ReviewState
	for _, d := range seeds {
		r.Rels = append(r.Rels, labels[d])
	}
	for _, it := range items {
		if rel, ok := labels[it.DocExtID]; ok {
			r.Rels = append(r.Rels, rel)
			r.Judged++
		}
	}
	for _, rel := range r.Rels {
		if rel {
			r.Found++
		}
	}
	return r
}

// StopStatus applies the pool's stopping rule; it does not fire before
// extendTo judgments (a researcher's extension). With rule "none" the
// knee's estimate is still reported, and Fired is false.
func StopStatus(p CALParams, rels []bool, extendTo int) cal.Status {
	opt := DefaultCALKnee()
	if p.Stop == CALStopPaperKnee {
		opt = cal.PaperKnee()
	}
	st := cal.Knee(rels, opt)
	if p.Stop == CALStopNone || len(rels) < extendTo {
		st.Fired = false
	}
	return st
}

// Submitter queues background jobs (jobs.Client).
type Submitter interface {
	Submit(ctx context.Context, projectID int64, kind string, params json.RawMessage, by int64) (store.Job, error)
}

// CALTrigger is the consensus listener that queues a cal pool query's
// next batch once its last batch is fully judged.
type CALTrigger struct {
	st   *store.Store
	jobs Submitter
	log  *slog.Logger
}

// NewCALTrigger returns a trigger that queues jobs on jobs.
func NewCALTrigger(st *store.Store, jobs Submitter, log *slog.Logger) *CALTrigger {
	return &CALTrigger{st: st, jobs: jobs, log: log}
}

// ItemChanged queues the next batch of every cal pool query whose current
// batch the item's new consensus completed. It is a consensus listener
// (server/app registers it with consensus.AddItemListener).
func (t *CALTrigger) ItemChanged(ctx context.Context, projectID, itemID int64) {
	due, err := t.st.CALDueForItem(ctx, itemID)
	if err != nil {
		t.log.Error("cal: due batches", "item", itemID, "err", err)
		return
	}
	for _, q := range due {
		if _, err := t.Queue(ctx, q); err != nil {
			t.log.Error("cal: queue the next batch", "pool", q.PoolID, "query", q.QueryID, "err", err)
		}
	}
}

// ItemsChanged is ItemChanged for a burst of items, with one read of the
// due queries (each due query is queued once).
func (t *CALTrigger) ItemsChanged(ctx context.Context, itemIDs []int64) {
	due, err := t.st.CALDueForItems(ctx, itemIDs)
	if err != nil {
		t.log.Error("cal: due batches", "items", len(itemIDs), "err", err)
		return
	}
	for _, q := range due {
		if _, err := t.Queue(ctx, q); err != nil {
			t.log.Error("cal: queue the next batch", "pool", q.PoolID, "query", q.QueryID, "err", err)
		}
	}
}

// Queue queues the job that adds q's next batch (an equal job queued or
// running is returned instead).
func (t *CALTrigger) Queue(ctx context.Context, q store.CALQuery) (store.Job, error) {
	raw, err := json.Marshal(CALJobParams{PoolID: q.PoolID, QueryID: q.QueryID, Round: q.Round + 1})
	if err != nil {
		return store.Job{}, err
	}
	return t.jobs.Submit(ctx, q.ProjectID, CALJobKind, raw, 0)
}

// CALQueryStatus is one query of a cal pool for the dashboard.
type CALQueryStatus struct {
	Query     store.CALQuery
	Status    cal.Status // knee status and recall estimate
	Judged    int        // of the pool's items
	Found     int        // relevant known for the query
	FromRuns  int        // pool items of origin runs
	FromCAL   int        // pool items found by active learning alone
	PoolItems int
}

// CALStatus reports every query of a cal pool: relevant found, the
// estimated recall with its basis and whether the stopping rule fired.
func CALStatus(ctx context.Context, st *store.Store, projectID, poolID int64) ([]CALQueryStatus, error) {
	pool, err := st.PoolByID(ctx, projectID, poolID)
	if err != nil {
		return nil, err
	}
	if pool.Strategy != CAL {
		return nil, apperr.Invalidf("pool", "pool %q has strategy %s, not cal", pool.Name, pool.Strategy)
	}
	spec, err := SpecOf(pool)
	if err != nil {
		return nil, err
	}
	qs, err := st.CALQueries(ctx, poolID)
	if err != nil {
		return nil, err
	}
	review, err := st.CALReview(ctx, poolID, 0)
	if err != nil {
		return nil, err
	}
	byQuery := map[int64][]store.CALReviewItem{}
	for _, it := range review {
		byQuery[it.QueryID] = append(byQuery[it.QueryID], it)
	}
	labels, err := st.CALPoolLabels(ctx, poolID)
	if err != nil {
		return nil, err
	}
	out := make([]CALQueryStatus, len(qs))
	for i, q := range qs {
		items := byQuery[q.QueryID]
		rev := Review(labels[q.QueryID], items)
		s := CALQueryStatus{Query: q, Status: StopStatus(spec.CAL, rev.Rels, q.ExtendTo), Judged: rev.Judged, Found: rev.Found, PoolItems: len(items)}
		for _, it := range items {
			if it.Origin == OriginCAL {
				s.FromCAL++
			} else {
				s.FromRuns++
			}
		}
		out[i] = s
	}
	return out, nil
}
