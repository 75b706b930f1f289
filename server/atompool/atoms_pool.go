package atompool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"

	"boolpool/server/apperr"
	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/strictjson"
)

// Constraint pooling in the product (issue 13): a pool with strategy atoms
// (pooling.Atoms) publishes constraint items batch by batch. Each batch is
// chosen from the labels known when it is made (NextBatch, the order of
// atomsim.SimulateAtoms): queries take turns, one candidate document each — first
// documents already known to satisfy one of the query's positive atoms
// (found through another query), then the runs' top depth round-robin —
// and for a candidate whose derived label is still unknown the atom most
// likely to decide the query's expression is asked (NextAtom), so for
// A AND B the other atom is asked only where the first one holds, and a
// label already given for another query is never asked again. Once every
// item of the current batch has its label (consensus.ConstraintJudged),
// AtomsTrigger — a consensus listener — queues a job (pooling.AtomsJobKind)
// whose Grow adds the next batch.

// Publish checks spec (strategy atoms), saves and publishes the pool
// (no relevance items) and creates its first batch of constraint items.
// It returns the pool's report (its candidates: the runs' top depth) and
// the constraint items created.
func Publish(ctx context.Context, st *store.Store, projectID int64, spec pooling.Spec, userID int64, goldRate float64, log *slog.Logger) (pooling.Report, int, error) {
	spec, err := pooling.Check(ctx, st, projectID, spec)
	if err != nil {
		return pooling.Report{}, 0, err
	}
	if spec.Strategy != pooling.Atoms {
		return pooling.Report{}, 0, apperr.Invalidf("strategy", "must be %s", pooling.Atoms)
	}
	rep, err := pooling.Preview(ctx, st, projectID, spec, log)
	if err != nil {
		return rep, 0, err
	}
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return rep, 0, err
	}
	params, err := json.Marshal(spec)
	if err != nil {
		return rep, 0, fmt.Errorf("atompool: %w", err)
	}
	id, err := st.SavePool(ctx, projectID, spec.Name, spec.Strategy, spec.Depth, params, nil)
	if err != nil {
		return rep, 0, err
	}
	if _, err := st.PublishPool(ctx, id, userID, goldRate); err != nil {
		return rep, 0, err
	}
	rep.PoolID = id
	res, err := Grow(ctx, st, projectID, AtomsJobParams{PoolID: id}, log)
	return rep, res.Created, err
}

// AtomsJobParams are a pooling.AtomsJobKind job's parameters: the pool and
// how many constraint items it had when the job was queued (so the job is
// unique per batch, and a repeated one does nothing).
type AtomsJobParams struct {
	PoolID int64 `json:"pool_id"`
	Items  int   `json:"items"`
}

// ParseJobParams decodes and checks an atoms-batch job's parameters.
func ParseJobParams(raw json.RawMessage) (AtomsJobParams, error) {
	var p AtomsJobParams
	if err := strictjson.Params(raw, &p); err != nil {
		return p, err
	}
	if p.PoolID <= 0 {
		return p, apperr.Invalidf("params.pool_id", "required")
	}
	if p.Items < 0 {
		return p, apperr.Invalidf("params.items", "must not be negative")
	}
	return p, nil
}

// GrowResult says what a Grow did.
type GrowResult struct {
	Created int    `json:"created"`           // constraint items added
	Stopped string `json:"stopped,omitempty"` // why the pool asks nothing more
	Skipped string `json:"skipped,omitempty"` // why nothing was done now
}

