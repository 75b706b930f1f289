package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The live state of pools with strategy "cal" (continuous active learning):
// table cal_queries (migration 0085) and the origin and round of their
// pool items.

// CAL query states.
const (
	CALActive  = "active"
	CALStopped = "stopped"
)

// CALQueryIn starts one query of a cal pool: its first batch is round 0.
type CALQueryIn struct {
	QueryID   int64
	BatchSize int
}

// SaveCALQueries sets the cal state of a pool's queries (replacing any
// earlier state of the pool: a draft saved again).
func (s *Store) SaveCALQueries(ctx context.Context, poolID int64, qs []CALQueryIn) error {
	if err := s.InTx(ctx, func(tx pgx.Tx) error { return saveCALQueries(ctx, tx, poolID, qs) }); err != nil {
		return fmt.Errorf("store: save cal queries of pool %d: %w", poolID, err)
	}
	return nil
}

// saveCALQueries is SaveCALQueries in the caller's transaction.
func saveCALQueries(ctx context.Context, tx pgx.Tx, poolID int64, qs []CALQueryIn) error {
	if _, err := tx.Exec(ctx, `DELETE FROM cal_queries WHERE pool_id = $1`, poolID); err != nil {
		return err
	}
	rows := make([][]any, len(qs))
	for i, q := range qs {
		rows[i] = []any{poolID, q.QueryID, 0, max(q.BatchSize, 1)}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"cal_queries"}, []string{"pool_id", "query_id", "round", "batch_size"}, pgx.CopyFromRows(rows))
	return err
}

// CALLabels returns the labels known for a query, from every pool: the
// consensus of each relevance item that has one (with one rater the single
// label), document id → relevant (consensus relevance ≥ 1).
func (s *Store) CALLabels(ctx context.Context, queryID int64) (map[string]bool, error) {
	rows, _ := s.pool.Query(ctx, `SELECT d.ext_id, c.relevance >= 1
		FROM consensus c JOIN items i ON i.id = c.item_id JOIN documents d ON d.id = i.document_id
		WHERE i.query_id = $1 AND i.kind = 'relevance'`, queryID)
	return collectMap[string, bool](rows, "cal labels")
}

// CALPoolLabels is CALLabels for every query of a cal pool at once
// (query id → document id → relevant).
func (s *Store) CALPoolLabels(ctx context.Context, poolID int64) (map[int64]map[string]bool, error) {
	rows, _ := s.pool.Query(ctx, `SELECT i.query_id, d.ext_id, c.relevance >= 1
		FROM cal_queries cq JOIN items i ON i.query_id = cq.query_id AND i.kind = 'relevance'
		JOIN consensus c ON c.item_id = i.id JOIN documents d ON d.id = i.document_id
		WHERE cq.pool_id = $1`, poolID)
	return collectSets(rows, "cal pool labels")
}

// CALQuery is the state of one query of a cal pool.
type CALQuery struct {
	PoolID     int64
	ProjectID  int64
	QueryID    int64
	QueryExtID string
	QueryText  string
	Round      int // the last batch served
	BatchSize  int // its size
	State      string
	Reason     string
	ExtendTo   int
	// Pending counts the items of the last batch not judged by every
	// rater the project asks for (nor adjudicated).
	Pending   int
	Published bool
}

// calQuerySQL selects CALQuery rows; the caller adds the WHERE clause.
const calQuerySQL = `SELECT cq.pool_id, p.project_id, cq.query_id, q.ext_id AS query_ext_id, q.text AS query_text,
		cq.round, cq.batch_size, cq.state, cq.reason, cq.extend_to,
		(SELECT count(*) FROM pool_items pi
			JOIN documents d ON d.project_id = p.project_id AND d.ext_id = pi.doc_ext_id
			JOIN items i ON i.project_id = p.project_id AND i.kind = 'relevance' AND i.query_id = pi.query_id AND i.document_id = d.id
			WHERE pi.pool_id = cq.pool_id AND pi.query_id = cq.query_id AND pi.round = cq.round
			  AND (SELECT count(*) FROM assignments a WHERE a.item_id = i.id AND a.status = 'done') < pr.raters_per_item
			  AND NOT EXISTS (SELECT 1 FROM consensus c WHERE c.item_id = i.id AND c.status = 'adjudicated'))::int AS pending,
		p.status = 'published' AS published
	FROM cal_queries cq JOIN pools p ON p.id = cq.pool_id JOIN projects pr ON pr.id = p.project_id JOIN queries q ON q.id = cq.query_id `

