package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"
)

// Encoder kinds (encoders.kind).
const (
	EncoderDense  = "dense"
	EncoderSparse = "sparse"
)

// EncoderSpec describes an encoder to register: what produced the vectors.
type EncoderSpec struct {
	Name       string
	Kind       string // EncoderDense or EncoderSparse
	ModelHash  string // identifies the model (e.g. the sha256 of its ONNX file)
	Dim        int
	Pooling    string
	Normalized bool
}

// RegisterEncoder inserts the encoder row, or checks the stored one.
//
// The rule for a name that is already registered: when the model hash, kind,
// dimension, pooling or normalisation differ, the stored vectors were made by
// another model and are not comparable with new ones, so the row is replaced
// by a new one (a new id) in one transaction: every vector of the old one
// (document, sparse and query vectors of every project) goes with it, and
// its HNSW indexes (one per project) are dropped; the encoding run then
// embeds everything again.
// reset reports that case.
func (s *Store) RegisterEncoder(ctx context.Context, spec EncoderSpec) (enc EncoderInfo, reset bool, err error) {
	if spec.Kind != EncoderDense && spec.Kind != EncoderSparse {
		return EncoderInfo{}, false, fmt.Errorf("store: register encoder %q: kind %q is neither dense nor sparse", spec.Name, spec.Kind)
	}
	if spec.Dim <= 0 || spec.Name == "" || spec.ModelHash == "" || !storable(spec.Name) {
		return EncoderInfo{}, false, fmt.Errorf("store: register encoder %q: name, model hash and a positive dimension are required", spec.Name)
	}
	if spec.Pooling == "" {
		spec.Pooling = "mean"
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		lock := func() (EncoderInfo, error) {
			rows, _ := tx.Query(ctx, `SELECT id, name, kind, model_hash, dim, pooling, normalized FROM encoders WHERE name = $1 FOR UPDATE`, spec.Name)
			return pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[EncoderInfo])
		}
		cur, err := lock()
		if errors.Is(err, pgx.ErrNoRows) {
			// Insert only when missing (a conflicting insert would still
			// consume an id); a concurrent registration wins the race.
			if _, err := tx.Exec(ctx, `INSERT INTO encoders (name, kind, model_hash, dim, pooling, normalized)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING`,
				spec.Name, spec.Kind, spec.ModelHash, spec.Dim, spec.Pooling, spec.Normalized); err != nil {
				return err
			}
			cur, err = lock()
		}
		if err != nil {
			return err
		}
		if cur.Kind == spec.Kind && cur.ModelHash == spec.ModelHash && cur.Dim == spec.Dim &&
			cur.Pooling == spec.Pooling && cur.Normalized == spec.Normalized {
			enc = cur
			return nil
		}
		// Replace the row: deleting it cascades to every vector of the
		// encoder, and the new row's id keeps the deleted (but possibly
		// still visible to older snapshots) vectors out of the new HNSW
		// index, whose predicate is on encoder_id: an index build also
		// reads recently deleted rows, and a cast of an old vector to a new
		// dimension would fail.
		names, err := hnswIndexNames(ctx, tx, cur.ID)
		if err != nil {
			return err
		}
		for _, name := range names {
			if _, err := tx.Exec(ctx, `DROP INDEX IF EXISTS `+pgx.Identifier{name}.Sanitize()); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM encoders WHERE id = $1`, cur.ID); err != nil {
			return err
		}
		var id int
		if err := tx.QueryRow(ctx, `INSERT INTO encoders (name, kind, model_hash, dim, pooling, normalized)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			spec.Name, spec.Kind, spec.ModelHash, spec.Dim, spec.Pooling, spec.Normalized).Scan(&id); err != nil {
			return err
		}
		enc = EncoderInfo{ID: id, Name: cur.Name, Kind: spec.Kind, ModelHash: spec.ModelHash, Dim: spec.Dim, Pooling: spec.Pooling, Normalized: spec.Normalized}
		reset = true
		return nil
	})
	if err != nil {
		return EncoderInfo{}, false, fmt.Errorf("store: register encoder %q: %w", spec.Name, err)
	}
	return enc, reset, nil
}

// documentVectorTable is the table holding an encoder's document vectors.
func documentVectorTable(enc EncoderInfo) (string, error) {
	switch enc.Kind {
	case EncoderDense:
		return "embeddings", nil
	case EncoderSparse:
		return "sparse_embeddings", nil
	}
	return "", fmt.Errorf("store: encoder %q has unknown kind %q", enc.Name, enc.Kind)
}

