package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Loaders for the live dashboards (server/live): everything a project's
// in-memory metrics and agreement state is built from, read in bulk once.

// LiveItem is a relevance item with what the dashboards need of it.
type LiveItem struct {
	ID         int64
	QueryID    int64
	DocExtID   string
	IsGold     bool
	GoldAnswer json.RawMessage
	Sources    json.RawMessage // pool_items.sources of the item's pool entry, or nil
}

// LiveItems lists a project's relevance items.
func (s *Store) LiveItems(ctx context.Context, projectID int64) ([]LiveItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.id, i.query_id, coalesce(d.ext_id, ''), i.is_gold, i.gold_answer, pi.sources
		FROM items i
		LEFT JOIN documents d ON d.id = i.document_id
		LEFT JOIN pool_items pi ON pi.pool_id = i.pool_id AND pi.query_id = i.query_id AND pi.doc_ext_id = d.ext_id
		WHERE i.project_id = $1 AND i.kind = 'relevance'
		ORDER BY i.id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: live items: %w", err)
	}
	defer rows.Close()
	var out []LiveItem
	for rows.Next() {
		var it LiveItem
		if err := rows.Scan(&it.ID, &it.QueryID, &it.DocExtID, &it.IsGold, &it.GoldAnswer, &it.Sources); err != nil {
			return nil, fmt.Errorf("store: live items: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: live items: %w", err)
	}
	return out, nil
}

