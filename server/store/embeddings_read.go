package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM embeddings WHERE encoder_id = $1 AND project_id = $2`, encoderID, projectID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count embeddings: %w", err)
	}
	return n, nil
}

// The HNSW indexes (issue 27). Each dense encoder has one partial HNSW
// index per project (WHERE encoder_id = E AND project_id = P), so a
// project's bulk load builds a graph of that project's vectors alone and
// leaves every other project's index untouched, and a kNN query needs no
// filter. The index holds the vectors in half precision
// (embedding::halfvec(dim)): half the graph memory and index size, and the
// F16C distance kernels; the table keeps the full vectors, and
// NearestDocuments re-ranks the candidates by them. The embeddings column
// has no fixed dimension, hence the expression index.
//
// The graph's parameters are the index design's one place (docs/scaling.md,
// "Index design"; bench/results.md has the comparison): pgvector's build
// cost is the graph construction, about proportional to m × ef_construction
// per vector, not the distance arithmetic (a binary-quantised index built
// only ≈ 1.5× faster, and its Hamming candidates held 0.76 / 0.53 of the
// exact top 10 / 100 even after centring and re-ranking). m 16 with
// ef_construction 32 (the least pgvector allows for m 16) builds in a third
// of the CPU of m 24 / 64; with 1000 candidates re-ranked by the full
// vectors it keeps recall@10/@100 ≥ 0.98 on the real encoder's corpus. An
// IVFFlat index builds 15× faster still but needs about a fifth of its
// lists probed for that recall, a scan that grows linearly with the corpus.
const (
	hnswM              = 16 // pgvector's default
	hnswEfConstruction = 32 // 2·m, pgvector's least; its default 64 costs ≈ 1.7× the build CPU
)

// HNSWDesign describes the HNSW index EnsureHNSW builds (for reports).
func HNSWDesign() string {
	return fmt.Sprintf("halfvec, m %d, ef_construction %d", hnswM, hnswEfConstruction)
}

// hnswIndexName names the partial HNSW index of one dense encoder in one
// project.
func hnswIndexName(encoderID int, projectID int64) string {
	return fmt.Sprintf("embeddings_hnsw_e%d_p%d", encoderID, projectID)
}

// hnswIndexSQL is the statement creating that index if missing (the
// identifiers and the dimension are integers formatted here; the planner
// matches NearestDocuments' query against this definition).
func hnswIndexSQL(enc EncoderInfo, projectID int64) string {
	return fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON embeddings USING hnsw ((embedding::halfvec(%d)) halfvec_cosine_ops) WITH (m = %d, ef_construction = %d) WHERE encoder_id = %d AND project_id = %d`,
		hnswIndexName(enc.ID, projectID), enc.Dim, hnswM, hnswEfConstruction, enc.ID, projectID)
}

// HNSWMemory is the maintenance_work_mem an HNSW build of n vectors of
// dimension dim needs to keep its graph in memory (pgvector builds several
// times slower once it no longer fits, and says so in a notice): measured
// here, 64 MB held 36,873 single-precision 256-d vectors (≈ 1.8 kB each:
// the 1 kB vector and ≈ 0.8 kB of element and neighbour lists at m 16);
// half precision stores 2 bytes per dimension. The 1 kB allowed for the
// lists covers m up to 24; a quarter more for margin.
func HNSWMemory(n, dim int) int64 {
	return int64(n) * int64(dim*2+1024) * 5 / 4
}

// hnswMemoryMaxMB caps the memory of one build (a parallel build reserves
// all of it in dynamic shared memory when it starts) unless the database
// says otherwise with the setting hnswMemorySetting.
const hnswMemoryMaxMB = 4096

// hnswMemorySetting is the Postgres setting (a custom one, in the
// cluster's postgresql.conf or ALTER DATABASE … SET) that raises or lowers
// hnswMemoryMaxMB for the database it is set on: the cap belongs to the
// database host, which knows its memory and its /dev/shm; scripts/db.sh
// sets it to half of the machine's memory for the cluster it manages.
const hnswMemorySetting = "boolpool.hnsw_build_memory_mb"

// hnswMemoryCapMB is the database's cap on one HNSW build's memory.
func (s *Store) hnswMemoryCapMB(ctx context.Context) (int64, error) {
	var v *string
	if err := s.pool.QueryRow(ctx, `SELECT current_setting($1, true)`, hnswMemorySetting).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: read %s: %w", hnswMemorySetting, err)
	}
	if v == nil || *v == "" {
		return hnswMemoryMaxMB, nil
	}
	mb, err := strconv.ParseInt(*v, 10, 64)
	if err != nil || mb < 64 {
		return 0, fmt.Errorf("store: %s = %q: want a whole number of megabytes, at least 64", hnswMemorySetting, *v)
	}
	return mb, nil
}

