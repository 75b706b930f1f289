package atomsim

import (
	"boolpool/server/atoms"
	"fmt"
	"math"

	"boolpool/server/atompool"
	"boolpool/server/boolexpr"
	"boolpool/server/pooling"
	"boolpool/server/vocab"
)

// StrategyAtomsPools is constraint pooling over the runs' pools
// (SimulateAtoms) in `pool simulate`.
const StrategyAtomsPools = vocab.StrategyAtomsPools

// SimInput is a constraint-pooling simulation.
type SimInput struct {
	Queries []atoms.Query // expressions over shared atom keys
	// Runs rank documents per query id; AtomRuns per atom key (e.g. the
	// atom text retrieved on its own). Both are cut at Depth.
	Runs     []pooling.Run
	AtomRuns map[string][]string
	Depth    int
	Oracle   atoms.Oracle               // atom key → satisfying documents
	Gold     map[string]map[string]bool // query id → gold documents; nil = the oracle's set algebra
	Budget   int                        // maximum judgments; 0 = until the candidates run out
	// Ranker, when set, re-ranks an atom's candidates from the documents
	// found to satisfy it (relevance feedback, e.g. Rocchio): called with
	// the atom's text (AtomTexts) after each of its first 10 positives and
	// then every RefreshEvery new ones,
	// and its list (not cut at Depth) replaces the atom's run. SimulateQueryLevel's "feedback"
	// strategy uses it the same way per query (QueryTexts).
	Ranker       Ranker
	RefreshEvery int
	AtomTexts    map[string]string
	QueryTexts   map[string]string
}

// Ranker ranks documents for a text given documents known to match it.
type Ranker func(text string, positives []string) []string

// StrategyFeedback is the query-level relevance-feedback strategy of
// SimulateQueryLevel (the query-level counterpart of the atoms' Ranker).
const StrategyFeedback = vocab.StrategyFeedback

// cursor walks a query's candidate lists round-robin, each document once;
// a list can be replaced (a feedback re-ranking) and is then walked from
// its top again, skipping what the query has seen.
type cursor struct {
	lists [][]string
	keys  []string // atom key of each list ("" = a query run)
	ver   []int
	pos   []int
	next  int
	seen  map[string]bool
}

func (c *cursor) pop(lists map[string][]string, vers map[string]int) (string, bool) {
	for tries := 0; tries < len(c.lists); tries++ {
		i := c.next
		c.next = (c.next + 1) % len(c.lists)
		if k := c.keys[i]; k != "" && vers[k] != c.ver[i] {
			c.lists[i], c.ver[i], c.pos[i] = lists[k], vers[k], 0
		}
		for c.pos[i] < len(c.lists[i]) {
			d := c.lists[i][c.pos[i]]
			c.pos[i]++
			if !c.seen[d] {
				c.seen[d] = true
				return d, true
			}
		}
	}
	return "", false
}

// Step is one atom judgment and the query-level gold found after it.
type Step struct {
	Atom      string `json:"atom"`
	Doc       string `json:"doc"`
	Satisfies bool   `json:"satisfies"`
	Found     int    `json:"found"` // (query, document) gold pairs whose derived label is now True
}

// SimResult is a simulation's outcome.
type SimResult struct {
	Queries int          `json:"queries"`
	Gold    int          `json:"gold"` // all query-level gold pairs
	Steps   []Step       `json:"-"`
	Labels  atoms.Labels `json:"-"` // the atom labels given, at the end
}

// JudgmentsTo returns the judgments needed to reach share of all gold, and
// false when the steps never reach it.
func (r SimResult) JudgmentsTo(share float64) (int, bool) {
	need := int(math.Ceil(share*float64(r.Gold) - 1e-9))
	for i, s := range r.Steps {
		if s.Found >= need {
			return i + 1, true
		}
	}
	return 0, need == 0
}

// Recall is the share of all gold found at the end.
func (r SimResult) Recall() float64 {
	if r.Gold == 0 || len(r.Steps) == 0 {
		return 0
	}
	return float64(r.Steps[len(r.Steps)-1].Found) / float64(r.Gold)
}