// Grow adds an atoms pool's next batch when every item of the current one
// has a label and the pool still has p.Items items; otherwise it does
// nothing (a job repeated or come too early) or says why the pool ends.
func Grow(ctx context.Context, st *store.Store, projectID int64, p AtomsJobParams, log *slog.Logger) (GrowResult, error) {
	var res GrowResult
	pool, err := st.PoolByID(ctx, projectID, p.PoolID)
	if err != nil {
		return res, err
	}
	if pool.Strategy != pooling.Atoms {
		return res, apperr.Invalidf("params.pool_id", "pool %d has strategy %s, not %s", p.PoolID, pool.Strategy, pooling.Atoms)
	}
	spec, err := pooling.SpecOf(pool)
	if err != nil {
		return res, err
	}
	items, pending, err := st.AtomPoolState(ctx, p.PoolID)
	if err != nil {
		return res, err
	}
	switch {
	case items != p.Items:
		res.Skipped = fmt.Sprintf("the pool has %d items, not %d", items, p.Items)
		return res, nil
	case pending > 0:
		res.Skipped = fmt.Sprintf("%d items of the current batch have no label yet", pending)
		return res, nil
	case items >= spec.Atoms.Max:
		res.Stopped = fmt.Sprintf("cap: %d constraint items (atoms.max %d)", items, spec.Atoms.Max)
		return res, nil
	}
	var batch []store.NewConstraintItem
	if size := min(spec.Atoms.Batch, spec.Atoms.Max-items); spec.Atoms.Candidates == pooling.AtomsCandidatesCorpus {
		batch, err = NextBatchCorpus(ctx, st, projectID, spec.Split, size, log)
	} else {
		batch, err = NextBatch(ctx, st, projectID, spec.Runs, spec.Depth, spec.Split, size)
	}
	if err != nil {
		return res, err
	}
	if len(batch) == 0 {
		res.Stopped = "every candidate's derived label is known or waits for a label"
		return res, nil
	}
	for i := range batch {
		batch[i].PoolID = p.PoolID
		batch[i].Priority = items + i
	}
	if res.Created, err = st.InsertConstraintItems(ctx, projectID, batch); err != nil {
		return res, err
	}
	return res, nil
}

// NextBatch chooses up to n (atom, document) pairs to ask next over the
// project's queries of split ("" = all; variants are left out: their
// qrels come from the labels at no cost), their runs' top depth and the
// atom labels and constraint items that exist (see the comment on
// constraint pooling above). Nothing is saved.
func NextBatch(ctx context.Context, st *store.Store, projectID int64, runs []string, depth int, split string, n int) ([]store.NewConstraintItem, error) {
	bs, err := loadBatchState(ctx, st, projectID, split)
	if err != nil {
		return nil, err
	}
	qs, labels, rowOf, idOf, asked := bs.qs, bs.labels, bs.rowOf, bs.idOf, bs.asked

	// Each query's candidates: documents known to satisfy one of its
	// positive atoms, then its runs' top depth round-robin.
	cands := make([][]string, len(qs))
	var all []string
	for i, q := range qs {
		seen := map[string]bool{}
		add := func(d string) {
			if !seen[d] {
				seen[d] = true
				cands[i] = append(cands[i], d)
				all = append(all, d)
			}
		}
		var found []string
		for j, k := range q.Atoms {
			if q.Expr.Negated(j) {
				continue
			}
			for d, t := range labels[k] {
				if t == boolexpr.True {
					found = append(found, d)
				}
			}
		}
		sort.Strings(found)
		for _, d := range found {
			add(d)
		}
		lists, err := st.QueryRunLists(ctx, projectID, rowOf[q.ID], runs, depth)
		if err != nil {
			return nil, err
		}
		for r := 0; ; r++ {
			more := false
			for _, name := range runs {
				if l := lists[name]; r < len(l) {
					add(l[r])
					more = true
				}
			}
			if !more {
				break
			}
		}
	}
	known, err := st.DocumentsKnown(ctx, projectID, all)
	if err != nil {
		return nil, err
	}

	yes, judged := map[string]int{}, map[string]int{}
	for k, docs := range labels {
		for _, t := range docs {
			judged[k]++
			if t == boolexpr.True {
				yes[k]++
			}
		}
	}
	pYes := func(k string) float64 { return (float64(yes[k]) + 1) / (float64(judged[k]) + 2) }

	var out []store.NewConstraintItem
	chosen := map[[2]string]bool{}
	pos := make([]int, len(qs))
	for len(out) < n {
		progress := false
		for i, q := range qs {
			if len(out) >= n {
				break
			}
			for pos[i] < len(cands[i]) {
				d := cands[i][pos[i]]
				pos[i]++
				if !known[d] || atoms.Derive(q, labels, d, false) != boolexpr.Unknown {
					continue
				}
				k := q.Atoms[NextAtom(q, labels, d, pYes)]
				if asked(k, d) || chosen[[2]string{k, d}] {
					continue // its label is awaited
				}
				chosen[[2]string{k, d}] = true
				out = append(out, store.NewConstraintItem{AtomID: idOf[k], DocExtID: d})
				progress = true
				break
			}
		}
		if !progress {
			break
		}
	}
	return out, nil
}

