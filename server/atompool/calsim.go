package atompool

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/vocab"
)

// StrategyAtoms is constraint pooling over the whole corpus
// (SimulateAtomsCAL) in `pool simulate`: one active learner per atom,
// every query's candidates ranked by its expression over its atoms'
// estimates.
const StrategyAtoms = vocab.StrategyAtoms

// CALSimOptions configure SimulateAtomsCAL.
type CALSimOptions struct {
	// Engine holds the corpus's features; every document of the corpus is
	// a candidate of every query.
	Engine *cal.Engine
	// Budget stops the simulation after this many judgments (0: none).
	Budget int
	// StopAt stops it once this share of all gold is found (0: never).
	StopAt float64
	// Window is how many candidates a query keeps between re-rankings
	// (default 256).
	Window int
	// Decay weighs a query's record in the recent-yield rule: each judged
	// candidate multiplies the earlier ones' weight by it (default 0.999,
	// a memory of about a thousand judgments; on DebQUEST val 0.98 spread
	// the judgments over queries with nothing left to find: 0.886 of all
	// gold after 1.3M atom judgments, against 0.95 after 1.49M with 0.999).
	Decay float64
	// BoundCap is QueryLevelHindsight's judgments per query (default
	// 20,000) in SimulateProjectCAL.
	BoundCap int
}

func (o CALSimOptions) decay() float64 {
	if o.Decay <= 0 || o.Decay > 1 {
		return 0.999
	}
	return o.Decay
}

// atomLearner is one atom's active learner: its labels, and the rank of
// every document (by document number) from the last model trained on
// them.
type atomLearner struct {
	key     string
	text    string
	labels  map[string]bool
	known   []int8 // document number → 1 satisfies, -1 does not, 0 unjudged
	pos     int
	trained int   // labels the last model saw (-1: none yet)
	rank    []int // document number → rank in the atom's ranking
	version int
}

// p is the atom's estimated probability that document d satisfies it:
// 1 or 0 when judged, else m / (m + rank + 1) (rank from 0) where m is the number of
// documents known to satisfy it (at least 1): a document ranked within
// the atom's known size is about an even bet, deeper ones less.
func (a *atomLearner) p(d int) float64 {
	switch a.known[d] {
	case 1:
		return 1
	case -1:
		return 0
	}
	m := float64(max(a.pos, 1))
	return m / (m + float64(a.rank[d]) + 1)
}

// retrainDue says whether the atom's labels have grown enough since its
// last model (AutoTAR's batch growth: after 1, 2, 3, … then 10 % more).
func (a *atomLearner) retrainDue() bool {
	if a.trained < 0 {
		return true
	}
	return len(a.labels)-a.trained >= max(1, (a.trained+9)/10)
}

// queryRank is one query's current candidates, best first, and the atom
// versions they were ranked with.
type queryRank struct {
	cands    []int
	scores   []float64
	next     int
	versions []int
}

