package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RunRow is one ranked result of a stored run.
type RunRow struct {
	QueryExtID string
	DocExtID   string
	Rank       int
	Score      float64
}

// RunIDByName resolves a run name within a project.
func (s *Store) RunIDByName(ctx context.Context, projectID int64, name string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM runs WHERE project_id = $1 AND name = $2`, projectID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("store: run %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: run %q: %w", name, err)
	}
	return id, nil
}

// EachRunRow streams a run's results in query import order, then rank.
func (s *Store) EachRunRow(ctx context.Context, runID int64, fn func(RunRow) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT q.ext_id, r.doc_ext_id, r.rank, r.score
		FROM run_results r JOIN queries q ON q.id = r.query_id
		WHERE r.run_id = $1 ORDER BY q.seq, q.id, r.rank, r.doc_ext_id`, runID)
	var r RunRow
	return forEach(rows, "run rows", func() error { return fn(r) },
		&r.QueryExtID, &r.DocExtID, &r.Rank, &r.Score)
}
