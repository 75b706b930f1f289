package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// JudgedRow is one current relevance judgment as the judged exports need
// it (each rater's latest, non-skipped judgment of an item: the
// current_judgments view, migration 0071).
type JudgedRow struct {
	JudgmentID   int64
	QueryID      int64
	DocumentID   int64
	DocExtID     string
	UserID       int64
	Relevance    int
	Evidence     string
	Attributions json.RawMessage
}

// EachCurrentJudgment streams a project's current relevance judgments by
// query, document and judgment id.
func (s *Store) EachCurrentJudgment(ctx context.Context, projectID int64, fn func(JudgedRow) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT l.id, l.query_id, l.document_id, d.ext_id, l.user_id, l.relevance, coalesce(l.evidence, ''), l.attributions
		FROM current_judgments l JOIN documents d ON d.id = l.document_id
		WHERE l.project_id = $1 AND l.item_kind = 'relevance' AND l.relevance IS NOT NULL
		ORDER BY l.query_id, d.ext_id, l.id`, projectID)
	var r JudgedRow
	return forEach(rows, "current judgments", func() error { return fn(r) },
		&r.JudgmentID, &r.QueryID, &r.DocumentID, &r.DocExtID, &r.UserID, &r.Relevance, &r.Evidence, &r.Attributions)
}

// DocumentsByIDs fetches documents by id (missing ones are left out).
func (s *Store) DocumentsByIDs(ctx context.Context, ids []int64) (map[int64]Document, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+documentCols+` FROM documents WHERE id = ANY($1)`, ids)
	docs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Document])
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	out := make(map[int64]Document, len(docs))
	for _, d := range docs {
		out[d.ID] = d
	}
	return out, nil
}