// StaleDocumentIDs returns the number of a project's documents and, in id
// order, the ids of those whose vector of enc is missing or was computed
// from other content (its content_hash differs from the document's).
func (s *Store) StaleDocumentIDs(ctx context.Context, projectID int64, enc EncoderInfo) (total int, stale []int64, err error) {
	table, err := documentVectorTable(enc)
	if err != nil {
		return 0, nil, err
	}
	err = s.pool.QueryRow(ctx, `SELECT count(*),
			coalesce(array_agg(d.id ORDER BY d.id) FILTER (WHERE e.content_hash IS DISTINCT FROM d.content_hash), '{}')
		FROM documents d LEFT JOIN `+table+` e ON e.encoder_id = $2 AND e.document_id = d.id
		WHERE d.project_id = $1`, projectID, enc.ID).Scan(&total, &stale)
	if err != nil {
		return 0, nil, fmt.Errorf("store: stale documents: %w", err)
	}
	return total, stale, nil
}

// DocumentToEmbed is a document whose vector is missing or stale.
type DocumentToEmbed struct {
	ID          int64
	ProjectID   int64
	ExtID       string
	Title       string
	Body        string
	ContentHash []byte
	Stored      bool // a stale vector exists (false: none yet)
}

// DocumentsToEmbed fetches, in id order, those of the listed documents
// whose vector of enc is (still) missing or stale. Fetching a batch by id
// keeps every batch cheap however large the corpus (no plan can turn it
// into a scan), and a document stored meanwhile by a concurrent run is
// left out.
func (s *Store) DocumentsToEmbed(ctx context.Context, enc EncoderInfo, ids []int64) ([]DocumentToEmbed, error) {
	table, err := documentVectorTable(enc)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.project_id, d.ext_id, d.title, d.body, d.content_hash, e.document_id IS NOT NULL
		FROM documents d LEFT JOIN `+table+` e ON e.encoder_id = $1 AND e.document_id = d.id
		WHERE d.id = ANY($2) AND e.content_hash IS DISTINCT FROM d.content_hash
		ORDER BY d.id`, enc.ID, ids)
	if err != nil {
		return nil, fmt.Errorf("store: documents to embed: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DocumentToEmbed, error) {
		var d DocumentToEmbed
		err := r.Scan(&d.ID, &d.ProjectID, &d.ExtID, &d.Title, &d.Body, &d.ContentHash, &d.Stored)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: documents to embed: %w", err)
	}
	return out, nil
}

// SparseVector is a sparse vector in pgvector's sparsevec layout: ascending
// 0-based Indices and their Values.
type SparseVector struct {
	Indices []int32
	Values  []float32
}

func (v SparseVector) pg(dim int) (pgvector.SparseVector, error) {
	if len(v.Indices) != len(v.Values) {
		return pgvector.SparseVector{}, fmt.Errorf("sparse vector has %d indices and %d values", len(v.Indices), len(v.Values))
	}
	m := make(map[int32]float32, len(v.Indices))
	for i, id := range v.Indices {
		if id < 0 || int(id) >= dim {
			return pgvector.SparseVector{}, fmt.Errorf("sparse index %d outside dimension %d", id, dim)
		}
		m[id] = v.Values[i]
	}
	return pgvector.NewSparseVectorFromMap(m, int32(dim)), nil
}

// DocumentVector is one document's vector to store: Dense for a dense
// encoder, Sparse for a sparse one. ContentHash is the document's hash when
// its text was read for encoding. ProjectID is the document's project
// (DocumentToEmbed's), which a dense vector is stored with; when it is 0
// the store looks it up.
type DocumentVector struct {
	DocumentID  int64
	ProjectID   int64
	ContentHash []byte
	Dense       []float32
	Sparse      SparseVector
	New         bool // no vector is stored yet (lets an all-new batch skip the staging table)
}

// vectorValue converts a vector for enc's column, checking its dimension.
func vectorValue(enc EncoderInfo, dense []float32, sparse SparseVector) (any, error) {
	if enc.Kind == EncoderSparse {
		return sparse.pg(enc.Dim)
	}
	if len(dense) != enc.Dim {
		return nil, fmt.Errorf("vector has %d dimensions, encoder %q has %d", len(dense), enc.Name, enc.Dim)
	}
	return pgvector.NewVector(dense), nil
}

// WriteEmbeddings stores document vectors of enc in one transaction. A
// batch of documents without stored vectors, each with its ProjectID, is
// copied (COPY) straight into the table; otherwise, or when that meets a concurrent writer or a deleted
// document, the batch is copied into a temporary staging table and merged
// with INSERT … ON CONFLICT (encoder_id, document_id) DO UPDATE (documents
// deleted meanwhile are skipped; a dense vector's project is taken from its
// document). It returns the number of rows written.
func (s *Store) WriteEmbeddings(ctx context.Context, enc EncoderInfo, vecs []DocumentVector) (int, error) {
	table, err := documentVectorTable(enc)
	if err != nil {
		return 0, err
	}
	if len(vecs) == 0 {
		return 0, nil
	}
	dense := enc.Kind == EncoderDense
	rows := make([][]any, len(vecs))
	allNew := true
	for i, v := range vecs {
		val, err := vectorValue(enc, v.Dense, v.Sparse)
		if err != nil {
			return 0, fmt.Errorf("store: write embeddings: document %d: %w", v.DocumentID, err)
		}
		rows[i] = []any{enc.ID, v.DocumentID, v.ContentHash, val}
		if dense {
			rows[i] = append(rows[i], v.ProjectID)
		}
		allNew = allNew && v.New && (!dense || v.ProjectID != 0)
	}
	cols := []string{"encoder_id", "document_id", "content_hash", "embedding"}
	stageProject, selectProject, insertProject := "", "", ""
	if dense {
		cols = append(cols, "project_id")
		stageProject, selectProject, insertProject = ", project_id bigint", ", d.project_id", ", project_id"
	}
	var written int
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if allNew {
			done, err := copyDirect(ctx, tx, table, cols, rows)
			if done || err != nil {
				written = len(rows)
				return err
			}
		}
		vecType := "vector"
		if enc.Kind == EncoderSparse {
			vecType = "sparsevec"
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE embed_stage (encoder_id int, document_id bigint, content_hash bytea, embedding `+vecType+stageProject+`) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"embed_stage"}, cols, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO `+table+` (encoder_id, document_id, content_hash, embedding`+insertProject+`)
			SELECT s.encoder_id, s.document_id, s.content_hash, s.embedding`+selectProject+` FROM embed_stage s JOIN documents d ON d.id = s.document_id
			ON CONFLICT (encoder_id, document_id) DO UPDATE SET content_hash = EXCLUDED.content_hash, embedding = EXCLUDED.embedding`)
		written = int(tag.RowsAffected())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: write embeddings: %w", err)
	}
	return written, nil
}