// batchState is what choosing a batch starts from: the pooled
// queries, the labels, the atoms' ids and the pairs already asked.
type batchState struct {
	qs       []atoms.Query
	labels   atoms.Labels
	rowOf    map[string]int64 // query ext id → row id
	idOf     map[string]int64 // atom key → atom id
	atomText map[string]string
	existing map[int64]map[string]bool
}

// asked says whether (atom key, document) already has a constraint item.
func (b *batchState) asked(key, doc string) bool { return b.existing[b.idOf[key]][doc] }

// loadBatchState syncs the project's atoms and loads its queries of split
// ("" = all) that are not variants (their qrels come from the labels at no
// cost), the atom labels and the constraint items that exist.
func loadBatchState(ctx context.Context, st *store.Store, projectID int64, split string) (*batchState, error) {
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return nil, err
	}
	loaded, err := atoms.LoadQueries(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	inSplit, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return nil, err
	}
	variants, err := st.VariantSources(ctx, projectID)
	if err != nil {
		return nil, err
	}
	pooled := map[string]bool{}
	for _, q := range inSplit {
		if _, v := variants[q.ID]; !v {
			pooled[q.ExtID] = true
		}
	}
	b := &batchState{rowOf: map[string]int64{}, idOf: map[string]int64{}, atomText: map[string]string{}}
	for _, q := range loaded {
		if pooled[q.ID] {
			b.qs = append(b.qs, q)
		}
	}
	if b.labels, err = atoms.LoadLabels(ctx, st, projectID); err != nil {
		return nil, err
	}
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		b.rowOf[l.QueryExtID] = l.QueryID
		b.idOf[l.Key] = l.AtomID
		b.atomText[l.Key] = l.AtomText
	}
	if b.existing, err = st.ConstraintItemPairs(ctx, projectID); err != nil {
		return nil, err
	}
	return b, nil
}

// AtomsTrigger is the consensus's constraint listener
// (consensus.Service.AddConstraintListener) that queues an atoms pool's next
// batch once every item of its current batch has a label.
type AtomsTrigger struct {
	st   *store.Store
	jobs pooling.Submitter
	log  *slog.Logger
}

// NewAtomsTrigger returns a trigger that queues jobs on jobs.
func NewAtomsTrigger(st *store.Store, jobs pooling.Submitter, log *slog.Logger) *AtomsTrigger {
	return &AtomsTrigger{st: st, jobs: jobs, log: log}
}

// AtomLabelChanged implements consensus.ConstraintListener: when the
// item's atoms pool has no item without a label left, it queues the job
// that adds the next batch.
func (t *AtomsTrigger) AtomLabelChanged(ctx context.Context, projectID, itemID int64) {
	if _, err := t.QueueDue(ctx, projectID, itemID); err != nil {
		t.log.Error("atoms pool: queue the next batch", "item", itemID, "err", err)
	}
}

// QueueDue queues the next batch of the item's atoms pool if its current
// batch is labelled; queued reports whether a job was submitted (an equal
// job queued or running counts).
func (t *AtomsTrigger) QueueDue(ctx context.Context, projectID, itemID int64) (queued bool, err error) {
	poolID, err := t.st.AtomPoolOfItem(ctx, itemID)
	if err != nil || poolID == 0 {
		return false, err
	}
	items, pending, err := t.st.AtomPoolState(ctx, poolID)
	if err != nil || pending > 0 {
		return false, err
	}
	if err := t.QueuePool(ctx, projectID, poolID, items); err != nil {
		return false, err
	}
	return true, nil
}

// QueuePool queues the job that adds the next batch of an atoms pool that
// has items constraint items, all labelled (an equal job queued or running
// counts). The sweep of server/app calls it for the pools whose trigger
// was lost (store.AtomPoolsDue).
func (t *AtomsTrigger) QueuePool(ctx context.Context, projectID, poolID int64, items int) error {
	raw, err := json.Marshal(AtomsJobParams{PoolID: poolID, Items: items})
	if err != nil {
		return fmt.Errorf("atompool: %w", err)
	}
	_, err = t.jobs.Submit(ctx, projectID, pooling.AtomsJobKind, raw, 0)
	return err
}