func (s *Store) calQueries(ctx context.Context, where string, args ...any) ([]CALQuery, error) {
	rows, _ := s.pool.Query(ctx, calQuerySQL+where, args...)
	return collectAll[CALQuery](rows, "cal queries")
}

// CALQueries returns the state of every query of a cal pool, in query
// import order.
func (s *Store) CALQueries(ctx context.Context, poolID int64) ([]CALQuery, error) {
	return s.calQueries(ctx, `WHERE cq.pool_id = $1 ORDER BY q.seq, q.id`, poolID)
}

// CALDueForItems is CALDueForItem for several items in one statement:
// each due query once, whichever of the items made it due.
func (s *Store) CALDueForItems(ctx context.Context, itemIDs []int64) ([]CALQuery, error) {
	qs, err := s.calQueries(ctx, `WHERE cq.state = 'active' AND p.status = 'published'
		AND cq.query_id IN (SELECT query_id FROM items WHERE id = ANY ($1::bigint[]))`, itemIDs)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(qs, func(q CALQuery) bool { return q.Pending != 0 }), nil
}

// CALQueryState returns the state of one query of a cal pool (ErrNotFound:
// the query is not in that cal pool).
func (s *Store) CALQueryState(ctx context.Context, poolID, queryID int64) (CALQuery, error) {
	qs, err := s.calQueries(ctx, `WHERE cq.pool_id = $1 AND cq.query_id = $2`, poolID, queryID)
	if err != nil {
		return CALQuery{}, err
	}
	if len(qs) == 0 {
		return CALQuery{}, fmt.Errorf("store: query %d of cal pool %d: %w", queryID, poolID, ErrNotFound)
	}
	return qs[0], nil
}

