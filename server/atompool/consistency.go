package atompool

import (
	"context"

	"boolpool/server/atoms"
	"boolpool/server/store"
)

// ProjectInconsistencies loads the project's atom queries, atom labels and
// direct (majority consensus) labels and returns the consistency flags.
func ProjectInconsistencies(ctx context.Context, st *store.Store, projectID int64) ([]atoms.Flag, error) {
	pa, err := loadProjectAtoms(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	return pa.inconsistencies()
}

// projectAtoms is what the consistency flags are computed from (and the
// derived-qrels summary, Summary, reads): the atom queries and labels, the
// direct labels, every query (texts: by ext id) and the atoms' texts by key.
type projectAtoms struct {
	queries   []atoms.Query
	labels    atoms.Labels
	direct    map[string]map[string]bool
	all       []store.Query
	texts     map[string]string
	atomTexts map[string]string
}

func loadProjectAtoms(ctx context.Context, st *store.Store, projectID int64) (projectAtoms, error) {
	var pa projectAtoms
	var err error
	if pa.queries, pa.labels, err = loadQueriesAndLabels(ctx, st, projectID); err != nil {
		return pa, err
	}
	if pa.direct, err = DirectLabels(ctx, st, projectID); err != nil {
		return pa, err
	}
	if pa.all, err = st.ListQueries(ctx, projectID, ""); err != nil {
		return pa, err
	}
	pa.texts = map[string]string{}
	for _, q := range pa.all {
		pa.texts[q.ExtID] = q.Text
	}
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return pa, err
	}
	pa.atomTexts = map[string]string{}
	for _, l := range links {
		pa.atomTexts[l.Key] = l.AtomText
	}
	return pa, nil
}

func (pa projectAtoms) inconsistencies() ([]atoms.Flag, error) {
	return atoms.Inconsistencies(pa.queries, pa.texts, pa.atomTexts, pa.labels, pa.direct)
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
