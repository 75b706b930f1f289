package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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
			count(rk.query_id)::int AS queries, coalesce(sum(cardinality(rk.doc_ext_ids)), 0)::int AS results
		FROM runs r LEFT JOIN run_rankings rk ON rk.run_id = r.id
		WHERE r.project_id = $1 GROUP BY r.id ORDER BY r.name`, projectID)
	return collectAll[RunInfo](rows, "list runs")
}

// RunResultIn is one ranked line of a run to save, keyed by query row id.
type RunResultIn struct {
	QueryID  int64
	DocExtID string
	Rank     int
	Score    float64
}

// SaveRun creates or replaces the run called name in one transaction (a
// re-run with the same name replaces every result). Each query's ranking
// is one row of run_rankings, written with COPY.
func (s *Store) SaveRun(ctx context.Context, projectID int64, name, method string, params json.RawMessage, results []RunResultIn) (int64, error) {
	var runID int64
	_, err := s.Import(ctx, projectID, func(im *Importer) error {
		id, err := im.Run(ctx, name, method, params)
		if err != nil {
			return err
		}
		runID = id
		if err := im.flush(ctx); err != nil {
			return err
		}
		n, err := copyRankings(ctx, im.tx, id, results)
		if err != nil {
			return fmt.Errorf("store: save run %q: %w", name, err)
		}
		im.Counts.RunResults += n
		return nil
	})
	if err != nil {
		return 0, err
	}
	return runID, nil
}

// copyRankings groups results by query (first appearance order), orders
// each ranking by rank then document id, and COPYs one row per query.
// Queries without results get no row. It returns the results written.
func copyRankings(ctx context.Context, tx pgx.Tx, runID int64, results []RunResultIn) (int, error) {
	byQuery := map[int64][]RunResultIn{}
	var order []int64
	for _, r := range results {
		if _, ok := byQuery[r.QueryID]; !ok {
			order = append(order, r.QueryID)
		}
		byQuery[r.QueryID] = append(byQuery[r.QueryID], r)
	}
	rows := make([][]any, 0, len(order))
	for _, q := range order {
		rs := byQuery[q]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].Rank != rs[j].Rank {
				return rs[i].Rank < rs[j].Rank
			}
			return rs[i].DocExtID < rs[j].DocExtID
		})
		docs := make([]string, len(rs))
		ranks := make([]int32, len(rs))
		scores := make([]float64, len(rs))
		for i, r := range rs {
			docs[i], ranks[i], scores[i] = r.DocExtID, int32(r.Rank), r.Score
		}
		rows = append(rows, []any{runID, q, docs, ranks, scores})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"run_rankings"},
		[]string{"run_id", "query_id", "doc_ext_ids", "ranks", "scores"}, pgx.CopyFromRows(rows)); err != nil {
		return 0, err
	}
	return len(results), nil
}
