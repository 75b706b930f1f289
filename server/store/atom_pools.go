package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Live atoms pools (issue 13): a pool with strategy 'atoms' owns the
// constraint items it asked for (items.pool_id).

// AtomPoolState counts a live atoms pool's constraint items and those of
// them (not gold) whose (atom, document) has no label yet.
func (s *Store) AtomPoolState(ctx context.Context, poolID int64) (items, pending int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE NOT i.is_gold AND NOT EXISTS (
				SELECT 1 FROM atom_labels l WHERE l.atom_id = i.atom_id AND l.doc_ext_id = d.ext_id))
		FROM items i JOIN documents d ON d.id = i.document_id
		WHERE i.pool_id = $1 AND i.kind = 'constraint'`, poolID).Scan(&items, &pending)
	if err != nil {
		return 0, 0, fmt.Errorf("store: atoms pool %d: %w", poolID, err)
	}
	return items, pending, nil
}

// AtomPoolOfItem returns the live atoms pool a constraint item belongs to
// (0 when it belongs to none).
func (s *Store) AtomPoolOfItem(ctx context.Context, itemID int64) (int64, error) {
	var poolID int64
	err := s.pool.QueryRow(ctx, `SELECT p.id FROM items i JOIN pools p ON p.id = i.pool_id
		WHERE i.id = $1 AND i.kind = 'constraint' AND p.strategy = 'atoms'`, itemID).Scan(&poolID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: atoms pool of item %d: %w", itemID, err)
	}
	return poolID, nil
}

// DocumentsKnown returns which of ids are documents of the project.
func (s *Store) DocumentsKnown(ctx context.Context, projectID int64, ids []string) (map[string]bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT ext_id FROM documents WHERE project_id = $1 AND ext_id = ANY($2)`, projectID, ids)
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	known, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	out := make(map[string]bool, len(known))
	for _, id := range known {
		out[id] = true
	}
	return out, nil
}
