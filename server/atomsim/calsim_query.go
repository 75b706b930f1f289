package atomsim

import (
	"container/heap"
	"context"
	"fmt"
	"math"

	"boolpool/server/atompool"
	"boolpool/server/cal"
	"boolpool/server/vocab"
)

// StrategyCALFull is the query-level counterpart of StrategyAtoms: one
// active learner per query over the whole corpus, no stopping rule.
const StrategyCALFull = vocab.StrategyCALFull

// StrategyCALBound names the query-level bound of QueryLevelHindsight in
// the simulations' tables (not a strategy: it knows the gold).
const StrategyCALBound = vocab.StrategyCALBound

// SimulateQueryLevelCAL judges whole (query, document) pairs over the
// whole corpus of opt.Engine: every query has its own AutoTAR review (the
// cal engine, the query's text from in.QueryTexts as the relevant
// pseudo-document, batches growing 1, 2, 3, … +10 %), and queries are
// served by the same recent-yield rule as SimulateAtomsCAL (relevant
// documents found per judgment, earlier judgments' weight multiplied by
// Decay, from an even prior). It stops at opt.Budget judgments or once
// opt.StopAt of all gold is found.
func SimulateQueryLevelCAL(ctx context.Context, in SimInput, opt CALSimOptions) (QueryLevelResult, error) {
	if opt.Engine == nil {
		return QueryLevelResult{}, fmt.Errorf("atomsim: cal-full needs a cal engine")
	}
	gold, total, err := in.goldOf(false)
	if err != nil {
		return QueryLevelResult{}, err
	}
	res := QueryLevelResult{Strategy: StrategyCALFull}
	res.Gold = total
	need := math.MaxInt
	if opt.StopAt > 0 {
		need = int(math.Ceil(opt.StopAt*float64(res.Gold) - 1e-9))
	}
	sessions := make([]*cal.Session, len(in.Queries))
	batches := make([][]string, len(in.Queries))
	hits, spent := make([]float64, len(in.Queries)), make([]float64, len(in.Queries))
	yield := func(qi int) float64 { return (hits[qi] + 1) / (spent[qi] + 2) }
	pq := &atompool.QueryHeap{}
	for qi, q := range in.Queries {
		sessions[qi] = opt.Engine.NewSession(in.QueryTexts[q.ID], nil)
		heap.Push(pq, atompool.Queued{Q: qi, S: yield(qi)})
	}
	found := 0
	for pq.Len() > 0 && found < need && (opt.Budget <= 0 || len(res.Found) < opt.Budget) {
		qi := heap.Pop(pq).(atompool.Queued).Q
		if len(batches[qi]) == 0 {
			b, err := sessions[qi].Next(ctx)
			if err != nil {
				return res, fmt.Errorf("atomsim: query %q: %w", in.Queries[qi].ID, err)
			}
			if len(b) == 0 {
				continue // every document judged for this query
			}
			batches[qi] = b
		}
		d := batches[qi][0]
		batches[qi] = batches[qi][1:]
		rel := gold[in.Queries[qi].ID][d]
		if err := sessions[qi].Judge(d, rel); err != nil {
			return res, err
		}
		hits[qi], spent[qi] = hits[qi]*opt.decay(), spent[qi]*opt.decay()+1
		if rel {
			hits[qi]++
			found++
		}
		res.Found = append(res.Found, found)
		heap.Push(pq, atompool.Queued{Q: qi, S: yield(qi)})
	}
	return res, nil
}

// Hindsight is the query-level bound: every query reviewed on its own
// over the whole corpus (its AutoTAR review, as in SimulateQueryLevelCAL)
// until all its gold is found or Cap judgments, then the fewest judgments
// that reach each share of all gold when every query's review is cut at
// the best point chosen in hindsight (a dynamic programme over the
// queries). No scheduler that does not know the gold can do better with
// these reviews.
type Hindsight struct {
	Gold  int
	Found int     // gold found by the reviews run to their end
	Cap   int     // judgments per query at most
	pos   [][]int // per query: the judgment (1-based) at which each relevant was found
}

// QueryLevelHindsight runs the reviews of Hindsight, workers at a time.
func QueryLevelHindsight(ctx context.Context, in SimInput, e *cal.Engine, capPerQuery, workers int) (*Hindsight, error) {
	gold, total, err := in.goldOf(false)
	if err != nil {
		return nil, err
	}
	h := &Hindsight{Gold: total, Cap: capPerQuery, pos: make([][]int, len(in.Queries))}
	review := func(qi int) error {
		q := in.Queries[qi]
		g := gold[q.ID]
		s := e.NewSession(in.QueryTexts[q.ID], nil)
		n, found := 0, 0
		for n < capPerQuery && found < len(g) {
			b, err := s.Next(ctx)
			if err != nil {
				return fmt.Errorf("atomsim: query %q: %w", q.ID, err)
			}
			if len(b) == 0 {
				break
			}
			for _, d := range b {
				if n == capPerQuery || found == len(g) {
					break
				}
				n++
				if err := s.Judge(d, g[d]); err != nil {
					return err
				}
				if g[d] {
					found++
					h.pos[qi] = append(h.pos[qi], n)
				}
			}
		}
		return nil
	}
	jobs := make(chan int)
	errs := make(chan error, max(workers, 1))
	for range max(workers, 1) {
		go func() { // owned here: it ends when jobs is closed and drained
			var first error
			for qi := range jobs {
				if first == nil {
					first = review(qi)
				}
			}
			errs <- first
		}()
	}
	for qi := range in.Queries {
		jobs <- qi
	}
	close(jobs)
	for range max(workers, 1) {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	for _, p := range h.pos {
		h.Found += len(p)
	}
	return h, nil
}

// JudgmentsTo returns the fewest judgments that reach share of all gold
// with the reviews cut in hindsight, and false when even the whole reviews
// do not reach it.
func (h *Hindsight) JudgmentsTo(share float64) (int, bool) {
	need := int(math.Ceil(share*float64(h.Gold) - 1e-9))
	if need > h.Found {
		return 0, false
	}
	const inf = math.MaxInt / 2
	best := make([]int, need+1) // best[f]: fewest judgments finding f (capped at need)
	for f := 1; f <= need; f++ {
		best[f] = inf
	}
	next := make([]int, need+1)
	for _, p := range h.pos {
		copy(next, best)
		for f, c := range best {
			if c == inf {
				continue
			}
			for k, at := range p {
				t := min(need, f+k+1)
				if c+at < next[t] {
					next[t] = c + at
				}
			}
		}
		best, next = next, best
	}
	return best[need], best[need] < inf
}