// EnsureHNSW builds the project's HNSW index of a dense encoder if it is
// missing, with maintenance_work_mem sized to the graph (HNSWMemory of the
// project's vectors, clamped to [64 MB, the database's cap: 4 GB unless
// boolpool.hnsw_build_memory_mb says otherwise]). An index that exists is
// left alone (pgvector maintains it on insert). It also drops the indexes
// of projects that no longer exist. It reports whether it built one.
func (s *Store) EnsureHNSW(ctx context.Context, projectID int64, enc EncoderInfo) (built bool, err error) {
	if enc.Kind != EncoderDense {
		return false, fmt.Errorf("store: encoder %q is %s, not dense", enc.Name, enc.Kind)
	}
	name := hnswIndexName(enc.ID, projectID)
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		return false, fmt.Errorf("store: hnsw index of %q: %w", enc.Name, err)
	}
	if exists {
		return false, nil
	}
	if err := s.dropOrphanHNSW(ctx); err != nil {
		return false, err
	}
	n, err := s.CountEmbeddings(ctx, projectID, enc.ID)
	if err != nil {
		return false, err
	}
	capMB, err := s.hnswMemoryCapMB(ctx)
	if err != nil {
		return false, err
	}
	mb := min(max(HNSWMemory(n, enc.Dim)>>20, 64), capMB)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL maintenance_work_mem = '%dMB'`, mb)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, hnswIndexSQL(enc, projectID))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: build hnsw index of %q for project %d: %w", enc.Name, projectID, err)
	}
	return true, nil
}

// DropHNSW drops the project's HNSW index of a dense encoder, if any
// (before a bulk load; EnsureHNSW builds it again).
func (s *Store) DropHNSW(ctx context.Context, projectID int64, enc EncoderInfo) error {
	if _, err := s.pool.Exec(ctx, `DROP INDEX IF EXISTS `+hnswIndexName(enc.ID, projectID)); err != nil {
		return fmt.Errorf("store: drop hnsw index of %q: %w", enc.Name, err)
	}
	return nil
}

// hnswIndexNames lists the HNSW indexes of an encoder (every project's),
// or of every encoder when encoderID is 0.
func hnswIndexNames(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, encoderID int) ([]string, error) {
	pattern := `^embeddings_hnsw_e[0-9]+_p[0-9]+$`
	if encoderID != 0 {
		pattern = fmt.Sprintf(`^embeddings_hnsw_e%d_p[0-9]+$`, encoderID)
	}
	rows, _ := q.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'embeddings' AND indexname ~ $1 ORDER BY indexname`, pattern)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// dropOrphanHNSW drops the HNSW indexes of deleted projects (deleting a
// project deletes its vectors, not its partial index).
func (s *Store) dropOrphanHNSW(ctx context.Context) error {
	names, err := hnswIndexNames(ctx, s.pool, 0)
	if err != nil {
		return fmt.Errorf("store: list hnsw indexes: %w", err)
	}
	for _, name := range names {
		var project int64
		if _, err := fmt.Sscanf(name[strings.LastIndex(name, "_p")+2:], "%d", &project); err != nil {
			continue
		}
		var alive bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM projects WHERE id = $1)`, project).Scan(&alive); err != nil {
			return fmt.Errorf("store: drop orphan hnsw indexes: %w", err)
		}
		if alive {
			continue
		}
		if _, err := s.pool.Exec(ctx, `DROP INDEX IF EXISTS `+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("store: drop orphan hnsw index %s: %w", name, err)
		}
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

// nearestMinCandidates is the least number of candidates NearestDocuments
// takes from the HNSW index before re-ranking them by the full vectors:
// measured on the scale suite's corpora (short queries against documents,
// static encoder), the index's own top 10 at ef_search 40 held 0.55 of the
// exact top 10, and its top 1000 at ef_search 1000, re-ranked, 0.96.
const nearestMinCandidates = 1000

// NearestDocuments returns the k documents of a project whose vectors are
// most cosine-similar to vec (Score = 1 − cosine distance of the full
// vectors), using the project's HNSW index of the encoder (half precision,
// iterative scan, so k may exceed ef_search): the index proposes
// max(k, nearestMinCandidates) candidates in half precision, and they are
// re-ranked by the stored vectors. Without the index the query scans the
// project's vectors exactly.
func (s *Store) NearestDocuments(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, k int) ([]ScoredDoc, error) {
	var out []ScoredDoc
	err := s.nearest(ctx, projectID, enc, vec, k, true, func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (ScoredDoc, error) {
			var d ScoredDoc
			err := r.Scan(&d.ExtID, &d.Score)
			return d, err
		})
		return err
	})
	return out, err
}

// ScoredID is a document (by its id in this database) and a score.
type ScoredID struct {
	ID    int64
	Score float64
}

// NearestDocumentIDs is NearestDocuments naming the documents by their ids
// in this database, ordered by distance then id: the search without the
// join that looks up each neighbour's external id (a third of the buffers
// a 2,000-neighbour search read at 300k documents). Callers that combine
// several searches name only their final results (DocumentExtIDs).
func (s *Store) NearestDocumentIDs(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, k int) ([]ScoredID, error) {
	var out []ScoredID
	err := s.nearest(ctx, projectID, enc, vec, k, false, func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (ScoredID, error) {
			var d ScoredID
			err := r.Scan(&d.ID, &d.Score)
			return d, err
		})
		return err
	})
	return out, err
}

// nearest runs the kNN search of NearestDocuments (extIDs: naming the
// documents by external id, else by id) and hands its rows to collect.
func (s *Store) nearest(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, k int, extIDs bool, collect func(pgx.Rows) error) error {
	if len(vec) != enc.Dim {
		return fmt.Errorf("store: nearest documents: vector has %d dimensions, encoder %q has %d", len(vec), enc.Name, enc.Dim)
	}
	// The index settings hold for this search alone (set_config's is_local)
	// and travel with it in one pipelined batch, which Postgres runs as one
	// implicit transaction: one round trip instead of six (begin, three
	// SETs, the query, commit). dense-decomposed runs several of these per
	// query side by side on a busy box, where every round trip waits for a
	// core.
	candidates := max(k, nearestMinCandidates)
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
		set_config('hnsw.max_scan_tuples', $2, true)`,
		strconv.Itoa(min(candidates, 1000)), strconv.Itoa(max(20000, 20*candidates)))
	b.Queue(nearestSQL(enc, projectID, extIDs), pgvector.NewVector(vec), candidates, k).Query(collect)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store: nearest documents: %w", err)
	}
	return nil
}

