package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PoolInfo is one row of the pools table with its item count.
type PoolInfo struct {
	ID        int64           `db:"id"`
	Name      string          `db:"name"`
	Strategy  string          `db:"strategy"`
	Depth     int             `db:"depth"`
	Params    json.RawMessage `db:"params"`
	Status    string          `db:"status"`
	CreatedAt time.Time       `db:"created_at"`
	Items     int             `db:"items"`
}

// PoolItemIn is one pool item to save.
type PoolItemIn struct {
	QueryID  int64
	DocExtID string
	Priority int
	Sources  map[string]int
	Probe    string
	Origin   string // "runs" (default) or "cal"
	Round    int    // the cal batch that served it (0: the first)
}

// SavePool creates the pool called name, or replaces a draft one with the
// same name, with its items, in one transaction. A published pool is never
// replaced (ErrConflict): judging may have started on it.
func (s *Store) SavePool(ctx context.Context, projectID int64, name, strategy string, depth int, params json.RawMessage, items []PoolItemIn) (int64, error) {
	var id int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		id, err = savePool(ctx, tx, projectID, name, strategy, depth, params, items)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: save pool %q: %w", name, err)
	}
	return id, nil
}

// savePool is SavePool in the caller's transaction.
func savePool(ctx context.Context, tx pgx.Tx, projectID int64, name, strategy string, depth int, params json.RawMessage, items []PoolItemIn) (int64, error) {
	if params == nil {
		params = json.RawMessage(`{}`)
	}
	var id int64
	var status string
	err := tx.QueryRow(ctx, `SELECT id, status FROM pools WHERE project_id = $1 AND name = $2 FOR UPDATE`, projectID, name).Scan(&id, &status)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = tx.QueryRow(ctx, `INSERT INTO pools (project_id, name, strategy, depth, params) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			projectID, name, strategy, depth, params).Scan(&id)
		if err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	case status != "draft":
		return 0, fmt.Errorf("pool %q is %s: %w", name, status, ErrConflict)
	default:
		if _, err := tx.Exec(ctx, `UPDATE pools SET strategy = $2, depth = $3, params = $4, created_at = now() WHERE id = $1`,
			id, strategy, depth, params); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pool_items WHERE pool_id = $1`, id); err != nil {
			return 0, err
		}
	}
	rows := make([][]any, len(items))
	for i, it := range items {
		src := it.Sources
		if src == nil {
			src = map[string]int{}
		}
		origin := it.Origin
		if origin == "" {
			origin = "runs"
		}
		rows[i] = []any{id, it.QueryID, it.DocExtID, it.Priority, src, it.Probe, origin, it.Round}
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"pool_items"},
		[]string{"pool_id", "query_id", "doc_ext_id", "priority", "sources", "probe", "origin", "round"}, pgx.CopyFromRows(rows))
	return id, err
}

// ListPools returns a project's pools by name.
func (s *Store) ListPools(ctx context.Context, projectID int64) ([]PoolInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.name, p.strategy, p.depth, p.params, p.status, p.created_at,
			(SELECT count(*) FROM pool_items i WHERE i.pool_id = p.id)::int AS items
		FROM pools p WHERE p.project_id = $1 ORDER BY p.name`, projectID)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[PoolInfo])
	if err != nil {
		return nil, fmt.Errorf("store: list pools: %w", err)
	}
	return out, nil
}

// PoolItem is one stored pool item.
type PoolItem struct {
	QueryExtID string
	DocExtID   string
	Priority   int
	Sources    map[string]int
	Probe      string
	Origin     string // "runs" or "cal"
	Round      int
}

// PoolItems returns a pool's items in query import order, then priority.
func (s *Store) PoolItems(ctx context.Context, poolID int64) ([]PoolItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT q.ext_id, i.doc_ext_id, i.priority, i.sources, i.probe, i.origin, i.round
		FROM pool_items i JOIN queries q ON q.id = i.query_id
		WHERE i.pool_id = $1 ORDER BY q.seq, q.id, i.priority, i.doc_ext_id`, poolID)
	if err != nil {
		return nil, fmt.Errorf("store: pool items: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PoolItem, error) {
		var it PoolItem
		err := r.Scan(&it.QueryExtID, &it.DocExtID, &it.Priority, &it.Sources, &it.Probe, &it.Origin, &it.Round)
		return it, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pool items: %w", err)
	}
	return out, nil
}
