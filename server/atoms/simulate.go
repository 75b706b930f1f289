package atoms

import (
	"fmt"
	"math"
	"sort"

	"boolpool/server/boolexpr"
	"boolpool/server/pooling"
)

// StrategyAtoms is the constraint-pooling strategy's name in `pool simulate`.
const StrategyAtoms = "atoms"

// SimInput is a constraint-pooling simulation.
type SimInput struct {
	Queries []Query // expressions over shared atom keys
	// Runs rank documents per query id; AtomRuns per atom key (e.g. the
	// atom text retrieved on its own). Both are cut at Depth.
	Runs     []pooling.Run
	AtomRuns map[string][]string
	Depth    int
	Oracle   Oracle                     // atom key → satisfying documents
	Gold     map[string]map[string]bool // query id → gold documents; nil = the oracle's set algebra
	Budget   int                        // maximum judgments; 0 = until the candidates run out
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
	Queries int    `json:"queries"`
	Gold    int    `json:"gold"` // all query-level gold pairs
	Steps   []Step `json:"-"`
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
func GoldFromOracle(qs []Query, o Oracle) (map[string]map[string]bool, error) {
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

// candidates returns a query's candidate documents: its runs' lists and
// the lists of its positive (not negated) atoms, merged by rank level.
func candidates(q Query, runs []pooling.Run, atomRuns map[string][]string, depth int) []string {
	var lists [][]string
	for _, r := range runs {
		lists = append(lists, cut(r.Lists[q.ID], depth))
	}
	for i, k := range q.Atoms {
		if !q.Expr.Negated(i) {
			lists = append(lists, cut(atomRuns[k], depth))
		}
	}
	var out []string
	seen := map[string]bool{}
	for r := 0; ; r++ {
		any := false
		for _, l := range lists {
			if r < len(l) {
				any = true
				if !seen[l[r]] {
					seen[l[r]] = true
					out = append(out, l[r])
				}
			}
		}
		if !any {
			return out
		}
	}
}

func cut(l []string, depth int) []string {
	if depth > 0 && len(l) > depth {
		return l[:depth]
	}
	return l
}

// SimulateAtoms judges (atom, document) pairs with the oracle until every
// candidate is decided or the budget is spent. Queries take turns, one
// candidate document each in rank order (rank level by rank level, like
// depth-k pooling); for a candidate, atoms are asked one at a time until the
// query's expression is decided (three-valued), always the atom most likely
// to decide it: P(yes) of an atom is estimated from its labels so far, so
// for A AND B the atom that is more often false is asked first and the
// other only where the first holds; for A OR B the more often true one.
// Every label is shared by all queries using the atom, so a candidate some
// earlier judgment already decided costs nothing. After each judgment,
// Found counts the query-level gold pairs whose derived label is True.
func SimulateAtoms(in SimInput) (SimResult, error) {
	gold := in.Gold
	if gold == nil {
		var err error
		if gold, err = GoldFromOracle(in.Queries, in.Oracle); err != nil {
			return SimResult{}, err
		}
	}
	res := SimResult{Queries: len(in.Queries)}
	for _, q := range in.Queries {
		if err := q.Validate(); err != nil {
			return SimResult{}, err
		}
		res.Gold += len(gold[q.ID])
	}
	users := map[string][]int{} // atom key → indexes into in.Queries
	cands := make([][]string, len(in.Queries))
	for i, q := range in.Queries {
		seen := map[string]bool{}
		for _, k := range q.Atoms {
			if !seen[k] {
				seen[k] = true
				users[k] = append(users[k], i)
			}
		}
		cands[i] = candidates(q, in.Runs, in.AtomRuns, in.Depth)
	}
	// A document found to satisfy an atom becomes a candidate of every
	// query using that atom positively (ahead of its ranked candidates).
	inCands := make([]map[string]bool, len(in.Queries))
	pending := make([][]string, len(in.Queries))
	for i := range cands {
		inCands[i] = map[string]bool{}
		for _, d := range cands[i] {
			inCands[i][d] = true
		}
	}
	labels := Labels{}
	yes, judged := map[string]int{}, map[string]int{}
	counted := map[[2]string]bool{}
	found := 0
	judge := func(atom, doc string) {
		sat := in.Oracle[atom][doc]
		t := boolexpr.False
		if sat {
			t = boolexpr.True
			yes[atom]++
		}
		judged[atom]++
		labels.Set(atom, doc, t)
		for _, qi := range users[atom] {
			q := in.Queries[qi]
			if sat && !inCands[qi][doc] && positiveUse(q, atom) {
				inCands[qi][doc] = true
				pending[qi] = append(pending[qi], doc)
			}
			key := [2]string{q.ID, doc}
			if !counted[key] && gold[q.ID][doc] && Derive(q, labels, doc, false) == boolexpr.True {
				counted[key] = true
				found++
			}
		}
		res.Steps = append(res.Steps, Step{Atom: atom, Doc: doc, Satisfies: sat, Found: found})
	}
	pYes := func(atom string) float64 { return (float64(yes[atom]) + 1) / (float64(judged[atom]) + 2) }
	for r := 0; ; r++ {
		active := false
		for qi, q := range in.Queries {
			var d string
			switch {
			case len(pending[qi]) > 0:
				d, pending[qi] = pending[qi][0], pending[qi][1:]
			case r < len(cands[qi]):
				d = cands[qi][r]
			default:
				continue
			}
			active = true
			for Derive(q, labels, d, false) == boolexpr.Unknown {
				if in.Budget > 0 && len(res.Steps) >= in.Budget {
					return res, nil
				}
				judge(q.Atoms[nextAtom(q, labels, d, pYes)], d)
			}
		}
		if !active {
			return res, nil
		}
	}
}

// positiveUse reports whether q uses atom key outside a NOT.
func positiveUse(q Query, key string) bool {
	for i, k := range q.Atoms {
		if k == key && !q.Expr.Negated(i) {
			return true
		}
	}
	return false
}

// nextAtom picks the unjudged atom of q on doc most likely to decide the
// expression: the probability that, once judged, the expression is no
// longer Unknown. Ties go to the lower index.
func nextAtom(q Query, l Labels, doc string, pYes func(string) float64) int {
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
// candidate lists (the query's runs and its positive atoms' lists), each
// query in the pooling strategy's order (depth, mtf, bandit), queries
// taking turns one judgment each, and records the gold found.
func SimulateQueryLevel(in SimInput, strategy string) (QueryLevelResult, error) {
	gold := in.Gold
	if gold == nil {
		var err error
		if gold, err = GoldFromOracle(in.Queries, in.Oracle); err != nil {
			return QueryLevelResult{}, err
		}
	}
	res := QueryLevelResult{Strategy: strategy}
	orders := make([][]string, len(in.Queries))
	for i, q := range in.Queries {
		res.Gold += len(gold[q.ID])
		var lists [][]string
		for _, r := range in.Runs {
			lists = append(lists, cut(r.Lists[q.ID], in.Depth))
		}
		for ai, k := range q.Atoms {
			if !q.Expr.Negated(ai) {
				lists = append(lists, cut(in.AtomRuns[k], in.Depth))
			}
		}
		g := gold[q.ID]
		o, err := pooling.Order(lists, pooling.Options{Depth: in.Depth, Strategy: strategy}, func(d string) (bool, bool) { return g[d], true })
		if err != nil {
			return QueryLevelResult{}, err
		}
		orders[i] = o
	}
	found := 0
	for r := 0; ; r++ {
		active := false
		for i, q := range in.Queries {
			if r >= len(orders[i]) {
				continue
			}
			active = true
			if gold[q.ID][orders[i][r]] {
				found++
			}
			res.Found = append(res.Found, found)
			if in.Budget > 0 && len(res.Found) >= in.Budget {
				return res, nil
			}
		}
		if !active {
			return res, nil
		}
	}
}

// sortedKeys is used by tests and the CLI for stable output.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
