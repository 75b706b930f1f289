package metrics

import (
	"slices"
	"strings"
)

// Qrels maps query id → document id → relevance grade.
type Qrels map[string]map[string]int

// Scored is one retrieved document with its score.
type Scored struct {
	DocID string
	Score float64
}

// Run maps query id → retrieved documents in file order.
type Run map[string][]Scored

// Rank orders docs as trec_eval does (score descending, then docid
// descending by byte order) and returns the docids. A docid seen before in
// docs (file order) is dropped; dups counts the drops.
func Rank(docs []Scored) (ranked []string, dups int) {
	seen := make(map[string]bool, len(docs))
	kept := make([]Scored, 0, len(docs))
	for _, d := range docs {
		if seen[d.DocID] {
			dups++
			continue
		}
		seen[d.DocID] = true
		kept = append(kept, d)
	}
	slices.SortFunc(kept, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(b.DocID, a.DocID)
	})
	ranked = make([]string, len(kept))
	for i, d := range kept {
		ranked[i] = d.DocID
	}
	return ranked, dups
}

// Ranked is a run with every query's documents already ranked.
type Ranked map[string][]string

// RankRun ranks every query of r; dups is the total number of duplicate
// lines dropped.
func RankRun(r Run) (Ranked, int) {
	out := make(Ranked, len(r))
	total := 0
	for q, docs := range r {
		ranked, d := Rank(docs)
		out[q] = ranked
		total += d
	}
	return out, total
}

// Rankings gathers the scored results of several runs (by run id) per
// query, in any order, and ranks each run's lists as Rank does. The zero
// value is not usable: make it with Rankings[Q]{}.
type Rankings[Q comparable] map[int64]map[Q][]Scored

// Add records doc with score in run's list for query q.
func (r Rankings[Q]) Add(run int64, q Q, doc string, score float64) {
	if r[run] == nil {
		r[run] = map[Q][]Scored{}
	}
	r[run][q] = append(r[run][q], Scored{DocID: doc, Score: score})
}

// Ranked returns run's lists ranked (query → document ids, best first;
// an empty map for a run without results).
func (r Rankings[Q]) Ranked(run int64) map[Q][]string {
	out := make(map[Q][]string, len(r[run]))
	for q, docs := range r[run] {
		out[q], _ = Rank(docs)
	}
	return out
}
