package store

import (
	"context"
	"fmt"
	"time"
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
	// NoNew leases nothing new: only the rater's live leases are renewed
	// and returned (a rater paused by the gold accuracy check finishes the
	// work already on screen).
	NoNew bool
	// TotalCap, when positive, bounds the rater's live leases in the
	// project across every kind (a crowd participant's api.CrowdLeaseCap):
	// a request for one kind first gives back the rater's leases of the
	// other kinds (unless NoNew), and any left count against the cap, so N
	// is lowered to what is left. Concurrent requests of one rater are
	// serialised by a transaction-scoped advisory lock, so the cap holds
	// under races.
	TotalCap int
	// HoldIdle, when set, makes LeaseTasks also read the rater's held
	// progress total in the same round trip, as HeldTotal with this idle
	// time (into RaterProgress.Total and TotalHeld).
	HoldIdle time.Duration
}

// liveCount counts the raters an item has: done, or holding a live lease.
const liveCount = `(SELECT count(*) FROM assignments a WHERE a.item_id = i.id
	AND (a.status = 'done' OR (a.status = 'leased' AND a.lease_expires_at > now())))`

// Lease returns the rater's live leases of the kind (renewed), leasing new
// items until there are p.N of them or nothing is left: LeaseTasks without
// the task data.
func (s *Store) Lease(ctx context.Context, p LeaseParams) ([]Assignment, error) {
	as, _, _, err := s.LeaseTasks(ctx, p)
	return as, err
}

// RaterProgress counts one rater's work in a project and kind.
type RaterProgress struct {
	Done, Skipped, Leased int
	ActiveMs              int64
	// Total is the progress total held for the rater (TotalHeld: one was
	// held and used within LeaseParams.HoldIdle); only LeaseTasks with
	// HoldIdle set fills them.
	Total     int
	TotalHeld bool
}

// progressSQL counts the rater's done, skipped and live-leased items of a
// project and kind ($1 user, $2 project, $3 kind) and today's active time.
// Done and skipped come from the rater's counter (rater_progress, kept by
// a trigger on assignments, migration 0099), not from a count over all
// their assignments (which grew with their work); the live leases are
// counted, through the rater's leased rows only. The item test is a scalar
// subquery, not a join, so that its one plan (the rater's rows, each item
// by its key) is also the generic plan, which LeaseTasks forces: left to
// choose, Postgres planned the count afresh on nearly every fetch, and the
// join's generic plan drove from the project's items.
const progressSQL = `SELECT coalesce(rp.done, 0), coalesce(rp.skipped, 0),
	(SELECT count(*) FROM assignments a
	 WHERE a.user_id = $1 AND a.status = 'leased' AND a.lease_expires_at > now()
	   AND (SELECT i.project_id = $2 AND i.kind = $3 FROM items i WHERE i.id = a.item_id)),
	(SELECT coalesce(sum(active_ms), 0) FROM activity WHERE user_id = $1 AND project_id = $2 AND day = current_date)
	FROM (SELECT 1) one LEFT JOIN rater_progress rp ON rp.user_id = $1 AND rp.project_id = $2 AND rp.kind = $3`

// openItem is the condition on items i of a (non-gold) item of project $1
// and kind $2 that still needs raters ($3 = r).
const openItem = `i.project_id = $1 AND i.kind = $2 AND NOT i.is_gold
	AND ` + liveCount + ` < $3`

// OpenItems counts the project's non-gold items of the kind that still need
// raters. It looks at every open item, so callers cache it and share it
// between raters.
func (s *Store) OpenItems(ctx context.Context, projectID int64, kind string, raters int) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM items i WHERE `+openItem, projectID, kind, raters).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: open items: %w", err)
	}
	return n, nil
}

// RaterOpenItems counts the open items (as OpenItems) that the rater may not
// be given: those they hold or have judged, and paraphrases they wrote.
// OpenItems minus this is what the rater can still be given. It reads the
// rater's own rows only.
func (s *Store) RaterOpenItems(ctx context.Context, p LeaseParams) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (
			SELECT a.item_id AS id FROM assignments a WHERE a.user_id = $4 AND a.status <> 'expired'
			UNION
			SELECT i.id FROM items i WHERE i.project_id = $1 AND i.kind = $2 AND i.payload ? 'author_id'
				AND (i.payload->>'author_id')::bigint = $4
		) mine JOIN items i ON i.id = mine.id
		WHERE `+openItem,
		p.ProjectID, p.Kind, p.Raters, p.UserID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: rater's open items: %w", err)
	}
	return n, nil
}
