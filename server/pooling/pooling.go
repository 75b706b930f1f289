// Package pooling builds judging pools from retrieval runs (DESIGN §4):
// depth-k pooling (TREC), the judging orders Move-to-Front (Cormack, Palmer &
// Clarke 1998) and multi-armed-bandit adjudication (Losada, Parapar &
// Barreiro 2016/2017), the logic probes of Boolean queries, a pool's
// composition (which run found which item, overlap between runs, Judged@k)
// and a simulation with known relevance: how many judgments each strategy
// needs to find 50 / 80 / 90 % of the relevant documents.
//
// Everything here is pure and deterministic (ties are broken by run order,
// then document id); the store and the CLI do I/O.
package pooling

import (
	"fmt"
	"sort"

	"boolpool/server/vocab"
)

// Run is one ranked run: query id → documents, best first.
type Run struct {
	Name  string
	Lists map[string][]string
}

// Probe is a pool-only ranked list for one query, e.g. the top documents of
// a negated atom ("not:2") or of one conjunct of an AND ("and-atom:0").
type Probe struct {
	Label string
	Docs  []string
}

// Strategies (defined in server/vocab, with the registry of their uses).
const (
	Depth  = vocab.StrategyDepth  // depth-k pool judged in rank order (min rank over runs)
	DocID  = vocab.StrategyDocID  // depth-k pool judged in document-id order (classic TREC)
	MTF    = vocab.StrategyMTF    // Move-to-Front
	Bandit = vocab.StrategyBandit // multi-armed bandit (MaxMean; non-stationary with a discount)
)

// Strategies lists the judging orders, baseline first.
func Strategies() []string { return vocab.Strategies(vocab.Order) }

// Item is one (query, document) of a pool.
type Item struct {
	QueryID  string         `json:"query"`
	DocID    string         `json:"doc"`
	Priority int            `json:"priority"` // judging order within the query, 0 first
	Sources  map[string]int `json:"sources"`  // run name → rank (1-based) within the depth
	Probe    string         `json:"probe,omitempty"`
	Origin   string         `json:"origin,omitempty"` // cal pools: "runs" (a run has it within the depth) or "cal"
	Round    int            `json:"round,omitempty"`  // cal pools: the batch that served it
	// Sampled pools: the item's inclusion probability and stratum (an
	// index into its query's design's strata).
	Inclusion float64 `json:"inclusion,omitempty"`
	Stratum   int     `json:"stratum,omitempty"`
}

// Options configure a pool.
type Options struct {
	Depth    int    // depth k: the top k of every run enter the pool
	Strategy string // depth, docid, mtf or bandit
	Bandit   BanditOptions
}

// Judge reports whether a document is relevant; known reports whether it
// has been judged at all (for live re-ordering, unknown documents are
// treated as not yet judged).
type Judge func(doc string) (relevant, known bool)

// NoJudgments is the Judge of a pool nobody has judged yet.
func NoJudgments(string) (bool, bool) { return false, false }

// Build returns the pool of one query: the union of the top-depth documents
// of every run plus the probe documents, ordered by the strategy given the
// judgments known so far (all of them with an oracle, none for a fresh
// pool; the adaptive strategies re-order as judgments arrive, so call Build
// again with them). Probe-only documents come after the run documents, in
// probe order.
func Build(qid string, runs []Run, probes []Probe, opt Options, judge Judge) ([]Item, error) {
	if opt.Depth < 1 {
		return nil, fmt.Errorf("pooling: depth must be positive, got %d", opt.Depth)
	}
	lists := topLists(qid, runs, opt.Depth)
	order, err := Order(lists, opt, judge)
	if err != nil {
		return nil, err
	}
	items := make([]Item, 0, len(order))
	at := map[string]int{}
	for _, d := range order {
		at[d] = len(items)
		items = append(items, Item{QueryID: qid, DocID: d, Priority: len(items), Sources: map[string]int{}})
	}
	for i, l := range lists {
		for r, d := range l {
			items[at[d]].Sources[runs[i].Name] = r + 1
		}
	}
	for _, p := range probes {
		for _, d := range p.Docs {
			if j, ok := at[d]; ok {
				if items[j].Probe == "" {
					items[j].Probe = p.Label
				}
				continue
			}
			at[d] = len(items)
			items = append(items, Item{QueryID: qid, DocID: d, Priority: len(items), Sources: map[string]int{}, Probe: p.Label})
		}
	}
	return items, nil
}