// GoldFromOracle computes every query's gold set by set algebra.
func GoldFromOracle(qs []atoms.Query, o atoms.Oracle) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, q := range qs {
		if err := q.Validate(); err != nil {
			return nil, err
		}
		sets := make([]map[string]bool, len(q.Atoms))
		for i, k := range q.Atoms {
			sets[i] = o[k]
			if sets[i] == nil {
				sets[i] = map[string]bool{}
			}
		}
		s, err := q.Expr.Eval(sets, nil)
		if err != nil {
			return nil, fmt.Errorf("atoms: query %q: %w", q.ID, err)
		}
		out[q.ID] = s
	}
	return out, nil
}

// goldOf returns in's gold — in.Gold, or the oracle's set algebra when it
// is nil — and the number of gold pairs; with validate every query's
// expression is checked first.
func (in SimInput) goldOf(validate bool) (map[string]map[string]bool, int, error) {
	if validate {
		for _, q := range in.Queries {
			if err := q.Validate(); err != nil {
				return nil, 0, err
			}
		}
	}
	gold := in.Gold
	if gold == nil {
		var err error
		if gold, err = GoldFromOracle(in.Queries, in.Oracle); err != nil {
			return nil, 0, err
		}
	}
	total := 0
	for _, q := range in.Queries {
		total += len(gold[q.ID])
	}
	return gold, total, nil
}

func cut(l []string, depth int) []string {
	if depth > 0 && len(l) > depth {
		return l[:depth]
	}
	return l
}

// newCursor returns a query's candidate walk: its runs, then the lists of
// its positive (not negated) atoms, each cut at depth.
func newCursor(q atoms.Query, in SimInput, lists map[string][]string) *cursor {
	c := &cursor{seen: map[string]bool{}}
	add := func(l []string, key string) {
		c.lists = append(c.lists, l)
		c.keys = append(c.keys, key)
		c.ver = append(c.ver, 0)
		c.pos = append(c.pos, 0)
	}
	for _, r := range in.Runs {
		add(cut(r.Lists[q.ID], in.Depth), "")
	}
	done := map[string]bool{}
	for i, k := range q.Atoms {
		if !q.Expr.Negated(i) && !done[k] {
			done[k] = true
			add(lists[k], k)
		}
	}
	return c
}

