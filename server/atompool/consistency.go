package atompool

import (
	"context"

	"boolpool/server/atoms"
	"boolpool/server/store"
)

// ProjectInconsistencies loads the project's atom queries, atom labels and
// direct (majority consensus) labels and returns the consistency flags.
func ProjectInconsistencies(ctx context.Context, st *store.Store, projectID int64) ([]atoms.Flag, error) {
	qs, labels, err := loadQueriesAndLabels(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	direct, err := DirectLabels(ctx, st, projectID)
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

// loadQueriesAndLabels loads the project's atom queries and atom labels.
func loadQueriesAndLabels(ctx context.Context, st *store.Store, projectID int64) ([]atoms.Query, atoms.Labels, error) {
	qs, err := atoms.LoadQueries(ctx, st, projectID)
	if err != nil {
		return nil, nil, err
	}
	labels, err := atoms.LoadLabels(ctx, st, projectID)
	if err != nil {
		return nil, nil, err
	}
	return qs, labels, nil
}
