package retrieval

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"boolpool/server/boolexpr"
)

// idVectors is a VectorIndex that can also name documents by its store's
// ids (PgVectors). dense-decomposed then looks up external ids only for
// its final results: at 300k documents, joining each of a 2,000-neighbour
// search's neighbours to its external id was about a third of the
// search's buffer reads, and the method makes one such search per atom.
type idVectors interface {
	VectorIndex
	// SearchIDs is Search by id: the same documents, chosen at the cut-off
	// by external id as Search does.
	SearchIDs(ctx context.Context, vec []float32, k int) ([]idResult, error)
	SimilaritiesByID(ctx context.Context, vec []float32, ids []int64) (map[int64]float64, error)
	ExtIDs(ctx context.Context, ids []int64) (map[int64]string, error)
}

// idResult is a document named by its store id, with its score.
type idResult struct {
	ID    int64
	Score float64
}

func (m *denseDecomposed) Retrieve(ctx context.Context, q Query, k int) ([]Result, error) {
	perAtom, err := m.depth(ctx)
	if err != nil {
		return nil, err
	}
	expr, atoms := q.Expression()
	vecs, err := m.d.Encoder.Encode(ctx, atoms)
	if err != nil {
		return nil, err
	}
	if iv, ok := m.d.Vectors.(idVectors); ok {
		search := func(ctx context.Context, vec []float32, k int) (map[int64]float64, error) {
			rs, err := iv.SearchIDs(ctx, vec, k)
			if err != nil {
				return nil, err
			}
			l := make(map[int64]float64, len(rs))
			for _, r := range rs {
				l[r.ID] = r.Score
			}
			return l, nil
		}
		set, err := decompose(ctx, expr, vecs, perAtom, search, iv.SimilaritiesByID)
		if err != nil {
			return nil, err
		}
		return topByExtID(ctx, iv, set, k)
	}
	search := func(ctx context.Context, vec []float32, k int) (map[string]float64, error) {
		rs, err := m.d.Vectors.Search(ctx, vec, k)
		if err != nil {
			return nil, err
		}
		l := make(map[string]float64, len(rs))
		for _, r := range rs {
			l[r.DocID] = r.Score
		}
		return l, nil
	}
	set, err := decompose(ctx, expr, vecs, perAtom, search, m.d.Vectors.Similarities)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(set))
	for id, s := range set {
		out = append(out, Result{DocID: id, Score: s})
	}
	return sortResults(out, k), nil
}

// decompose runs each atom's search (perAtom deep) and merges the lists by
// the expression's set algebra, documents named by K.
func decompose[K comparable](ctx context.Context, expr *boolexpr.Expr, vecs [][]float32, perAtom int,
	search func(context.Context, []float32, int) (map[K]float64, error),
	sims func(context.Context, []float32, []K) (map[K]float64, error)) (map[K]float64, error) {
	lists, err := searchAtoms(ctx, search, vecs, expr.AtomIndices(), perAtom)
	if err != nil {
		return nil, err
	}
	ev := &decomposedEval[K]{ctx: ctx, sims: sims, vecs: vecs, lists: lists, exact: map[K]map[int]float64{}}
	return ev.eval(expr)
}

// topByExtID names the k best documents of set (ties at the cut-off
// broken by external id, as sortResults does) with one look-up of the
// external ids of those k and of any tied with the k-th.
func topByExtID(ctx context.Context, iv idVectors, set map[int64]float64, k int) ([]Result, error) {
	rs := make([]idResult, 0, len(set))
	for id, s := range set {
		rs = append(rs, idResult{ID: id, Score: s})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Score > rs[j].Score })
	if k > 0 && len(rs) > k {
		n := k
		for n < len(rs) && rs[n].Score == rs[k-1].Score {
			n++
		}
		rs = rs[:n]
	}
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	ext, err := iv.ExtIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(rs))
	for _, r := range rs {
		e, ok := ext[r.ID]
		if !ok {
			return nil, fmt.Errorf("dense-decomposed: document %d has no external id", r.ID)
		}
		out = append(out, Result{DocID: e, Score: r.Score})
	}
	return sortResults(out, k), nil
}

