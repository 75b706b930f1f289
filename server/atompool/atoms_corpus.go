package atompool

import (
	"container/heap"
	"context"
	"log/slog"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// NextBatchCorpus chooses up to n (atom, document) pairs to ask next for
// an atoms pool whose candidates are the whole corpus (pooling
// AtomsCandidatesCorpus): the product form of atomsim.SimulateAtomsCAL. Every atom of
// the pooled queries has an active learner over the project's lexical
// index, trained on the atom's yes/no labels with its text as the relevant
// pseudo-document; a query ranks the corpus by its expression over its
// atoms' estimates. Queries are served by their yield so far — documents
// whose derived label is relevant over documents with a label on one of
// the query's atoms, from an even prior — each pick counting its estimate
// as expected yield, and for a candidate the atom most likely to decide
// the expression is asked; a pair with an item already waits for its
// label. Nothing is saved.
func NextBatchCorpus(ctx context.Context, st *store.Store, projectID int64, split string, n int, log *slog.Logger) ([]store.NewConstraintItem, error) {
	bs, err := loadBatchState(ctx, st, projectID, split)
	if err != nil || len(bs.qs) == 0 || n <= 0 {
		return nil, err
	}
	ix, err := retrieval.LoadLexical(ctx, st, projectID, log)
	if err != nil {
		return nil, err
	}
	feats := cal.FromIndex(ix)
	ls := NewLearners(cal.NewEngine(feats, cal.DefaultOptions()))
	for _, q := range bs.qs {
		for _, k := range q.Atoms {
			ls.Add(k, bs.atomText[k])
		}
	}
	for k, a := range ls.Atoms {
		for doc, t := range bs.labels[k] {
			if d, ok := feats.DocNum(doc); ok && t != boolexpr.Unknown {
				a.Label(int(d), doc, t == boolexpr.True)
			}
		}
	}
	// Yield so far per query.
	hits, spent := make([]float64, len(bs.qs)), make([]float64, len(bs.qs))
	for qi, q := range bs.qs {
		touched := map[string]bool{}
		for _, k := range q.Atoms {
			for doc := range bs.labels[k] {
				touched[doc] = true
			}
		}
		for doc := range touched {
			spent[qi]++
			if atoms.Derive(q, bs.labels, doc, false) == boolexpr.True {
				hits[qi]++
			}
		}
	}
	yield := func(qi int) float64 { return (hits[qi] + 1) / (spent[qi] + 2) }
	ranks := make([]*QueryRank, len(bs.qs))
	pq := &QueryHeap{}
	for qi := range bs.qs {
		heap.Push(pq, Queued{qi, yield(qi)})
	}
	var out []store.NewConstraintItem
	chosen := map[[2]string]bool{}
	window := make([]int, len(bs.qs))
	for len(out) < n && pq.Len() > 0 {
		qi := heap.Pop(pq).(Queued).Q
		q := bs.qs[qi]
		picked := false
		for !picked {
			r := ranks[qi]
			if r == nil || (r.Next >= len(r.Cands) && len(r.Cands) == window[qi]) {
				// First look, or every candidate of a full window waits
				// for a label: look twice as deep.
				window[qi] = max(2*window[qi], n+16)
				if r, err = ls.Rank(ctx, q, bs.labels, window[qi]); err != nil {
					return nil, err
				}
				ranks[qi] = r
			}
			if r.Next >= len(r.Cands) {
				break // nothing left to ask for this query
			}
			d := r.Cands[r.Next]
			doc := ls.IDs[d]
			k := q.Atoms[NextAtom(q, bs.labels, doc, func(key string) float64 { return ls.Atoms[key].P(d) })]
			if !bs.asked(k, doc) && !chosen[[2]string{k, doc}] {
				chosen[[2]string{k, doc}] = true
				out = append(out, store.NewConstraintItem{AtomID: bs.idOf[k], DocExtID: doc})
				hits[qi], spent[qi] = hits[qi]+r.Scores[r.Next], spent[qi]+1
				picked = true
			}
			r.Next++ // asked already: its label is awaited
		}
		if picked {
			heap.Push(pq, Queued{qi, yield(qi)})
		}
	}
	return out, nil
}
