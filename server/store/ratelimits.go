package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AllowRate takes one event for key in scope from a limit of one event per
// every with bursts of up to burst events (the generic cell rate
// algorithm): the key's theoretical arrival time moves on by every for
// each event allowed, and an event is refused while that time is more than
// (burst-1)·every ahead. One upsert on the database's clock, so every
// server on the database shares the limit and their clocks do not matter.
func (s *Store) AllowRate(ctx context.Context, scope, key string, every time.Duration, burst int) (bool, error) {
	tolerance := every * time.Duration(max(burst, 1)-1)
	var tat time.Time
	err := s.pool.QueryRow(ctx, `INSERT INTO rate_limits AS r (scope, key, tat) VALUES ($1, $2, now() + $3::interval)
		ON CONFLICT (scope, key) DO UPDATE SET tat = greatest(r.tat, now()) + $3::interval
		WHERE greatest(r.tat, now()) - now() <= $4::interval
		RETURNING tat`, scope, key, every, tolerance).Scan(&tat)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: rate limit %s: %w", scope, err)
	}
	return true, nil
}

// RateHeld reports whether key of scope is still limited now (its
// theoretical arrival time is ahead), without counting an event: with
// burst 1, whether AllowRate allowed an event less than every ago.
func (s *Store) RateHeld(ctx context.Context, scope, key string) (bool, error) {
	var held bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rate_limits WHERE scope = $1 AND key = $2 AND tat > now())`, scope, key).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("store: rate limit %s: %w", scope, err)
	}
	return held, nil
}

// DeleteIdleRateLimits removes the keys whose limit is fully refilled
// (the same as no row) and returns how many went.
func (s *Store) DeleteIdleRateLimits(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM rate_limits WHERE tat < now()`)
	if err != nil {
		return 0, fmt.Errorf("store: sweep rate limits: %w", err)
	}
	return tag.RowsAffected(), nil
}
