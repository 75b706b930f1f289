package atompool

import (
	"container/heap"
	"context"
	"fmt"
	"slices"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
)

// learners are the atoms' active learners over one corpus (the cal
// engine's documents, by document number), shared by the whole-corpus
// simulation (SimulateAtomsCAL) and live constraint pooling over the
// corpus (NextBatchCorpus).
type learners struct {
	e     *cal.Engine
	ids   []string // document number → id
	atoms map[string]*atomLearner
}

func newLearners(e *cal.Engine) *learners {
	f := e.Features()
	ids := make([]string, f.NumDocs())
	for d := range ids {
		ids[d] = f.DocID(uint32(d))
	}
	return &learners{e: e, ids: ids, atoms: map[string]*atomLearner{}}
}

// add returns atom key's learner, made on first use with text as its
// relevant pseudo-document (the key when text is empty).
func (l *learners) add(key, text string) *atomLearner {
	if a := l.atoms[key]; a != nil {
		return a
	}
	if text == "" {
		text = key
	}
	a := &atomLearner{key: key, text: text, labels: map[string]bool{}, known: make([]int8, len(l.ids)), trained: -1, rank: make([]int, len(l.ids))}
	l.atoms[key] = a
	return a
}

// label records that document d satisfies atom a or not.
func (a *atomLearner) label(d int, id string, sat bool) {
	if old, ok := a.labels[id]; ok && old {
		a.pos--
	}
	a.labels[id] = sat
	a.known[d] = -1
	if sat {
		a.known[d] = 1
		a.pos++
	}
}

// train fits a's model on its labels and ranks every document by it.
func (l *learners) train(ctx context.Context, a *atomLearner) error {
	scores, err := l.e.Scores(ctx, a.text, a.labels, len(a.labels))
	if err != nil {
		return fmt.Errorf("atompool: atom %q: %w", a.key, err)
	}
	order := make([]int, len(l.ids))
	for d := range order {
		order[d] = d
	}
	if scores != nil {
		slices.SortStableFunc(order, func(x, y int) int {
			switch {
			case scores[x] > scores[y]:
				return -1
			case scores[x] < scores[y]:
				return 1
			}
			return 0
		})
	}
	for r, d := range order {
		a.rank[d] = r
	}
	a.trained = len(a.labels)
	a.version++
	return nil
}

// rank retrains q's atoms whose labels have grown enough and returns q's
// best window documents that labels leave undecided, best first, with
// their estimated probability of being relevant (q's expression over its
// atoms' estimates, fuzzy) and the atoms' versions they used.
func (l *learners) rank(ctx context.Context, q atoms.Query, labels atoms.Labels, window int) (*queryRank, error) {
	ls := make([]*atomLearner, len(q.Atoms))
	vers := make([]int, len(q.Atoms))
	for i, k := range q.Atoms {
		a := l.atoms[k]
		if a == nil {
			return nil, fmt.Errorf("atompool: atom %q has no learner", k)
		}
		if a.retrainDue() {
			if err := l.train(ctx, a); err != nil {
				return nil, err
			}
		}
		ls[i], vers[i] = a, a.version
	}
	ps := make([]float64, len(ls))
	h := &candHeap{}
	for d := range l.ids {
		for i, a := range ls {
			ps[i] = a.p(d)
		}
		s := fuzzy(q.Expr, ps)
		if s <= 0 || (h.Len() == window && s <= h.scores[0]) {
			continue
		}
		if atoms.Derive(q, labels, l.ids[d], false) != boolexpr.Unknown {
			continue
		}
		if h.Len() < window {
			heap.Push(h, cand{d, s})
		} else {
			h.docs[0], h.scores[0] = d, s
			heap.Fix(h, 0)
		}
	}
	r := &queryRank{versions: vers, cands: make([]int, h.Len()), scores: make([]float64, h.Len())}
	for i := h.Len() - 1; i >= 0; i-- {
		c := heap.Pop(h).(cand)
		r.cands[i], r.scores[i] = c.d, c.s
	}
	return r, nil
}
