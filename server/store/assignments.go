package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Assignment statuses.
const (
	AssignLeased  = "leased"
	AssignDone    = "done"
	AssignExpired = "expired"
	AssignSkipped = "skipped"
)

// Assignment is one item given to one rater. A lease that runs out returns
// the item to the pool; the rater's row stays (as 'expired' once noticed),
// so a late judgment from that rater is still accepted.
type Assignment struct {
	ID             int64      `db:"id"`
	ItemID         int64      `db:"item_id"`
	UserID         int64      `db:"user_id"`
	Status         string     `db:"status"`
	LeasedAt       time.Time  `db:"leased_at"`
	LeaseExpiresAt time.Time  `db:"lease_expires_at"`
	DoneAt         *time.Time `db:"done_at"`
}

const assignmentCols = `id, item_id, user_id, status, leased_at, lease_expires_at, done_at`

// LeaseParams says what to lease for whom.
type LeaseParams struct {
	ProjectID int64
	UserID    int64
	Kind      string
	N         int           // wanted live leases, including existing ones
	Raters    int           // r: raters per (non-gold) item
	GoldRate  float64       // share of gold items among the rater's items
	Lease     time.Duration // lease length
}

// liveCount counts the raters an item has: done, or holding a live lease.
const liveCount = `(SELECT count(*) FROM assignments a WHERE a.item_id = i.id
	AND (a.status = 'done' OR (a.status = 'leased' AND a.lease_expires_at > now())))`

// candidates selects items the user may be given: of the kind, never given
// to this user before (an expired lease of their own may come back), below
// r raters (gold items are for everyone), and never a paraphrase the user
// wrote themselves.
const candidates = `FROM items i
	WHERE i.project_id = $1 AND i.kind = $2 AND i.is_gold = $4
	  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND a.user_id = $3 AND a.status <> 'expired')
	  AND (i.is_gold OR (i.done_raters < $5 AND ` + liveCount + ` < $5))
	  AND coalesce((i.payload->>'author_id')::bigint, 0) <> $3`

// Lease returns the rater's live leases of the kind (renewed), leasing new
// items until there are p.N of them or nothing is left. Concurrent raters
// never take the same slot: candidate items are locked with SKIP LOCKED.
func (s *Store) Lease(ctx context.Context, p LeaseParams) ([]Assignment, error) {
	var out []Assignment
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		secs := p.Lease.Seconds()
		if _, err := tx.Exec(ctx, `UPDATE assignments SET status = 'expired'
			WHERE user_id = $1 AND status = 'leased' AND lease_expires_at <= now()`, p.UserID); err != nil {
			return fmt.Errorf("store: expire leases: %w", err)
		}
		rows, _ := tx.Query(ctx, `UPDATE assignments a SET lease_expires_at = now() + make_interval(secs => $4)
			FROM items i WHERE i.id = a.item_id AND a.user_id = $1 AND i.project_id = $2 AND i.kind = $3 AND a.status = 'leased'
			RETURNING a.id, a.item_id, a.user_id, a.status, a.leased_at, a.lease_expires_at, a.done_at`,
			p.UserID, p.ProjectID, p.Kind, secs)
		live, err := pgx.CollectRows(rows, pgx.RowToStructByName[Assignment])
		if err != nil {
			return fmt.Errorf("store: renew leases: %w", err)
		}
		sortAssignments(live)
		out = live
		if len(out) >= p.N {
			out = out[:p.N]
			return nil
		}
		var total, gold int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE i.is_gold) FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE a.user_id = $1 AND i.project_id = $2 AND i.kind = $3 AND a.status <> 'expired'`,
			p.UserID, p.ProjectID, p.Kind).Scan(&total, &gold); err != nil {
			return fmt.Errorf("store: lease counts: %w", err)
		}
		for len(out) < p.N {
			wantGold := p.GoldRate > 0 && float64(gold) < p.GoldRate*float64(total+1)
			id, ok, err := pickItem(ctx, tx, p, wantGold)
			if err == nil && !ok && wantGold {
				wantGold = false
				id, ok, err = pickItem(ctx, tx, p, false)
			}
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			rows, _ := tx.Query(ctx, `INSERT INTO assignments (item_id, user_id, lease_expires_at)
				VALUES ($1, $2, now() + make_interval(secs => $3))
				ON CONFLICT (item_id, user_id) DO UPDATE SET status = 'leased', leased_at = now(),
					lease_expires_at = EXCLUDED.lease_expires_at, done_at = NULL
				WHERE assignments.status = 'expired'
				RETURNING `+assignmentCols, id, p.UserID, secs)
			a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Assignment])
			if err != nil {
				return fmt.Errorf("store: lease item %d: %w", id, err)
			}
			out = append(out, a)
			total++
			if wantGold {
				gold++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func pickItem(ctx context.Context, tx pgx.Tx, p LeaseParams, gold bool) (int64, bool, error) {
	full := []int64{}
	for {
		var id int64
		err := tx.QueryRow(ctx, `SELECT i.id `+candidates+` AND NOT (i.id = ANY($6))
			ORDER BY i.priority, i.id LIMIT 1 FOR UPDATE OF i SKIP LOCKED`,
			p.ProjectID, p.Kind, p.UserID, gold, p.Raters, full).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("store: pick item: %w", err)
		}
		if gold {
			return id, true, nil
		}
		// The candidate query's snapshot predates the row lock: a rater who
		// leased the item and committed just before we locked it is not
		// counted there. A new statement sees them (READ COMMITTED), so the
		// item is checked again before it is taken.
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM assignments a WHERE a.item_id = $1
			AND (a.status = 'done' OR (a.status = 'leased' AND a.lease_expires_at > now()))`, id).Scan(&n); err != nil {
			return 0, false, fmt.Errorf("store: pick item: %w", err)
		}
		if n < p.Raters {
			return id, true, nil
		}
		full = append(full, id)
	}
}