// CALDueForItem returns the active queries of published cal pools whose
// last batch is fully judged, among the queries of the item's query: the
// reviews an item's new consensus may let go on. Cheap when the query is
// in no cal pool (an index lookup).
func (s *Store) CALDueForItem(ctx context.Context, itemID int64) ([]CALQuery, error) {
	qs, err := s.calQueries(ctx, `WHERE cq.state = 'active' AND p.status = 'published'
		AND cq.query_id = (SELECT query_id FROM items WHERE id = $1)`, itemID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(qs, func(q CALQuery) bool { return q.Pending != 0 }), nil
}

// CALReviewItem is one item of a cal pool in review order, with its label
// when it has one.
type CALReviewItem struct {
	QueryID  int64
	DocExtID string
	Round    int
	Origin   string
	Labelled bool
	Relevant bool
}

// CALReview returns a pool's items (of one query; queryID 0: of all)
// query by query in review order (round, then priority), each with its
// consensus label if any.
func (s *Store) CALReview(ctx context.Context, poolID, queryID int64) ([]CALReviewItem, error) {
	rows, _ := s.pool.Query(ctx, `SELECT pi.query_id, pi.doc_ext_id, pi.round, pi.origin,
			c.relevance IS NOT NULL AS labelled, coalesce(c.relevance >= 1, false) AS relevant
		FROM pool_items pi JOIN pools p ON p.id = pi.pool_id
		LEFT JOIN documents d ON d.project_id = p.project_id AND d.ext_id = pi.doc_ext_id
		LEFT JOIN items i ON i.project_id = p.project_id AND i.kind = 'relevance' AND i.query_id = pi.query_id AND i.document_id = d.id
		LEFT JOIN consensus c ON c.item_id = i.id
		WHERE pi.pool_id = $1 AND ($2::bigint = 0 OR pi.query_id = $2)
		ORDER BY pi.query_id, pi.round, pi.priority, pi.doc_ext_id`, poolID, queryID)
	return collectAll[CALReviewItem](rows, "cal review")
}

// CALBatchItem is one document of a new batch.
type CALBatchItem struct {
	DocExtID string
	Origin   string         // "runs" or "cal"
	Sources  map[string]int // run → rank within the pool depth
}

// AddCALBatch adds batch round of a cal pool's query: its pool items, and
// their relevance items (gold as PublishPool makes them; an item that
// exists for the same query and document is kept), and records the round.
// It does nothing (added false) unless the query is active and its last
// round is round − 1, so a repeated job never adds a batch twice.
func (s *Store) AddCALBatch(ctx context.Context, poolID, queryID int64, round, batchSize int, docs []CALBatchItem, goldRate float64) (created int, added bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var cur int
		var state string
		err := tx.QueryRow(ctx, `SELECT round, state FROM cal_queries WHERE pool_id = $1 AND query_id = $2 FOR UPDATE`, poolID, queryID).Scan(&cur, &state)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("query %d of cal pool %d: %w", queryID, poolID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if state != CALActive || cur != round-1 {
			return nil
		}
		var prio int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(priority) + 1, 0) FROM pool_items WHERE pool_id = $1 AND query_id = $2`, poolID, queryID).Scan(&prio); err != nil {
			return err
		}
		rows := make([][]any, len(docs))
		for i, d := range docs {
			src := d.Sources
			if src == nil {
				src = map[string]int{}
			}
			rows[i] = []any{poolID, queryID, d.DocExtID, prio + i, src, "", d.Origin, round}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"pool_items"},
			[]string{"pool_id", "query_id", "doc_ext_id", "priority", "sources", "probe", "origin", "round"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, insertRelevanceItems("$4", "pi.pool_id = $1 AND pi.query_id = $2 AND pi.round = $3", "pi.priority"), poolID, queryID, round, goldRate)
		if err != nil {
			return err
		}
		created = int(tag.RowsAffected())
		if _, err := tx.Exec(ctx, `UPDATE cal_queries SET round = $3, batch_size = $4, updated_at = now() WHERE pool_id = $1 AND query_id = $2`,
			poolID, queryID, round, max(batchSize, 1)); err != nil {
			return err
		}
		added = true
		return nil
	})
	if err != nil {
		return 0, false, fmt.Errorf("store: add cal batch %d of query %d, pool %d: %w", round, queryID, poolID, err)
	}
	return created, added, nil
}

// SetCALState sets a cal pool query's state and reason; extendTo >= 0 also
// sets the judgments before which the stopping rule does not fire (-1
// keeps it). userID 0 is the system (the stopping rule); a user's change
// is audited.
func (s *Store) SetCALState(ctx context.Context, userID, poolID, queryID int64, state, reason string, extendTo int) error {
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var projectID int64
		err := tx.QueryRow(ctx, `UPDATE cal_queries cq SET state = $3, reason = $4,
				extend_to = CASE WHEN $5::int >= 0 THEN $5::int ELSE extend_to END, updated_at = now()
			FROM pools p WHERE p.id = cq.pool_id AND cq.pool_id = $1 AND cq.query_id = $2 RETURNING p.project_id`,
			poolID, queryID, state, reason, extendTo).Scan(&projectID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("query %d of cal pool %d: %w", queryID, poolID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if userID == 0 {
			return nil
		}
		detail, _ := json.Marshal(map[string]any{"query_id": queryID, "state": state, "reason": reason, "extend_to": extendTo})
		return audit(ctx, tx, userID, projectID, "cal.state", "pool", fmt.Sprint(poolID), json.RawMessage(detail))
	})
	if err != nil {
		return fmt.Errorf("store: set cal state: %w", err)
	}
	return nil
}

// PoolByID returns one pool of a project (ErrNotFound otherwise).
func (s *Store) PoolByID(ctx context.Context, projectID, poolID int64) (PoolInfo, error) {
	return s.onePool(ctx, strconv.FormatInt(poolID, 10), `p.id = $2`, projectID, poolID)
}

// QueryRunLists returns the top depth documents of each named run for one
// query (run name → documents, best first; runs without the query are
// absent).
func (s *Store) QueryRunLists(ctx context.Context, projectID, queryID int64, runs []string, depth int) (map[string][]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT r.name, rr.doc_ext_ids[1:$4]
		FROM run_rankings rr JOIN runs r ON r.id = rr.run_id
		WHERE r.project_id = $1 AND rr.query_id = $2 AND r.name = ANY($3)`, projectID, queryID, runs, depth)
	return collectMap[string, []string](rows, "query run lists")
}
