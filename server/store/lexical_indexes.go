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
		cw := &chunkWriter{ctx: ctx, tx: tx, projectID: info.ProjectID, chunkSize: chunkSize}
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
// one project, in seq order, each of chunkSize bytes but the last.
type chunkWriter struct {
	ctx       context.Context
	tx        pgx.Tx
	projectID int64
	chunkSize int
	buf       []byte // grows to chunkSize (a small index needs no 32 MiB)
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
		k := min(len(p), w.chunkSize-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		written += k
		if len(w.buf) == w.chunkSize {
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

// ReadLexicalIndex calls fn with a reader over a project's stored index
// (its chunks in seq order, one chunk in memory at a time), the index's size
// and the fingerprint it was built for, all read from one snapshot: never
// half of one save and half of another. The reader fails when the chunks
// do not hold exactly size bytes; fn need not read it (a stale index). It
// is ErrNotFound when the project has no index.
func (s *Store) ReadLexicalIndex(ctx context.Context, projectID int64, fn func(r io.Reader, size int64, fingerprint string) error) error {
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		var fingerprint string
		var size int64
		err := tx.QueryRow(ctx, `SELECT fingerprint, n_bytes FROM lexical_indexes WHERE project_id = $1`, projectID).
			Scan(&fingerprint, &size)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: lexical index of project %d: %w", projectID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		// The chunks are queried at the first read: not at all when fn
		// does not read (a stale index).
		cr := &chunkReader{ctx: ctx, tx: tx, projectID: projectID, size: size}
		defer cr.close()
		return fn(cr, size, fingerprint)
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("store: lexical index of project %d: %w", projectID, err)
	}
	return nil
}

// chunkReader reads the rows of lexical_index_chunks (seq, data) in order
// as one stream of size bytes.
type chunkReader struct {
	ctx       context.Context
	tx        pgx.Tx
	projectID int64
	rows      pgx.Rows // nil before the first read
	size      int64
	chunk     pgtype.DriverBytes // the driver's buffer: valid until the next row
	next      int                // the seq of the next row
	total     int64              // bytes of the rows read so far
	err       error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunk) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		if c.err = c.nextChunk(); c.err != nil {
			c.chunk = nil // a chunk past the size is not read
		}
	}
	n := copy(p, c.chunk)
	c.chunk = c.chunk[n:]
	return n, nil
}

// nextChunk moves to the next row, checking that none is missing and that
// the rows hold exactly size bytes; io.EOF after the last.
func (c *chunkReader) nextChunk() error {
	if c.rows == nil {
		rows, err := c.tx.Query(c.ctx, `SELECT seq, data FROM lexical_index_chunks WHERE project_id = $1 ORDER BY seq`, c.projectID)
		if err != nil {
			return err
		}
		c.rows = rows
	}
	if !c.rows.Next() {
		if err := c.rows.Err(); err != nil {
			return err
		}
		if c.total != c.size {
			return fmt.Errorf("chunks hold %d bytes, the stored size is %d: %w", c.total, c.size, io.ErrUnexpectedEOF)
		}
		return io.EOF
	}
	var seq int
	if err := c.rows.Scan(&seq, &c.chunk); err != nil {
		return err
	}
	if seq != c.next {
		return fmt.Errorf("chunk %d is missing (next stored: %d)", c.next, seq)
	}
	c.next++
	c.total += int64(len(c.chunk))
	if c.total > c.size {
		return fmt.Errorf("chunks hold more than the stored size %d bytes", c.size)
	}
	return nil
}

func (c *chunkReader) close() {
	if c.rows != nil {
		c.rows.Close()
	}
}

// LexicalIndexData returns a project's stored index (its chunks joined in
// one buffer of the index's size) and the fingerprint it was built for,
// read as ReadLexicalIndex does.
func (s *Store) LexicalIndexData(ctx context.Context, projectID int64) (data []byte, fingerprint string, err error) {
	err = s.ReadLexicalIndex(ctx, projectID, func(r io.Reader, size int64, fp string) error {
		if size < 0 || size > math.MaxInt {
			return fmt.Errorf("stored size %d bytes is out of range", size)
		}
		data, fingerprint = make([]byte, size), fp
		if _, err := io.ReadFull(r, data); err != nil {
			return err
		}
		// The end of the chunks (which checks their total) must come next.
		if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			return fmt.Errorf("after %d bytes: %d more, %v", size, n, err)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return data, fingerprint, nil
}