// copyDirect COPYs rows into table inside a savepoint. done is false (and
// the savepoint rolled back) when an integrity constraint failed, e.g. a
// concurrent run stored one of the documents first or one was deleted.
func copyDirect(ctx context.Context, tx pgx.Tx, table string, cols []string, rows [][]any) (done bool, err error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	if _, err := sp.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && len(pgErr.Code) == 5 && pgErr.Code[:2] == "23" {
			return false, sp.Rollback(ctx)
		}
		return false, err
	}
	return true, sp.Commit(ctx)
}

// AnalyzeSparseEmbeddings refreshes the planner statistics of
// sparse_embeddings after a bulk load.
func (s *Store) AnalyzeSparseEmbeddings(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `ANALYZE sparse_embeddings`); err != nil {
		return fmt.Errorf("store: analyze sparse embeddings: %w", err)
	}
	return nil
}

// QueryAtom names one query text: Atom is the atom index, or WholeQuery.
type QueryAtom struct {
	QueryID int64
	Atom    int
}

// WholeQuery is the atom value of a query's whole-text vector.
const WholeQuery = -1

// TextHash is the hash stored with a query vector (query_embeddings.text_hash).
func TextHash(text string) []byte {
	h := sha256.Sum256([]byte(text))
	return h[:]
}

// QueryEmbeddingHashes returns the text hashes of enc's stored query vectors
// for a project's queries (nil for rows written without one).
func (s *Store) QueryEmbeddingHashes(ctx context.Context, projectID int64, enc EncoderInfo) (map[QueryAtom][]byte, error) {
	col := "embedding"
	if enc.Kind == EncoderSparse {
		col = "sparse"
	}
	rows, err := s.pool.Query(ctx, `SELECT qe.query_id, qe.atom, qe.text_hash FROM query_embeddings qe JOIN queries q ON q.id = qe.query_id
		WHERE qe.encoder_id = $1 AND q.project_id = $2 AND qe.`+col+` IS NOT NULL`, enc.ID, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: query embedding hashes: %w", err)
	}
	defer rows.Close()
	out := map[QueryAtom][]byte{}
	for rows.Next() {
		var k QueryAtom
		var h []byte
		if err := rows.Scan(&k.QueryID, &k.Atom, &h); err != nil {
			return nil, fmt.Errorf("store: query embedding hashes: %w", err)
		}
		out[k] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: query embedding hashes: %w", err)
	}
	return out, nil
}