func sortAssignments(as []Assignment) {
	for i := 1; i < len(as); i++ {
		for j := i; j > 0 && (as[j].LeasedAt.Before(as[j-1].LeasedAt) ||
			(as[j].LeasedAt.Equal(as[j-1].LeasedAt) && as[j].ID < as[j-1].ID)); j-- {
			as[j], as[j-1] = as[j-1], as[j]
		}
	}
}

// AssignmentFor returns the user's assignment of an item, or ErrNotFound.
func (s *Store) AssignmentFor(ctx context.Context, itemID, userID int64) (Assignment, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+assignmentCols+` FROM assignments WHERE item_id = $1 AND user_id = $2`, itemID, userID)
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Assignment])
	if errors.Is(err, pgx.ErrNoRows) {
		return Assignment{}, fmt.Errorf("store: assignment of item %d: %w", itemID, ErrNotFound)
	}
	if err != nil {
		return Assignment{}, fmt.Errorf("store: assignment of item %d: %w", itemID, err)
	}
	return a, nil
}

// RaterProgress counts one rater's work in a project and kind.
type RaterProgress struct {
	Done, Skipped, Leased int
	ActiveMs              int64
}

// Progress counts the rater's done, skipped and live-leased items and
// today's active time (cheap: the rater's own rows).
func (s *Store) Progress(ctx context.Context, p LeaseParams) (RaterProgress, error) {
	var r RaterProgress
	err := s.pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE a.status = 'done'),
		count(*) FILTER (WHERE a.status = 'skipped'),
		count(*) FILTER (WHERE a.status = 'leased' AND a.lease_expires_at > now())
		FROM assignments a JOIN items i ON i.id = a.item_id
		WHERE a.user_id = $1 AND i.project_id = $2 AND i.kind = $3`, p.UserID, p.ProjectID, p.Kind).
		Scan(&r.Done, &r.Skipped, &r.Leased)
	if err != nil {
		return r, fmt.Errorf("store: progress: %w", err)
	}
	err = s.pool.QueryRow(ctx, `SELECT coalesce(sum(active_ms), 0) FROM activity WHERE user_id = $1 AND project_id = $2 AND day = current_date`,
		p.UserID, p.ProjectID).Scan(&r.ActiveMs)
	if err != nil {
		return r, fmt.Errorf("store: progress activity: %w", err)
	}
	return r, nil
}

// AvailableItems counts the (non-gold) items the rater could still be
// given. It looks at every open item of the kind, so callers cache it.
func (s *Store) AvailableItems(ctx context.Context, p LeaseParams) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) `+candidates, p.ProjectID, p.Kind, p.UserID, false, p.Raters).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: available items: %w", err)
	}
	return n, nil
}