// topLists cuts every run's list for qid to depth, dropping repeats.
func topLists(qid string, runs []Run, depth int) [][]string {
	out := make([][]string, len(runs))
	for i, r := range runs {
		seen := map[string]bool{}
		for _, d := range r.Lists[qid] {
			if len(out[i]) == depth {
				break
			}
			if !seen[d] {
				seen[d] = true
				out[i] = append(out[i], d)
			}
		}
	}
	return out
}

// Order returns the pool of lists (every document of every list, once) in
// the judging order of opt.Strategy. judge supplies the feedback the
// adaptive strategies use; a document it does not know counts as
// non-relevant for the rest of the ordering (so with NoJudgments, MTF and
// the bandit still give a complete, deterministic order).
func Order(lists [][]string, opt Options, judge Judge) ([]string, error) {
	switch opt.Strategy {
	case Depth, "":
		return rankOrder(lists), nil
	case DocID:
		out := rankOrder(lists)
		sort.Strings(out)
		return out, nil
	case MTF:
		return mtfOrder(lists, judge), nil
	case Bandit:
		return banditOrder(lists, opt.Bandit, judge), nil
	}
	return nil, fmt.Errorf("pooling: unknown strategy %q (want depth, docid, mtf or bandit)", opt.Strategy)
}

// rankOrder is the union of the lists by rank level: every run's rank-1
// document, then rank 2, … (within a level in run order).
func rankOrder(lists [][]string) []string {
	var out []string
	seen := map[string]bool{}
	for r := 0; ; r++ {
		more := false
		for _, l := range lists {
			if r < len(l) {
				more = true
				if !seen[l[r]] {
					seen[l[r]] = true
					out = append(out, l[r])
				}
			}
		}
		if !more {
			return out
		}
	}
}

func relevant(judge Judge, d string) bool {
	rel, _ := judge(d)
	return rel
}

// mtfOrder is Move-to-Front (Cormack et al. 1998): judge the documents of
// the highest-priority run in rank order while they are relevant; a
// non-relevant one lowers the run's priority by one and the next run takes
// over (ties: run order). Documents already judged are skipped for free.
func mtfOrder(lists [][]string, judge Judge) []string {
	prio := make([]int, len(lists))
	next := make([]int, len(lists))
	judged := map[string]bool{}
	var out []string
	for {
		best := -1
		for i, l := range lists {
			for next[i] < len(l) && judged[l[next[i]]] {
				next[i]++
			}
			if next[i] < len(l) && (best < 0 || prio[i] > prio[best]) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		for next[best] < len(lists[best]) {
			d := lists[best][next[best]]
			next[best]++
			if judged[d] {
				continue
			}
			judged[d] = true
			out = append(out, d)
			if !relevant(judge, d) {
				prio[best]--
				break
			}
		}
	}
}

// BanditOptions configure the bandit.
type BanditOptions struct {
	// Discount γ in (0, 1] of past rewards: 1 is MaxMean (MM), the
	// default (0 means 1); below 1 the non-stationary variant (MM-NS), which
	// follows a run's falling precision down the ranking. On DebQUEST val
	// (9 runs, depth 100) γ = 1 needs the fewest judgments (0.97: +2 %,
	// 0.9: +4 %, 0.7: +7 %).
	Discount float64
}

// banditOrder is MaxMean multi-armed-bandit adjudication (Losada, Parapar &
// Barreiro 2017): each run is an arm with a Beta(1 + s, 1 + f) posterior over
// the relevance of its next document; pull the arm with the highest posterior
// mean, judge its next unjudged document, reward 1 if relevant. A document
// already judged through another run updates the arm at no cost. Ties go to
// the earlier run.
func banditOrder(lists [][]string, opt BanditOptions, judge Judge) []string {
	g := opt.Discount
	if g <= 0 || g > 1 {
		g = 1
	}
	s := make([]float64, len(lists))
	f := make([]float64, len(lists))
	next := make([]int, len(lists))
	label := map[string]bool{}
	var out []string
	update := func(i int, rel bool) {
		s[i] *= g
		f[i] *= g
		if rel {
			s[i]++
		} else {
			f[i]++
		}
	}
	for {
		best := -1
		bestMean := -1.0
		for i, l := range lists {
			// Free observations: documents judged via another arm.
			for next[i] < len(l) {
				rel, ok := label[l[next[i]]]
				if !ok {
					break
				}
				update(i, rel)
				next[i]++
			}
			if next[i] >= len(l) {
				continue
			}
			if m := (1 + s[i]) / (2 + s[i] + f[i]); m > bestMean {
				best, bestMean = i, m
			}
		}
		if best < 0 {
			return out
		}
		d := lists[best][next[best]]
		next[best]++
		rel := relevant(judge, d)
		label[d] = rel
		out = append(out, d)
		update(best, rel)
	}
}