// QueryVector is the vector of one query text (whole query or atom).
type QueryVector struct {
	QueryAtom
	TextHash []byte
	Dense    []float32
	Sparse   SparseVector
}

// WriteQueryEmbeddings upserts query vectors of enc (COPY into a staging
// table, then INSERT … ON CONFLICT (encoder_id, query_id, atom) DO UPDATE)
// in one transaction; queries deleted meanwhile are skipped.
func (s *Store) WriteQueryEmbeddings(ctx context.Context, enc EncoderInfo, vecs []QueryVector) error {
	if len(vecs) == 0 {
		return nil
	}
	col, vecType := "embedding", "vector"
	if enc.Kind == EncoderSparse {
		col, vecType = "sparse", "sparsevec"
	}
	rows := make([][]any, len(vecs))
	for i, v := range vecs {
		val, err := vectorValue(enc, v.Dense, v.Sparse)
		if err != nil {
			return fmt.Errorf("store: write query embeddings: query %d atom %d: %w", v.QueryID, v.Atom, err)
		}
		rows[i] = []any{v.QueryID, v.Atom, v.TextHash, val}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE query_embed_stage (query_id bigint, atom int, text_hash bytea, vec `+vecType+`) ON COMMIT DROP`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"query_embed_stage"}, []string{"query_id", "atom", "text_hash", "vec"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO query_embeddings (encoder_id, query_id, atom, text_hash, `+col+`)
			SELECT $1, s.query_id, s.atom, s.text_hash, s.vec FROM query_embed_stage s JOIN queries q ON q.id = s.query_id
			ON CONFLICT (encoder_id, query_id, atom) DO UPDATE SET text_hash = EXCLUDED.text_hash, `+col+` = EXCLUDED.`+col, enc.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: write query embeddings: %w", err)
	}
	return nil
}

// DeleteExtraQueryAtoms removes enc's vectors of atoms a query no longer
// has (atom index ≥ its current number of atoms), for the listed queries.
// It returns the number of rows deleted.
func (s *Store) DeleteExtraQueryAtoms(ctx context.Context, enc EncoderInfo, atomCounts map[int64]int) (int, error) {
	if len(atomCounts) == 0 {
		return 0, nil
	}
	ids := make([]int64, 0, len(atomCounts))
	ns := make([]int32, 0, len(atomCounts))
	for id, n := range atomCounts {
		ids = append(ids, id)
		ns = append(ns, int32(n))
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM query_embeddings qe USING unnest($2::bigint[], $3::int[]) AS k(query_id, n)
		WHERE qe.encoder_id = $1 AND qe.query_id = k.query_id AND qe.atom >= k.n`, enc.ID, ids, ns)
	if err != nil {
		return 0, fmt.Errorf("store: delete extra query atoms: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// DeleteProjectVectors deletes enc's document and query vectors of one
// project (to force a full re-embedding). It returns the number of document
// vectors deleted.
func (s *Store) DeleteProjectVectors(ctx context.Context, projectID int64, enc EncoderInfo) (int, error) {
	table, err := documentVectorTable(enc)
	if err != nil {
		return 0, err
	}
	var n int
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		del := `DELETE FROM ` + table + ` e USING documents d
			WHERE e.encoder_id = $1 AND d.id = e.document_id AND d.project_id = $2`
		if enc.Kind == EncoderDense {
			del = `DELETE FROM embeddings WHERE encoder_id = $1 AND project_id = $2`
		}
		tag, err := tx.Exec(ctx, del, enc.ID, projectID)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		_, err = tx.Exec(ctx, `DELETE FROM query_embeddings qe USING queries q
			WHERE qe.encoder_id = $1 AND q.id = qe.query_id AND q.project_id = $2`, enc.ID, projectID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete project vectors: %w", err)
	}
	return n, nil
}

// CountEncoderVectors is the number of document vectors of enc over all
// projects.
func (s *Store) CountEncoderVectors(ctx context.Context, enc EncoderInfo) (int, error) {
	table, err := documentVectorTable(enc)
	if err != nil {
		return 0, err
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE encoder_id = $1`, enc.ID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count encoder vectors: %w", err)
	}
	return n, nil
}
