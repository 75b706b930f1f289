package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The sampling design of pools with strategy "sample" (migration 0090):
// every (pool, query) stratum in pool_strata, and each pool item's
// inclusion probability and stratum in pool_items.

// PoolStratumIn is one stratum of a sampled pool's query to save.
type PoolStratumIn struct {
	QueryID    int64
	Stratum    int // its index: pool items of the query refer to it
	Name       string
	Population int
	Sampled    int
}

// saveStrata saves the strata of a pool in the caller's transaction
// (savePool removed those of a draft it replaced).
func saveStrata(ctx context.Context, tx pgx.Tx, poolID int64, strata []PoolStratumIn) error {
	if len(strata) == 0 {
		return nil
	}
	rows := make([][]any, len(strata))
	for i, s := range strata {
		rows[i] = []any{poolID, s.QueryID, int16(s.Stratum), s.Name, s.Population, s.Sampled}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"pool_strata"},
		[]string{"pool_id", "query_id", "stratum", "name", "population", "sampled"}, pgx.CopyFromRows(rows))
	return err
}

// PoolDesignQuery is one query's stored sampling design: its strata (in
// stratum order) and units. server/poolestimate turns it into the
// estimator's estimate.QueryDesign.
type PoolDesignQuery struct {
	Query  string // external id
	Strata []PoolStratum
	Units  []PoolUnit // in judging order: priority
}

// PoolStratum is one stored stratum of a query's design.
type PoolStratum struct {
	Name       string
	Population int // N_h
	Sampled    int // n_h
}

// PoolUnit is one pool item that carries an inclusion probability.
type PoolUnit struct {
	Doc     string  // external id
	Stratum int     // index into PoolDesignQuery.Strata
	Pi      float64 // inclusion probability
}

// PoolDesign reads a sampled pool's design back: query external id → its
// strata and units (the pool's items that carry an inclusion probability).
// A pool without a design gives an empty map.
func (s *Store) PoolDesign(ctx context.Context, poolID int64) (map[string]PoolDesignQuery, error) {
	out := map[string]PoolDesignQuery{}
	rows, err := s.pool.Query(ctx, `SELECT q.ext_id, s.stratum, s.name, s.population, s.sampled
		FROM pool_strata s JOIN queries q ON q.id = s.query_id
		WHERE s.pool_id = $1 ORDER BY q.seq, q.id, s.stratum`, poolID)
	if err != nil {
		return nil, fmt.Errorf("store: pool design: %w", err)
	}
	var (
		qid     string
		stratum int16
		st      PoolStratum
	)
	_, err = pgx.ForEachRow(rows, []any{&qid, &stratum, &st.Name, &st.Population, &st.Sampled}, func() error {
		d := out[qid]
		if int(stratum) != len(d.Strata) {
			return fmt.Errorf("query %s: stratum %d follows %d strata", qid, stratum, len(d.Strata))
		}
		d.Query = qid
		d.Strata = append(d.Strata, st)
		out[qid] = d
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: pool design: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT q.ext_id, i.doc_ext_id, i.stratum, i.inclusion
		FROM pool_items i JOIN queries q ON q.id = i.query_id
		WHERE i.pool_id = $1 AND i.inclusion IS NOT NULL ORDER BY q.seq, q.id, i.priority, i.doc_ext_id`, poolID)
	if err != nil {
		return nil, fmt.Errorf("store: pool design: %w", err)
	}
	var u PoolUnit
	_, err = pgx.ForEachRow(rows, []any{&qid, &u.Doc, &stratum, &u.Pi}, func() error {
		d, ok := out[qid]
		if !ok || int(stratum) >= len(d.Strata) {
			return fmt.Errorf("query %s: document %s is in stratum %d, which the pool does not have", qid, u.Doc, stratum)
		}
		u.Stratum = int(stratum)
		d.Units = append(d.Units, u)
		out[qid] = d
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: pool design: %w", err)
	}
	return out, nil
}

// SampledPools lists a project's pools with strategy "sample", by name.
func (s *Store) SampledPools(ctx context.Context, projectID int64) ([]PoolInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.id, p.name, p.strategy, p.depth, p.params, p.status, p.created_at,
			(SELECT count(*) FROM pool_items i WHERE i.pool_id = p.id)::int AS items
		FROM pools p WHERE p.project_id = $1 AND p.strategy = 'sample' ORDER BY p.name`, projectID)
	return collectAll[PoolInfo](rows, "sampled pools")
}

// JudgedDocuments returns, per query of a project (query row id), the
// documents (external ids) that have at least one current relevance
// judgment by any rater: what a sampled pool counts as judged before.
func (s *Store) JudgedDocuments(ctx context.Context, projectID int64) (map[int64]map[string]bool, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT c.query_id, d.ext_id, true
		FROM current_judgments c JOIN documents d ON d.id = c.document_id
		WHERE c.project_id = $1 AND c.item_kind = 'relevance' AND c.relevance IS NOT NULL`, projectID)
	return collectSets(rows, "judged documents")
}
