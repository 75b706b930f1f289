package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// HeldTotal returns the progress total held for a rater's kind of work
// and marks it used now, unless they were away longer than idle (then
// ok is false and the caller counts it again).
func (s *Store) HeldTotal(ctx context.Context, projectID, userID int64, kind string, idle time.Duration) (total int, ok bool, err error) {
	total, ok, err = scanHeldTotal(s.pool.QueryRow(ctx, heldTotalSQL, projectID, userID, kind, idle))
	if err != nil {
		return 0, false, fmt.Errorf("store: held total: %w", err)
	}
	return total, ok, nil
}

// heldTotalSQL marks a held total used and returns it ($1 project, $2
// user, $3 kind, $4 idle).
const heldTotalSQL = `UPDATE rater_totals SET used_at = now()
	WHERE project_id = $1 AND user_id = $2 AND kind = $3 AND used_at > now() - $4::interval
	RETURNING total`

func scanHeldTotal(row pgx.Row) (total int, ok bool, err error) {
	err = row.Scan(&total)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return total, true, nil
}

// HoldTotal stores a rater's newly counted progress total.
func (s *Store) HoldTotal(ctx context.Context, projectID, userID int64, kind string, total int) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO rater_totals (project_id, user_id, kind, total) VALUES ($1, $2, $3, $4)
		ON CONFLICT (project_id, user_id, kind) DO UPDATE SET total = EXCLUDED.total, used_at = now()`, projectID, userID, kind, total)
	if err != nil {
		return fmt.Errorf("store: hold total: %w", err)
	}
	return nil
}
