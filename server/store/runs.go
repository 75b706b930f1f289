package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// RunInfo describes a stored run.
type RunInfo struct {
	ID        int64           `db:"id"`
	Name      string          `db:"name"`
	Method    string          `db:"method"`
	Params    json.RawMessage `db:"params"`
	CreatedAt time.Time       `db:"created_at"`
	Queries   int             `db:"queries"`
	Results   int             `db:"results"`
}

// ListRuns returns a project's runs by name with their sizes.
func (s *Store) ListRuns(ctx context.Context, projectID int64) ([]RunInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT r.id, r.name, r.method, r.params, r.created_at,
			coalesce(count(DISTINCT rr.query_id), 0)::int AS queries, count(rr.run_id)::int AS results
		FROM runs r LEFT JOIN run_results rr ON rr.run_id = r.id
		WHERE r.project_id = $1 GROUP BY r.id ORDER BY r.name`, projectID)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[RunInfo])
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	return out, nil
}

// RunResultIn is one ranked line of a run to save, keyed by query row id.
type RunResultIn struct {
	QueryID  int64
	DocExtID string
	Rank     int
	Score    float64
}

// SaveRun creates or replaces the run called name in one transaction (a
// re-run with the same name replaces every result).
func (s *Store) SaveRun(ctx context.Context, projectID int64, name, method string, params json.RawMessage, results []RunResultIn) (int64, error) {
	var runID int64
	_, err := s.Import(ctx, projectID, func(im *Importer) error {
		id, err := im.Run(ctx, name, method, params)
		if err != nil {
			return err
		}
		runID = id
		rows := make([][]any, len(results))
		for i, r := range results {
			rows[i] = []any{id, r.QueryID, r.DocExtID, r.Rank, r.Score}
		}
		// COPY: a 240-query × 1000-document run is 240k rows.
		if err := im.flush(ctx); err != nil {
			return err
		}
		n, err := im.tx.CopyFrom(ctx, pgx.Identifier{"run_results"},
			[]string{"run_id", "query_id", "doc_ext_id", "rank", "score"}, pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("store: save run %q: %w", name, err)
		}
		im.Counts.RunResults += int(n)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return runID, nil
}
