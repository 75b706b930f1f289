package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LexicalIndexInfo describes a persisted lexical index (without its data).
type LexicalIndexInfo struct {
	ProjectID   int64           `db:"project_id"`
	Fingerprint string          `db:"fingerprint"`
	NumDocs     int             `db:"n_docs"`
	NumTerms    int             `db:"n_terms"`
	Params      json.RawMessage `db:"params"`
	BuiltAt     time.Time       `db:"built_at"`
}

// CorpusFingerprint hashes every (ext_id, content_hash) of a project's
// documents in id order: the lexical index is current when it was built from
// a corpus with the same fingerprint.
func (s *Store) CorpusFingerprint(ctx context.Context, projectID int64) (string, int, error) {
	var fp string
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*)::int,
			coalesce(md5(string_agg(ext_id || ':' || encode(content_hash, 'hex'), ',' ORDER BY id)), '')
		FROM documents WHERE project_id = $1`, projectID).Scan(&n, &fp)
	if err != nil {
		return "", 0, fmt.Errorf("store: corpus fingerprint: %w", err)
	}
	return fmt.Sprintf("%d:%s", n, fp), n, nil
}

// SaveLexicalIndex stores (replaces) a project's lexical index.
func (s *Store) SaveLexicalIndex(ctx context.Context, info LexicalIndexInfo, data []byte) error {
	params := objectOrEmpty(info.Params)
	_, err := s.pool.Exec(ctx, `INSERT INTO lexical_indexes (project_id, fingerprint, n_docs, n_terms, params, data)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (project_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, n_docs = EXCLUDED.n_docs,
			n_terms = EXCLUDED.n_terms, params = EXCLUDED.params, data = EXCLUDED.data, built_at = now()`,
		info.ProjectID, info.Fingerprint, info.NumDocs, info.NumTerms, params, data)
	if err != nil {
		return fmt.Errorf("store: save lexical index: %w", err)
	}
	return nil
}

// LexicalIndexInfo returns the description of a project's stored index
// (ErrNotFound when none was built).
func (s *Store) LexicalIndexInfo(ctx context.Context, projectID int64) (LexicalIndexInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT project_id, fingerprint, n_docs, n_terms, params, built_at
		FROM lexical_indexes WHERE project_id = $1`, projectID)
	info, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[LexicalIndexInfo])
	if errors.Is(err, pgx.ErrNoRows) {
		return LexicalIndexInfo{}, fmt.Errorf("store: lexical index of project %d: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return LexicalIndexInfo{}, fmt.Errorf("store: lexical index: %w", err)
	}
	return info, nil
}

// LexicalIndexData returns a project's stored index and its fingerprint.
func (s *Store) LexicalIndexData(ctx context.Context, projectID int64) (data []byte, fingerprint string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT data, fingerprint FROM lexical_indexes WHERE project_id = $1`, projectID).Scan(&data, &fingerprint)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", fmt.Errorf("store: lexical index of project %d: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("store: lexical index: %w", err)
	}
	return data, fingerprint, nil
}
