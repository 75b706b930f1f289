package judgingtest

import (
	"context"
	"fmt"

	"boolpool/api"
	"boolpool/server/store"
)

// ReusePool is the pool AddJudgedPool saves: the depth-2 pool of Runs,
// each item with the runs that retrieved it in their top two.
const ReusePool = "depth-2"

// ReuseLabels are the relevance labels AddJudgedPool gives (annotator1
// and annotator2 agree on every item): in q1 d1 and d2 are relevant, in
// q2 d6 only.
var ReuseLabels = map[string]map[string]int16{
	"q1": {"d1": 3, "d2": 2, "d3": 0, "d4": 0},
	"q2": {"d5": 0, "d6": 2},
}

// AddJudgedPool saves Runs (AddRuns), the draft pool ReusePool over them
// and, for every relevance item, annotator1's and annotator2's judgment
// of ReuseLabels: a small judged project for the reusability and
// stability reports.
func AddJudgedPool(ctx context.Context, st *store.Store, f *Fixture) error {
	if err := AddRuns(ctx, st, f); err != nil {
		return err
	}
	var items []store.PoolItemIn
	for _, q := range []string{"q1", "q2"} {
		at := map[string]int{}
		for _, run := range []string{"bm25", "dense"} {
			for r, d := range Runs[run][q] {
				if r >= 2 {
					break
				}
				i, ok := at[d]
				if !ok {
					i = len(items)
					at[d] = i
					items = append(items, store.PoolItemIn{QueryID: f.Queries[q], DocExtID: d, Priority: i, Sources: map[string]int{}})
				}
				items[i].Sources[run] = r + 1
			}
		}
	}
	if _, err := st.SavePool(ctx, f.Project.ID, ReusePool, "depth", 2, nil, items); err != nil {
		return fmt.Errorf("save pool: %w", err)
	}
	n := 0
	for _, id := range f.Relevance {
		it, err := st.RelevanceItem(ctx, id)
		if err != nil {
			return err
		}
		var q string
		for ext, qid := range f.Queries {
			if qid == it.QueryID {
				q = ext
			}
		}
		rel := ReuseLabels[q][it.DocExtID]
		for _, u := range []string{"annotator1", "annotator2"} {
			n++
			ev := api.EvidencePartial
			j := store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: id, UserID: f.Users[u].ID,
				ProjectID: f.Project.ID, Kind: api.KindRelevance, Relevance: &rel, Evidence: &ev}
			if _, _, err := st.SaveJudgment(ctx, j); err != nil {
				return fmt.Errorf("judgment: %w", err)
			}
		}
	}
	return nil
}
