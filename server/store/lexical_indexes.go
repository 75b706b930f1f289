package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// lexicalChunkSize bounds one stored chunk of an encoded lexical index
// (lexical_index_chunks, migration 0101): far below PostgreSQL's 1 GB limit
// on one value and one bind message, and the most a save holds in memory
// besides the index itself.
const lexicalChunkSize = 32 << 20

// LexicalIndexInfo describes a persisted lexical index (without its data).
type LexicalIndexInfo struct {
	ProjectID   int64           `db:"project_id"`
	Fingerprint string          `db:"fingerprint"`
	NumDocs     int             `db:"n_docs"`
	NumTerms    int             `db:"n_terms"`
	Params      json.RawMessage `db:"params"`
	// Bytes is the encoded index's size (set by SaveLexicalIndex).
	Bytes   int64     `db:"n_bytes"`
	BuiltAt time.Time `db:"built_at"`
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

// SaveLexicalIndex stores (replaces) a project's lexical index: encode
// writes the encoded index to w, which stores it in chunks of at most 32 MiB
// as they fill, so neither PostgreSQL's 1 GB limit on one value nor a second
// copy of the whole index in memory bounds the index's size. The row and
// all its chunks are replaced in one transaction: when encode (or a write)
// fails, the previous index stays as it was, and a reader sees either the
// previous index or the new one. info.Bytes and info.BuiltAt are ignored;
// it returns the number of bytes stored.
func (s *Store) SaveLexicalIndex(ctx context.Context, info LexicalIndexInfo, encode func(w io.Writer) error) (int64, error) {
	return s.saveLexicalIndex(ctx, info, encode, lexicalChunkSize)
}

// saveLexicalIndex is SaveLexicalIndex with chunks of at most chunkSize
// bytes (the tests store many small chunks).
func (s *Store) saveLexicalIndex(ctx context.Context, info LexicalIndexInfo, encode func(w io.Writer) error, chunkSize int) (int64, error) {
	if chunkSize <= 0 {
		return 0, fmt.Errorf("store: save lexical index: chunk size %d is not positive", chunkSize)
	}
	params := objectOrEmpty(info.Params)
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The row first: its lock makes concurrent saves of one project
		// take turns, each replacing all of the previous one's chunks.
		_, err := tx.Exec(ctx, `INSERT INTO lexical_indexes (project_id, fingerprint, n_docs, n_terms, params, n_bytes)
			VALUES ($1, $2, $3, $4, $5, 0)
			ON CONFLICT (project_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, n_docs = EXCLUDED.n_docs,
				n_terms = EXCLUDED.n_terms, params = EXCLUDED.params, n_bytes = 0, built_at = now()`,
			info.ProjectID, info.Fingerprint, info.NumDocs, info.NumTerms, params)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM lexical_index_chunks WHERE project_id = $1`, info.ProjectID); err != nil {
			return err
		}
		cw := &chunkWriter{ctx: ctx, tx: tx, projectID: info.ProjectID, buf: make([]byte, 0, chunkSize)}
		if err := encode(cw); err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		// A write error the encoder did not pass on still fails the save.
		if err := cw.flush(); err != nil {
			return err
		}
		n = cw.total
		_, err = tx.Exec(ctx, `UPDATE lexical_indexes SET n_bytes = $2 WHERE project_id = $1`, info.ProjectID, n)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: save lexical index of project %d: %w", info.ProjectID, err)
	}
	return n, nil
}

// chunkWriter stores what is written to it as lexical_index_chunks rows of
// one project, in seq order, each of cap(buf) bytes but the last.
type chunkWriter struct {
	ctx       context.Context
	tx        pgx.Tx
	projectID int64
	buf       []byte
	seq       int
	total     int64
	err       error // the first failed insert: every later write returns it
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if w.err != nil {
			return written, w.err
		}
		k := min(len(p), cap(w.buf)-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		written += k
		if len(w.buf) == cap(w.buf) {
			w.flush()
		}
	}
	return written, w.err
}

// flush inserts the buffered bytes (if any) as the next chunk.
func (w *chunkWriter) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	_, err := w.tx.Exec(w.ctx, `INSERT INTO lexical_index_chunks (project_id, seq, data) VALUES ($1, $2, $3)`,
		w.projectID, w.seq, w.buf)
	if err != nil {
		w.err = fmt.Errorf("chunk %d: %w", w.seq, err)
		return w.err
	}
	w.seq++
	w.total += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// LexicalIndexInfo returns the description of a project's stored index
// (ErrNotFound when none was built).
func (s *Store) LexicalIndexInfo(ctx context.Context, projectID int64) (LexicalIndexInfo, error) {
	rows, _ := s.pool.Query(ctx, `SELECT project_id, fingerprint, n_docs, n_terms, params, n_bytes, built_at
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

// LexicalIndexData returns a project's stored index (its chunks joined in
// seq order, into one buffer of the index's size) and the fingerprint it was
// built for, both read from one snapshot: never half of one save and half
// of another.
func (s *Store) LexicalIndexData(ctx context.Context, projectID int64) (data []byte, fingerprint string, err error) {
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err = pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		var size int64
		err := tx.QueryRow(ctx, `SELECT fingerprint, n_bytes FROM lexical_indexes WHERE project_id = $1`, projectID).
			Scan(&fingerprint, &size)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: lexical index of project %d: %w", projectID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if size < 0 || size > math.MaxInt {
			return fmt.Errorf("stored size %d bytes is out of range", size)
		}
		data = make([]byte, 0, size)
		rows, err := tx.Query(ctx, `SELECT seq, data FROM lexical_index_chunks WHERE project_id = $1 ORDER BY seq`, projectID)
		if err != nil {
			return err
		}
		defer rows.Close()
		next := 0
		for rows.Next() {
			var seq int
			var chunk pgtype.DriverBytes // the driver's buffer, valid until the next row
			if err := rows.Scan(&seq, &chunk); err != nil {
				return err
			}
			if seq != next {
				return fmt.Errorf("chunk %d is missing (next stored: %d)", next, seq)
			}
			if int64(len(data))+int64(len(chunk)) > size {
				return fmt.Errorf("chunks hold more than the stored size %d bytes", size)
			}
			data = append(data, chunk...)
			next++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if int64(len(data)) != size {
			return fmt.Errorf("chunks hold %d bytes, the stored size is %d", len(data), size)
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", fmt.Errorf("store: lexical index of project %d: %w", projectID, err)
	}
	return data, fingerprint, nil
}
