package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Id namespaces of TRECIDCandidates and ExistingTRECIDs.
const (
	IDKindDoc   = "doc"
	IDKindQuery = "query"
)

// rowQuerier is what the id look-ups need of a pool or a transaction.
type rowQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// The ids a project's TREC files can carry: query ext ids; document ext
// ids of documents and qrels. Runs' documents are left out: a run ranks
// the corpus, and unnesting every stored ranking (millions of rows) on
// each export would cost seconds; a run's document outside the corpus and
// the qrels is written by the plain rule (trecfmt.EncodeID).
const (
	queryIDsSQL = `SELECT ext_id FROM queries WHERE project_id = $1`
	docIDsSQL   = `SELECT ext_id FROM documents WHERE project_id = $1
		UNION SELECT doc_ext_id FROM qrels WHERE project_id = $1`
)

func idsSQL(kind string) (string, error) {
	switch kind {
	case IDKindDoc:
		return docIDsSQL, nil
	case IDKindQuery:
		return queryIDsSQL, nil
	}
	return "", fmt.Errorf("store: unknown id kind %q", kind)
}

// TRECIDCandidates lists the project's ids of a kind that may need a TREC
// encoding: those with a character outside printable ASCII (white space,
// control characters and every non-ASCII character; the caller picks the
// ones that need it, trecfmt.NeedsEncoding).
func (s *Store) TRECIDCandidates(ctx context.Context, projectID int64, kind string) ([]string, error) {
	return trecIDCandidates(ctx, s.pool, projectID, kind)
}

// ExistingTRECIDs reports which of ids are ids of the kind in the project.
func (s *Store) ExistingTRECIDs(ctx context.Context, projectID int64, kind string, ids []string) (map[string]bool, error) {
	return existingTRECIDs(ctx, s.pool, projectID, kind, ids)
}

// TRECIDCandidates is Store.TRECIDCandidates inside the import's
// transaction (after what it has written so far).
func (im *Importer) TRECIDCandidates(ctx context.Context, kind string) ([]string, error) {
	if err := im.flush(ctx); err != nil {
		return nil, err
	}
	return trecIDCandidates(ctx, im.tx, im.projectID, kind)
}

// ExistingTRECIDs is Store.ExistingTRECIDs inside the import's transaction.
func (im *Importer) ExistingTRECIDs(ctx context.Context, kind string, ids []string) (map[string]bool, error) {
	return existingTRECIDs(ctx, im.tx, im.projectID, kind, ids)
}

func trecIDCandidates(ctx context.Context, q rowQuerier, projectID int64, kind string) ([]string, error) {
	base, err := idsSQL(kind)
	if err != nil {
		return nil, err
	}
	return collectIDs(ctx, q, `SELECT ext_id FROM (`+base+`) ids(ext_id) WHERE ext_id ~ '[^!-~]'`, projectID)
}

func existingTRECIDs(ctx context.Context, q rowQuerier, projectID int64, kind string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	base, err := idsSQL(kind)
	if err != nil {
		return nil, err
	}
	found, err := collectIDs(ctx, q, `SELECT ext_id FROM (`+base+`) ids(ext_id) WHERE ext_id = ANY($2)`, projectID, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

func collectIDs(ctx context.Context, q rowQuerier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: trec ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: trec ids: %w", err)
	}
	return ids, nil
}
