package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SetRatersPerItem changes how many raters judge each item of a project
// (1..20, the column's check) and records the change in the audit log.
func (s *Store) SetRatersPerItem(ctx context.Context, projectID, userID int64, n int) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var old int
		err := tx.QueryRow(ctx, `SELECT raters_per_item FROM projects WHERE id = $1 FOR UPDATE`, projectID).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: project %d: %w", projectID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: raters per item: %w", err)
		}
		if old == n {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE projects SET raters_per_item = $2 WHERE id = $1`, projectID, n); err != nil {
			return fmt.Errorf("store: raters per item: %w", err)
		}
		return audit(ctx, tx, userID, projectID, "project.raters_per_item", "project", fmt.Sprint(projectID), map[string]any{"from": old, "to": n})
	})
}
