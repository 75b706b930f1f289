package atompool

import (
	"context"
	"fmt"
	"slices"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/topk"
)

// Learners are the atoms' active learners over one corpus (the cal
// engine's documents, by document number), shared by the whole-corpus
// simulation (atomsim.SimulateAtomsCAL) and the product's constraint pooling over the
// corpus (NextBatchCorpus).
type Learners struct {
	e     *cal.Engine
	IDs   []string // document number → id
	Atoms map[string]*AtomLearner
}

func NewLearners(e *cal.Engine) *Learners {
	f := e.Features()
	ids := make([]string, f.NumDocs())
	for d := range ids {
		ids[d] = f.DocID(uint32(d))
	}
	return &Learners{e: e, IDs: ids, Atoms: map[string]*AtomLearner{}}
}

// Add returns atom key's learner, made on first use with text as its
// relevant pseudo-document (the key when text is empty).
func (l *Learners) Add(key, text string) *AtomLearner {
	if a := l.Atoms[key]; a != nil {
		return a
	}
	if text == "" {
		text = key
	}
	a := &AtomLearner{key: key, text: text, labels: map[string]bool{}, known: make([]int8, len(l.IDs)), trained: -1, rank: make([]int, len(l.IDs))}
	l.Atoms[key] = a
	return a
}

// Label records that document d satisfies atom a or not.
func (a *AtomLearner) Label(d int, id string, sat bool) {
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
func (l *Learners) train(ctx context.Context, a *AtomLearner) error {
	scores, err := l.e.Scores(ctx, a.text, a.labels, len(a.labels))
	if err != nil {
		return fmt.Errorf("atompool: atom %q: %w", a.key, err)
	}
	order := make([]int, len(l.IDs))
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
	a.Version++
	return nil
}

// Rank retrains q's atoms whose labels have grown enough and returns q's
// best window documents that labels leave undecided, best first, with
// their estimated probability of being relevant (q's expression over its
// atoms' estimates, fuzzy) and the atoms' versions they used.
func (l *Learners) Rank(ctx context.Context, q atoms.Query, labels atoms.Labels, window int) (*QueryRank, error) {
	ls := make([]*AtomLearner, len(q.Atoms))
	vers := make([]int, len(q.Atoms))
	for i, k := range q.Atoms {
		a := l.Atoms[k]
		if a == nil {
			return nil, fmt.Errorf("atompool: atom %q has no learner", k)
		}
		if a.RetrainDue() {
			if err := l.train(ctx, a); err != nil {
				return nil, err
			}
		}
		ls[i], vers[i] = a, a.Version
	}
	ps := make([]float64, len(ls))
	h := topk.New(window, func(a, b cand) bool {
		if a.s != b.s {
			return a.s > b.s
		}
		return a.d < b.d
	})
	for d := range l.IDs {
		for i, a := range ls {
			ps[i] = a.P(d)
		}
		s := fuzzy(q.Expr, ps)
		if s <= 0 || !h.Wants(cand{d, s}) {
			continue
		}
		if atoms.Derive(q, labels, l.IDs[d], false) != boolexpr.Unknown {
			continue
		}
		h.Offer(cand{d, s})
	}
	best := h.Best()
	r := &QueryRank{Versions: vers, Cands: make([]int, len(best)), Scores: make([]float64, len(best))}
	for i, c := range best {
		r.Cands[i], r.Scores[i] = c.d, c.s
	}
	return r, nil
}

// AtomLearner is one atom's active learner: its labels, and the rank of
// every document (by document number) from the last model trained on
// them.
type AtomLearner struct {
	key     string
	text    string
	labels  map[string]bool
	known   []int8 // document number → 1 satisfies, -1 does not, 0 unjudged
	pos     int
	trained int   // labels the last model saw (-1: none yet)
	rank    []int // document number → rank in the atom's ranking
	Version int   // the number of models trained so far
}

// P is the atom's estimated probability that document d satisfies it:
// 1 or 0 when judged, else m / (m + rank + 1) (rank from 0) where m is the number of
// documents known to satisfy it (at least 1): a document ranked within
// the atom's known size is about an even bet, deeper ones less.
func (a *AtomLearner) P(d int) float64 {
	switch a.known[d] {
	case 1:
		return 1
	case -1:
		return 0
	}
	m := float64(max(a.pos, 1))
	return m / (m + float64(a.rank[d]) + 1)
}

// RetrainDue says whether the atom's labels have grown enough since its
// last model (AutoTAR's batch growth: after 1, 2, 3, … then 10 % more).
func (a *AtomLearner) RetrainDue() bool {
	if a.trained < 0 {
		return true
	}
	return len(a.labels)-a.trained >= max(1, (a.trained+9)/10)
}

// QueryRank is one query's current candidates, best first, and the atom
// versions they were ranked with.
type QueryRank struct {
	Cands    []int     // document numbers, best first
	Scores   []float64 // their estimated probability of being relevant
	Next     int       // the first candidate not yet served
	Versions []int     // the atoms' versions (AtomLearner.Version) the ranking used
}

// NextAtom picks the unjudged atom of q on doc most likely to decide the
// expression: the probability that, once judged, the expression is no
// longer Unknown. Ties go to the lower index.
func NextAtom(q atoms.Query, l atoms.Labels, doc string, pYes func(string) float64) int {
	vals := make([]boolexpr.Truth, len(q.Atoms))
	for i, k := range q.Atoms {
		vals[i], _ = l.Get(k, doc)
	}
	best, bestP := -1, -1.0
	for i, k := range q.Atoms {
		if _, ok := l.Get(k, doc); ok {
			continue
		}
		p := pYes(k)
		decide := 0.0
		vals[i] = boolexpr.True
		if q.Expr.Eval3(vals) != boolexpr.Unknown {
			decide += p
		}
		vals[i] = boolexpr.False
		if q.Expr.Eval3(vals) != boolexpr.Unknown {
			decide += 1 - p
		}
		vals[i] = boolexpr.Unknown
		if decide > bestP {
			best, bestP = i, decide
		}
	}
	return best
}

// fuzzy evaluates e on the atoms' probabilities (product logic).
func fuzzy(e *boolexpr.Expr, ps []float64) float64 {
	switch e.Op {
	case boolexpr.OpAtom:
		return ps[e.Atom]
	case boolexpr.OpNot:
		return 1 - fuzzy(e.Args[0], ps)
	case boolexpr.OpAnd:
		v := 1.0
		for _, a := range e.Args {
			v *= fuzzy(a, ps)
		}
		return v
	case boolexpr.OpOr:
		v := 1.0
		for _, a := range e.Args {
			v *= 1 - fuzzy(a, ps)
		}
		return 1 - v
	}
	return 0
}

// cand is a candidate document (its number) with its score; the best
// rank first by score, ties by the lower document number.
type cand struct {
	d int
	s float64
}

// Queued is a query (its index) in a QueryHeap with its score.
type Queued struct {
	Q int
	S float64
}

// QueryHeap is a max-heap of queries by their best candidate's score
// (ties: the lower query index first).
type QueryHeap []Queued

func (h QueryHeap) Len() int { return len(h) }
func (h QueryHeap) Less(i, j int) bool {
	if h[i].S != h[j].S {
		return h[i].S > h[j].S
	}
	return h[i].Q < h[j].Q
}
func (h QueryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *QueryHeap) Push(x any)   { *h = append(*h, x.(Queued)) }
func (h *QueryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