// LiveItem returns one relevance item as LiveItems would.
func (s *Store) LiveItem(ctx context.Context, itemID int64) (LiveItem, error) {
	var it LiveItem
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

// LiveVote is one rater's current relevance judgment of an item.
type LiveVote struct {
	ItemID        int64
	UserID        int64
	Relevance     int
	Contradiction bool
}

// EachLiveVote streams every current relevance judgment of a project (each
// rater's latest judgment of an item, unless it is a skip), by item.
func (s *Store) EachLiveVote(ctx context.Context, projectID int64, fn func(LiveVote) error) error {
	rows, err := s.pool.Query(ctx, `SELECT item_id, user_id, relevance, contradiction FROM current_judgments
		WHERE project_id = $1 AND item_kind = 'relevance' AND relevance IS NOT NULL ORDER BY item_id, id`, projectID)
	if err != nil {
		return fmt.Errorf("store: live votes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v LiveVote
		if err := rows.Scan(&v.ItemID, &v.UserID, &v.Relevance, &v.Contradiction); err != nil {
			return fmt.Errorf("store: live votes: %w", err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: live votes: %w", err)
	}
	return nil
}

// LatestAdjudications maps each adjudicated item of a project to its
// latest decision's relevance.
func (s *Store) LatestAdjudications(ctx context.Context, projectID int64) (map[int64]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (a.item_id) a.item_id, a.relevance
		FROM adjudications a JOIN items i ON i.id = a.item_id
		WHERE i.project_id = $1 ORDER BY a.item_id, a.id DESC`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: adjudications: %w", err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var rel int
		if err := rows.Scan(&id, &rel); err != nil {
			return nil, fmt.Errorf("store: adjudications: %w", err)
		}
		out[id] = rel
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: adjudications: %w", err)
	}
	return out, nil
}

// LiveQuery is what the dashboards need of a query.
type LiveQuery struct {
	ID         int64
	ExtID      string
	Template   string
	Expression json.RawMessage // nil when unknown
	NevIRPair  string          // the NevIR pair id of an imported NevIR query ("" otherwise)
}

// LiveQueries lists a project's queries in import order.
func (s *Store) LiveQueries(ctx context.Context, projectID int64) ([]LiveQuery, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, ext_id, template, expression, coalesce(metadata->>'nevir_pair', '')
		FROM queries WHERE project_id = $1 ORDER BY seq, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: live queries: %w", err)
	}
	defer rows.Close()
	var out []LiveQuery
	for rows.Next() {
		var q LiveQuery
		if err := rows.Scan(&q.ID, &q.ExtID, &q.Template, &q.Expression, &q.NevIRPair); err != nil {
			return nil, fmt.Errorf("store: live queries: %w", err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
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
	rows, err := s.pool.Query(ctx, `SELECT r.run_id, r.query_id, r.doc_ext_id, r.score
		FROM run_results r JOIN runs ON runs.id = r.run_id
		WHERE runs.project_id = $1 AND r.rank <= $2`, projectID, depth)
	if err != nil {
		return fmt.Errorf("store: run results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RunResultTop
		if err := rows.Scan(&r.RunID, &r.QueryID, &r.DocExtID, &r.Score); err != nil {
			return fmt.Errorf("store: run results: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: run results: %w", err)
	}
	return nil
}

// NegativeQrels maps query id → explicit negative document ids of a
// project (qrels of kind negative, any source).
func (s *Store) NegativeQrels(ctx context.Context, projectID int64) (map[int64][]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT query_id, doc_ext_id FROM qrels WHERE project_id = $1 AND kind = 'negative'
		ORDER BY query_id, doc_ext_id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: negatives: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var q int64
		var d string
		if err := rows.Scan(&q, &d); err != nil {
			return nil, fmt.Errorf("store: negatives: %w", err)
		}
		out[q] = append(out[q], d)
	}
	return out, rows.Err()
}

// Usernames maps user id → username for every user.
func (s *Store) Usernames(ctx context.Context) (map[int64]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, username FROM users`)
	if err != nil {
		return nil, fmt.Errorf("store: usernames: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("store: usernames: %w", err)
		}
		out[id] = name
	}
	return out, rows.Err()
}

// SyncConsensus recomputes the consensus of every relevance item of a
// project with decide (the same rules RefreshConsensus applies per item)
// and writes the rows that differ, adds missing ones and removes those
// without a consensus, in one transaction with one consensus.sync audit
// entry. It returns how many rows changed. It holds the project's
// consensus lock exclusively (see RefreshConsensus), so a concurrent
// refresh either finished before the judgments are read or waits and
// recomputes after this commits: a sync never writes back a stale label.
func (s *Store) SyncConsensus(ctx context.Context, projectID int64, decide DecideFunc) (int, error) {
	changed := 0
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		type itemRow struct {
			id, queryID int64
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, `+lockKey+`)`, lockConsensusProject, projectID); err != nil {
			return fmt.Errorf("store: lock consensus of project %d: %w", projectID, err)
		}
		rows, err := tx.Query(ctx, `SELECT id, query_id FROM items WHERE project_id = $1 AND kind = 'relevance' ORDER BY id`, projectID)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		var items []itemRow
		var it itemRow
		if _, err := pgx.ForEachRow(rows, []any{&it.id, &it.queryID}, func() error { items = append(items, it); return nil }); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		rows, _ = tx.Query(ctx, `SELECT `+judgmentCols+` FROM current_judgments
			WHERE project_id = $1 AND item_kind = 'relevance' AND relevance IS NOT NULL ORDER BY item_id, id`, projectID)
		current, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		byItem := map[int64][]Judgment{}
		for _, j := range current {
			byItem[j.ItemID] = append(byItem[j.ItemID], j)
		}
		rows, _ = tx.Query(ctx, `SELECT DISTINCT ON (a.item_id) a.id, a.item_id, a.user_id, a.relevance, a.note, a.created_at
			FROM adjudications a JOIN items i ON i.id = a.item_id
			WHERE i.project_id = $1 ORDER BY a.item_id, a.id DESC`, projectID)
		adjs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Adjudication])
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		adjOf := map[int64]*Adjudication{}
		for i := range adjs {
			adjOf[adjs[i].ItemID] = &adjs[i]
		}
		var out []ConsensusRow
		for _, it := range items {
			r, ok := decide(byItem[it.id], adjOf[it.id])
			if !ok {
				continue
			}
			r.ItemID, r.ProjectID, r.QueryID, r.AdjudicationID = it.id, projectID, it.queryID, nil
			if a := adjOf[it.id]; a != nil {
				r.AdjudicationID = &a.ID
			}
			out = append(out, r)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE consensus_in (LIKE consensus INCLUDING DEFAULTS) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"consensus_in"},
			[]string{"item_id", "project_id", "query_id", "relevance", "status", "votes", "relevant_votes", "contradictions", "needs_adjudication", "adjudication_id"},
			pgx.CopyFromSlice(len(out), func(i int) ([]any, error) {
				r := out[i]
				return []any{r.ItemID, projectID, r.QueryID, r.Relevance, r.Status, r.Votes, r.RelevantVotes, r.Contradictions, r.NeedsAdjudication, r.AdjudicationID}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM consensus c WHERE c.project_id = $1
			AND NOT EXISTS (SELECT 1 FROM consensus_in n WHERE n.item_id = c.item_id)`, projectID)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		changed += int(tag.RowsAffected())
		tag, err = tx.Exec(ctx, `INSERT INTO consensus (item_id, project_id, query_id, relevance, status, votes, relevant_votes,
				contradictions, needs_adjudication, adjudication_id)
			SELECT item_id, project_id, query_id, relevance, status, votes, relevant_votes, contradictions, needs_adjudication, adjudication_id
			FROM consensus_in
			ON CONFLICT (item_id) DO UPDATE SET relevance = EXCLUDED.relevance, status = EXCLUDED.status, votes = EXCLUDED.votes,
				relevant_votes = EXCLUDED.relevant_votes, contradictions = EXCLUDED.contradictions,
				needs_adjudication = EXCLUDED.needs_adjudication, adjudication_id = EXCLUDED.adjudication_id, updated_at = now()
			WHERE (consensus.relevance, consensus.status, consensus.votes, consensus.relevant_votes, consensus.contradictions,
				consensus.needs_adjudication, consensus.adjudication_id)
				IS DISTINCT FROM (EXCLUDED.relevance, EXCLUDED.status, EXCLUDED.votes, EXCLUDED.relevant_votes,
				EXCLUDED.contradictions, EXCLUDED.needs_adjudication, EXCLUDED.adjudication_id)`)
		if err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		changed += int(tag.RowsAffected())
		// Rows that were right but older than a judgment or adjudication
		// of their item are current now (see ConsensusStale).
		if _, err := tx.Exec(ctx, `UPDATE consensus c SET updated_at = now() WHERE c.project_id = $1 AND (
				EXISTS (SELECT 1 FROM judgments j WHERE j.item_id = c.item_id AND j.created_at > c.updated_at)
				OR EXISTS (SELECT 1 FROM adjudications a WHERE a.item_id = c.item_id AND a.created_at > c.updated_at))`, projectID); err != nil {
			return fmt.Errorf("store: sync consensus: %w", err)
		}
		if changed == 0 {
			return nil
		}
		return audit(ctx, tx, 0, projectID, "consensus.sync", "project", fmt.Sprint(projectID), map[string]any{"changed": changed, "items": len(out)})
	})
	return changed, err
}

// LiveFingerprint summarises what a project's live state is built from
// besides judgments (items, queries, runs, pools, explicit negatives, the
// raters per item); a different value means a loaded state is stale.
func (s *Store) LiveFingerprint(ctx context.Context, projectID int64) (string, error) {
	var fp string
	err := s.pool.QueryRow(ctx, `SELECT concat_ws('|',
		(SELECT raters_per_item FROM projects WHERE id = $1),
		(SELECT count(*) || ':' || coalesce(max(id), 0) FROM items WHERE project_id = $1 AND kind = 'relevance'),
		(SELECT count(*) || ':' || coalesce(max(updated_at)::text, '') FROM queries WHERE project_id = $1),
		(SELECT count(*) || ':' || coalesce(max(created_at)::text, '') FROM runs WHERE project_id = $1),
		(SELECT count(*) || ':' || coalesce(max(created_at)::text, '') || ':' || count(*) FILTER (WHERE status = 'published') FROM pools WHERE project_id = $1),
		(SELECT count(*) FROM qrels WHERE project_id = $1 AND kind = 'negative'))`, projectID).Scan(&fp)
	if err != nil {
		return "", fmt.Errorf("store: live fingerprint: %w", err)
	}
	return fp, nil
}
