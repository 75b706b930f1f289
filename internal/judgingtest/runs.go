package judgingtest

import (
	"context"
	"testing"

	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// Runs are two small stored runs over the fixture's queries for pool tests.
// Besides documents that already have items they retrieve four new
// (query, document) pairs: (q1, d5), (q1, d6), (q2, d1), (q2, d3).
var Runs = map[string]map[string][]string{
	"bm25":  {"q1": {"d1", "d5", "d2"}, "q2": {"d5", "d1"}},
	"dense": {"q1": {"d6", "d1"}, "q2": {"d6", "d3"}},
}

// AddRuns saves Runs in the fixture project.
func AddRuns(ctx context.Context, st *store.Store, f *Fixture) error {
	qs, err := retrieval.LoadQueries(ctx, st, f.Project.ID, "")
	if err != nil {
		return err
	}
	for _, name := range []string{"bm25", "dense"} {
		res := map[string][]retrieval.Result{}
		for q, docs := range Runs[name] {
			for i, d := range docs {
				res[q] = append(res[q], retrieval.Result{DocID: d, Score: float64(10 - i)})
			}
		}
		if _, err := retrieval.SaveRun(ctx, st, f.Project.ID, name, name, nil, qs, res); err != nil {
			return err
		}
	}
	return nil
}

// NewWithRuns is New with Runs saved in the fixture project.
func NewWithRuns(t testing.TB, st *store.Store, ratersPerItem int) *Fixture {
	t.Helper()
	f := New(t, st, ratersPerItem)
	if err := AddRuns(context.Background(), st, f); err != nil {
		t.Fatalf("judgingtest: add runs: %v", err)
	}
	return f
}
