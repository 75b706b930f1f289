package store

import (
	"context"
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
	rows, _ := s.pool.Query(ctx, `SELECT q.ext_id, r.doc_ext_id, r.relevance, r.kind, r.source
		FROM qrels r JOIN queries q ON q.id = r.query_id
		WHERE r.project_id = $1 AND ($2 = '' OR r.kind = $2) AND ($3 = '' OR r.source = $3)
		ORDER BY q.seq, q.id, r.doc_ext_id`, projectID, kind, source)
	var r Qrel
	return forEach(rows, "qrels", func() error { return fn(r) },
		&r.QueryExtID, &r.DocExtID, &r.Relevance, &r.Kind, &r.Source)
}

// EachMergedQrel streams one label per (query, document) of the given kind:
// the highest relevance over all sources, in query import order.
func (s *Store) EachMergedQrel(ctx context.Context, projectID int64, kind string, fn func(Qrel) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT q.ext_id, r.doc_ext_id, max(r.relevance)
		FROM qrels r JOIN queries q ON q.id = r.query_id
		WHERE r.project_id = $1 AND r.kind = $2
		GROUP BY q.seq, q.id, q.ext_id, r.doc_ext_id
		ORDER BY q.seq, q.id, r.doc_ext_id`, projectID, kind)
	r := Qrel{Kind: kind}
	return forEach(rows, "merged qrels", func() error { return fn(r) },
		&r.QueryExtID, &r.DocExtID, &r.Relevance)
}