// nearestSQL is NearestDocuments' query ($1 the vector, $2 the number of
// candidates taken from the index, $3 the number returned): the
// encoder id, project id and dimension are inlined so that the planner can
// match the project's partial expression index (hnswIndexSQL). extIDs
// names the documents by external id (a join per neighbour), else by id.
func nearestSQL(enc EncoderInfo, projectID int64, extIDs bool) string {
	candidates := fmt.Sprintf(`SELECT e.document_id, e.embedding::vector(%[1]d) <=> $1::vector(%[1]d) AS dist
				FROM embeddings e
				WHERE e.encoder_id = %[2]d AND e.project_id = %[3]d
				ORDER BY e.embedding::halfvec(%[1]d) <=> $1::vector(%[1]d)::halfvec(%[1]d)
				LIMIT $2`, enc.Dim, enc.ID, projectID)
	if !extIDs {
		return `SELECT c.document_id, 1 - c.dist FROM (` + candidates + `) c
			ORDER BY c.dist, c.document_id LIMIT $3`
	}
	return `SELECT d.ext_id, 1 - t.dist FROM (
			SELECT c.document_id, c.dist FROM (` + candidates + `) c
			ORDER BY c.dist LIMIT $3) t JOIN documents d ON d.id = t.document_id
		ORDER BY t.dist, d.ext_id`
}

// DocumentSimilaritiesByID is DocumentSimilarities for documents named by
// their ids in this database (no external-id look-up).
func (s *Store) DocumentSimilaritiesByID(ctx context.Context, projectID int64, enc EncoderInfo, vec []float32, ids []int64) (map[int64]float64, error) {
	out := make(map[int64]float64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT document_id, 1 - (embedding <=> $1) FROM embeddings
		WHERE encoder_id = $2 AND project_id = $3 AND document_id = ANY ($4::bigint[])`,
		pgvector.NewVector(vec), enc.ID, projectID, ids)
	var id int64
	var sim float64
	if _, err := pgx.ForEachRow(rows, []any{&id, &sim}, func() error {
		out[id] = sim
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: document similarities: %w", err)
	}
	return out, nil
}

// DocumentExtIDs returns the external ids of the project's listed
// documents (ids of other projects' documents are left out).
func (s *Store) DocumentExtIDs(ctx context.Context, projectID int64, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT id, ext_id FROM documents WHERE id = ANY ($1::bigint[]) AND project_id = $2`, ids, projectID)
	var id int64
	var ext string
	if _, err := pgx.ForEachRow(rows, []any{&id, &ext}, func() error {
		out[id] = ext
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: external ids: %w", err)
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
		WHERE e.encoder_id = $2 AND e.project_id = $3 AND d.project_id = $3 AND d.ext_id = ANY($4)`,
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
