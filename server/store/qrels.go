package store

import (
	"context"
	"fmt"
)

// Qrel is one stored relevance label.
type Qrel struct {
	QueryExtID string
	DocExtID   string
	Relevance  int
	Kind       string
	Source     string
}

// EachQrel streams a project's qrels of one kind ("" = all kinds) and
// source ("" = all sources), ordered by query import order then document.
func (s *Store) EachQrel(ctx context.Context, projectID int64, kind, source string, fn func(Qrel) error) error {
	rows, err := s.pool.Query(ctx, `SELECT q.ext_id, r.doc_ext_id, r.relevance, r.kind, r.source
		FROM qrels r JOIN queries q ON q.id = r.query_id
		WHERE r.project_id = $1 AND ($2 = '' OR r.kind = $2) AND ($3 = '' OR r.source = $3)
		ORDER BY q.seq, q.id, r.doc_ext_id`, projectID, kind, source)
	if err != nil {
		return fmt.Errorf("store: qrels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Qrel
		if err := rows.Scan(&r.QueryExtID, &r.DocExtID, &r.Relevance, &r.Kind, &r.Source); err != nil {
			return fmt.Errorf("store: qrels: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: qrels: %w", err)
	}
	return nil
}

// EachMergedQrel streams one label per (query, document) of the given kind:
// the highest relevance over all sources, in query import order.
func (s *Store) EachMergedQrel(ctx context.Context, projectID int64, kind string, fn func(Qrel) error) error {
	rows, err := s.pool.Query(ctx, `SELECT q.ext_id, r.doc_ext_id, max(r.relevance)
		FROM qrels r JOIN queries q ON q.id = r.query_id
		WHERE r.project_id = $1 AND r.kind = $2
		GROUP BY q.seq, q.id, q.ext_id, r.doc_ext_id
		ORDER BY q.seq, q.id, r.doc_ext_id`, projectID, kind)
	if err != nil {
		return fmt.Errorf("store: merged qrels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r := Qrel{Kind: kind}
		if err := rows.Scan(&r.QueryExtID, &r.DocExtID, &r.Relevance); err != nil {
			return fmt.Errorf("store: merged qrels: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: merged qrels: %w", err)
	}
	return nil
}
