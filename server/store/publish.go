package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// PublishResult says what publishing a pool created.
type PublishResult struct {
	Items     int `json:"items"`       // relevance items created
	Gold      int `json:"gold"`        // of which gold items
	NoDocText int `json:"no_doc_text"` // pool entries skipped: the document is not stored
}

// PublishPool turns a pool's entries into relevance items that raters can
// be assigned, and marks the pool published. Entries whose document is not
// stored are skipped (there is nothing to show). Items that already exist
// for the same (query, document) are kept, so publishing twice, or two
// overlapping pools, never duplicates work.
//
// Gold items: where the query has imported gold qrels (source "gold"), a
// deterministic goldRate share of the new items becomes gold, with
// gold_answer {"relevance": 3} for a gold-set document and {"relevance": 0}
// otherwise.
func (s *Store) PublishPool(ctx context.Context, poolID, userID int64, goldRate float64) (PublishResult, error) {
	var res PublishResult
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = publishPool(ctx, tx, poolID, userID, goldRate)
		return err
	})
	if err != nil {
		return res, err
	}
	return res, s.analyzeAfterPublish(ctx, res)
}

// analyzeAfterPublish refreshes the items table's statistics after a large
// publish. Thousands of new items at once leave the planner with stale
// statistics, and the leasing query then picks a plan ~100x slower until
// autovacuum catches up.
func (s *Store) analyzeAfterPublish(ctx context.Context, res PublishResult) error {
	if res.Items < 1000 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE items`); err != nil {
		return fmt.Errorf("store: publish pool: analyze: %w", err)
	}
	return nil
}

// publishPool is PublishPool in the caller's transaction (without the
// ANALYZE, which cannot run inside it).
func publishPool(ctx context.Context, tx pgx.Tx, poolID, userID int64, goldRate float64) (PublishResult, error) {
	var res PublishResult
	var projectID int64
	err := tx.QueryRow(ctx, `UPDATE pools SET status = 'published' WHERE id = $1 RETURNING project_id`, poolID).Scan(&projectID)
	if errors.Is(err, pgx.ErrNoRows) {
		return res, fmt.Errorf("store: pool %d: %w", poolID, ErrNotFound)
	}
	if err != nil {
		return res, fmt.Errorf("store: publish pool: %w", err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pool_items pi JOIN queries q ON q.id = pi.query_id
		WHERE pi.pool_id = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.project_id = q.project_id AND d.ext_id = pi.doc_ext_id)`,
		poolID).Scan(&res.NoDocText); err != nil {
		return res, fmt.Errorf("store: publish pool: %w", err)
	}
	rows, _ := tx.Query(ctx, insertRelevanceItems("$2", "pi.pool_id = $1", "pi.query_id, pi.priority")+` RETURNING is_gold`, poolID, goldRate)
	var gold bool
	err = forEach(rows, "publish pool", func() error {
		res.Items++
		if gold {
			res.Gold++
		}
		return nil
	}, &gold)
	if err != nil {
		return res, err
	}
	return res, audit(ctx, tx, userID, projectID, "pool.publish", "pool", fmt.Sprint(poolID), res)
}

// CreateParaphraseTasks adds a stage-1 paraphrase item for each of the
// project's queries that has a marked original query and no such item yet,
// up to limit (0 = all). It returns how many it created.
func (s *Store) CreateParaphraseTasks(ctx context.Context, projectID int64, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO items (project_id, kind, query_id, priority, payload)
		SELECT q.project_id, 'paraphrase', q.id, q.seq, '{}'::jsonb FROM queries q
		WHERE q.project_id = $1 AND q.original_query <> ''
		  AND NOT EXISTS (SELECT 1 FROM items i WHERE i.query_id = q.id AND i.kind = 'paraphrase')
		ORDER BY q.seq, q.id
		LIMIT CASE WHEN $2 > 0 THEN $2 ELSE NULL END`, projectID, limit)
	if err != nil {
		return 0, fmt.Errorf("store: paraphrase tasks: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// insertRelevanceItems is the INSERT that turns pool_items rows (those
// matching where) into relevance items, in order, a share gold of them
// (the parameter goldParam, a rate in [0, 1]) made gold items when the
// query has gold qrels. The gold choice hashes (query, document) so it is
// stable across re-publishing and independent of insertion order. The rate
// is cast: left to infer, Postgres types it integer from "$n * 10000" and a
// rate of 0.1 became 0 (no gold item was ever created). Existing items are
// kept (ON CONFLICT DO NOTHING).
func insertRelevanceItems(goldParam, where, order string) string {
	gold := `g.has_gold AND (abs(hashtext(q.id::text || ':' || d.ext_id)) % 10000) < ` + goldParam + `::float8 * 10000`
	return `INSERT INTO items (project_id, kind, query_id, document_id, pool_id, priority, is_gold, gold_answer)
		SELECT q.project_id, 'relevance', q.id, d.id, pi.pool_id, pi.priority, ` + gold + `,
			CASE WHEN ` + gold + `
				THEN json_build_object('relevance', CASE WHEN r.doc_ext_id IS NULL THEN 0 ELSE 3 END)::jsonb END
		FROM pool_items pi
		JOIN queries q ON q.id = pi.query_id
		JOIN documents d ON d.project_id = q.project_id AND d.ext_id = pi.doc_ext_id
		CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM qrels WHERE query_id = q.id AND source = 'gold') AS has_gold) g
		LEFT JOIN qrels r ON r.query_id = q.id AND r.doc_ext_id = pi.doc_ext_id AND r.source = 'gold' AND r.kind = 'positive'
		WHERE ` + where + `
		ORDER BY ` + order + `
		ON CONFLICT (project_id, query_id, document_id) WHERE kind = 'relevance' DO NOTHING`
}