// SimulateAtoms judges (atom, document) pairs with the oracle until every
// candidate is decided or the budget is spent. Queries take turns, one
// candidate document each (from their runs and their positive atoms'
// lists, round-robin); for a candidate, atoms are asked one at a time until
// the query's expression is decided (three-valued), always the atom most
// likely to decide it: P(yes) of an atom is estimated from its labels so
// far, so for A AND B the atom that is more often false is asked first and
// the other only where the first holds; for A OR B the more often true one.
// Every label is shared by all queries using the atom, so a candidate an
// earlier judgment already decided costs nothing, and a document found to
// satisfy an atom becomes a candidate of every query using it positively.
// With a Ranker, an atom's list is re-ranked from its known positives.
// After each judgment, Found counts the query-level gold pairs whose
// derived label is True.
func SimulateAtoms(in SimInput) (SimResult, error) {
	gold, total, err := in.goldOf(true)
	if err != nil {
		return SimResult{}, err
	}
	res := SimResult{Queries: len(in.Queries)}
	res.Gold = total
	lists, vers := map[string][]string{}, map[string]int{}
	for k, l := range in.AtomRuns {
		lists[k] = cut(l, in.Depth)
	}
	users := map[string][]int{} // atom key → indexes into in.Queries
	curs := make([]*cursor, len(in.Queries))
	pending := make([][]string, len(in.Queries))
	for i, q := range in.Queries {
		seen := map[string]bool{}
		for _, k := range q.Atoms {
			if !seen[k] {
				seen[k] = true
				users[k] = append(users[k], i)
			}
		}
		curs[i] = newCursor(q, in, lists)
	}
	labels := atoms.Labels{}
	res.Labels = labels
	yes, judged := map[string]int{}, map[string]int{}
	positives, refreshed := map[string][]string{}, map[string]int{}
	counted := map[[2]string]bool{}
	found := 0
	judge := func(atom, doc string) {
		sat := in.Oracle[atom][doc]
		t := boolexpr.False
		if sat {
			t = boolexpr.True
			yes[atom]++
			positives[atom] = append(positives[atom], doc)
		}
		judged[atom]++
		labels.Set(atom, doc, t)
		for _, qi := range users[atom] {
			q := in.Queries[qi]
			if sat && !curs[qi].seen[doc] && positiveUse(q, atom) {
				curs[qi].seen[doc] = true
				pending[qi] = append(pending[qi], doc)
			}
			key := [2]string{q.ID, doc}
			if !counted[key] && gold[q.ID][doc] && atoms.Derive(q, labels, doc, false) == boolexpr.True {
				counted[key] = true
				found++
			}
		}
		if sat && in.Ranker != nil && in.RefreshEvery > 0 && refreshDue(len(positives[atom]), refreshed[atom], in.RefreshEvery) {
			refreshed[atom] = len(positives[atom])
			lists[atom] = in.Ranker(in.AtomTexts[atom], positives[atom])
			vers[atom]++
		}
		res.Steps = append(res.Steps, Step{Atom: atom, Doc: doc, Satisfies: sat, Found: found})
	}
	pYes := func(atom string) float64 { return (float64(yes[atom]) + 1) / (float64(judged[atom]) + 2) }
	sch := newScheduler(len(in.Queries))
	for {
		qi := sch.pick()
		if qi < 0 {
			return res, nil
		}
		q := in.Queries[qi]
		var d string
		if len(pending[qi]) > 0 {
			d, pending[qi] = pending[qi][0], pending[qi][1:]
		} else {
			var ok bool
			if d, ok = curs[qi].pop(lists, vers); !ok {
				sch.finish(qi)
				continue
			}
		}
		for atoms.Derive(q, labels, d, false) == boolexpr.Unknown {
			if in.Budget > 0 && len(res.Steps) >= in.Budget {
				return res, nil
			}
			judge(q.Atoms[atompool.NextAtom(q, labels, d, pYes)], d)
		}
	}
}

// refreshDue says whether a feedback re-ranking is due with n positives
// known, the last one made at last: after each of the first 10, then after
// every `every` new ones.
func refreshDue(n, last, every int) bool { return n <= 10 || n-last >= every }

// positiveUse reports whether q uses atom key outside a NOT.
func positiveUse(q atoms.Query, key string) bool {
	for i, k := range q.Atoms {
		if k == key && !q.Expr.Negated(i) {
			return true
		}
	}
	return false
}

// QueryLevelResult is a query-level strategy's outcome in the same
// simulation: (query, document) judgments.
type QueryLevelResult struct {
	Strategy string
	Gold     int
	Found    []int // gold found after each judgment
}

// JudgmentsTo returns the judgments needed to reach share of all gold.
func (r QueryLevelResult) JudgmentsTo(share float64) (int, bool) {
	need := int(math.Ceil(share*float64(r.Gold) - 1e-9))
	for i, f := range r.Found {
		if f >= need {
			return i + 1, true
		}
	}
	return 0, need == 0
}

