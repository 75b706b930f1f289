package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Bulk loaders: everything a project's in-memory state is built from,
// read once — the dashboards' metrics and agreement (server/live), the
// Dawid–Skene consensus and the reuse figures.

// RelevanceItem is a relevance item with what that state needs of it.
type RelevanceItem struct {
	ID         int64
	QueryID    int64
	DocExtID   string
	IsGold     bool
	GoldAnswer json.RawMessage
	Sources    json.RawMessage // pool_items.sources of the item's pool entry, or nil
}

// RelevanceItems lists a project's relevance items.
func (s *Store) RelevanceItems(ctx context.Context, projectID int64) ([]RelevanceItem, error) {
	rows, _ := s.pool.Query(ctx, `SELECT i.id, i.query_id, coalesce(d.ext_id, ''), i.is_gold, i.gold_answer, pi.sources
		FROM items i
		LEFT JOIN documents d ON d.id = i.document_id
		LEFT JOIN pool_items pi ON pi.pool_id = i.pool_id AND pi.query_id = i.query_id AND pi.doc_ext_id = d.ext_id
		WHERE i.project_id = $1 AND i.kind = 'relevance'
		ORDER BY i.id`, projectID)
	return scanAll(rows, "relevance items", func(it *RelevanceItem) []any {
		return []any{&it.ID, &it.QueryID, &it.DocExtID, &it.IsGold, &it.GoldAnswer, &it.Sources}
	})
}

// RelevanceItem returns one relevance item as RelevanceItems would.
func (s *Store) RelevanceItem(ctx context.Context, itemID int64) (RelevanceItem, error) {
	var it RelevanceItem
	err := s.pool.QueryRow(ctx, `SELECT i.id, i.query_id, coalesce(d.ext_id, ''), i.is_gold, i.gold_answer, pi.sources
		FROM items i
		LEFT JOIN documents d ON d.id = i.document_id
		LEFT JOIN pool_items pi ON pi.pool_id = i.pool_id AND pi.query_id = i.query_id AND pi.doc_ext_id = d.ext_id
		WHERE i.id = $1 AND i.kind = 'relevance'`, itemID).Scan(&it.ID, &it.QueryID, &it.DocExtID, &it.IsGold, &it.GoldAnswer, &it.Sources)
	if err == pgx.ErrNoRows {
		return it, fmt.Errorf("store: relevance item %d: %w", itemID, ErrNotFound)
	}
	if err != nil {
		return it, fmt.Errorf("store: relevance item %d: %w", itemID, err)
	}
	return it, nil
}

// CurrentVote is one rater's current relevance judgment of an item.
type CurrentVote struct {
	ItemID        int64
	UserID        int64
	Relevance     int
	Contradiction bool
}

// EachCurrentVote streams every current relevance judgment of a project (each
// rater's latest judgment of an item, unless it is a skip), by item.
func (s *Store) EachCurrentVote(ctx context.Context, projectID int64, fn func(CurrentVote) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT item_id, user_id, relevance, contradiction FROM current_judgments
		WHERE project_id = $1 AND item_kind = 'relevance' AND relevance IS NOT NULL ORDER BY item_id, id`, projectID)
	var v CurrentVote
	return forEach(rows, "current votes", func() error { return fn(v) },
		&v.ItemID, &v.UserID, &v.Relevance, &v.Contradiction)
}

// LatestAdjudications maps each adjudicated item of a project to its
// latest decision's relevance.
func (s *Store) LatestAdjudications(ctx context.Context, projectID int64) (map[int64]int, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT ON (a.item_id) a.item_id, a.relevance
		FROM adjudications a JOIN items i ON i.id = a.item_id
		WHERE i.project_id = $1 ORDER BY a.item_id, a.id DESC`, projectID)
	return collectMap[int64, int](rows, "adjudications")
}

// ProjectQuery is what the in-memory state needs of a query.
type ProjectQuery struct {
	ID         int64
	ExtID      string
	Template   string
	Expression json.RawMessage // nil when unknown
	NevIRPair  string          // the NevIR pair id of an imported NevIR query ("" otherwise)
}

// ProjectQueries lists a project's queries in import order.
func (s *Store) ProjectQueries(ctx context.Context, projectID int64) ([]ProjectQuery, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, ext_id, template, expression, coalesce(metadata->>'nevir_pair', '')
		FROM queries WHERE project_id = $1 ORDER BY seq, id`, projectID)
	return scanAll(rows, "project queries", func(q *ProjectQuery) []any {
		return []any{&q.ID, &q.ExtID, &q.Template, &q.Expression, &q.NevIRPair}
	})
}

// RunResultTop is one of a run's top results for a query.
type RunResultTop struct {
	RunID    int64
	QueryID  int64
	DocExtID string
	Score    float64
}

// EachRunTop streams the results of a project's runs with rank <= depth.
func (s *Store) EachRunTop(ctx context.Context, projectID int64, depth int, fn func(RunResultTop) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT r.run_id, r.query_id, r.doc_ext_id, r.score
		FROM run_results r JOIN runs ON runs.id = r.run_id
		WHERE runs.project_id = $1 AND r.rank <= $2`, projectID, depth)
	var r RunResultTop
	return forEach(rows, "run results", func() error { return fn(r) },
		&r.RunID, &r.QueryID, &r.DocExtID, &r.Score)
}

// NegativeQrels maps query id → explicit negative document ids of a
// project (qrels of kind negative, any source).
func (s *Store) NegativeQrels(ctx context.Context, projectID int64) (map[int64][]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT query_id, doc_ext_id FROM qrels WHERE project_id = $1 AND kind = 'negative'
		ORDER BY query_id, doc_ext_id`, projectID)
	out := map[int64][]string{}
	var q int64
	var d string
	err := forEach(rows, "negatives", func() error {
		out[q] = append(out[q], d)
		return nil
	}, &q, &d)
	return out, err
}

// Usernames maps user id → username for every user.
func (s *Store) Usernames(ctx context.Context) (map[int64]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, username FROM users`)
	return collectMap[int64, string](rows, "usernames")
}

// StateFingerprint summarises what a project's in-memory state is built from
// besides judgments (items, queries, runs, pools, explicit negatives, the
// raters per item); a different value means a loaded state is stale.
func (s *Store) StateFingerprint(ctx context.Context, projectID int64) (string, error) {
	var fp string
	err := s.pool.QueryRow(ctx, `SELECT concat_ws('|',
		(SELECT raters_per_item FROM projects WHERE id = $1),
		(SELECT count(*) || ':' || coalesce(max(id), 0) FROM items WHERE project_id = $1 AND kind = 'relevance'),
		(SELECT count(*) || ':' || coalesce(max(updated_at)::text, '') FROM queries WHERE project_id = $1),
		(SELECT count(*) || ':' || coalesce(max(created_at)::text, '') FROM runs WHERE project_id = $1),
		(SELECT count(*) || ':' || coalesce(max(created_at)::text, '') || ':' || count(*) FILTER (WHERE status = 'published') FROM pools WHERE project_id = $1),
		(SELECT count(*) FROM qrels WHERE project_id = $1 AND kind = 'negative'))`, projectID).Scan(&fp)
	if err != nil {
		return "", fmt.Errorf("store: state fingerprint: %w", err)
	}
	return fp, nil
}
