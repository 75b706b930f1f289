package atompool

import (
	"context"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// QrelsLabels returns the project's labels under a qrels mode, as grades
// for the live metrics (query ext id → document → grade, issue 13):
//
//   - derived: the labels derived from the atoms' labels under each
//     query's expression: true = consensus.RelevantThreshold (relevant),
//     false = 0; unknown ones are left out.
//   - both: the direct consensus grades, and the derived labels of pairs
//     without one.
//
// direct is the live state's own consensus (live.Service.Snapshot); asked
// here it returns the direct consensus grades.
func QrelsLabels(ctx context.Context, st *store.Store, projectID int64, mode string) (map[string]map[string]int, error) {
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return nil, err
	}
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	set := func(q, d string, g int) {
		if out[q] == nil {
			out[q] = map[string]int{}
		}
		out[q][d] = g
	}
	direct := map[string]map[string]bool{}
	err := st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if direct[r.QueryExtID] == nil {
			direct[r.QueryExtID] = map[string]bool{}
		}
		direct[r.QueryExtID][r.DocExtID] = r.Relevance >= consensus.RelevantThreshold
		if mode != vocab.QrelsDerived {
			set(r.QueryExtID, r.DocExtID, r.Relevance)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if mode != vocab.QrelsDerived && mode != vocab.QrelsBoth {
		return out, nil
	}
	qs, labels, err := loadQueriesAndLabels(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		qr, err := atoms.DeriveQrels(q, labels, direct[q.ID], false)
		if err != nil {
			return nil, err
		}
		for _, r := range qr {
			if r.Derived == boolexpr.Unknown {
				continue
			}
			if _, ok := out[q.ID][r.Doc]; ok { // both: a direct grade stays
				continue
			}
			g := 0
			if r.Derived == boolexpr.True {
				g = consensus.RelevantThreshold
			}
			set(q.ID, r.Doc, g)
		}
	}
	return out, nil
}