// SimulateAtomsCAL judges (atom, document) pairs with the oracle over the
// whole corpus of opt.Engine. Every atom has an active learner (the cal
// engine trained on the atom's labels, its text as the relevant
// pseudo-document, retrained as its labels grow by AutoTAR's batch
// growth); a query ranks every document by its expression evaluated on
// its atoms' estimated probabilities (AND: product, OR: probabilistic
// sum, NOT: complement; a judged atom is 1 or 0). Each step serves the
// query with the best recent yield (relevant candidates found per atom
// judgment, see CALSimOptions.Decay) with its best undecided candidate,
// and asks its atoms one at a time, the one most likely to decide the
// expression first, until the expression is decided. Labels are shared
// by every query using the atom.
// in.Runs, in.AtomRuns, in.Depth and in.Ranker are not used.
func SimulateAtomsCAL(ctx context.Context, in SimInput, opt CALSimOptions) (SimResult, error) {
	if opt.Engine == nil {
		return SimResult{}, fmt.Errorf("atompool: atoms needs a cal engine")
	}
	if opt.Window <= 0 {
		opt.Window = 256
	}
	gold, total, err := in.goldOf(true)
	if err != nil {
		return SimResult{}, err
	}
	res := SimResult{Queries: len(in.Queries)}
	res.Gold = total
	need := math.MaxInt
	if opt.StopAt > 0 {
		need = int(math.Ceil(opt.StopAt*float64(res.Gold) - 1e-9))
	}
	ls := newLearners(opt.Engine)
	learners, ids := ls.atoms, ls.ids
	users := map[string][]int{}
	for i, q := range in.Queries {
		for _, k := range q.Atoms {
			ls.add(k, in.AtomTexts[k])
			if !slices.Contains(users[k], i) {
				users[k] = append(users[k], i)
			}
		}
	}
	labels := atoms.Labels{}
	res.Labels = labels
	ranks := make([]*queryRank, len(in.Queries))
	// Queries are served by their recent yield: the relevant candidates
	// found per atom judgment spent (each earlier candidate's weight
	// multiplied by Decay), from an even prior (1 of 2) so every query is
	// tried; within a query, candidates go by estimated probability.
	hits, spent := make([]float64, len(in.Queries)), make([]float64, len(in.Queries))
	yield := func(qi int) float64 { return (hits[qi] + 1) / (spent[qi] + 2) }
	// rerank fills q's candidates: the Window undecided documents with the
	// highest estimated probability.
	rerank := func(qi int) error {
		r, err := ls.rank(ctx, in.Queries[qi], labels, opt.Window)
		ranks[qi] = r
		return err
	}
	stale := func(qi int) bool {
		r := ranks[qi]
		if r == nil || r.next >= len(r.cands) {
			return true
		}
		for i, k := range in.Queries[qi].Atoms {
			if a := learners[k]; a.version != r.versions[i] || a.retrainDue() {
				return true
			}
		}
		return false
	}
	// head skips q's decided candidates and returns q's yield (-1: no
	// candidate left).
	head := func(qi int) float64 {
		r := ranks[qi]
		for r.next < len(r.cands) {
			if atoms.Derive(in.Queries[qi], labels, ids[r.cands[r.next]], false) == boolexpr.Unknown {
				return yield(qi)
			}
			r.next++
		}
		return -1
	}
	pq := &queryHeap{}
	for qi := range in.Queries {
		if err := rerank(qi); err != nil {
			return res, err
		}
		if s := head(qi); s > 0 {
			heap.Push(pq, queued{qi, s})
		}
	}
	counted := map[[2]string]bool{}
	found := 0
	judge := func(atom string, d int) {
		id := ids[d]
		sat := in.Oracle[atom][id]
		learners[atom].label(d, id, sat)
		t := boolexpr.False
		if sat {
			t = boolexpr.True
		}
		labels.Set(atom, id, t)
		for _, qi := range users[atom] {
			q := in.Queries[qi]
			key := [2]string{q.ID, id}
			if !counted[key] && gold[q.ID][id] && atoms.Derive(q, labels, id, false) == boolexpr.True {
				counted[key] = true
				found++
			}
		}
		res.Steps = append(res.Steps, Step{Atom: atom, Doc: id, Satisfies: sat, Found: found})
	}
	for pq.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		qi := heap.Pop(pq).(queued).q
		if stale(qi) {
			if err := rerank(qi); err != nil {
				return res, err
			}
		}
		if head(qi) <= 0 {
			continue // nothing left to ask for this query
		}
		q := in.Queries[qi]
		r := ranks[qi]
		d := r.cands[r.next]
		id := ids[d]
		pYes := func(k string) float64 { return learners[k].p(d) }
		before := len(res.Steps)
		for atoms.Derive(q, labels, id, false) == boolexpr.Unknown {
			if (opt.Budget > 0 && len(res.Steps) >= opt.Budget) || found >= need {
				return res, nil
			}
			judge(q.Atoms[nextAtom(q, labels, id, pYes)], d)
		}
		hits[qi], spent[qi] = hits[qi]*opt.decay(), spent[qi]*opt.decay()+float64(len(res.Steps)-before)
		if atoms.Derive(q, labels, id, false) == boolexpr.True {
			hits[qi]++
		}
		r.next++
		if found >= need {
			return res, nil
		}
		if stale(qi) {
			if err := rerank(qi); err != nil {
				return res, err
			}
		}
		if s := head(qi); s > 0 {
			heap.Push(pq, queued{qi, s})
		}
	}
	return res, nil
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

type cand struct {
	d int
	s float64
}

// candHeap is a min-heap of candidates by score (ties: the higher
// document number is the smaller, so the lower one is kept).
type candHeap struct {
	docs   []int
	scores []float64
}

func (h *candHeap) Len() int { return len(h.docs) }
func (h *candHeap) Less(i, j int) bool {
	if h.scores[i] != h.scores[j] {
		return h.scores[i] < h.scores[j]
	}
	return h.docs[i] > h.docs[j]
}
func (h *candHeap) Swap(i, j int) {
	h.docs[i], h.docs[j] = h.docs[j], h.docs[i]
	h.scores[i], h.scores[j] = h.scores[j], h.scores[i]
}
func (h *candHeap) Push(x any) {
	c := x.(cand)
	h.docs, h.scores = append(h.docs, c.d), append(h.scores, c.s)
}
func (h *candHeap) Pop() any {
	i := len(h.docs) - 1
	c := cand{h.docs[i], h.scores[i]}
	h.docs, h.scores = h.docs[:i], h.scores[:i]
	return c
}

type queued struct {
	q int
	s float64
}

// queryHeap is a max-heap of queries by their best candidate's score
// (ties: the lower query index first).
type queryHeap []queued

func (h queryHeap) Len() int { return len(h) }
func (h queryHeap) Less(i, j int) bool {
	if h[i].s != h[j].s {
		return h[i].s > h[j].s
	}
	return h[i].q < h[j].q
}
func (h queryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *queryHeap) Push(x any)   { *h = append(*h, x.(queued)) }
func (h *queryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