// SimulateQueryLevel judges whole (query, document) pairs over the same
// candidates (the query's runs and its positive atoms' lists), queries
// taking turns one judgment each, and records the gold found. Strategy
// depth, mtf or bandit orders each query's pool as pooling does (with the
// oracle as feedback); StrategyFeedback walks the lists round-robin and,
// with in.Ranker, adds a list re-ranked from the query's text and its
// relevant documents found so far after every RefreshEvery of them.
func SimulateQueryLevel(in SimInput, strategy string) (QueryLevelResult, error) {
	gold, total, err := in.goldOf(false)
	if err != nil {
		return QueryLevelResult{}, err
	}
	res := QueryLevelResult{Strategy: strategy, Gold: total}
	atomLists := map[string][]string{}
	for k, l := range in.AtomRuns {
		atomLists[k] = cut(l, in.Depth)
	}
	next := make([]func() (string, bool), len(in.Queries))
	onRelevant := make([]func(string), len(in.Queries))
	for i, q := range in.Queries {
		g := gold[q.ID]
		if strategy == StrategyFeedback {
			lists, vers := map[string][]string{}, map[string]int{}
			for k, l := range atomLists {
				lists[k] = l
			}
			c := newCursor(q, in, lists)
			fk := "\x00query"
			c.lists, c.keys, c.ver, c.pos = append(c.lists, nil), append(c.keys, fk), append(c.ver, 0), append(c.pos, 0)
			var pos []string
			last := 0
			next[i] = func() (string, bool) { return c.pop(lists, vers) }
			onRelevant[i] = func(d string) {
				pos = append(pos, d)
				if in.Ranker != nil && in.RefreshEvery > 0 && refreshDue(len(pos), last, in.RefreshEvery) {
					last = len(pos)
					lists[fk] = in.Ranker(in.QueryTexts[q.ID], pos)
					vers[fk]++
				}
			}
			continue
		}
		var ls [][]string
		for _, r := range in.Runs {
			ls = append(ls, cut(r.Lists[q.ID], in.Depth))
		}
		for ai, k := range q.Atoms {
			if !q.Expr.Negated(ai) {
				ls = append(ls, atomLists[k])
			}
		}
		o, err := pooling.Order(ls, pooling.Options{Depth: in.Depth, Strategy: strategy}, func(d string) (bool, bool) { return g[d], true })
		if err != nil {
			return QueryLevelResult{}, err
		}
		n := 0
		next[i] = func() (string, bool) {
			if n >= len(o) {
				return "", false
			}
			n++
			return o[n-1], true
		}
		onRelevant[i] = func(string) {}
	}
	found := 0
	sch := newScheduler(len(in.Queries))
	for {
		i := sch.pick()
		if i < 0 {
			return res, nil
		}
		d, ok := next[i]()
		if !ok {
			sch.finish(i)
			continue
		}
		if gold[in.Queries[i].ID][d] {
			found++
			onRelevant[i](d)
		}
		res.Found = append(res.Found, found)
		if in.Budget > 0 && len(res.Found) >= in.Budget {
			return res, nil
		}
	}
}

// QueryLevelFromSequences interleaves precomputed per-query judging
// sequences (query id → documents, e.g. a CAL review's) the way
// SimulateQueryLevel does, queries taking turns, and records the gold found.
func QueryLevelFromSequences(in SimInput, name string, seqs map[string][]string) (QueryLevelResult, error) {
	gold, total, err := in.goldOf(false)
	if err != nil {
		return QueryLevelResult{}, err
	}
	res := QueryLevelResult{Strategy: name}
	res.Gold = total
	found := 0
	sch := newScheduler(len(in.Queries))
	pos := make([]int, len(in.Queries))
	for {
		i := sch.pick()
		if i < 0 {
			return res, nil
		}
		q := in.Queries[i]
		if pos[i] >= len(seqs[q.ID]) {
			sch.finish(i)
			continue
		}
		d := seqs[q.ID][pos[i]]
		pos[i]++
		if gold[q.ID][d] {
			found++
		}
		res.Found = append(res.Found, found)
		if in.Budget > 0 && len(res.Found) >= in.Budget {
			return res, nil
		}
	}
}

// scheduler hands out the queries in turn, skipping finished ones.
type scheduler struct {
	turn int
	done []bool
	left int
}

func newScheduler(n int) *scheduler { return &scheduler{done: make([]bool, n), left: n} }

// pick returns the next query, -1 when every query is finished.
func (s *scheduler) pick() int {
	if s.left == 0 {
		return -1
	}
	for s.done[s.turn%len(s.done)] {
		s.turn++
	}
	i := s.turn % len(s.done)
	s.turn++
	return i
}

func (s *scheduler) finish(i int) {
	if !s.done[i] {
		s.done[i] = true
		s.left--
	}
}
