package atomsim

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"boolpool/server/atompool"
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
		return SimResult{}, fmt.Errorf("atomsim: atoms needs a cal engine")
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
	ls := atompool.NewLearners(opt.Engine)
	learners, ids := ls.Atoms, ls.IDs
	users := map[string][]int{}
	for i, q := range in.Queries {
		for _, k := range q.Atoms {
			ls.Add(k, in.AtomTexts[k])
			if !slices.Contains(users[k], i) {
				users[k] = append(users[k], i)
			}
		}
	}
	labels := atoms.Labels{}
	res.Labels = labels
	ranks := make([]*atompool.QueryRank, len(in.Queries))
	// Queries are served by their recent yield: the relevant candidates
	// found per atom judgment spent (each earlier candidate's weight
	// multiplied by Decay), from an even prior (1 of 2) so every query is
	// tried; within a query, candidates go by estimated probability.
	hits, spent := make([]float64, len(in.Queries)), make([]float64, len(in.Queries))
	yield := func(qi int) float64 { return (hits[qi] + 1) / (spent[qi] + 2) }
	// rerank fills q's candidates: the Window undecided documents with the
	// highest estimated probability.
	rerank := func(qi int) error {
		r, err := ls.Rank(ctx, in.Queries[qi], labels, opt.Window)
		ranks[qi] = r
		return err
	}
	stale := func(qi int) bool {
		r := ranks[qi]
		if r == nil || r.Next >= len(r.Cands) {
			return true
		}
		for i, k := range in.Queries[qi].Atoms {
			if a := learners[k]; a.Version != r.Versions[i] || a.RetrainDue() {
				return true
			}
		}
		return false
	}
	// head skips q's decided candidates and returns q's yield (-1: no
	// candidate left).
	head := func(qi int) float64 {
		r := ranks[qi]
		for r.Next < len(r.Cands) {
			if atoms.Derive(in.Queries[qi], labels, ids[r.Cands[r.Next]], false) == boolexpr.Unknown {
				return yield(qi)
			}
			r.Next++
		}
		return -1
	}
	pq := &atompool.QueryHeap{}
	for qi := range in.Queries {
		if err := rerank(qi); err != nil {
			return res, err
		}
		if s := head(qi); s > 0 {
			heap.Push(pq, atompool.Queued{Q: qi, S: s})
		}
	}
	counted := map[[2]string]bool{}
	found := 0
	judge := func(atom string, d int) {
		id := ids[d]
		sat := in.Oracle[atom][id]
		learners[atom].Label(d, id, sat)
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
		qi := heap.Pop(pq).(atompool.Queued).Q
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
		d := r.Cands[r.Next]
		id := ids[d]
		pYes := func(k string) float64 { return learners[k].P(d) }
		before := len(res.Steps)
		for atoms.Derive(q, labels, id, false) == boolexpr.Unknown {
			if (opt.Budget > 0 && len(res.Steps) >= opt.Budget) || found >= need {
				return res, nil
			}
			judge(q.Atoms[atompool.NextAtom(q, labels, id, pYes)], d)
		}
		hits[qi], spent[qi] = hits[qi]*opt.decay(), spent[qi]*opt.decay()+float64(len(res.Steps)-before)
		if atoms.Derive(q, labels, id, false) == boolexpr.True {
			hits[qi]++
		}
		r.Next++
		if found >= need {
			return res, nil
		}
		if stale(qi) {
			if err := rerank(qi); err != nil {
				return res, err
			}
		}
		if s := head(qi); s > 0 {
			heap.Push(pq, atompool.Queued{Q: qi, S: s})
		}
	}
	return res, nil
}
