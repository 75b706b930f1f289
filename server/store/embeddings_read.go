package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// EncoderInfo is one row of the encoders table.
type EncoderInfo struct {
	ID         int    `db:"id"`
	Name       string `db:"name"`
	Kind       string `db:"kind"`
	ModelHash  string `db:"model_hash"`
	Dim        int    `db:"dim"`
	Pooling    string `db:"pooling"`
	Normalized bool   `db:"normalized"`
}

// EncoderByName looks an encoder up by name.
func (s *Store) EncoderByName(ctx context.Context, name string) (EncoderInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, name, kind, model_hash, dim, pooling, normalized FROM encoders WHERE name = $1`, name)
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[EncoderInfo])
	if errors.Is(err, pgx.ErrNoRows) {
		return EncoderInfo{}, fmt.Errorf("store: encoder %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return EncoderInfo{}, fmt.Errorf("store: encoder %q: %w", name, err)
	}
	return e, nil
}

// CountEmbeddings is the number of a project's documents embedded by an
// encoder.
func (s *Store) CountEmbeddings(ctx context.Context, projectID int64, encoderID int) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM embeddings e JOIN documents d ON d.id = e.document_id
		WHERE e.encoder_id = $1 AND d.project_id = $2`, encoderID, projectID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count embeddings: %w", err)
	}
	return n, nil
}

// hnswIndexName names the partial HNSW index of one dense encoder. The
// embeddings column has no fixed dimension, so each encoder gets an
// expression index over embedding::vector(dim).
func hnswIndexName(encoderID int) string { return fmt.Sprintf("embeddings_hnsw_e%d", encoderID) }

// EnsureHNSW creates the cosine HNSW index of a dense encoder if missing
// (m = 16, ef_construction = 64, pgvector's defaults).
func (s *Store) EnsureHNSW(ctx context.Context, enc EncoderInfo) error {
	if enc.Kind != "dense" {
		return fmt.Errorf("store: encoder %q is %s, not dense", enc.Name, enc.Kind)
	}
	// Identifiers and the dimension are integers we format ourselves.
	sql := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON embeddings USING hnsw ((embedding::vector(%d)) vector_cosine_ops) WHERE encoder_id = %d`,
		hnswIndexName(enc.ID), enc.Dim, enc.ID)
	if _, err := s.pool.Exec(ctx, sql); err != nil {
		return fmt.Errorf("store: create hnsw index for %q: %w", enc.Name, err)
	}
	return nil
}

// AnalyzeEmbeddings refreshes the planner statistics of the embeddings
// table: right after a bulk load they are stale and the planner ignores the
// HNSW index.
func (s *Store) AnalyzeEmbeddings(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `ANALYZE embeddings`); err != nil {
		return fmt.Errorf("store: analyze embeddings: %w", err)
	}
	return nil
}

// ScoredDoc is a document with a similarity.
type ScoredDoc struct {
	ExtID string
	Score float64
}

// NearestDocuments returns the k documents of a project whose vectors are
// most cosine-similar to vec (Score = 1 − cosine distance), using the
// encoder's HNSW index (iterative scan, so k may exceed ef_search).
func (s *Store) NearestDocuments(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, k int) ([]ScoredDoc, error) {
	if len(vec) != enc.Dim {
		return nil, fmt.Errorf("store: nearest documents: vector has %d dimensions, encoder %q has %d", len(vec), enc.Name, enc.Dim)
	}
	var out []ScoredDoc
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, min(max(k, 40), 1000))); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = relaxed_order`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL hnsw.max_scan_tuples = %d`, max(20000, 20*k))); err != nil {
			return err
		}
		// The encoder id and dimension are inlined so that the planner can
		// match the partial expression index.
		sql := fmt.Sprintf(`SELECT ext_id, 1 - dist FROM (
				SELECT d.ext_id, e.embedding::vector(%[1]d) <=> $1::vector(%[1]d) AS dist
				FROM embeddings e JOIN documents d ON d.id = e.document_id
				WHERE e.encoder_id = %[2]d AND d.project_id = $2
				ORDER BY e.embedding::vector(%[1]d) <=> $1::vector(%[1]d)
				LIMIT $3) t
			ORDER BY dist, ext_id`, enc.Dim, enc.ID)
		rows, err := tx.Query(ctx, sql, pgvector.NewVector(vec), projectID, k)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (ScoredDoc, error) {
			var d ScoredDoc
			err := r.Scan(&d.ExtID, &d.Score)
			return d, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: nearest documents: %w", err)
	}
	return out, nil
}

// DocumentSimilarities returns the cosine similarity of vec to each listed
// document that has a vector.
func (s *Store) DocumentSimilarities(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, extIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(extIDs))
	if len(extIDs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT d.ext_id, 1 - (e.embedding <=> $1)
		FROM embeddings e JOIN documents d ON d.id = e.document_id
		WHERE e.encoder_id = $2 AND d.project_id = $3 AND d.ext_id = ANY($4)`,
		pgvector.NewVector(vec), enc.ID, projectID, extIDs)
	if err != nil {
		return nil, fmt.Errorf("store: document similarities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var sim float64
		if err := rows.Scan(&id, &sim); err != nil {
			return nil, fmt.Errorf("store: document similarities: %w", err)
		}
		out[id] = sim
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: document similarities: %w", err)
	}
	return out, nil
}

// EachDocumentVector calls fn with every document of a project that has a
// vector of the dense encoder enc: its external id and the vector (e.g. to
// join the stored embeddings to the active learner's features).
func (s *Store) EachDocumentVector(ctx context.Context, projectID int64, enc EncoderInfo, fn func(extID string, vec []float32) error) error {
	if enc.Kind != EncoderDense {
		return fmt.Errorf("store: encoder %q is %s, not dense", enc.Name, enc.Kind)
	}
	rows, err := s.pool.Query(ctx, `SELECT d.ext_id, e.embedding FROM embeddings e JOIN documents d ON d.id = e.document_id
		WHERE e.encoder_id = $1 AND d.project_id = $2 ORDER BY d.id`, enc.ID, projectID)
	if err != nil {
		return fmt.Errorf("store: document vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var v pgvector.Vector
		if err := rows.Scan(&id, &v); err != nil {
			return fmt.Errorf("store: document vectors: %w", err)
		}
		if err := fn(id, v.Slice()); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: document vectors: %w", err)
	}
	return nil
}
