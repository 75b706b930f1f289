package atompool

import (
	"context"
	"encoding/json"
	"fmt"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// SimulateProject runs SimulateAtoms over a project's queries (of split, ""
// = all) with stored runs as candidates and oracle as the atom judge.
// Atoms are matched to the oracle by atoms.Normalise of their text (nothing is
// written). Gold is the project's positive qrels (relevance >= 1) where a
// query has any, else the oracle's set algebra.
func SimulateProject(ctx context.Context, st *store.Store, projectID int64, runNames []string, depth int, split string, oracle atoms.Oracle, budget int) (SimResult, error) {
	qs, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return SimResult{}, err
	}
	var queries []atoms.Query
	for _, q := range qs {
		if len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
			continue
		}
		var e boolexpr.Expr
		if err := json.Unmarshal(q.Expression, &e); err != nil {
			return SimResult{}, fmt.Errorf("atoms: query %q expression: %w", q.ExtID, err)
		}
		keys := make([]string, len(q.Atoms))
		for i, a := range q.Atoms {
			keys[i] = atoms.Normalise(a.Text)
		}
		queries = append(queries, atoms.Query{ID: q.ExtID, Expr: &e, Atoms: keys})
	}
	if len(queries) == 0 {
		return SimResult{}, fmt.Errorf("atoms: no query with an expression and atoms in the project (split %q)", split)
	}
	gold, err := GoldFromOracle(queries, oracle)
	if err != nil {
		return SimResult{}, err
	}
	stored := map[string]bool{} // queries whose gold comes from the qrels
	err = st.EachQrel(ctx, projectID, "positive", "", func(r store.Qrel) error {
		if _, ok := gold[r.QueryExtID]; !ok || r.Relevance < 1 {
			return nil
		}
		if !stored[r.QueryExtID] {
			stored[r.QueryExtID] = true
			gold[r.QueryExtID] = map[string]bool{}
		}
		gold[r.QueryExtID][r.DocExtID] = true
		return nil
	})
	if err != nil {
		return SimResult{}, err
	}
	runs := make([]pooling.Run, len(runNames))
	for i, n := range runNames {
		res, err := retrieval.LoadRun(ctx, st, projectID, n)
		if err != nil {
			return SimResult{}, err
		}
		lists := make(map[string][]string, len(res))
		for q, rs := range res {
			docs := make([]string, len(rs))
			for j, r := range rs {
				docs[j] = r.DocID
			}
			lists[q] = docs
		}
		runs[i] = pooling.Run{Name: n, Lists: lists}
	}
	return SimulateAtoms(SimInput{Queries: queries, Runs: runs, Depth: depth, Oracle: oracle, Gold: gold, Budget: budget})
}

// ProjectInconsistencies loads the project's atom queries, atom labels and
// direct (majority consensus) labels and returns the consistency flags.
func ProjectInconsistencies(ctx context.Context, st *store.Store, projectID int64) ([]atoms.Flag, error) {
	qs, err := atoms.LoadQueries(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	labels, err := atoms.LoadLabels(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, err
	}
	direct := map[string]map[string]bool{}
	err = st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if direct[r.QueryExtID] == nil {
			direct[r.QueryExtID] = map[string]bool{}
		}
		direct[r.QueryExtID][r.DocExtID] = r.Relevance >= consensus.RelevantThreshold
		return nil
	})
	if err != nil {
		return nil, err
	}
	all, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return nil, err
	}
	texts := map[string]string{}
	for _, q := range all {
		texts[q.ExtID] = q.Text
	}
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	atomTexts := map[string]string{}
	for _, l := range links {
		atomTexts[l.Key] = l.AtomText
	}
	return atoms.Inconsistencies(qs, texts, atomTexts, labels, direct)
}
