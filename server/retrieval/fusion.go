package retrieval

import (
	"context"
	"sort"
	"strings"
)

var specRRF = Spec{
	Name:    "rrf",
	Summary: "reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) of stored runs: score(d) = Σ_runs 1/(k + rank(d)), rank from 1",
	Needs:   NeedsRuns,
	Params: []ParamSpec{
		{Name: "runs", Default: "", Doc: "comma-separated names of the stored runs to fuse (at least two)"},
		{Name: "k", Default: "60", Doc: "the RRF constant"},
	},
	build: func(p Params, d Deps) (Method, error) {
		names := RRFRunNames(p.str("runs"))
		if len(names) < 2 {
			return nil, errorf("rrf: parameter runs needs at least two run names, got %q", p.str("runs"))
		}
		k, err := p.float("k")
		if err != nil {
			return nil, err
		}
		if k < 0 {
			return nil, errorf("rrf: k must be >= 0")
		}
		runs := make([]map[string][]Result, len(names))
		for i, n := range names {
			r, ok := d.Runs[n]
			if !ok {
				return nil, errorf("rrf: run %q is not loaded", n)
			}
			runs[i] = r
		}
		return &rrfMethod{runs: runs, k: k}, nil
	},
}

// RRFRunNames splits the runs parameter of rrf.
func RRFRunNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

type rrfMethod struct {
	runs []map[string][]Result
	k    float64
}

func (m *rrfMethod) Name() string { return "rrf" }

func (m *rrfMethod) Retrieve(_ context.Context, q Query, k int) ([]Result, error) {
	lists := make([][]Result, len(m.runs))
	for i, r := range m.runs {
		lists[i] = r[q.ID]
	}
	return RRF(lists, m.k, k), nil
}

// RRF fuses ranked lists (each best first; a list's own order is its
// ranking, ties having been broken already) into one, cut to depth (<= 0:
// all). Sums run in list order, so the result is deterministic.
func RRF(lists [][]Result, k float64, depth int) []Result {
	score := map[string]float64{}
	var order []string
	for _, l := range lists {
		for r, res := range l {
			if _, ok := score[res.DocID]; !ok {
				order = append(order, res.DocID)
			}
			score[res.DocID] += 1 / (k + float64(r+1))
		}
	}
	sort.Strings(order)
	out := make([]Result, len(order))
	for i, id := range order {
		out[i] = Result{DocID: id, Score: score[id]}
	}
	return sortResults(out, depth)
}
