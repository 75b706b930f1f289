package export

import (
	"bufio"
	"context"

	"boolpool/server/store"
	"boolpool/server/trecfmt"
)

// ProjectIDMaps are the tokens a project's ids are written as in TREC
// files (trecfmt's id rule, issue 25): every TREC-shaped export of the
// project uses them, so its runs and qrels evaluate against each other,
// and the importers read them back with the same maps.
func ProjectIDMaps(ctx context.Context, st *store.Store, projectID int64) (trecfmt.IDMaps, error) {
	return trecfmt.BuildIDMaps(
		func(kind string) ([]string, error) { return st.TRECIDCandidates(ctx, projectID, kind) },
		func(kind string, ids []string) (map[string]bool, error) {
			return st.ExistingTRECIDs(ctx, projectID, kind, ids)
		})
}

// idMapFile writes the idmap format: the ids of the project written as a
// different token in its TREC files (trecfmt.WriteIDMap).
func idMapFile(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	maps, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return Counts{}, err
	}
	n, err := trecfmt.WriteIDMap(w, maps.Queries, maps.Docs)
	return Counts{Lines: n}, err
}

// writeQrels writes the labels each gives to put as TREC qrels lines, the
// ids written as ProjectIDMaps says, and counts them.
func writeQrels(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer,
	each func(put func(query, doc string, rel int) error) error) (Counts, error) {
	var c Counts
	ids, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return c, err
	}
	qw := trecfmt.NewQrelsWriter(w)
	err = each(func(query, doc string, rel int) error {
		c.Qrels++
		c.Lines++
		return qw.Write(trecfmt.Qrel{QueryID: ids.Queries.Encode(query), Iter: "0", DocID: ids.Docs.Encode(doc), Rel: rel})
	})
	if err != nil {
		return c, err
	}
	return c, qw.Flush()
}