// searchAtoms runs the kNN search of each listed atom's vector, all at
// once (they are independent; with pgvector each is a query of its own on
// a pooled connection, so a query of three atoms waits about as long as
// its slowest search rather than the sum), and returns each atom's
// results by document. It returns when every search has ended.
func searchAtoms[K comparable](ctx context.Context, search func(context.Context, []float32, int) (map[K]float64, error),
	vecs [][]float32, atoms []int, k int) ([]map[K]float64, error) {
	lists := make([]map[K]float64, len(vecs))
	errs := make([]error, len(atoms))
	var wg sync.WaitGroup
	for j, i := range atoms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[j] = search(ctx, vecs[i], k)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return lists, nil
}

// decomposedEval merges per-atom result lists by set algebra. A negated
// part removes its retrieved documents; the survivors' scores are reduced by
// their exact similarity to the negated part (fetched for them).
type decomposedEval[K comparable] struct {
	ctx   context.Context
	sims  func(context.Context, []float32, []K) (map[K]float64, error)
	vecs  [][]float32
	lists []map[K]float64
	exact map[K]map[int]float64 // doc → atom → similarity
}

func (ev *decomposedEval[K]) eval(e *boolexpr.Expr) (map[K]float64, error) {
	switch e.Op {
	case boolexpr.OpAtom:
		out := make(map[K]float64, len(ev.lists[e.Atom]))
		for id, s := range ev.lists[e.Atom] {
			out[id] = s
		}
		return out, nil
	case boolexpr.OpOr:
		out := map[K]float64{}
		for _, a := range e.Args {
			s, err := ev.eval(a)
			if err != nil {
				return nil, err
			}
			for id, v := range s {
				if old, ok := out[id]; !ok || v > old {
					out[id] = v
				}
			}
		}
		return out, nil
	case boolexpr.OpAnd:
		var out map[K]float64
		var negs []*boolexpr.Expr
		for _, a := range e.Args {
			if a.Op == boolexpr.OpNot {
				negs = append(negs, a.Args[0])
				continue
			}
			s, err := ev.eval(a)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = s
				continue
			}
			for id := range out {
				if v, ok := s[id]; ok {
					out[id] += v
				} else {
					delete(out, id)
				}
			}
		}
		if out == nil {
			return nil, fmt.Errorf("dense-decomposed: %s has no positive conjunct", e)
		}
		for _, n := range negs {
			s, err := ev.eval(n)
			if err != nil {
				return nil, err
			}
			for id := range s {
				delete(out, id)
			}
			if err := ev.subtractExact(out, n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case boolexpr.OpNot:
		return nil, fmt.Errorf("dense-decomposed: NOT outside an AND (%s) needs the whole collection", e)
	}
	return nil, fmt.Errorf("dense-decomposed: unknown operator %q", e.Op)
}

// subtractExact lowers every score in set by the exact score of e (AND =
// sum, OR = max, NOT = minus) computed from full similarities.
func (ev *decomposedEval[K]) subtractExact(set map[K]float64, e *boolexpr.Expr) error {
	ids := make([]K, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	for _, i := range e.AtomIndices() {
		var missing []K
		for _, id := range ids {
			if _, ok := ev.exact[id][i]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			continue
		}
		sims, err := ev.sims(ev.ctx, ev.vecs[i], missing)
		if err != nil {
			return err
		}
		for _, id := range missing {
			if ev.exact[id] == nil {
				ev.exact[id] = map[int]float64{}
			}
			ev.exact[id][i] = sims[id]
		}
	}
	for _, id := range ids {
		set[id] -= exactScore(e, ev.exact[id])
	}
	return nil
}
